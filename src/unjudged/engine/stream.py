"""Evaluate runs bigger than memory: a run grouped by topic is read and scored a batch of
complete topics at a time, keeping only the per-topic values.

The values are those of the in-memory path (`unjudged.engine.score.score`) to the last bit. That
path pads every ranking to the run's longest and every pool to the largest, and a sum over a
row can round differently at another width. So each batch is scored at the widths the whole
run most likely has (the longest ranking so far, the qrels' largest pool) and keeps, besides its
values, the judged cells of its rankings (a few bytes per judged document); the batches whose
guess turns out wrong are scored again at the end."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pyarrow as pa

from unjudged.data.diversity import DiversityJudged, judge_diversity, needs_subtopics, subtopics_of
from unjudged.data.judged import NONPOOL, PAD, Judged, Pool, evaluated_topics, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.data.sampled import SampledQrels
from unjudged.engine.results import Results, RunResult
from unjudged.engine.score import measure_values, policies_from
from unjudged.errors import FormatError
from unjudged.io import read_qrels
from unjudged.io._columns import TOPIC_TYPE
from unjudged.io._source import display_name
from unjudged.io._validate import RUN
from unjudged.io.paths import NameMode, Notify, RunNamer, expand_paths
from unjudged.io.runs import _NAMES, _first_tag, build_run
from unjudged.io.stream import BLOCK_SIZE, TopicBatch, iter_topic_batches
from unjudged.measures import Measure, measures_given, parse_measures  # noqa: F401 (doctests)
from unjudged.policies import Policies

#: progress(lines, topics) after each batch
Progress = Callable[[int, int], None]
#: checked(run name, its topics, its file) after each run
Checked = Callable[[str, list[str], str], None]


@dataclass(eq=False)
class _Batch:
    """One batch's values, and its judged rankings kept small to score them again at other
    widths: only the cells the qrels judge (a few percent), not every retrieved document."""

    topics: list[str]  # evaluated topics, qrels order
    values: np.ndarray  # (topics, measures)
    widths: tuple[int, int]  # the batch's own (longest ranking, largest pool)
    scored: tuple[int, int]  # the widths its values were computed at
    length: np.ndarray  # Judged.length
    cells: np.ndarray  # flat positions in the (topics, widths[0]) grades that are not NONPOOL
    grades: np.ndarray  # and their grades
    retrieved: np.ndarray
    mask: np.ndarray | None  # and their subtopic masks (diversity measures)
    sgrade: np.ndarray | None = None  # and their grades per subtopic (graded diversity qrels)

    def judged(self, judging: _Judging) -> Judged:
        """The batch's Judged again, at its own widths."""
        n, depth = len(self.topics), self.widths[0]
        grades = np.full((n, depth), NONPOOL, dtype=self.grades.dtype)
        grades[np.arange(depth) >= self.length[:, None]] = PAD
        grades.ravel()[self.cells] = self.grades
        mask = None
        if self.mask is not None:
            mask = np.zeros((n, depth), np.uint64)
            mask.ravel()[self.cells] = self.mask
        sgrade: np.ndarray | None = None
        if self.sgrade is not None:
            flat = np.zeros((n * depth, self.sgrade.shape[-1]), np.int8)
            flat[self.cells] = self.sgrade
            sgrade = flat.reshape(n, depth, -1)
        return judging.rebuild(self.topics, grades, self.length, self.retrieved, mask, sgrade)


def score_stream(runs: Any, qrels: Qrels, measures: list[Measure],
                 policies: Policies = Policies(), *, block_size: int = BLOCK_SIZE,
                 progress: Progress | None = None, checked: Checked | None = None,
                 names: NameMode = "tag", notify: Notify | None = None) -> Results:
    """Score runs grouped by topic, each read in blocks of `block_size` bytes: the same
    Results as `score(read_runs(runs), ...)`, in memory bounded by a block and the largest
    topic. Runs are named as `read_runs` names them (`names`, notes to `notify`);
    `checked(name, topics, source)` hears of each run's topics once it is read.

    Example:
        >>> import io
        >>> from unjudged.io import read_qrels
        >>> q = read_qrels({"1": {"a": 1}, "2": {"c": 1}})
        >>> text = b"1 Q0 a 1 2 r\\n1 Q0 b 2 1 r\\n2 Q0 b 1 3 r\\n2 Q0 c 2 1 r\\n"
        >>> res = score_stream([io.BytesIO(text)], q, parse_measures(["P@1", "RR"]))
        >>> res.runs[0].topics, res.runs[0].values.tolist()
        (['1', '2'], [[1.0, 1.0], [0.0, 0.5]])
    """
    sources = [runs] if isinstance(runs, (str, bytes)) or hasattr(runs, "__fspath__") else runs
    paths = expand_paths(sources, notify)
    namer = RunNamer(paths, names, notify)
    out = []
    judging = _Judging(qrels, policies, needs_subtopics(measures))
    for i, source in enumerate(paths):
        result, topics = _score_run(source, namer.names[i], judging, measures, block_size,
                                    progress)
        result = replace(result, run=namer.settle_name(i, result.run))
        if checked is not None:
            checked(result.run, topics, display_name(source))
        out.append(result)
    return Results(out)


