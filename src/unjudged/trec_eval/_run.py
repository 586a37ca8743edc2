"""`unjudged trec_eval`: parse trec_eval's -m syntax, evaluate, print trec_eval's layout."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from unjudged.data.judged import NONPOOL, PAD, UNJUDGED, Judged, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.errors import MeasureSpecError, UnjudgedError
from unjudged.measures import Measure
from unjudged.policies import Policies
from unjudged.trec_eval import _order
from unjudged.trec_eval._families import BY_NAME, FAMILIES, SETS, Family, Output


def parse_requests(specs: list[str]) -> dict[str, tuple[object, bool]]:
    """-m arguments to {family: (params, given explicitly)}; later requests win."""
    wanted: dict[str, tuple[object, bool]] = {}
    bad: list[str] = []
    for spec in specs or ["official"]:
        if spec in SETS:
            for name in SETS[spec]:
                if name not in wanted or not wanted[name][1]:
                    wanted[name] = (BY_NAME[name].default, False)
            continue
        name, dot, params = spec.partition(".")
        fam = BY_NAME.get(name)
        if fam is None:
            bad.append(spec)
            continue
        if not dot or params == "":
            wanted.setdefault(name, (fam.default, False))
            continue
        try:
            wanted[name] = (_params(fam, params), True)
        except ValueError:
            raise MeasureSpecError(f"bad parameters {params!r} for trec_eval measure {name}") \
                from None
    if bad:
        import difflib

        names = list(BY_NAME) + list(SETS)
        hints = [f"{b!r}" + (f" (did you mean {', '.join(m)}?)"
                             if (m := difflib.get_close_matches(b, names, n=3)) else "")
                 for b in bad]
        raise MeasureSpecError("unknown trec_eval measure " + "; ".join(hints))
    return wanted


def _params(fam: Family, text: str) -> object:
    if fam.kind == "cutoffs":
        return tuple(sorted({int(float(x)) for x in text.split(",")}))
    if fam.kind == "floats":
        return tuple(sorted({float(x) for x in text.split(",")}))
    if fam.kind == "raw":
        return text
    raise ValueError(text)


def _outputs(wanted: dict[str, tuple[object, bool]]) -> list[tuple[Family, str, Output]]:
    """(family, output name, Measure or special) in trec_eval's printing order."""
    out: list[tuple[Family, str, Output]] = []
    for fam in FAMILIES:
        if fam.name not in wanted:
            continue
        params, given = wanted[fam.name]
        for suffix, what in fam.build(params, given):
            out.append((fam, fam.name if suffix is None else f"{fam.name}_{suffix}", what))
    return out


def relstring(j: Judged, length: int) -> list[str]:
    """trec_eval's relstring: the grade digit per rank ('>' above 9), '-' for documents the qrels
    lack, '.' for pooled-but-unjudged ones (negative grades)."""
    g = j.cut(length)
    out = []
    for row, n in zip(g, np.minimum(j.length, length), strict=True):
        chars = ["." if v == UNJUDGED else "-" if v in (NONPOOL, PAD) else ">" if v > 9 else str(v)
                 for v in row[:n].tolist()]
        out.append("'" + "".join(chars) + "'")
    return out


def _line(name: str, topic: str, value: str, z: str = "") -> str:
    # trec_eval pads the measure name and then puts the Z of -Z in front
    return f"{z}{name:<22}\t{topic}\t{value}\n"


def _fmt(value: float | np.ndarray, kind: str) -> str:
    if kind != "int" and np.isnan(value):
        return "  -nan"  # C's printf("%6.4f") of 0.0/0.0, whose sign bit x86 sets
    return str(int(round(float(value)))) if kind == "int" else f"{value:.4f}"


def _lround(x: np.ndarray) -> np.ndarray:
    """C's lround for x >= 0: halves away from zero (Python's round goes to even)."""
    low = np.floor(x)
    return low + (x - low >= 0.5)


