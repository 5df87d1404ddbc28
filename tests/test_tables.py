"""Winnable tables (Issue 29, item 1): the bitmap format, ``fcsurvey export --format bitmap``,
the loader, the passes of scripts/run_tables.py, and the shipped tables of deals 1-1,000,000.

Every deal a shipped table vouches for must be winnable: a sample is solved here again and
the solutions replayed by the rules engine; the deals they leave out must agree with the
published record wherever it speaks (exactly the eight unsolvable deals with 4 cells; every
deal listed unsolvable with 3; the published rate with 2).  A table not shipped yet (the 3-,
2- and 1-cell tables are made over several sessions) skips its tests.
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import json
import random
import shutil
import subprocess
import sys
from collections import Counter

import pytest

import fcsurvey
from fcsurvey import known
from fcsurvey.dealset import parse_deals
from fcsurvey.limits import Limits
from fcsurvey.report import ReportError, export
from fcsurvey.replay import validate
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.store import read
from fcsurvey.survey import Survey
from fcsurvey.tables import TableError, WinnableTable, encode, load_table, table_bytes, union
from fcsurvey.verify import wilson_interval

from conftest import RESULTS, THE_EIGHT, cli

SHIPPED_TABLE = RESULTS / "lists" / "winnable-4cells-1-1000000.bin"
SHIPPED_EXCEPTIONS = RESULTS / "lists" / "unsolvable-4cells-1-1000000.txt"
MILLION = RESULTS / "freecell_1-1000000"
#: Table entries replayed: a hundred of the 4-cell table in the fast suite, the issue's 2,000
#: of every shipped table in the slow one.
FAST_SAMPLE, FULL_SAMPLE = 100, 2_000
TABLE_CELLS = (4, 3, 2, 1)
SCRIPT = RESULTS.parent / "scripts" / "run_tables.py"
#: The fewest cells of deals 1-32,000, each proved both ways (the published record agrees).
MIN_CELLS = RESULTS / "ms-freecell-1-32000"
#: Deals of 1-32,000 winnable with so many cells that a table leaves out, undecided by its
#: passes (of 31,999, 31,801, 25,381 and 6,289 winnable; docs/game-makers.md).
WINNABLE_LEFT_OUT = {4: 0, 3: 0, 2: 8, 1: 34}


def load_script():
    """scripts/run_tables.py as a module (registered, as its dataclass needs)."""
    if "run_tables" not in sys.modules:
        spec = importlib.util.spec_from_file_location("run_tables", SCRIPT)
        sys.modules["run_tables"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["run_tables"])
    return sys.modules["run_tables"]


def shipped(cells: int):
    """The shipped table and list of deals proved unsolvable for ``cells`` (the 4-cell list is
    plain text); skips the test while the table is not shipped."""
    name = load_script().cells_name(cells)
    table = RESULTS / "lists" / f"winnable-{name}-1-1000000.bin"
    if not table.exists():
        pytest.skip(f"{table.name} is not shipped yet (scripts/run_tables.py status)")
    if cells == 4:
        return load_table(table), {int(n) for n in SHIPPED_EXCEPTIONS.read_text().split()}
    listed = gzip.decompress((RESULTS / "lists" / f"unsolvable-{name}-1-1000000.txt.gz").read_bytes())
    return load_table(table), {int(n) for n in listed.split()}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """Deals 1-10 and 11982 (unsolvable) with 4 cells, asked as 1-10,11982."""
    out = tmp_path_factory.mktemp("tables") / "out"
    Survey(parse_deals("1-10,11982"), out, workers=1, chunk_size=6).run()
    return out


def bitmap(dataset, **options) -> bytes:
    out = io.BytesIO()
    export(dataset, out, fmt="bitmap", **options)
    return out.getvalue()


# --- the format ----------------------------------------------------------------------------

def test_deal_n_is_bit_n_minus_1_least_significant_first():
    assert encode([1], 8) == b"\x01" and encode([8], 8) == b"\x80" and encode([9], 16) == b"\x00\x01"
    assert encode([1, 2, 3, 10], 10) == bytes([0b111, 0b10])
    assert table_bytes(1_000_000) == 125_000 and table_bytes(1) == 1 and table_bytes(9) == 2


def test_encode_refuses_a_deal_outside_the_table():
    with pytest.raises(TableError, match="deal 17 is outside the table's deals 1 to 16"):
        encode([17], 16)
    with pytest.raises(TableError, match="deal 0 is outside"):
        encode([0], 16)


@pytest.mark.parametrize("seed", range(3))
def test_the_loader_round_trips(tmp_path, seed):
    rng = random.Random(seed)
    last = rng.randint(1, 5_000)
    deals = sorted(rng.sample(range(1, last + 1), rng.randint(0, last)))
    (tmp_path / "t.bin").write_bytes(encode(deals, last))
    table = load_table(tmp_path / "t.bin")
    assert list(table) == deals and len(table) == len(deals) and table.last == 8 * table_bytes(last)
    assert all(n in table for n in deals)
    assert table.absent(1, last) == sorted(set(range(1, last + 1)) - set(deals))
    assert table.to_bytes() == encode(deals, last)


def test_what_a_table_cannot_speak_of_is_not_in_it():
    table = WinnableTable(encode(range(1, 17), 16))
    assert [n in table for n in (0, 1, 16, 17, -1, True, "1", 1.0)] == [False, True, True, False,
                                                                       False, False, False, False]


def test_an_unreadable_table_is_a_table_error(tmp_path):
    with pytest.raises(TableError, match="cannot read the table"):
        load_table(tmp_path / "missing.bin")


# --- the export ----------------------------------------------------------------------------

def test_the_bitmap_sets_the_solved_deals_and_covers_the_dataset(dataset):
    table = WinnableTable(bitmap(dataset))
    assert len(table.to_bytes()) == table_bytes(11982)
    assert list(table) == list(range(1, 11))  # 11982 is unsolvable
    assert list(WinnableTable(bitmap(dataset, where="deal >= 4 and deal != 7"))) == [4, 5, 6, 8, 9, 10]
    assert len(bitmap(dataset, where="deal <= 3")) == table_bytes(11982)  # the extent is the dataset's


def test_cli_writes_the_bitmap_as_bytes(capsys, dataset, tmp_path):
    target = tmp_path / "winnable.bin"
    code, out, err = cli(capsys, "export", dataset, "--format", "bitmap", "--out", target)
    assert (code, out, err) == (0, "", "Exported 10 deals.\n")
    assert target.read_bytes() == encode(range(1, 11), 11982)
    assert list(load_table(target)) == list(range(1, 11))


@pytest.mark.parametrize("order", [("--sort", "moves"), ("--desc",)])
def test_an_order_the_bitmap_cannot_keep_is_refused(capsys, dataset, tmp_path, order):
    target = tmp_path / "winnable.bin"
    code, out, err = cli(capsys, "export", dataset, "--format", "bitmap", *order, "--out", target)
    assert (code, err.count("\n")) == (2, 1) and err.startswith("Error: ") and f"does not use {order[0]}" in err
    assert not target.exists()


def test_an_order_with_a_limit_chooses_the_bitmaps_deals(capsys, dataset, tmp_path):
    target = tmp_path / "winnable.bin"
    code, _, err = cli(capsys, "export", dataset, "--format", "bitmap", "--sort", "moves", "--limit", "3",
                       "--out", target)
    rows = [r for r in read(dataset, ["deal", "status", "moves"]).to_pylist() if r["status"] == SOLVED]
    shortest = sorted(r["deal"] for r in sorted(rows, key=lambda r: (r["moves"], r["deal"]))[:3])
    assert (code, err) == (0, "Exported 3 deals.\n") and list(load_table(target)) == shortest


def test_an_unknown_format_is_refused(dataset):
    with pytest.raises(ReportError, match="unknown format 'png'"):
        export(dataset, io.BytesIO(), fmt="png")


# --- the shipped 4-cell table ----------------------------------------------------------------

def test_the_shipped_table_leaves_out_exactly_the_eight_unsolvable_deals():
    table = fcsurvey.load_table(SHIPPED_TABLE)
    assert len(table.to_bytes()) == 125_000
    assert table.absent(1, 1_000_000) == list(THE_EIGHT)
    assert len(table) == 1_000_000 - len(THE_EIGHT)
    assert SHIPPED_EXCEPTIONS.read_text().split() == [str(n) for n in THE_EIGHT]


def replay_sample(cells: int, size: int, seed: int) -> None:
    """Solve ``size`` random entries of the shipped ``cells`` table again and replay each
    solution with the rules engine.  The searches of the table's last pass win each entry at
    the build that made it; a whole solve at the default limits backs them up, so that a build
    searching otherwise still finds its win."""
    table, _ = shipped(cells)
    rules = fcsurvey.preset("freecell", cells=cells)
    passes = load_script().PASSES
    last_pass = Limits(max_states=passes[cells][-1].max_states, searches_only=True) if cells in passes else Limits()
    rng = random.Random(seed)
    entries = list(table)
    for number in sorted(rng.sample(entries, size)):
        result = fcsurvey.solve(number, rules, last_pass, replay=False)
        if result.status != SOLVED:
            result = fcsurvey.solve(number, rules, replay=False)
        assert result.status == SOLVED, number
        assert validate(fcsurvey.deal(number, rules), rules, result.solution).ok, number


def test_a_sample_of_the_shipped_table_replays():
    replay_sample(4, FAST_SAMPLE, seed=29)


@pytest.mark.slow
@pytest.mark.parametrize("cells", TABLE_CELLS)
def test_two_thousand_entries_of_each_shipped_table_replay(cells):
    replay_sample(cells, FULL_SAMPLE, seed=2029 + cells)


@pytest.mark.parametrize("cells", TABLE_CELLS)
def test_each_shipped_table_agrees_with_the_fewest_cells_of_deals_1_to_32000(cells):
    """Where the published fewest cells speak (deals 1-32,000), a table holds exactly deals
    winnable with its cells but those it left undecided, and its list of deals proved
    unsolvable holds none that is winnable."""
    table, proved = shipped(cells)
    fewest = {r["deal"]: r["min_cells"] for r in read(MIN_CELLS, columns=["deal", "min_cells"]).to_pylist()}
    winnable = {n for n, least in fewest.items() if least is not None and least <= cells}
    vouched = {n for n in table if n <= 32_000}
    assert vouched <= winnable and not proved & winnable and not proved & set(table)
    assert len(winnable - vouched) == WINNABLE_LEFT_OUT[cells]
    assert len(table.to_bytes()) == 125_000


def test_the_shipped_3_cell_table_leaves_out_every_deal_listed_unsolvable():
    table, proved = shipped(3)
    assert not set(known.UNSOLVABLE_3_CELLS.numbers()) & set(table)  # the 199 of 1-32,000
    listed = set(known.IMPOSSIBLE_3_CELLS.within(parse_deals("1-1000000")))
    assert len(listed) == 6_398 and not listed & set(table)
    assert proved <= listed | {known.RECORD_HOLES[3]}


def test_the_shipped_2_cell_tables_share_is_within_the_published_rate():
    table, proved = shipped(2)
    claim = known.get("rate-freecell-2cells").expected
    low, high = wilson_interval(len(table), 1_000_000)
    assert low <= claim.winnable <= high, (len(table), low, high)
    assert len([n for n in proved if n <= 400_000]) <= 82_126 + 1  # the record's count, and its hole


@pytest.mark.slow
def test_the_shipped_table_is_what_the_export_writes():
    """Anyone can regenerate the table from the shipped survey."""
    assert bitmap(MILLION) == SHIPPED_TABLE.read_bytes()


# --- tables made in passes: scripts/run_tables.py --------------------------------------------

def test_union_is_a_bitwise_or_covering_the_longest():
    joined = union(WinnableTable(encode([1, 5], 8)), WinnableTable(encode([5, 12], 16)), WinnableTable(b""))
    assert list(joined) == [1, 5, 12] and len(joined.to_bytes()) == 2
    assert union().to_bytes() == b""


def test_the_passes_make_the_table_of_their_solves(tmp_path, monkeypatch, capsys):
    """The script's steps on 2-cell deals 1-60, with narrow passes so that the second has work:
    the table is the OR of the two passes' bitmaps, exactly the deals one of them won, and the
    list the deals one proved unsolvable; each step refuses to run before its turn."""
    script = load_script()
    monkeypatch.setattr(script, "PASSES", {2: (script.Pass("pass1", 1_000, 20), script.Pass("pass2", 100_000, 5))})
    base = ["--cells", "2", "--deals", "1-60", "--runs", str(tmp_path / "runs"), "--lists", str(tmp_path / "lists")]
    assert script.main(["pass2", *base]) == script.EXIT_NOT_READY
    assert script.main(["ship", *base]) == script.EXIT_NOT_READY
    assert script.main(["pass1", *base, "--workers", "1"]) == 0
    assert script.main(["ship", *base]) == script.EXIT_NOT_READY  # pass 2 not run
    assert script.main(["pass2", *base, "--workers", "1"]) == 0
    capsys.readouterr()
    assert script.main(["status", *base]) == 0
    assert capsys.readouterr().out.endswith(
        "2cells table so far: 52 winnable (86.667% of 60), 7 proved unsolvable, 1 undecided\n")
    assert script.main(["ship", *base]) == 0

    rules = fcsurvey.preset("freecell", cells=2)
    first = {n: fcsurvey.solve(n, rules, Limits(1_000, searches_only=True), replay=False).status
             for n in range(1, 61)}
    second = {n: fcsurvey.solve(n, rules, Limits(100_000, searches_only=True), replay=False).status
              for n, status in first.items() if status == UNKNOWN}
    verdicts = {**first, **second}
    table = load_table(tmp_path / "lists" / "winnable-2cells-1-60.bin")
    assert list(table) == sorted(n for n, status in verdicts.items() if status == SOLVED)
    assert {n for n in second if second[n] == SOLVED} and {n for n in first if first[n] == SOLVED}
    assert [n for n, status in verdicts.items() if status == UNKNOWN] == [9]
    listed = gzip.decompress((tmp_path / "lists" / "unsolvable-2cells-1-60.txt.gz").read_bytes()).decode()
    assert listed == "".join(f"{n}\n" for n, status in verdicts.items() if status == UNSOLVABLE)
    # And by the published fewest cells (results/ms-freecell-1-32000), not the solver: every deal
    # the table holds is winnable with 2 cells, every one listed is not, and 9 is the one left.
    fewest = {r["deal"]: r["min_cells"] for r in read(MIN_CELLS, ["deal", "min_cells"]).to_pylist()
              if r["deal"] <= 60}
    assert set(table) | {9} == {n for n, cells in fewest.items() if cells <= 2}
    assert [int(n) for n in listed.split()] == sorted(n for n, cells in fewest.items() if cells > 2)
    passes = [tmp_path / "runs" / f"tables-2cells-{p}" for p in ("pass1", "pass2")]
    assert table.to_bytes() == union(*(WinnableTable(bitmap(p)) for p in passes)).to_bytes()
    assert json.loads((passes[1] / "_fcsurvey.json").read_text())["limits"]["searches_only"] is True


def test_the_benchmark_counts_each_pass_as_the_solver_does():
    """3-cell deals 1615-1620: 1617 needs pass 2 (docs/game-makers.md)."""
    bench = RESULTS.parent / "scripts" / "bench_tables.py"
    out = subprocess.run([sys.executable, str(bench), "--cells", "3", "--first", "1615", "--last", "1620",
                          "--timeout-row", "0.5"], capture_output=True, text=True, check=True).stdout.splitlines()
    rules = fcsurvey.preset("freecell", cells=3)
    first = Counter(fcsurvey.solve(n, rules, Limits(100_000, searches_only=True), replay=False).status
                    for n in range(1615, 1621))
    assert first[UNKNOWN] == 1 and out[0].startswith("3-cell deals 1615-1620; load average ")
    assert out[2].split()[:4] == ["whole", "100,000", "0.5", "s"]
    cells = out[3].split()
    assert cells[:3] + cells[4:8] == ["pass1", "100,000", "6", str(first[SOLVED]), str(first[UNSOLVABLE]),
                                      str(first[UNKNOWN]), "1"]
    assert out[4].split()[:3] + out[4].split()[4:] == ["pass2", "2,000,000", "1", "1", "0", "0", "0", "of",
                                                      str(first[SOLVED] + 1), out[4].split()[-1]]
    assert len(out) == 5


# --- the JavaScript loader of docs/game-makers.md ---------------------------------------------

GAME_MAKERS = RESULTS.parent / "docs" / "game-makers.md"
#: What the page's ``fetch`` gives the example: the shipped file's bytes.
FETCH_FROM_LISTS = """import { readFileSync } from "node:fs";
globalThis.fetch = async (name) => ({ arrayBuffer: async () => {
  const bytes = readFileSync(%s + "/" + name);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
} });
"""


def javascript_example() -> str:
    text = GAME_MAKERS.read_text(encoding="utf-8")
    block = text.split("```js\n", 1)[1].split("```", 1)[0]
    assert len(block.strip().splitlines()) <= 12  # the ten lines, give or take a comment
    return block


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_the_documented_javascript_reads_the_shipped_table():
    checks = ("console.log(JSON.stringify({eight: [%s].map(isWinnable), edges: [0, 1, 1000000, 1000001, 2]"
              ".map(isWinnable), random: Array.from({length: 50}, randomWinnableDeal)}));"
              % ", ".join(map(str, THE_EIGHT)))
    script = FETCH_FROM_LISTS % json.dumps(str(SHIPPED_TABLE.parent)) + javascript_example() + checks
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["eight"] == [False] * 8 and found["edges"] == [False, True, True, False, True]
    table = load_table(SHIPPED_TABLE)
    assert all(1 <= n <= 1_000_000 and n in table for n in found["random"])