def evaluate_stream(runs: Any, qrels: Any, measures: Any, *, per_topic: bool = True,
                    summary: bool = True, policies: Policies | None = None,
                    names: NameMode = "tag", block_size: int = BLOCK_SIZE, **policy_kw: Any):
    """`unjudged.evaluate` for run files (paths, '-' or binary streams) grouped by topic that
    need not fit in memory: the same tidy DataFrame (run, topic, measure, value)."""
    pol = policies_from(policies, policy_kw)
    q = read_qrels(qrels)
    results = score_stream(runs, q, measures_given(measures), pol, block_size=block_size,
                           names=names)
    return results.to_pandas(per_topic=per_topic, summary=summary)


class _Judging:
    """How `score` judges a batch of rankings: `judge`, or `judge_diversity` when a measure
    needs subtopics (their facts, and the qrels as sampled ones, built once for all batches)."""

    def __init__(self, qrels: Qrels, pol: Policies, subtopics: bool) -> None:
        self.qrels, self.pol = qrels, pol
        self.subtopics = subtopics_of(qrels) if subtopics else None
        self.sampled = qrels if not subtopics or isinstance(qrels, SampledQrels) else \
            SampledQrels.from_qrels(qrels)

    def judge(self, run: Run) -> Judged:
        """The batch's judged rankings, as `score` builds them for these topics."""
        pol, qrels = self.pol, self.qrels
        topics = evaluated_topics(run, qrels, False)
        pool = Pool.build(qrels, topics, pol.negative)
        if self.subtopics is None:
            judged = judge(run, qrels, pol.but(complete=False), pool)
        else:
            judged = judge_diversity(run, self.sampled, pol.but(complete=False), pool,
                                     self.subtopics)
            judged.qidx = qrels.topic_codes(judged.topics)
        judged.policies = pol
        return judged

    def rebuild(self, topics: list[str], grades: np.ndarray, length: np.ndarray,
                retrieved: np.ndarray, mask: np.ndarray | None,
                sgrade: np.ndarray | None = None) -> Judged:
        """A Judged from its parts (the pool built again)."""
        pool = Pool.build(self.qrels, topics, self.pol.negative)
        if self.subtopics is None:
            return Judged("", topics, grades, length, pool, retrieved, self.pol)
        return DiversityJudged("", topics, grades, length, pool, retrieved, self.pol,
                               np.zeros(grades.shape, np.uint64) if mask is None else mask,
                               self.subtopics, self.qrels.topic_codes(topics), sgrade)