def zero_over_zero(outputs: list[tuple[Family, str, Output]], values: dict[str, np.ndarray],
                   j: Judged) -> None:
    """NaN where trec_eval 10.0 divides 0 by 0: iprec_at_recall and 11pt_avg start from the
    precision num_rel_ret / num_ret, and with no document left (-J drops every retrieved one,
    and with -c also the one stand-in document of a topic the run lacks) that is 0/0. It
    reaches each recall level whose document count lround(level * num_rel) is 0, and through
    the sum 11pt_avg as soon as one of its levels does; trec_eval prints it as -nan. Rndcg
    averages nDCG over the ranks where the ideal gain drops, and a topic with relevant
    documents but no positive gain (-l 0 with only grade-0 judgments, or gains of 0) has none:
    0/0 as well."""
    from unjudged.measures.dcg import positive_ideal

    empty = (j.length == 0) & (j.retrieved | j.policies.judged_only)
    num_rel = j.pool.num_rel(j.policies.rel_level).astype(np.float64)
    for fam, name, what in outputs:
        if fam.name == "Rndcg" and not isinstance(what, tuple):
            kw = what.kwargs()
            hit = (num_rel > 0) & (positive_ideal(j, kw.get("dcg", "log2"),
                                                  kw.get("gains")) == 0)
        elif not empty.any():
            continue
        elif fam.name == "iprec_at_recall" and not isinstance(what, tuple):
            level = float(dict(what.params)["recall"])
            hit = empty & (_lround(level * num_rel) == 0)
        elif fam.name == "11pt_avg" and not isinstance(what, tuple):
            given = dict(what.params).get("levels")
            levels = [float(x) for x in given.split(",")] if given else [i / 10 for i in range(11)]
            hit = empty & np.any([_lround(x * num_rel) == 0 for x in levels], axis=0)
        else:
            continue
        values[name] = np.where(hit, np.nan, values[name])


#: families whose terms trec_eval adds in rank order (numpy would add them in pairs)
IN_ORDER: dict[str, Callable[[Judged, Measure], np.ndarray]] = {
    "map": lambda j, m: _order.average_precision(j),
    "gm_map": lambda j, m: _order.average_precision(j),
    "map_cut": lambda j, m: _order.average_precision(j, m.cutoff),
    "bpref": lambda j, m: _order.bpref(j),
    "gm_bpref": lambda j, m: _order.bpref(j),
    "11pt_avg": lambda j, m: _order.eleven_point(j, dict(m.params).get("levels")),
    "rbp_resid": lambda j, m: _order.rbp_resid(j, float(dict(m.params).get("p", 0.9))),
}


def check_format(outputs: list[tuple[Family, str, Output]], fmt: str) -> None:
    """Refuse measures that read other judgments than `-R fmt` gives (trec_eval stops too)."""
    reads = "prefs" if fmt in ("prefs", "qrels_prefs") else fmt
    bad = sorted({fam.name for fam, _n, _w in outputs if fam.needs not in ("any", reads)})
    if bad:
        hint = {"qrels": "-m official or all_trec", "prefs": "-m all_prefs or prefs",
                "qrels_jg": "-m qrels_jg"}[reads]
        raise MeasureSpecError(f"trec_eval measure{'s' if len(bad) > 1 else ''} "
                               f"{', '.join(bad)} cannot read -R {fmt} judgments (use {hint})")


def run_trec_eval(run: Run, qrels: Qrels, specs: list[str], policies: Policies,
                  per_query: bool = False, summary: bool = True,
                  zscores: dict[tuple[str, str], tuple[float, float]] | None = None,
                  collection_docs: int = 0) -> str:
    """Evaluate one run and return trec_eval's output text (`collection_docs`: -N, the
    collection's size, which only utility's fourth weight reads)."""
    outputs = _outputs(parse_requests(specs))
    if collection_docs:
        from unjudged.measures import parse_measure

        outputs = [(fam, name, parse_measure(f"Utility(weights='{what.kwargs()['weights']}', "
                                             f"docs={collection_docs})")
                    if isinstance(what, Measure) and fam.name == "utility" else what)
                   for fam, name, what in outputs]
    check_format(outputs, "qrels")
    j = judge(run, qrels, policies)
    if not j.topics:
        raise UnjudgedError(f"{run.source}: no topic of the run is in the qrels")
    _note_unjudged_topics(qrels, j.topics)
    values: dict[str, np.ndarray] = {}
    strings: dict[str, list[str]] = {}
    for fam, name, what in outputs:
        if isinstance(what, tuple):
            if what[1] == "relstring":
                strings[name] = relstring(j, int(what[2] or 10))
            continue
        values[name] = IN_ORDER[fam.name](j, what) if fam.name in IN_ORDER else what.compute(j)
    zero_over_zero(outputs, values, j)
    totals = {}
    if policies.complete:
        # under -c trec_eval's summary num_rel goes back to the qrels: every judgment graded
        # above 0 in every qrels topic, whatever -l says (m_num_rel.c, te_calc_avg_num_rel)
        totals = {name: float((qrels.key_grades > 0).sum()) for fam, name, _w in outputs
                  if fam.name == "num_rel"}
    return render(outputs, run.name, j.topics, values, strings, per_query, summary, zscores,
                  totals)


