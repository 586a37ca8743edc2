"""`unjudged judge`: automatic judges with guarantees. Draw the audit sample people should
judge, score runs from a judge's labels corrected by the audit (prediction-powered), and see
how far each judge agrees with people and which runs only the judge likes."""

from __future__ import annotations

import click

from unjudged.cli._base import SEED, TABLE_FORMAT, lean_arrow, main, write_output
from unjudged.cli._checks import refuse_given
from unjudged.cli._judging import _JUDGE, _LEVEL, _MEASURES, _audit_options, check_judge_options
from unjudged.cli._runs import cli_runs, run_options


@main.group("judge")
def judge_group() -> None:
    """Automatic judges (LLM labels) corrected by a human audit sample."""


@judge_group.command("audit")
@click.argument("runs", nargs=-1)
@_JUDGE
@click.option("--qrels", default=None, metavar="QRELS",
              help="Human judgments so far: their documents are not drawn.")
@click.option("-n", "--size", "n", type=click.FloatRange(0, min_open=True), required=True,
              help="Expected number of documents to draw.")
@click.option("--sample-design", "how", type=click.Choice(["weighted", "uniform"]),
              default="weighted", show_default=True,
              help="weighted: more where the judge is unsure and where documents weigh most in "
              "the runs' measures (every document keeps pi > 0); uniform: pi = n / N.")
@SEED
@run_options
@click.option("-o", "--output", default=None, help="Write the sample here (default stdout).")
@click.option("--design-out", default=None, metavar="FILE",
              help="Also write every document that could be drawn with its pi.")
def audit_cmd(runs, judges, qrels, n, how, seed, names, strict, output, design_out) -> None:
    """Draw about N of the documents only the judge labelled for people to judge (Poisson
    sampling), written as `topic docno pi` lines; RUNS weigh the documents by rank."""
    if len(judges) != 1:
        raise click.UsageError("judge audit draws for one --judge at a time")
    if seed < 0:
        raise click.BadParameter("expected a number >= 0", param_hint="--seed")
    lean_arrow()
    from unjudged.io import read_qrels
    from unjudged.judges.audit import draw_audit, format_audit

    q = read_qrels(qrels) if qrels else None
    loaded = list(cli_runs(runs, q, names=names, strict=strict)) if runs else []
    sample = draw_audit(loaded, q, judges[0], n, design=how, seed=seed)
    assert sample.design is not None
    click.echo(f"unjudged: drew {len(sample)} of {len(sample.design)} judge-labelled documents "
               f"(expected {n:g}, {how} design, seed {seed})", err=True)
    if design_out:
        write_output(format_audit(sample.design), design_out)
    write_output(format_audit(sample), output)


@judge_group.command("estimate")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@_JUDGE
@_audit_options
@_MEASURES
@_LEVEL
@click.option("--per-topic", is_flag=True,
              help="Also print each (run, topic) and the estimated counts per grade.")
@click.option("--lam", type=click.FloatRange(0, 1), default=None,
              help="Fix PPI's weight of the judge (0: the audit alone, 1: classic PPI) "
              "instead of PPI++'s tuning.")
@click.option("--no-calibrate", is_flag=True,
              help="Predict gains by the judge's own labels, not by what the audit found for "
              "each label (classic PPI).")
@run_options
@TABLE_FORMAT
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
def estimate_cmd(qrels, runs, judges, audit, audit_qrels, design, measures, level, per_topic,
                 lam, no_calibrate, names, strict, fmt, output) -> None:
    """Score RUNS from the judges' labels corrected by the human audit sample: per run (and
    per topic) the prediction-powered estimate with its interval, the uncorrected judge score
    and the audit-only (Horvitz-Thompson) estimate."""
    check_judge_options(judges, audit, audit_qrels, design)
    if audit is None:  # the judge's own scores, intervals of zero width
        refuse_given(("lam", "no_calibrate", "level"), "without --audit (they shape the "
                     "prediction-powered estimate and its interval)")
    lean_arrow()
    from unjudged.io import read_qrels
    from unjudged.judges import judge_estimate

    q = read_qrels(qrels)
    loaded = list(cli_runs(runs, q, names=names, strict=strict))
    rows = judge_estimate(loaded, q, list(judges), list(measures) or ["nDCG@10"], audit=audit,
                          audit_qrels=audit_qrels, design=design, level=level,
                          counts=per_topic, calibrate=not no_calibrate, lam=lam)
    if not per_topic:
        rows = rows[rows.topic == "all"].drop(columns="topic")
    write_output(_render(rows, fmt), output)


@judge_group.command("diagnose")
@click.argument("qrels")
@click.argument("runs", nargs=-1)
@_JUDGE
@_audit_options
@_MEASURES
@_LEVEL
@click.option("--rel", type=click.IntRange(1), default=1, show_default=True,
              help="Lowest relevant grade for the binary kappa and the calibration.")
@run_options
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
def diagnose_cmd(qrels, runs, judges, audit, audit_qrels, design, measures, level, rel, names,
                 strict, output) -> None:
    """How far to trust each judge: Cohen's kappa (binary and quadratic-weighted), the
    confusion matrix and the calibration on the documents both it and people graded, and per
    run the judge lift (judged score - estimate), flagged where its interval excludes 0."""
    check_judge_options(judges, audit, audit_qrels, design)
    lean_arrow()
    from unjudged.io import read_qrels
    from unjudged.judges import diagnose_judges

    q = read_qrels(qrels)
    loaded = list(cli_runs(runs, q, names=names, strict=strict))
    out = diagnose_judges(loaded, q, list(judges), list(measures) or ["nDCG@10"], audit=audit,
                          audit_qrels=audit_qrels, design=design, level=level, rel=rel)
    lines = []
    for a in out["agreement"]:
        lines.append(f"judge {a['judge']}: {a['overlap']} documents graded by both; "
                     f"kappa {a['kappa_binary']:.3f} (relevant at grade >= {rel}), weighted "
                     f"kappa {a['kappa_weighted']:.3f}, same grade {a['agreement']:.3f}")
        lines.append("  confusion (rows: people's grades, columns: the judge's)")
        lines += ["  " + " ".join(f"{v:6d}" for v in row) for row in a["confusion"]]
    cal = out["calibration"]
    if len(cal):
        lines.append("calibration (probability of relevance: predicted vs observed)")
        lines.append(cal.round(3).to_string(index=False))
    lift = out["lift"]
    if len(lift):
        lines.append("judge lift per run (judged - estimate; * = interval excludes 0)")
        shown = lift.assign(flag=lift.flag.map({True: "*", False: ""}))
        lines.append(shown.round(4).to_string(index=False))
    write_output("\n".join(lines) + "\n", output)


def _render(rows, fmt: str) -> str:
    import json

    if fmt == "jsonl":
        return "".join(json.dumps(r) + "\n" for r in rows.to_dict("records"))
    if fmt in ("tsv", "csv"):
        from unjudged.report.rows import safe_text

        safe = safe_text(fmt)
        rows = rows.copy()
        for c in ("judge", "run", "topic", "measure"):
            if c in rows:
                rows[c] = rows[c].astype(str).map(safe)
        return rows.to_csv(sep="\t" if fmt == "tsv" else ",", index=False,
                           lineterminator="\n", float_format="%.6g")
    return rows.round(4).to_string(index=False) + "\n"
