"""The shipped outcome of the intractable lists (issue 26): the sample datasets under
``results/intractables`` hold only deals of the published lists, every ``solved`` deal's
solution wins when the rules engine replays it, and the plain lists in ``results/lists``
say exactly what the datasets say."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from fcsurvey import known, store
from fcsurvey.deals import deal
from fcsurvey.limits import Limits
from fcsurvey.replay import validate
from fcsurvey.rules import preset
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.solver import solve

from conftest import RESULTS, run_cli

SAMPLES = {3: (RESULTS / "intractables" / "3cells-sample", known.INTRACTABLE_3_CELLS,
               RESULTS / "lists" / "decided-3cell-intractables.txt"),
           0: (RESULTS / "intractables" / "0cells-sample", known.INTRACTABLE_0_CELLS,
               RESULTS / "lists" / "decided-0cell-intractables.txt")}


def listed_rows(path):
    """The deal lines of a decided list: {deal: status}."""
    lines = [line.split() for line in path.read_text().splitlines() if line and not line.startswith("#")]
    return {int(words[0]): words[1] for words in lines}


@pytest.mark.parametrize("cells", sorted(SAMPLES))
def test_every_solved_intractable_replays_to_a_win(cells):
    dataset, published, _ = SAMPLES[cells]
    rules = preset("freecell", cells=cells)
    rows = store.read(dataset, columns=["deal", "status", "solution", "cells"]).to_pylist()
    assert rows and all(r["cells"] == cells for r in rows)
    assert {r["deal"] for r in rows} <= set(published.numbers())
    solved = [r for r in rows if r["status"] == SOLVED]
    assert solved
    for r in solved:
        assert validate(deal(r["deal"], rules), rules, r["solution"]).won, r["deal"]


@pytest.mark.parametrize("cells", sorted(SAMPLES))
def test_the_decided_list_says_what_the_dataset_says(cells):
    dataset, _, listed = SAMPLES[cells]
    rows = {r["deal"]: r["status"] for r in store.read(dataset, columns=["deal", "status"]).to_pylist()}
    decided = listed_rows(listed)
    hole = known.RECORD_HOLES[cells]
    assert {n: s for n, s in decided.items() if n != hole} == rows
    assert set(decided.values()) <= {SOLVED, UNSOLVABLE, UNKNOWN}
    counts = {s: sum(1 for v in decided.values() if v == s) for s in (SOLVED, UNSOLVABLE, UNKNOWN)}
    assert (f"{len(decided)} deals run: {counts[SOLVED]} solved, {counts[UNSOLVABLE]} unsolvable, "
            f"{counts[UNKNOWN]} unknown") in listed.read_text()


def test_a_solved_intractable_replays_in_fcsurvey_check(tmp_path):
    # 3-cell deal 1350656701, intractable in FreeCell Pro's survey, checked as a user would.
    rows = store.read(SAMPLES[3][0], columns=["deal", "status", "solution"]).to_pylist()
    (won,) = [r for r in rows if r["deal"] == 1350656701]
    assert won["status"] == SOLVED
    solution = tmp_path / "1350656701.sol"
    solution.write_text(won["solution"])
    result = run_cli("check", "1350656701", "--cells", "3", "--solution-file", solution)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("valid: ")


# --- the whole lists in passes: scripts/run_intractables.py ---------------------------------

def load_intractables_script():
    path = RESULTS.parent / "scripts" / "run_intractables.py"
    if "run_intractables" not in sys.modules:
        spec = importlib.util.spec_from_file_location("run_intractables", path)
        sys.modules["run_intractables"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["run_intractables"])
    return sys.modules["run_intractables"]


@pytest.mark.parametrize("cells", sorted(SAMPLES))
def test_pass_1_is_the_searches_of_the_lists_first_deals_and_resumes(tmp_path, capsys, cells):
    """Pass 1 over a list's first 6 deals gives each the verdict of its own solve at the pass's
    limits (its wins replayed as every solve's are), in one file a block of deal numbers,
    and run again has nothing to do."""
    script = load_intractables_script()
    base = ["--cells", str(cells), "--sample", "6", "--runs", str(tmp_path)]
    assert script.main(["pass1", *base, "--workers", "1"]) == 0
    out = tmp_path / f"intractables-{cells}cells-pass1"
    rows = store.read(out, columns=["deal", "status", "states", "solution"]).to_pylist()
    first = script.LISTS[cells].numbers()[:6]
    assert [r["deal"] for r in rows] == list(first)
    assert first[0] == known.RECORD_HOLES[cells]  # the record's hole leads either list
    rules = preset("freecell", cells=cells)
    limits = Limits(max_states=script.PASS1_MAX_STATES, searches_only=True)
    for r in rows:
        again = solve(r["deal"], rules, limits)
        assert (r["status"], r["states"], r["solution"]) == (again.status, again.states, None), r["deal"]
    assert {r["status"] for r in rows} <= {SOLVED, UNKNOWN}  # 100,000 positions prove none lost
    blocks = {(n - 1) // store.BLOCK_DEALS for n in first}
    assert len(store.chunk_files(out)) == len(blocks)
    capsys.readouterr()
    assert script.main(["pass1", *base, "--workers", "1"]) == 0
    assert script.main(["status", *base]) == 0
    printed = capsys.readouterr().out
    assert f"{out}: 6 of 6 deals: " in printed

