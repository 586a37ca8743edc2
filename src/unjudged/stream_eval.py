"""Evaluate runs bigger than memory: a run grouped by topic is read and scored a batch of
complete topics at a time, keeping only the per-topic values.

The values are those of the in-memory path (`unjudged._evaluate.score`) to the last bit. That
path pads every ranking to the run's longest and every pool to the largest, and a sum over a
row can round differently at another width. So each batch is scored at the widths the whole
run most likely has (the longest ranking so far, the qrels' largest pool) and keeps, besides its
values, the judged cells of its rankings (a few bytes per judged document); the batches whose
guess turns out wrong are scored again at the end."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np
import pyarrow as pa

from unjudged.data.diversity import needs_subtopics
from unjudged.data.judged import NONPOOL, PAD, Judged, Pool, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.errors import FormatError, IncompatibleInputsError
from unjudged.io import read_qrels
from unjudged.io._columns import TOPIC_TYPE
from unjudged.io._source import display_name
from unjudged.io.paths import NameMode, Notify, RunNamer, expand_paths
from unjudged.io._validate import RUN
from unjudged.io.runs import _NAMES, _first_tag, build_run
from unjudged.io.stream import BLOCK_SIZE, TopicBatch, iter_topic_batches
from unjudged.measures import Measure, parse_measures
from unjudged.policies import Policies
from unjudged.results import Results, RunResult

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

    def judged(self, qrels: Qrels, pol: Policies) -> Judged:
        """The batch's Judged again, at its own widths."""
        n, depth = len(self.topics), self.widths[0]
        grades = np.full((n, depth), NONPOOL, dtype=self.grades.dtype)
        grades[np.arange(depth) >= self.length[:, None]] = PAD
        grades.ravel()[self.cells] = self.grades
        return Judged("", self.topics, grades, self.length,
                      Pool.build(qrels, self.topics, pol.negative), self.retrieved, pol)


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
    refuse_unstreamable(measures)
    sources = [runs] if isinstance(runs, (str, bytes)) or hasattr(runs, "__fspath__") else runs
    paths = expand_paths(sources, notify)
    namer = RunNamer(paths, names, notify)
    out = []
    for i, source in enumerate(paths):
        result, topics = _score_run(source, namer.names[i], qrels, measures, policies,
                                    block_size, progress)
        result = namer.settle(i, result)
        if checked is not None:
            checked(result.name, topics, display_name(source))
        out.append(RunResult(result.name, *result.rest))
    return Results(out)


@dataclass(eq=False)
class _Named:
    """A run's result under the name RunNamer settles on."""

    name: str
    rest: tuple


def evaluate_stream(runs: Any, qrels: Any, measures: Any, *, per_topic: bool = True,
                    summary: bool = True, policies: Policies | None = None,
                    block_size: int = BLOCK_SIZE, **policy_kw: Any):
    """`unjudged.evaluate` for run files grouped by topic that need not fit in memory: the
    same tidy DataFrame (run, topic, measure, value)."""
    pol = (policies or Policies()).but(**policy_kw) if policy_kw else (policies or Policies())
    q = read_qrels(qrels)
    results = score_stream(runs, q, parse_measures(measures), pol, block_size=block_size)
    return results.to_pandas(per_topic=per_topic, summary=summary)


def refuse_unstreamable(measures: list[Measure]) -> None:
    """Measures whose judged rankings carry more than grades (subtopic masks) are scored
    in memory only."""
    if needs_subtopics(measures):
        names = ", ".join(m.name for m in measures if needs_subtopics([m]))
        raise IncompatibleInputsError(f"--stream cannot score diversity measures ({names}); "
                                      "leave out --stream")