def _score_run(source, name: str | None, judging: _Judging, measures: list[Measure],
               block_size: int, progress: Progress | None) -> tuple[RunResult, list[str]]:
    """The run's result and its topics (sorted)."""
    qrels, pol = judging.qrels, judging.pol
    include = ["qid", "docno", "score"] + (["rank"] if pol.ties == "rank" else [])
    types = {"score": pa.float64(), "qid": TOPIC_TYPE}
    have: set[str] = set()
    batches: list[_Batch] = []
    # scored at the widths the whole run most likely has, so that no batch is scored again:
    # the longest ranking so far, and the qrels' largest topic (which runs usually have)
    guess = (1, _largest_pool(qrels, pol))
    for batch in iter_topic_batches(source, _NAMES, RUN, include, types, block_size):
        name = name or _first_tag(batch.data)
        run = _batch_run(batch, name, pol, qrels)
        have.update(run.topics)
        batches.append(_score_batch(judging.judge(run), measures, guess))
        guess = (max(guess[0], batches[-1].widths[0]), guess[1])
        if progress is not None:
            progress(batch.lines, len(have))
        del run, batch
    assert name is not None  # the reader refuses an empty run
    lacking = [t for t in qrels.topics if t not in have] if pol.complete else []
    if lacking:  # -c: the qrels topics the run lacks count, as empty rankings
        n = len(lacking)
        empty = judging.rebuild(lacking, np.full((n, 1), PAD, dtype=np.int16),
                                np.zeros(n, np.int64), np.zeros(n, dtype=bool), None)
        batches.append(_score_batch(empty, measures, guess))
    widths = tuple(np.max([b.widths for b in batches], axis=0).tolist())
    for b in batches:
        if b.scored != widths and b.topics:
            b.values = measure_values(_widen(b.judged(judging), widths), measures)
    return _assemble(name, batches, qrels, measures), sorted(have)


def _batch_run(batch: TopicBatch, name: str, pol: Policies, qrels: Qrels) -> Run:
    table = batch.table
    rank = table["rank"] if pol.ties == "rank" else None
    try:
        return build_run(None, table["docno"], table["score"], rank, name=name,
                         source=batch.path, ties=pol.ties, data=batch.data,
                         qrels=qrels, blocks=batch.blocks)
    except FormatError as exc:
        raise batch.file_error(exc) from None


def _score_batch(judged: Judged, measures: list[Measure], guess: tuple[int, int]) -> _Batch:
    own = _widths(judged)
    scored = (max(own[0], guess[0]), max(own[1], guess[1]))
    values = measure_values(_widen(judged, scored), measures)
    g = judged.grades
    cells = np.flatnonzero((g != NONPOOL) & (g != PAD))
    cells = cells.astype(np.int32 if g.size < 2**31 else np.int64)
    mask = getattr(judged, "mask", None)  # subtopics: only judged cells have any
    sg = getattr(judged, "sgrade", None)
    return _Batch(judged.topics, values, own, scored, judged.length, cells, g.ravel()[cells],
                  judged.retrieved, None if mask is None else mask.ravel()[cells],
                  None if sg is None else sg.reshape(-1, sg.shape[-1])[cells])


def _largest_pool(qrels: Qrels, pol: Policies) -> int:
    """The most judged documents of any qrels topic: the width of Pool.build's array."""
    judged = qrels.key_grades >= 0 if pol.negative == "unjudged" else \
        np.ones(qrels.key_grades.size, dtype=bool)
    total = np.concatenate(([0], np.cumsum(judged, dtype=np.int64)))
    per_topic = total[qrels.topic_offsets[1:]] - total[qrels.topic_offsets[:-1]]
    return max(int(per_topic.max(initial=0)), 1)


def _widths(judged: Judged) -> tuple[int, int]:
    return judged.grades.shape[-1], judged.pool.sorted_grades.shape[-1]


def _widen(judged: Judged, widths: tuple[int, ...]) -> Judged:
    """Pad rankings with PAD and pools with -1, as a batch of the whole run has them."""
    depth, ideal = widths
    g, sg = judged.grades, judged.pool.sorted_grades
    if (g.shape[-1], sg.shape[-1]) == widths:
        return judged
    wider = ((0, 0), (0, depth - g.shape[-1]))
    pool = replace(judged.pool, sorted_grades=np.pad(sg, ((0, 0), (0, ideal - sg.shape[-1])),
                                                     constant_values=-1))
    grades = np.pad(g, wider, constant_values=PAD)
    if isinstance(judged, DiversityJudged):  # the subtopic masks are aligned with the grades
        return replace(judged, grades=grades, pool=pool, mask=np.pad(judged.mask, wider))
    return replace(judged, grades=grades, pool=pool)


def _assemble(name: str, batches: list[_Batch], qrels: Qrels, measures: list[Measure]
              ) -> RunResult:
    """One RunResult with the topics in the order `score` gives them (the qrels')."""
    got = [t for b in batches for t in b.topics]
    values = np.concatenate([b.values for b in batches])  # a run has a batch at least
    where = {t: i for i, t in enumerate(got)}
    topics = [t for t in qrels.topics if t in where]
    order = np.array([where[t] for t in topics], dtype=np.int64)
    return RunResult(name, topics, measures, values[order])

