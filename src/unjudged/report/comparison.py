"""A comparison table of many runs as LaTeX or Markdown (`unjudged eval -f latex|markdown`):
runs as rows, measures as columns, the best value in bold, and superscript letters naming the
runs a run is significantly better than (computed by unjudged.analysis.comparison)."""

from __future__ import annotations

from typing import Any

from unjudged.analysis.comparison import Comparison, compare_runs

#: The formats of `render_comparison`.
TABLE_FORMATS = ("latex", "markdown")

_TESTS = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
          "randomisation": "randomisation test", "bootstrap": "paired bootstrap test"}
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}"}
_MARKDOWN = "\\`*_|<"


def latex_text(text: str) -> str:
    r"""`text` with LaTeX's special characters escaped.

    Example:
        >>> print(latex_text("udel_fang_run1 & 100%"))
        udel\_fang\_run1 \& 100\%
    """
    return "".join(_LATEX.get(ch, ch) for ch in text)


def markdown_text(text: str) -> str:
    r"""`text` with the characters Markdown tables and emphasis would read escaped.

    Example:
        >>> print(markdown_text("a|b_c"))
        a\|b\_c
    """
    return "".join("\\" + ch if ch in _MARKDOWN else ch for ch in text)


def note(c: Comparison) -> str:
    """One sentence on what the marks mean: the test, the topics, the correction, the level."""
    against = (f", each run tested against the baseline {c.baseline} only"
               if c.baseline is not None else "")
    plural = "" if c.tests == 1 else "s"
    family = (f"{c.tests} comparison{plural} with the baseline" if c.baseline is not None
              else f"{c.tests} pair{plural} of runs")
    corrected = {"holm": f"Holm's correction over the {family} per measure",
                 "bonferroni": f"Bonferroni's correction over the {family} per measure",
                 "none": f"no correction for the {family} per measure"}[c.correction]
    return (f"Superscripts name the runs a run is significantly better than{against}: "
            f"{_TESTS.get(c.test, c.test)} over the {c.topics} topics every run has, "
            f"{corrected}, p < {c.alpha:g}. Bold: the best value of each measure.")


def _cells(c: Comparison, decimals: int) -> list[list[tuple[str, bool, str]]]:
    """(value text, best, marks) per run and measure."""
    joiner = "" if len(c.runs) <= 26 else ","  # two-letter labels need a separator
    out = []
    for r in range(len(c.runs)):
        row = []
        for m in range(len(c.measures)):
            v = float(c.values[r, m])
            text = str(int(round(v))) if c.integer[m] and v == v else f"{v:.{decimals}f}"
            row.append((text, bool(c.best[r, m]),
                        joiner.join(c.labels[j] for j in c.better[r][m])))
        out.append(row)
    return out


def render_comparison(c: Comparison, fmt: str = "markdown", decimals: int = 4) -> str:
    """The table in `fmt` (latex: a booktabs `table` whose caption is `note`; markdown: a
    table, then the note as a paragraph)."""
    cells = _cells(c, decimals)
    if fmt == "latex":
        lines = [r"\begin{table}[t]", r"\centering",
                 r"\caption{" + latex_text(note(c)) + "}",
                 r"\begin{tabular}{ll" + "r" * len(c.measures) + "}", r"\toprule",
                 " & Run & " + " & ".join(latex_text(m) for m in c.measures) + r" \\",
                 r"\midrule"]
        for label, run, row in zip(c.labels, c.runs, cells, strict=True):
            values = [(rf"\textbf{{{v}}}" if best else v) + (f"$^{{{marks}}}$" if marks else "")
                      for v, best, marks in row]
            lines.append(f"{label} & {latex_text(run)} & " + " & ".join(values) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines) + "\n"
    if fmt == "markdown":
        lines = ["|  | run | " + " | ".join(markdown_text(m) for m in c.measures) + " |",
                 "|:--|:--|" + "--:|" * len(c.measures)]
        for label, run, row in zip(c.labels, c.runs, cells, strict=True):
            values = [(f"**{v}**" if best else v) + (f"<sup>{marks}</sup>" if marks else "")
                      for v, best, marks in row]
            lines.append(f"| {label} | {markdown_text(run)} | " + " | ".join(values) + " |")
        return "\n".join(lines) + "\n\n" + note(c) + "\n"
    raise ValueError(f"format: expected one of {', '.join(TABLE_FORMATS)}, got {fmt!r}")


def compare_table(results: Any, fmt: str = "markdown", *, baseline: str | None = None,
                  test: str = "t", correction: str = "holm", alpha: float = 0.05,
                  seed: int = 0, decimals: int = 4) -> str:
    """A comparison table of the runs of `results` (unjudged.score's Results) as `fmt`
    (latex or markdown): every pair of runs tested (or each run against `baseline`) per
    measure with `test`, corrected by `correction` (holm, bonferroni, none) at `alpha`.

    Example:
        >>> from unjudged.engine.score import score
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.measures import parse_measures
        >>> q = read_qrels({t: {"a": 1} for t in "123456"})
        >>> good = read_run({t: {"a": 1} for t in "123456"}, name="good")
        >>> bad = read_run({t: {"b": 1} for t in "123456"}, name="bad")
        >>> print(compare_table(score([good, bad], q, parse_measures(["P@1"]))))
        |  | run | P@1 |
        |:--|:--|--:|
        | a | good | **1.0000**<sup>b</sup> |
        | b | bad | 0.0000 |
        <BLANKLINE>
        Superscripts name the runs a run is significantly better than: paired t-test over the \
6 topics every run has, Holm's correction over the 1 pair of runs per measure, p < 0.05. \
Bold: the best value of each measure.
        <BLANKLINE>
    """
    from unjudged.engine.results import Results
    from unjudged.errors import InvalidOptionError, shown

    if not isinstance(results, Results):
        raise InvalidOptionError(f"results: expected unjudged.Results (unjudged.score gives "
                                 f"them), got {type(results).__name__} {shown(results)}")
    if fmt not in TABLE_FORMATS:
        raise InvalidOptionError(f"format: expected one of {', '.join(TABLE_FORMATS)}, got "
                                 f"{fmt!r}")
    c = compare_runs(results, baseline=baseline, test=test, correction=correction, alpha=alpha,
                     seed=seed)
    return render_comparison(c, fmt, decimals)
