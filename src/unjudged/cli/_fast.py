"""`python -m unjudged trec_eval ...` without click, for the plain calls of a shell loop.

Importing click costs about 30M instructions a call (a fifth of what `unjudged trec_eval`
adds to numpy's and pyarrow's imports). A command line of trec_eval's own flags, options each
followed by their value and exactly two files is parsed here, by click's rules for it; anything
else (help, a bad number or choice, a missing or extra argument, `--`, combined flags, the
group's options) returns None and goes to click, which prints its usual usage and errors.
"""

from __future__ import annotations

from typing import Any

LARGEST = 2**63 - 1  # cli._checks.LARGEST: -M above it is click's error to report

#: the flags of `unjudged trec_eval` (cli/trec_eval.py) and their parameters
FLAGS = {"-q": "per_query", "-c": "complete", "-n": "nosummary", "-J": "judged_only"}
#: options with a value: parameter, and how the value is read (None: kept as the text)
VALUES: dict[str, tuple[str, Any]] = {
    "-m": ("measures", None), "-M": ("depth", int), "-l": ("rel_level", int),
    "-N": ("collection_docs", int),
    "-Z": ("zscores", None),
    "-R": ("rel_format", ("qrels", "prefs", "qrels_prefs", "qrels_jg")),
    "--ties": ("ties", ("trec_eval", "trec_eval9")),
}


def parse(argv: list[str]) -> dict[str, Any] | None:
    """trec_eval_cmd's parameters from `argv` (after `trec_eval`), or None for click.

    Example:
        >>> parse(["-q", "-m", "P.5", "-mmap", "--ties=trec_eval9", "q", "r"])["measures"]
        ['P.5', 'map']
        >>> parse(["-qc", "q", "r"]) is None, parse(["q"]) is None, parse(["-l", "x", "q", "r"])
        (True, True, None)
    """
    params: dict[str, Any] = {"per_query": False, "complete": False, "nosummary": False,
                              "judged_only": False, "measures": [], "depth": None,
                              "rel_level": 1, "zscores": None, "rel_format": "qrels",
                              "ties": "trec_eval", "collection_docs": 0}
    files: list[str] = []
    args = list(argv)
    seen: set[str] = set()
    while args:
        arg = args.pop(0)
        if arg[:1] != "-" or arg == "-":
            files.append(arg)
            continue
        if arg in FLAGS:
            params[FLAGS[arg]] = True
            continue
        if arg.startswith("--ties="):
            name, value = "--ties", arg[len("--ties="):]
        elif arg in VALUES:
            if not args or args[0][:1] == "-":
                return None  # a missing value (or one click might read otherwise)
            name, value = arg, args.pop(0)
        elif arg[:2] in VALUES and arg[:2] != "--":
            name, value = arg[:2], arg[2:]  # -mP.5 or -mndcg.1=3: click's short option
        else:
            return None
        key, kind = VALUES[name]
        if key != "measures":
            if key in seen:
                return None  # click keeps the last: let it
            seen.add(key)
        if kind is int:
            number = _integer(value)
            if number is None or (key == "depth" and number > LARGEST) or (
                    key == "collection_docs" and not 0 <= number <= 2**62):
                return None
            params[key] = number
        elif isinstance(kind, tuple) and value not in kind:
            return None
        elif key == "measures":
            params["measures"].append(value)
        else:
            params[key] = value
    if len(files) != 2:
        return None
    params["qrels"], params["run"] = files
    return params


def _integer(text: str) -> int | None:
    try:
        return int(text)  # click's INT reads the text the same way
    except ValueError:
        return None


def trec_eval(qrels, run, per_query, complete, nosummary, measures, depth, rel_level,
              judged_only, zscores, rel_format, ties, collection_docs=0) -> None:
    """The work of `unjudged trec_eval` (click's command and the parse above call it)."""
    from unjudged.cli._process import lean_arrow
    from unjudged.io.atomic import write_file

    lean_arrow()
    from unjudged.io import read_qrels, read_run
    from unjudged.policies import Policies
    from unjudged.trec_eval._run import read_zscores, run_trec_eval

    pol = Policies(ties=ties, complete=complete, rel_level=rel_level, depth=depth,
                   judged_only=judged_only)
    z = read_zscores(zscores) if zscores else None
    if rel_format != "qrels":
        from unjudged.io.prefs import read_prefs
        from unjudged.trec_eval._prefs import run_trec_eval_prefs

        text = run_trec_eval_prefs(read_run(run, ties=ties), read_prefs(qrels, rel_format),
                                   list(measures), pol, per_query=per_query,
                                   summary=not nosummary, zscores=z)
        write_file("-", text)
        return
    q = read_qrels(qrels)
    text = run_trec_eval(read_run(run, ties=ties, qrels=q), q, list(measures), pol,
                         per_query=per_query, summary=not nosummary, zscores=z,
                         collection_docs=collection_docs)
    write_file("-", text)


def main(argv: list[str]) -> None:
    """Run `unjudged trec_eval` when argv is a plain call of it (then exit as click's command
    does); return otherwise, for click."""
    if not argv or argv[0] != "trec_eval":
        return
    params = parse(argv[1:])
    if params is None:
        return
    import sys

    from unjudged.cli._process import guarded
    from unjudged.io._source import line_limit

    def work() -> None:
        with line_limit(None):  # the group's --max-line-length, not given
            trec_eval(**params)

    try:
        guarded(work)
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\nAborted!\n")  # click's words and exit code for Ctrl-C
        sys.stderr.flush()
        sys.exit(1)
    sys.exit(0)
