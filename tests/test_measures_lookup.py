"""`unjudged measures NAME` finds every measure by any of its names (issue 32, item 9): the
registry's families by name or alias in any case where the case does not name another measure,
and the language-model divergence measures, which are not in the registry (they read text)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from unjudged.cli import main
from unjudged.errors import MeasureSpecError
from unjudged.measures import REGISTRY, families
from unjudged.measures.divergence import FAMILIES
from unjudged.report.catalogue import describe, listing


def _head(text: str) -> str:
    return text.split()[0]


def test_every_name_in_every_case_finds_its_family():
    checked = 0
    for spec in families():
        for name in (spec.name, *spec.aliases):
            for spelt in {name, name.lower(), name.upper(), name.swapcase()}:
                exact = REGISTRY.get(spelt)
                # where a spelling is another family's own name or alias, that one is meant
                want = exact.name if exact is not None else spec.name
                if exact is None and any(k != name and k.casefold() == spelt.casefold()
                                         and REGISTRY[k].name == k
                                         for k in REGISTRY):
                    continue  # e.g. 'aP': AP's own name wins over Judged's alias Ap
                assert _head(describe(spelt, 100)) == want, spelt
                checked += 1
    assert checked > 500


def test_case_collisions_resolve_to_the_exact_or_own_name():
    assert _head(describe("Ap", 100)) == "Judged"  # exact alias
    assert _head(describe("ap", 100)) == "AP"  # AP's own name before Judged's alias
    assert _head(describe("ndcg_CUT_10", 100)) == "nDCG"  # a trec_eval name with its cutoff
    assert _head(describe("STATAP", 100)) == "statAP"


def test_two_aliases_differing_by_case_are_refused(monkeypatch):
    monkeypatch.setitem(REGISTRY, "Zq", REGISTRY["AP"])
    monkeypatch.setitem(REGISTRY, "zQ", REGISTRY["Judged"])
    with pytest.raises(MeasureSpecError, match="several measures but for case: Zq, zQ"):
        describe("zq", 100)
    with pytest.raises(MeasureSpecError, match="unknown measure 'xyzzy'"):
        describe("xyzzy", 100)


@pytest.mark.parametrize("name", ["ABS-NB", "abs-nb", "ABS-RB@20", "delta-nb",
                                  "DELTA-RB(theta=0.9)@20"])
def test_divergence_measures_are_described(name):
    result = CliRunner().invoke(main, ["measures", "--width", "100", name])
    assert result.exit_code == 0, result.output
    family = name.split("(")[0].split("@")[0].upper()
    assert result.output.startswith(f"{family}   usage: {FAMILIES[family][0]}")
    flat = " ".join(result.output.split())
    assert "unjudged text divergence" in flat and "mu (float, default 2500.0)" in flat
    assert ("theta (float, default 0.8)" in flat) == family.endswith("RB")


def test_listing_names_the_divergence_measures():
    flat = " ".join(listing(200).split())
    for usage, sentence in FAMILIES.values():
        assert f"{usage} {sentence}" in flat


def test_unknown_name_is_one_line_and_exit_2():
    result = CliRunner().invoke(main, ["measures", "ABS-XB"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == ["unjudged: error: unknown measure 'ABS-XB'"]
