"""A fuzz corpus of mutated real files: each input reads right or fails on its first bad line.

Seeds are trec_eval's own test files (../shared/data/trec_eval/test); each input is a seed
after one to three seeded mutations (byte flips, truncation, NUL bytes, invalid UTF-8, huge
fields, CR-only or mixed line ends, lines of blanks, odd blanks, too few or too many fields,
odd numbers, comments, repeated, shuffled or joined lines, lines over the length limit). For
every input the readers (a path, a stream, a compressed copy), `unjudged.evaluate` and the
streaming evaluation against the seed's partner file must give the reference's values
(tests/reference_parser.py, tests/reference_trec_eval.py) or raise the project's error naming
the file and the first bad line; a compressed copy cut short must be refused. A sample goes
through the CLI in subprocesses (`eval` on a file, on stdin and on a pipe, `trec_eval`): exit 0
with the reference's P@10, or exit 2 with one stderr line naming the first bad line; never a
traceback or a hang. Large files edited at block boundaries complete it.

The counts of a larger campaign:

    .venv/bin/python tests/test_fuzz_inputs.py --count 6000 --cli 40 --large"""

from __future__ import annotations

import argparse
import bz2
import collections
import functools
import gzip
import json
import lzma
import os
import random
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import reference_parser as ref  # noqa: E402
from shared_data import TREC_EVAL, need  # noqa: E402
from test_reader_differential import (  # noqa: E402
    MEASURES,
    compare_qrels,
    compare_run,
    compare_scores,
    evaluate_stream,
    expected_scores,
    outcome,
    regrouped,
    stream,
)
from unjudged import evaluate  # noqa: E402
from unjudged.errors import UnjudgedError  # noqa: E402
from unjudged.io import read_qrels, read_run  # noqa: E402

# seed file -> (kind, lines kept, partner file for evaluation); slices keep each input small
SEEDS = {
    "results.test": ("run", 400, "qrels.test"),
    "results.trunc": ("run", 300, "qrels.test"),
    "results-302.test": ("run", 300, "qrels-302.test"),
    "results.comment.test": ("run", 200, "qrels.comment.test"),
    "qrels.test": ("qrels", 500, "results.test"),
    "qrels.rel_level": ("qrels", 500, "results.test"),
    "qrels.comments.123": ("qrels", 500, "results.test"),
    "qrels.test.with-comments": ("qrels", 500, "results.test"),
}
ODD_NUMBERS = [b"+1", b"-1", b"007", b"1e3", b"0x10", b".5", b"5.", b"nan", b"inf", b"-inf",
               b"1e400", b"NA", b"null", b"99999999999999999999", b"2147483648", b"1_0",
               b"-0", b"1.5", b"\xef\xbc\x91"]
BLANK_RUNS = [b"\t", b" \t", b"\v", b"\f", b"  ", b" \t\v\f "]
GOOD = ("clean", "clean error")
# lines longer than this are refused (UNJUDGED_MAX_LINE); huge_field makes some
MAX_LINE = 1 << 16

# ---------------------------------------------------------------------------- mutations


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _pick_line(rng: random.Random, lines: list[bytes]) -> int:
    full = [i for i, line in enumerate(lines) if line.split()]
    return rng.choice(full) if full else 0


def _edit_field(rng, data: bytes, edit) -> bytes:
    lines = _lines(data)
    i = _pick_line(rng, lines)
    fields = lines[i].split()
    if fields:
        j = rng.randrange(len(fields))
        fields[j] = edit(fields[j], j, len(fields))
        lines[i] = b" ".join(f for f in fields if f is not None)
    return b"\n".join(lines)


def flip_bytes(rng, data, kind):
    buf = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if buf:
            buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
    return bytes(buf)


def set_byte(rng, data, kind):
    buf = bytearray(data)
    if buf:
        buf[rng.randrange(len(buf))] = rng.choice(b" \t\n\r#\x00\xff0.-x\v\f")
    return bytes(buf)


def truncate(rng, data, kind):
    return data[: rng.randrange(len(data) + 1)]


def insert_nul(rng, data, kind):
    at = rng.randrange(len(data) + 1)
    return data[:at] + b"\x00" + data[at:]


