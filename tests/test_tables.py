"""Winnable tables (Issue 29, item 1): the bitmap format, ``fcsurvey export --format bitmap``,
the loader, and the shipped 4-cell table of deals 1-1,000,000.

Every deal the shipped table vouches for must be winnable: a sample is solved here again
and the solutions replayed by the rules engine; the deals it leaves out must be exactly
the eight the published record calls unsolvable.
"""

from __future__ import annotations

import io
import json
import random
import shutil
import subprocess

import pytest

import fcsurvey
from fcsurvey.dealset import parse_deals
from fcsurvey.report import ReportError, export
from fcsurvey.replay import validate
from fcsurvey.survey import Survey
from fcsurvey.tables import TableError, WinnableTable, encode, load_table, table_bytes

from conftest import FREECELL, RESULTS, THE_EIGHT, cli

SHIPPED_TABLE = RESULTS / "lists" / "winnable-4cells-1-1000000.bin"
SHIPPED_EXCEPTIONS = RESULTS / "lists" / "unsolvable-4cells-1-1000000.txt"
MILLION = RESULTS / "freecell_1-1000000"
#: Table entries replayed: a few in the fast suite, the issue's 2,000 in the slow one.
FAST_SAMPLE, FULL_SAMPLE = 40, 2_000


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


def replay_sample(size: int, seed: int) -> None:
    """Solve ``size`` random entries of the shipped table again and replay each solution."""
    table = load_table(SHIPPED_TABLE)
    rng = random.Random(seed)
    for number in sorted(rng.sample(range(1, 1_000_001), size * 2)):
        if number in table and size:
            size -= 1
            result = fcsurvey.solve(number, FREECELL, replay=False)
            assert result.status == "solved", number
            assert validate(fcsurvey.deal(number, FREECELL), FREECELL, result.solution).ok, number
    assert size == 0


def test_a_sample_of_the_shipped_table_replays():
    replay_sample(FAST_SAMPLE, seed=29)


@pytest.mark.slow
def test_two_thousand_entries_of_the_shipped_table_replay():
    replay_sample(FULL_SAMPLE, seed=2029)


@pytest.mark.slow
def test_the_shipped_table_is_what_the_export_writes():
    """Anyone can regenerate the table from the shipped survey."""
    assert bitmap(MILLION) == SHIPPED_TABLE.read_bytes()


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