def _note_unjudged_topics(qrels: Qrels, topics: list[str]) -> None:
    """Say where trec_eval itself stops. It evaluates the topics in strcmp order, and
    form_res_rels sizes its per-grade counts by the topic's highest grade + 1: for a first topic
    whose judgments are all negative (pooled, none judged) that is 0 entries, which its
    allocator answers with no memory, and trec_eval 10.0 exits 4 ("Can't calculate measure").
    Later such topics reuse the first one's memory and count no relevant document, as here."""
    from unjudged.errors import note

    first = min(topics, key=lambda t: t.encode("utf-8"))
    code = int(qrels.topic_codes([first])[0])
    grades = qrels.topic_grades(code) if code >= 0 else qrels.key_grades[:0]
    if grades.size and grades.max() < 0:
        note(f"topic {first!r}, the first that trec_eval evaluates, has only negative grades "
             "(pooled, none judged): trec_eval 10.0 stops on it (exit 4, \"Can't calculate "
             "measure\"); here it is a topic without relevant documents")


def render(outputs: list[tuple[Family, str, Output]], run_name: str, topics: list[str],
           values: dict[str, np.ndarray], strings: dict[str, list[str]], per_query: bool,
           summary: bool, zscores: dict[tuple[str, str], tuple[float, float]] | None,
           totals: dict[str, float] | None = None) -> str:
    """trec_eval's text: per-topic lines (with -q), then the 'all' block (`totals` in place
    of a measure's aggregate where trec_eval computes its summary apart)."""
    z = "Z" if zscores is not None else ""
    if zscores is not None:
        for name, v in values.items():
            mean_std = [zscores.get((t, name), (0.0, 0.0)) for t in topics]
            mean = np.array([m for m, _ in mean_std])
            std = np.array([s for _, s in mean_std])
            values[name] = np.where(std > 0, (v - mean) / np.where(std > 0, std, 1.0), 0.0)
    text: list[str] = []
    if per_query:
        for t, topic in enumerate(topics):
            for fam, name, _what in outputs:
                if not fam.per_query:
                    continue
                if name in strings:
                    text.append(_line(name, topic, strings[name][t]))
                elif name in values:
                    kind = "float" if z else fam.value
                    text.append(_line(name, topic, _fmt(values[name][t], kind), z))
    if summary:
        for fam, name, what in outputs:
            if not fam.summary:
                continue
            if isinstance(what, tuple) and what[1] == "runid":
                text.append(_line(name, "all", run_name))
            elif isinstance(what, tuple) and what[1] == "num_q":
                text.append(_line(name, "all", _fmt(len(topics), "float" if z else "int"), z))
            elif name in values and not isinstance(what, tuple):  # (values come from Measures)
                how = what.spec.aggregate
                kind = "float" if z else fam.value
                value = (totals or {}).get(name)
                if value is None:
                    value = _order.aggregate(values[name], how)
                text.append(_line(name, "all", _fmt(value, kind), z))
    return "".join(text)


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """trec_eval's -Z file: `qid measure mean stddev` per line."""
    from unjudged.errors import FormatError
    from unjudged.io._source import read_bytes, text_lines
    from unjudged.io._validate import score_problem

    out: dict[tuple[str, str], tuple[float, float]] = {}
    for number, raw in text_lines(read_bytes(path), path):  # the readers' lines and numbers
        try:
            f = [field.decode("utf-8") for field in raw]
        except UnicodeDecodeError:
            raise FormatError(path, number, "not UTF-8 text (binary data?)") from None
        # nan or inf would turn every z-score into nan
        bad = len(f) < 4 or score_problem(raw[2]) or score_problem(raw[3])
        if bad:
            raise FormatError(path, number, "expected `qid measure mean stddev` with finite "
                              "numbers" + (f", got {f[2]!r} and {f[3]!r}" if len(f) >= 4 else ""))
        mean, std = float(f[2]), float(f[3])
        out[(f[0], f[1])] = (mean, std)
    return out
