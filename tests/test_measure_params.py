"""Every registered measure's parameters are range-checked by the parser (issue 34, item 7).

Each parameter declares its domain in its spec (unjudged.measures._spec.Param); a value
outside it is one line of MeasureSpecError naming the measure, the parameter, the value and the
domain, and the default is always accepted. The cases are built from the registry, so a new
measure is covered when it registers.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from unjudged.errors import MeasureSpecError
from unjudged.measures import parse_measure
from unjudged.measures._spec import GRADE_LIMITS, Param, families


def _name(spec, param: str, value) -> str:
    text = f"{spec.name}({param}={value!r})"
    return text + ("@10" if spec.cutoff == "required" else "")


def outside(p: Param) -> list:
    """Values outside `p`'s domain."""
    if p.choices:
        return ["bogus", 3.5]
    if p.type is bool:
        return ["yes", 2, 0.5]
    if p.type is int:
        low = GRADE_LIMITS[0] if p.low is None else p.low
        high = GRADE_LIMITS[1] if p.high is None else p.high
        return [int(low) - 1 + p.open_low, int(high) + 1 - p.open_high, 1.5, True, "x",
                float("nan")]
    if p.type is float:
        out = [float("nan"), float("inf"), -float("inf"), True, "x"]
        if p.low is not None:
            out.append(p.low if p.open_low else p.low - 0.5)
        if p.high is not None:
            out.append(p.high if p.open_high else p.high + 0.5)
        return out
    if p.type is str:
        return []  # free text (a run tag, say): no value is outside
    return ["x,y", 5]  # the types that check their own text (gain maps, weights, levels)


CASES = [(spec, p) for spec in families() for p in spec.params]


def test_every_parameter_declares_a_domain():
    assert len(CASES) > 40
    for spec, p in CASES:
        assert p.domain(), (spec.name, p.name)
        assert p.problem(p.default) is None, (spec.name, p.name, p.default)


@pytest.mark.parametrize(("spec", "param"), CASES,
                         ids=[f"{s.name}-{p.name}" for s, p in CASES])
def test_out_of_domain_values_are_refused_and_defaults_accepted(spec, param):
    if param.default is not None:
        measure = parse_measure(_name(spec, param.name, param.default))
        assert dict(measure.params)[param.name] == param.default
    for value in outside(param):
        text = _name(spec, param.name, value)
        with pytest.raises(MeasureSpecError) as caught:
            parse_measure(text)
        message = str(caught.value)
        assert "\n" not in message
        assert f"{spec.name}'s parameter {param.name} must be {param.domain()}" in message, \
            message
        shown = repr(value) if not (isinstance(value, float) and not math.isfinite(value)) \
            else repr(str(value))  # nan and inf reach the parser as text
        assert message.endswith(f"not {shown}") or f"not {value!r}" in message, message


@pytest.mark.parametrize(("text", "domain"), [
    ("RBP(p=2)", "a number in [0, 1)"),
    ("RBP(p=nan)", "a number in [0, 1)"),
    ("alpha-nDCG(alpha=2)@20", "a number in [0, 1]"),
    ("P(rel=1.5)@2", "an integer in [-2147483648, 2147483647]"),
    ("ERR(max_grade=2000)", "an integer in [0, 1023]"),
    ("IPrec@1.5", "a number in [0, 1]"),
    ("Rprec_mult_0", "a number in (0, inf)"),
    ("Utility(weights='1,2')", "four numbers"),
])
def test_the_issue_cases(text, domain):
    with pytest.raises(MeasureSpecError, match=r"must be " + domain.replace("(", r"\(")
                       .replace(")", r"\)").replace("[", r"\[")):
        parse_measure(text)


def test_in_domain_values_keep_their_value():
    assert parse_measure("P(rel=2.0)@2").name == "P(rel=2)@2"  # an integral float is fine
    assert parse_measure("RBP(p=0)").kwargs()["p"] == 0.0
    assert parse_measure("alpha-nDCG(alpha=1)@20").kwargs()["alpha"] == 1.0
    assert parse_measure("ERR(max_grade=1023)").kwargs()["max_grade"] == 1023
    assert parse_measure("AP(judged_only=1)").kwargs()["judged_only"] is True


def test_the_command_line_refuses_with_one_line(tmp_path):
    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2.0 r\n")
    done = subprocess.run([sys.executable, "-m", "unjudged", "eval", str(tmp_path / "q"),
                           str(tmp_path / "r"), "-m", "RBP(p=2)"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "unjudged: error: 'RBP(p=2)': RBP's parameter p must be a number in [0, 1), not 2"]