def invalid_utf8(rng, data, kind):
    bad = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe6\x97", b"\xfe\xfe"])
    return _edit_field(rng, data, lambda f, j, n: f[: len(f) // 2] + bad + f[len(f) // 2:])


def huge_field(rng, data, kind):
    size = rng.choice([5_000, 100_000, 300_000])
    return _edit_field(rng, data, lambda f, j, n: f + b"x" * size if j != n - 1 or kind == "run"
                       else f)


def huge_digits(rng, data, kind):
    return _edit_field(rng, data, lambda f, j, n: b"9" * rng.choice([30, 5_000]) if j in (0, 3)
                       else f)


def cr_only(rng, data, kind):
    return data.replace(b"\n", b"\r")


def crlf(rng, data, kind):
    return data.replace(b"\n", b"\r\n")


def mixed_ends(rng, data, kind):
    return b"".join(line + rng.choice([b"\n", b"\r\n", b"\r"]) for line in _lines(data))


def blank_lines(rng, data, kind):
    lines = _lines(data)
    # a line of n-1 blanks (n fields) once made the next line the culprit
    choices = [b"", b" ", b"\t", b" \t\v\f ", b" " * (4 if kind == "run" else 3)]
    for _ in range(rng.randint(1, 3)):
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(choices))
    return b"\n".join(lines)


def odd_blanks(rng, data, kind):
    lines = _lines(data)
    for i in rng.sample(range(len(lines)), min(len(lines), rng.randint(1, 50))):
        lines[i] = rng.choice(BLANK_RUNS).join(lines[i].split())
        if rng.random() < 0.3:
            lines[i] = rng.choice(BLANK_RUNS) + lines[i] + rng.choice(BLANK_RUNS)
    return b"\n".join(lines)


def all_odd_blanks(rng, data, kind):
    sep = rng.choice(BLANK_RUNS)
    return b"\n".join(sep.join(line.split()) for line in _lines(data))


def too_few(rng, data, kind):
    return _edit_field(rng, data, lambda f, j, n: None)


def too_many(rng, data, kind):
    return _edit_field(rng, data, lambda f, j, n: f + b" " + rng.choice([b"x", b"1", b"#"]))


def odd_number(rng, data, kind):
    column = 4 if kind == "run" else 3
    return _edit_field(rng, data, lambda f, j, n: rng.choice(ODD_NUMBERS) if j == column or
                       rng.random() < 0.2 else f)


def comment(rng, data, kind):
    lines = _lines(data)
    i = rng.randrange(len(lines) + 1)
    if rng.random() < 0.5 and i < len(lines):
        lines[i] = rng.choice([b"#", b" #", b"\t# "]) + lines[i]
    else:
        lines.insert(i, rng.choice([b"# note", b"#", b"  # x y z w v u", b"#\xff"]))
    return b"\n".join(lines)


def repeat_line(rng, data, kind):
    lines = _lines(data)
    i = _pick_line(rng, lines)
    copy = lines[i]
    fields = copy.split()
    if kind == "qrels" and len(fields) == 4 and rng.random() < 0.5:
        copy = b" ".join(fields[:3] + [b"0" if fields[3] != b"0" else b"1"])
    lines.insert(rng.randrange(len(lines) + 1), copy)
    return b"\n".join(lines)


def join_lines(rng, data, kind):
    lines = _lines(data)
    i = _pick_line(rng, lines)
    if i + 1 < len(lines):
        lines[i: i + 2] = [lines[i] + rng.choice([b" ", b"\t", b""]) + lines[i + 1]]
    return b"\n".join(lines)


def shuffle_lines(rng, data, kind):
    lines = _lines(data)
    rng.shuffle(lines)
    return b"\n".join(lines)


def reverse_lines(rng, data, kind):
    return b"\n".join(reversed(_lines(data)))


def concatenate(rng, data, kind):
    return data + data[: rng.randrange(len(data) + 1)]


def long_blank_line(rng, data, kind):
    lines = _lines(data)
    filler = rng.choice([b" ", b"\t", b"# "]) * rng.choice([100, MAX_LINE + 1])
    lines.insert(rng.randrange(len(lines) + 1), filler)
    return b"\n".join(lines)


MUTATIONS = [flip_bytes, set_byte, truncate, insert_nul, invalid_utf8, huge_field, huge_digits,
             cr_only, crlf, mixed_ends, blank_lines, odd_blanks, all_odd_blanks, too_few,
             too_many, odd_number, comment, repeat_line, join_lines, shuffle_lines,
             reverse_lines, concatenate, long_blank_line]


def mutate(rng: random.Random, data: bytes, kind: str) -> tuple[bytes, str]:
    chosen = [rng.choice(MUTATIONS) for _ in range(rng.choice([1, 1, 2, 3]))]
    for m in chosen:
        data = m(rng, data, kind)
    return data, "+".join(m.__name__ for m in chosen)


# ------------------------------------------------------------------------------ checking


@functools.cache
def seeds_in(folder: Path) -> Seeds:
    return Seeds(folder)


class Seeds:
    """The seed slices and their partners, read once."""

    def __init__(self, folder: Path) -> None:
        self.text, self.partner = {}, {}
        for name, (kind, keep, partner) in SEEDS.items():
            self.partner[name] = folder / partner
            with open(folder / name, "rb") as fh:
                lines = fh.readlines()
            if kind == "run":  # the lines of topics the partner judges, so that values count
                judged = {line.split(b" ", 1)[0] for line in self.partner[name].open("rb")}
                lines = [line for line in lines if not line.split() or line.startswith(b"#")
                         or line.split()[0] in judged]
            self.text[name] = b"".join(lines[:keep])
        self.parsed = {name: self._parse_partner(name) for name in SEEDS}

    def _parse_partner(self, name):
        kind = SEEDS[name][0]
        data = self.partner[name].read_bytes()
        parsed = ref.parse_qrels(data) if kind == "run" else ref.parse_run(data)
        assert parsed.ok, (self.partner[name], parsed.reason)
        return parsed


def parse(kind: str, data: bytes) -> ref.Parsed:
    return (ref.parse_run if kind == "run" else ref.parse_qrels)(data, max_line=MAX_LINE)


def check_input(seeds: Seeds, name: str, data: bytes, folder: str,
                with_values: bool) -> dict[str, tuple[str, str]]:
    """The outcome of each in-process reader (and, `with_values`, of evaluation) on `data`."""
    kind = SEEDS[name][0]
    path = os.path.join(folder, "input.run" if kind == "run" else "input.qrels")
    Path(path).write_bytes(data)
    parsed = parse(kind, data)
    read, compare = (read_run, compare_run) if kind == "run" else (read_qrels, compare_qrels)
    out = {"read(path)": outcome(read, path, path, parsed, compare)}
    if with_values:
        out["read(stream)"] = outcome(read, stream(data, path), path, parsed, compare)
        # compressed, recognised by content and read as the plain file; cut short, refused
        kind_of_archive, pack = ARCHIVES[len(data) % len(ARCHIVES)]
        packed = path + "." + kind_of_archive
        Path(packed).write_bytes(pack(data))
        out[f"read({kind_of_archive})"] = outcome(read, packed, packed, parsed, compare)
        out[f"read(cut {kind_of_archive})"] = corrupt_archive(read, packed)
        partner = str(seeds.partner[name])
        run_path, qrels_path = (path, partner) if kind == "run" else (partner, path)
        expected = _expected(seeds, name, parsed)
        out["evaluate"] = outcome(lambda _: evaluate([run_path], qrels_path, list(MEASURES)),
                                  None, path, parsed,
                                  lambda frame, _: compare_scores(frame, expected))
        if kind == "run" and evaluate_stream is not None:  # item 16: small blocks
            out["evaluate_stream"] = outcome(
                lambda _: evaluate_stream([run_path], qrels_path, list(MEASURES),
                                          block_size=4096),
                None, path, regrouped(parsed), lambda frame, _: compare_scores(frame, expected))
    return out



ARCHIVES = [("gz", lambda d: gzip.compress(d, compresslevel=1)), ("bz2", bz2.compress),
            ("xz", lzma.compress)]


def corrupt_archive(read, packed: str) -> tuple[str, str]:
    """A compressed file cut short must fail naming the file: its text is not all there."""
    whole = Path(packed).read_bytes()
    Path(packed).write_bytes(whole[: max(11, len(whole) * 2 // 3)])
    try:
        read(packed)
    except UnjudgedError as exc:
        if str(exc).startswith(f"{packed}:") and "\n" not in str(exc):
            return "clean error", ""
        return "bad message", str(exc)[:200]
    except Exception as exc:  # noqa: BLE001 -- any other exception is the finding
        return "traceback", f"{type(exc).__name__}: {exc}"[:300]
    return "accepted bad input", "a compressed file cut to two thirds was read"


def _expected(seeds: Seeds, name: str, parsed: ref.Parsed) -> dict:
    if not parsed.ok:
        return {}
    pair = (parsed, seeds.parsed[name]) if SEEDS[name][0] == "run" else (seeds.parsed[name],
                                                                         parsed)
    return expected_scores(*pair)


CLI_WAYS = ("eval", "eval from stdin", "trec_eval", "eval from a pipe", "eval --stream")


def _run_cli(command: list[str], data: bytes, way: str, pipe: tuple[int, int] | None):
    """subprocess.run, feeding `data` through stdin or through `pipe` (read as /dev/fd/N)."""
    if pipe is None:
        return subprocess.run(command, capture_output=True, timeout=120, check=False,
                              input=data if way == "eval from stdin" else b"")
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, pass_fds=(pipe[0],)) as child:
        os.close(pipe[0])
        writer = threading.Thread(target=_write_all, args=(pipe[1], data))
        writer.start()
        try:
            out, err = child.communicate(timeout=120)
        finally:
            child.kill()
            writer.join()
        return subprocess.CompletedProcess(command, child.returncode, out, err)


def _write_all(fd: int, data: bytes) -> None:
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except BrokenPipeError:  # the reader stopped at a bad line: fine
        pass


def check_cli(seeds: Seeds, name: str, data: bytes, folder: str, way: str) -> tuple[str, str]:
    """Exit 0 with the reference's P@10, or exit 2 with one line naming the first bad line."""
    kind = SEEDS[name][0]
    path = os.path.join(folder, "cli.run" if kind == "run" else "cli.qrels")
    Path(path).write_bytes(data)
    partner = str(seeds.partner[name])
    # like <(zcat run.gz): a pipe the reader sees as /dev/fd/N
    pipe = os.pipe() if way == "eval from a pipe" else None
    named = f"/dev/fd/{pipe[0]}" if pipe else "-" if way == "eval from stdin" else path
    run_path, qrels_path = (named, partner) if kind == "run" else (partner, named)
    parsed = parse(kind, data)
    if way == "trec_eval":
        command = ["trec_eval", "-m", "P.10", qrels_path, run_path]
    else:
        command = ["eval", qrels_path, run_path, "-m", "P@10", "-f", "jsonl"]
    if way == "eval --stream":  # small blocks; a run not grouped by topic may be refused
        command += ["--stream", "--stream-block", "4096"]
        parsed = regrouped(parsed) if kind == "run" else parsed
    command = [sys.executable, "-m", "unjudged", *command]
    try:
        done = _run_cli(command, data, way, pipe)
    except subprocess.TimeoutExpired:
        return "hang", " ".join(command)
    err = done.stderr.decode("utf-8", "replace")
    if "Traceback" in err:
        return "traceback", err.strip().splitlines()[-1][:200]
    if done.returncode == 0:
        if not parsed.ok:
            return "accepted bad input", f"line {parsed.error}: {parsed.reason}"
        return _cli_value(done.stdout.decode(), _expected(seeds, name, parsed), way)
    lines = err.strip("\n").split("\n")
    if done.returncode != 2 or len(lines) != 1:
        return "bad exit", f"exit {done.returncode}: {err[:200]!r}"
    shown = "<stdin>" if named == "-" else named
    prefix = f"unjudged: error: {shown}:"
    line = None
    if lines[0].startswith(prefix):
        number = lines[0][len(prefix):].split(":", 1)[0]
        line = int(number) if number.isdigit() else None
    elif not lines[0].startswith(f"unjudged: error: {shown}"):
        return "bad message", lines[0][:200]
    if parsed.allows_error_at(line):
        return "clean error", ""
    if parsed.ok:
        return "rejected good input", lines[0][:200]
    return "wrong line", f"{lines[0][:200]} (first bad line {parsed.error}: {parsed.reason})"


def _cli_value(stdout: str, expected: dict, way: str) -> tuple[str, str]:
    want = expected.get(("all", "P@10"))
    if way == "trec_eval":  # `P_10  \tall\t0.3000`
        got = next((line.split("\t")[2] for line in stdout.splitlines()
                    if line.split("\t")[:2] == ["P_10                  ", "all"]), None)
        ok = want is not None and got == f"{want:.4f}"
    else:
        rows = [json.loads(line) for line in stdout.splitlines()]
        got = next((r["value"] for r in rows if r["topic"] == "all"), None)
        ok = want is not None and got is not None and abs(got - want) < 1e-12
    return ("clean", "") if ok else ("wrong value", f"P@10 {got}, expected {want}")


def campaign(count: int, seed: int = 15, cli: int = 6, values_every: int = 10) -> dict:
    """Run `count` mutated inputs in-process (`cli` of them also through the CLI).

    Returns {"counts": Counter of outcomes, "failures": [(input label, check, outcome,
    detail, data)]}; every check of an input counts once. Lines may be MAX_LINE bytes long
    (set through UNJUDGED_MAX_LINE for the campaign).
    """
    seeds = seeds_in(need(TREC_EVAL))
    rng = random.Random(seed)
    names = sorted(SEEDS)
    counts: collections.Counter = collections.Counter()
    failures = []
    cli_at = sorted(random.Random(seed + 1).sample(range(count), min(cli, count)))
    saved = os.environ.get("UNJUDGED_MAX_LINE")
    os.environ["UNJUDGED_MAX_LINE"] = str(MAX_LINE)
    try:
        with tempfile.TemporaryDirectory() as folder:
            for i in range(count):
                name = names[i % len(names)]
                data, how = mutate(rng, seeds.text[name], SEEDS[name][0])
                results = check_input(seeds, name, data, folder,
                                      with_values=i % values_every == 0)
                if i in cli_at:
                    way = CLI_WAYS[cli_at.index(i) % len(CLI_WAYS)]
                    results[f"cli {way}"] = check_cli(seeds, name, data, folder, way)
                tally(counts, failures, f"#{i} {name} {how}", results, data)
    finally:
        if saved is None:
            os.environ.pop("UNJUDGED_MAX_LINE", None)
        else:
            os.environ["UNJUDGED_MAX_LINE"] = saved
    return {"counts": counts, "failures": failures}


# Mutations of whole large files at the block sizes readers work in (64 KiB to 2 MiB): a line
# end, a blank run or a bad field cut in two by a block boundary.
BOUNDARIES = [1 << 16, 1 << 18, 1 << 20, 1 << 21]
BOUNDARY_EDITS = {
    "CRLF across": lambda d, b: d[:b - 1] + b"\r\n" + d[b - 1:],
    "lone CR at": lambda d, b: d[:b] + b"\r" + d[b:],
    "blank line at": lambda d, b: d[:d.index(b"\n", b) + 1] + b" \t \v\n"
    + d[d.index(b"\n", b) + 1:],
    "tab at": lambda d, b: d[:b] + b"\t" + d[b + 1:],
    "VT at": lambda d, b: d[:b] + b"\v" + d[b + 1:],
    "bad score at": lambda d, b: d[:b] + b"x" + d[b:],
    "NUL at": lambda d, b: d[:b] + b"\x00" + d[b:],
    "line start repeated at": lambda d, b: d[:b] + d[: d.index(b"\n") + 1] + d[b:],
}
WHOLE_EDITS = {
    "CR only": lambda d: d.replace(b"\n", b"\r"),
    "CRLF": lambda d: d.replace(b"\n", b"\r\n"),
    "tabs and blanks": lambda d: d.replace(b" ", b" \t"),
}


def large_inputs(folder: Path, full: bool = False) -> list[tuple[str, str, bytes]]:
    """(label, kind, bytes): a 1.1 MB run and a 0.4 MB qrels (`full`: a 2.8 MB run, a 1 MB
    qrels and a 9 MB run past the 4 MiB read chunk) edited at block boundaries."""
    run = (folder / "results.comment.test").read_bytes()
    run = run if full else run[: run.index(b"\n", (1 << 20) + 50_000) + 1]
    qrels = b"".join((folder / "qrels.comments.123").read_bytes().replace(b"\n30", b"\n" + p)
                     for p in (b"A", b"B", b"C", b"D", b"E")[: 5 if full else 2])
    files = [("run", run), ("qrels", qrels)]
    if full:
        files.append(("run", b"".join(b"%d Q0 d%d %d %d.5 t\n" % (i % 97, i, i, i % 89)
                                      for i in range(450_000))))
    out = []
    for kind, data in files:
        out += [(f"{kind} {what}", kind, edit(data)) for what, edit in WHOLE_EDITS.items()]
        for at in BOUNDARIES + ([1 << 22, 1 << 23] if full else []):
            if at < len(data) - 100:
                for n, (what, edit) in enumerate(BOUNDARY_EDITS.items()):
                    if full or (n + at.bit_length() + len(kind)) % 2 == 0:  # half of them
                        out.append((f"{kind} {what} {at}", kind, edit(data, at)))
    return out


def check_large(label: str, kind: str, data: bytes, folder: str) -> dict[str, tuple[str, str]]:
    path = os.path.join(folder, "large." + kind)
    Path(path).write_bytes(data)
    parsed = parse(kind, data)
    read, compare = (read_run, compare_run) if kind == "run" else (read_qrels, compare_qrels)
    out = {"read(path)": outcome(read, path, path, parsed, compare)}
    if len(label) % 2:  # half of them (a regular file and a stream take different paths)
        out["read(stream)"] = outcome(read, stream(data, path), path, parsed, compare)
    return out


def tally(counts: collections.Counter, failures: list, label: str,
          results: dict[str, tuple[str, str]], data: bytes) -> None:
    """Count one input's checks, and the input: clean or a clean error by its plain read,
    "other" when any check of it failed."""
    for check, (status, detail) in results.items():
        counts[status] += 1
        counts["checks"] += 1
        if status not in GOOD:
            failures.append((label, check, status, detail, data))
    failed = any(status not in GOOD for status, _ in results.values())
    counts["input other" if failed else "input " + results["read(path)"][0]] += 1
    counts["inputs"] += 1


def summary(result: dict) -> str:
    c = result["counts"]
    head = (f"{c['inputs']} inputs: {c['input clean']} clean (right values), "
            f"{c['input clean error']} clean errors (exit 2 naming the first bad line), "
            f"{c['input other']} other; {c['checks']} checks: {c['clean']} clean, "
            f"{c['clean error']} clean errors, {c['checks'] - c['clean'] - c['clean error']} "
            "other")
    others = collections.Counter(f[2] for f in result["failures"])
    lines = [head] + [f"  {status}: {n}" for status, n in others.most_common()]
    seen = set()
    for label, check, status, detail, _data in result["failures"]:
        key = (status, detail.split(" (")[0][-60:])
        if key in seen:
            continue
        seen.add(key)
        lines.append(f"  - {label} [{check}] {status}: {detail}")
        if len(seen) >= 25:
            break
    return "\n".join(lines)


def test_fuzz_corpus_reads_right_or_names_the_first_bad_line():
    result = campaign(count=int(os.environ.get("UNJUDGED_FUZZ_COUNT", "300")))
    print("\n" + summary(result))
    assert not result["failures"], summary(result)


def test_large_files_edited_at_block_boundaries():
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        for label, kind, data in large_inputs(need(TREC_EVAL)):
            for check, (status, detail) in check_large(label, kind, data, folder).items():
                if status not in GOOD:
                    failures.append(f"{label} [{check}] {status}: {detail}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_unmutated_seeds_read_right(name):
    seeds = seeds_in(need(TREC_EVAL))
    with tempfile.TemporaryDirectory() as folder:
        results = check_input(seeds, name, seeds.text[name], folder, with_values=True)
        if name in ("results.test", "qrels.test"):
            results["cli"] = check_cli(seeds, name, seeds.text[name], folder, "eval")
    # every check reads right; refused may be a compressed copy cut short, and --stream when
    # the seed is not grouped by topic (results.trunc)
    assert all(status == "clean" for check, (status, _) in results.items()
               if not check.startswith(("read(cut", "evaluate_stream"))), results
    assert all(status in GOOD for status, _ in results.values()), results


# ------------------------------------------------------------------ issue 34's classes
# Tables against their TREC text, measure parameters outside their domain, misuse of the
# Python API, header comments and the inputs that raised tracebacks (items 5-8, 11), then the
# command line's sizes, options and every diversity measure on every executor (items 1, 9,
# 10): each case must give the right value or the project's one-line error. The counts:
#
#     .venv/bin/python tests/test_fuzz_inputs.py --edges
#
# Items 2-4 have their own tests: the 100,000-topic benchmark (benchmarks/topics_scale.py),
# SIGTERM and SIGHUP (tests/test_signals.py), planted symlinks and caches (tests/test_outputs.py,
# test_cli.py's demo, test_text.py's cache).


def _edge_inputs(folder: Path) -> list[tuple[str, object]]:
    """(label, call) of the file inputs of items 6 and 8; each returns normally or raises
    an UnjudgedError."""
    from unjudged.io.sampled import read_prels
    from unjudged.text.readers import read_docs

    deep = "[" * 50_000 + "]" * 50_000
    files = {
        "h.run": "# qid Q0 docno rank score tag\n1 Q0 d1 1 2 r\n2 Q0 d2 1 1 r\n",
        "h.qrels": "# qid docno grade\n1 0 d1 1\n2 0 d2 0\n",
        "dup.csv": "qid,docno,score,qid\n1,d1,1,2\n",
        "deep.jsonl": f'{{"qid": "1", "docno": "d1", "score": {deep}}}\n',
        "corpus.jsonl": f'{{"docno": "d1", "text": {deep}}}\n',
        "p30.prels": "1 d1 1 1 1e-30\n1 d2 0 1 0.5\n",
        "p300.prels": "1 d1 1 1 1e-300\n",
        "p324.prels": "1 d1 1 1 5e-324\n",
        "s.qrels": "1 0 d1 1 1\n2 0 d5 1 -1\n",
        "s.run": "1 Q0 d1 1 3 r\n2 Q0 d9 1 1 r\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    f = {name: str(folder / name) for name in files}

    def header_comments():
        values = evaluate(f["h.run"], f["h.qrels"], "P@1").set_index("topic").value
        assert values.to_dict() == {"1": 1.0, "2": 0.0, "all": 0.5}, values

    def tiny_probability():
        from unjudged import infer

        assert infer(f["s.run"], read_prels(f["p30.prels"]), ["statAP"]).value.notna().all()

    def unsampled_topic():
        from unjudged import infer

        infer(f["s.run"], f["s.qrels"], ["xinfAP"], method="bootstrap", b=20)

    return [("header comments", header_comments),
            ("CSV column twice", lambda: read_run(f["dup.csv"])),
            ("deep JSON run", lambda: read_run(f["deep.jsonl"])),
            ("deep JSON corpus", lambda: read_docs(f["corpus.jsonl"])),
            ("prels 1e-30", tiny_probability),
            ("prels 1e-300", lambda: read_prels(f["p300.prels"])),
            ("prels 5e-324", lambda: read_prels(f["p324.prels"])),
            ("bootstrap, a topic with nothing sampled", unsampled_topic)]


def _call(call) -> tuple[str, str]:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # numpy's warnings are findings too
        try:
            call()
        except UnjudgedError as exc:
            return ("clean error", "") if "\n" not in str(exc) else ("long error", str(exc))
        except Exception as exc:  # noqa: BLE001 -- any other exception is the finding
            return "traceback", f"{type(exc).__name__}: {exc}"[:200]
    return "clean", ""


def _refused(parse, text: str) -> None:
    """Parse a measure name that must be refused (a MeasureSpecError is the clean outcome)."""
    parse(text)
    raise AssertionError(f"{text} accepted")


# Issue 34's command-line classes, each case a subprocess under a 6 GiB address-space limit
# and a timeout: exit 0, or exit 2 with one
# `unjudged: error:` line; never a traceback, a crash, a hang or gigabytes for a tiny input.
TWO_63 = str(2 ** 63)
EDGE_QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 1\n2 0 d5 0\n10 0 d6 1\n10 0 d7 0\n"
DIVERSITY = ["alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA", "NRBP", "nNRBP", "P-IA", "MAP-IA",
             "S-recall"]


def _edge_run(tag: str) -> str:
    rng = random.Random(tag)
    lines = []
    for t in ("1", "2", "10"):
        docs = [f"d{i}" for i in range(1, 9)] + [f"x{i}" for i in range(5)]
        rng.shuffle(docs)
        lines += [f"{t} Q0 {d} {r} {20 - r} {tag}\n" for r, d in enumerate(docs, 1)]
    return "".join(lines)


def cli_edge_cases() -> list[tuple[str, str, list[str]]]:
    """(class, label, argv after `unjudged`) of issue 34's items 1, 9 and 10, on the files
    `cli_edge_files` writes."""
    q, a, b = "q.txt", "a.run", "b.run"
    runs = [f"{t}.run" for t in "abcdef"]
    sizes = [
        ("P@10^12", ["eval", q, a, "-m", "P@1000000000000"]),
        ("nDCG@10^12", ["eval", q, a, "-m", "nDCG@1000000000000"]),
        ("alpha-nDCG@10^9", ["eval", q, a, "-m", "alpha-nDCG@1000000000"]),
        ("S-recall@10^12 bootstrap", ["estimate", q, a, "-m", "S-recall@1000000000000", "-b",
                                      "10", "-j", "1"]),
        ("-b 10^9", ["estimate", q, a, b, "-m", "nDCG@10", "-b", "1000000000", "-j", "1"]),
        ("-b 2^63", ["estimate", q, a, "-m", "nDCG@10", "-b", TWO_63]),
        ("-M 2^63", ["eval", q, a, "-m", "P@10", "-M", TWO_63]),
        ("pool -k 2^63", ["pool", a, b, "-k", TWO_63]),
        ("--decimals 2^63", ["compare-qrels", "--orig", q, "--new", q, a, b, "--decimals",
                             TWO_63]),
        ("--jobs 2^63", ["estimate", q, a, "-m", "P@10", "--jobs", TWO_63]),
        ("--max-line-length 2^63", ["--max-line-length", TWO_63, "eval", q, a, "-m", "P@10"]),
        ("qrels filter --topics 1-10^8", ["qrels", "filter", q, "--topics", "1-100000000"]),
        ("plan -b 2^63", ["plan", q, a, b, "-m", "nDCG@10", "-b", TWO_63, "--budget", "5"]),
        ("eval -q, a topic id of 5,000 digits", ["eval", "long.q", "long.run", "-m", "P@1",
                                                  "-q"]),
        ("pool, a topic id of 5,000 digits", ["pool", "long.run", "-k", "1"]),
    ]
    options = [
        ("-m ''", ["eval", q, a, "-m", ""]),
        ("--dask http://", ["estimate", q, a, "-m", "P@10", "--dask", "http://127.0.0.1:1"]),
        ("--dask tls:// without settings", ["estimate", q, a, "-m", "P@10", "--dask",
                                            "tls://127.0.0.1:1"]),
        ("--dask bogus://", ["estimate", q, a, "-m", "P@10", "--dask", "bogus://x"]),
        ("matrix --test bootstrap --seed -1", ["matrix", q, a, b, "--test", "bootstrap",
                                               "--seed", "-1"]),
        ("estimate --seed -1", ["estimate", q, a, "-m", "P@10", "--seed", "-1", "-j", "1"]),
        ("infer bootstrap --seed -1", ["infer", q, a, "-m", "infAP", "--ci-method",
                                       "bootstrap", "--seed", "-1"]),
    ]
    executors = [(f"{m}@20, -j 2", ["estimate", q, *runs, "-m", f"{m}@20", "-b", "20", "-j",
                                    "2"]) for m in DIVERSITY]
    executors += [("alpha-nDCG@20 plan -j 2", ["plan", q, *runs, "-m", "alpha-nDCG@20", "-b",
                                               "20", "-j", "2", "--budget", "5"]),
                  ("nERR-IA@20 --dask local", ["estimate", q, a, b, "-m", "nERR-IA@20", "-b",
                                               "20", "--dask", "local"])]
    return ([("sizes (item 9)", *c) for c in sizes] + [("options (item 10)", *c) for c in options]
            + [("every measure, every executor (item 1)", *c) for c in executors])


#: defects of the corpus in files this runner's owners do not own, reported to theirs: the test
#: fails when one is fixed (remove it here) as when a new one appears
KNOWN_DEFECTS: set[str] = set()


def cli_edge_files(folder: Path) -> None:
    (folder / "q.txt").write_text(EDGE_QRELS)
    for t in "abcdef":
        (folder / f"{t}.run").write_text(_edge_run(t))
    long = "1" * 5000  # natural order compares digit runs as numbers
    (folder / "long.q").write_text(f"{long} 0 d1 1\n2 0 d1 1\n")
    (folder / "long.run").write_text(f"{long} Q0 d1 1 1 r\n2 Q0 d1 1 1 r\n")


def _limited() -> None:  # in the child: a runaway allocation fails instead of swapping
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))


def cli_outcome(argv: list[str], folder: str, timeout: float = 300) -> tuple[str, str]:
    """("clean" | "clean error" | what went wrong, detail) of `unjudged ARGV` run in `folder`."""
    try:
        done = subprocess.run([sys.executable, "-m", "unjudged", *argv], cwd=folder,
                              capture_output=True, text=True, timeout=timeout,
                              preexec_fn=_limited, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "timeout", " ".join(argv)
    err = done.stderr.splitlines()
    errors = [line for line in err if line.startswith("unjudged: error:")]
    if "Traceback" in done.stderr:
        return "traceback", done.stderr.strip().splitlines()[-1][:200]
    if done.returncode == 0:
        return "clean", ""
    if done.returncode == 2 and len(errors) == 1 and err[-1] == errors[0]:
        return "clean error", ""
    return f"exit {done.returncode}", (err[-1] if err else "")[:200]


def cli_edge_campaign() -> tuple[dict[str, collections.Counter], list[tuple[str, str, str]]]:
    """({class: Counter of outcomes}, [(label, outcome, detail) of the defects])."""
    out: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    defects = []
    with tempfile.TemporaryDirectory() as folder:
        cli_edge_files(Path(folder))
        for cls, label, argv in cli_edge_cases():
            status, detail = cli_outcome(argv, folder)
            out[cls][status] += 1
            if status not in GOOD:
                defects.append((label, status, detail))
    return out, defects


def edge_campaign(tables: int = 2000, seed: int = 34) -> dict[str, collections.Counter]:
    """{class: Counter of outcomes} over issue 34's classes; "defects" lists what failed."""
    from test_api_misuse import CASES as MISUSE
    from test_measure_params import CASES as PARAMS
    from test_measure_params import _name, outside
    from test_reader_differential import table_outcome
    from unjudged.measures import parse_measure

    out: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        for i in range(tables):
            status, detail = table_outcome(rng, "run" if i % 2 else "qrels", folder)
            out["tables vs TREC text"][status if status != "same" else "clean"] += 1
        for _label, call in _edge_inputs(Path(folder)):
            out["header comments, crashing inputs"][_call(call)[0]] += 1
    for spec, p in PARAMS:
        for value in outside(p):
            refused = functools.partial(_refused, parse_measure, _name(spec, p.name, value))
            out["measure parameters"][_call(refused)[0]] += 1
    with tempfile.TemporaryDirectory() as folder:
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            for _label, call, _error, _fragment in MISUSE:
                out["API misuse"][_call(call)[0]] += 1
        finally:
            os.chdir(cwd)
    return out


def edge_summary(result: dict[str, collections.Counter]) -> str:
    lines = []
    for name, counts in result.items():
        tried = sum(counts.values())
        clean = counts["clean"] + counts["clean error"]
        lines.append(f"{name}: {tried} tried, {clean} clean, {tried - clean} defects "
                     f"({dict(counts)})")
    return "\n".join(lines)


def test_issue_34_command_line_classes_run_or_fail_in_one_line():
    """Sizes, options and every diversity measure under worker processes (items 1, 9, 10)."""
    result, defects = cli_edge_campaign()
    print("\n" + edge_summary(result))
    assert {label for label, _, _ in defects} == KNOWN_DEFECTS, defects


def test_issue_34_classes_read_right_or_fail_cleanly():
    result = edge_campaign(tables=int(os.environ.get("UNJUDGED_EDGE_TABLES", "200")))
    print("\n" + edge_summary(result))
    defects = {k: c for k, c in result.items()
               if set(c) - {"clean", "clean error"}}
    assert not defects, edge_summary(result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edges", action="store_true",
                        help="only issue 34's classes (tables, parameters, API misuse, ...)")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--cli", type=int, default=20, help="inputs also run through the CLI")
    parser.add_argument("--values-every", type=int, default=10)
    parser.add_argument("--large", action="store_true",
                        help="also the large files edited at block boundaries (9 MB and less)")
    parser.add_argument("--dump", help="write the failing inputs to this folder")
    args = parser.parse_args()
    if args.edges:
        print(edge_summary(edge_campaign()))
        cli, cli_defects = cli_edge_campaign()
        print(edge_summary(cli))
        for defect in cli_defects:
            known = " (known: KNOWN_DEFECTS)" if defect[0] in KNOWN_DEFECTS else ""
            print(f"defect{known}:", *defect, sep="\t")
        sys.exit(0)
    result = campaign(args.count, args.seed, args.cli, args.values_every)
    if args.large:
        with tempfile.TemporaryDirectory() as folder:
            for label, kind, data in large_inputs(need(TREC_EVAL), full=True):
                tally(result["counts"], result["failures"], label,
                      check_large(label, kind, data, folder), data)
    print(summary(result))
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        for n, (label, check, status, detail, data) in enumerate(result["failures"]):
            Path(args.dump, f"{n:04d}.bin").write_bytes(data)
            with open(Path(args.dump, "index.txt"), "a") as fh:
                fh.write(f"{n:04d}\t{label}\t{check}\t{status}\t{detail}\n")