def _score_run(source, name: str | None, qrels: Qrels, measures: list[Measure], pol: Policies,
               block_size: int, progress: Progress | None) -> tuple[_Named, list[str]]:
    """The run's result and its topics (sorted)."""
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
        batches.append(_score_batch(_judged(run, qrels, pol), measures, guess))
        guess = (max(guess[0], batches[-1].widths[0]), guess[1])
        if progress is not None:
            progress(batch.lines, len(have))
        del run, batch
    assert name is not None  # the reader refuses an empty run
    lacking = [t for t in qrels.topics if t not in have] if pol.complete else []
    if lacking:  # -c: the qrels topics the run lacks count, as empty rankings
        batches.append(_score_batch(_not_retrieved(lacking, qrels, pol), measures, guess))
    widths = tuple(np.max([b.widths for b in batches], axis=0).tolist())
    for b in batches:
        if b.scored != widths and b.topics:
            b.values = _values(_widen(b.judged(qrels, pol), widths), measures)
    result = _assemble(name, batches, qrels, measures)
    return _Named(name, (result.topics, result.measures, result.values)), sorted(have)


def _batch_run(batch: TopicBatch, name: str, pol: Policies, qrels: Qrels) -> Run:
    table = batch.table
    rank = table["rank"] if pol.ties == "rank" else None
    try:
        return build_run(None, table["docno"], table["score"], rank, name=name,
                         source=batch.path, ties=pol.ties, data=batch.data,
                         qrels=qrels, blocks=batch.blocks)
    except FormatError as exc:
        raise batch.file_error(exc) from None


def _judged(run: Run, qrels: Qrels, pol: Policies) -> Judged:
    """The batch's judged rankings, as `score` builds them for these topics."""
    topics = [t for t in qrels.topics if t in run.topic_index]
    pool = Pool.build(qrels, topics, pol.negative)
    judged = judge(run, qrels, pol.but(complete=False), pool)  # diversity measures refused
    judged.policies = pol
    return judged


def _not_retrieved(topics: list[str], qrels: Qrels, pol: Policies) -> Judged:
    """What `judge` gives under -c for qrels topics a run lacks: empty rankings."""
    n = len(topics)
    return Judged("", topics, np.full((n, 1), PAD, dtype=np.int16), np.zeros(n, np.int64),
                  Pool.build(qrels, topics, pol.negative), np.zeros(n, dtype=bool), pol)


def _score_batch(judged: Judged, measures: list[Measure], guess: tuple[int, int]) -> _Batch:
    own = _widths(judged)
    scored = (max(own[0], guess[0]), max(own[1], guess[1]))
    values = _values(_widen(judged, scored), measures)
    g = judged.grades
    cells = np.flatnonzero((g != NONPOOL) & (g != PAD))
    cells = cells.astype(np.int32 if g.size < 2**31 else np.int64)
    return _Batch(judged.topics, values, own, scored, judged.length, cells, g.ravel()[cells],
                  judged.retrieved)


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
    grades = np.pad(g, ((0, 0), (0, depth - g.shape[-1])), constant_values=PAD)
    pool = replace(judged.pool, sorted_grades=np.pad(sg, ((0, 0), (0, ideal - sg.shape[-1])),
                                                     constant_values=-1))
    return replace(judged, grades=grades, pool=pool)


def _values(judged: Judged, measures: list[Measure]) -> np.ndarray:
    values = np.empty((len(judged.topics), len(measures)), dtype=np.float64)
    for i, m in enumerate(measures):
        values[:, i] = m.compute(judged) if judged.topics else 0.0
    return values


def _assemble(name: str, batches: list[_Batch], qrels: Qrels, measures: list[Measure]
              ) -> RunResult:
    """One RunResult with the topics in the order `score` gives them (the qrels')."""
    got = [t for b in batches for t in b.topics]
    values = np.concatenate([b.values for b in batches]) if batches else \
        np.zeros((0, len(measures)))
    where = {t: i for i, t in enumerate(got)}
    topics = [t for t in qrels.topics if t in where]
    order = np.array([where[t] for t in topics], dtype=np.int64)
    return RunResult(name, topics, measures, values[order] if order.size else
                     np.empty((0, len(measures))))

