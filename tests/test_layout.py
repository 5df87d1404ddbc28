"""The layout for ten billion rows: chunk sizes chosen from the deals and rules, Hive-style
partition directories, several row groups a file, and the chunk log that makes resuming
cost no file opened; ``fcsurvey survey --check`` compares the log with the files."""

from __future__ import annotations

import json
import shutil
import zlib

import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

from fcsurvey import store
from fcsurvey.dealset import DealSet, parse_deals
from fcsurvey.limits import Limits
from fcsurvey.rules import PRESETS
from fcsurvey.store import Dataset, StoreError
from fcsurvey.survey import SOLVER_ENV, Survey, chunk_size_for, plan_chunks

from conftest import FAKE_SOLVER, RESULTS, cli

FREECELL = PRESETS["freecell"]
SHIPPED = RESULTS / "freecell_1-1000000"


def row(deal, status="solved"):
    return {"deal": deal, "status": status, "moves": 90, "atomic_moves": 120, "solution": None,
            "states": 1000 + deal, "elapsed_ms": 1.5, "limit": None, "error": None}


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setenv(SOLVER_ENV, FAKE_SOLVER)


@pytest.fixture
def ds(tmp_path):
    dataset = Dataset.open(tmp_path / "out", FREECELL, Limits(), DealSet([(1, 20_000_000)]))
    yield dataset
    dataset.close()


# --- chunk sizes and the partition blocks ------------------------------------------------------

def test_the_chunk_size_is_chosen_from_the_deals_and_the_rules():
    assert chunk_size_for(parse_deals("1-8589934591"), FREECELL) == 100_000
    assert chunk_size_for(parse_deals("1-1000000"), FREECELL) == 100_000   # 10 files
    assert chunk_size_for(parse_deals("1-32000"), FREECELL) == 2_000       # at least 8 tasks
    assert chunk_size_for(parse_deals("1-10"), FREECELL) == 100            # the smallest
    assert chunk_size_for(parse_deals("1-8589934591"), FREECELL.replace(cells=3)) == 20_000
    assert chunk_size_for(parse_deals("1-8589934591"), FREECELL, difficulty=True) == 20_000
    assert all(store.BLOCK_DEALS % size == 0 for size in (100, 2_000, 20_000, 100_000))


def test_no_chunk_spans_two_blocks_whatever_the_chunk_size():
    deals = DealSet([(9_999_950, 10_000_049)])
    # 47 * 212,765 = 9,999,955: the chunk of 9,999,956-10,000,002 is cut at the block's end
    assert list(plan_chunks(deals, 47)) == [((9_999_950, 9_999_955),), ((9_999_956, 10_000_000),),
                                            ((10_000_001, 10_000_002),), ((10_000_003, 10_000_049),)]
    assert list(plan_chunks(deals, 100_000)) == [((9_999_950, 10_000_000),), ((10_000_001, 10_000_049),)]


def test_files_go_to_their_block_which_readers_take_as_a_column(ds):
    ds.write_chunk([row(d) for d in range(9_999_991, 10_000_001)], 0.0)
    ds.write_chunk([row(d) for d in range(10_000_001, 10_000_011)], 0.0)
    assert [store.relative(ds.path, f) for f in store.chunk_files(ds.path)] == [
        "block=0000/deals-0009999991-0010000000.parquet", "block=0001/deals-0010000001-0010000010.parquet"]
    table = pads.dataset(ds.path, format="parquet", partitioning="hive").to_table()
    blocks = {(d, b) for d, b in zip(table["deal"].to_pylist(), table["block"].to_pylist())}
    assert (10_000_000, 0) in blocks and (10_000_001, 1) in blocks and len(blocks) == 20
    assert store.read(ds.path)["deal"].to_pylist() == list(range(9_999_991, 10_000_011))


def test_a_file_holds_several_row_groups_and_its_deals_cost_little(ds):
    path = ds.write_chunk([row(d) for d in range(1, 60_001)], 0.0)
    meta = pq.read_metadata(path)
    assert [meta.row_group(g).num_rows for g in range(meta.num_row_groups)] == [25_000, 25_000, 10_000]
    deal = meta.row_group(0).column(0)
    assert deal.path_in_schema == "deal" and "DELTA_BINARY_PACKED" in deal.encodings
    assert deal.total_compressed_size < 2_000  # 25,000 consecutive numbers, not 8 bytes each


def test_a_file_outside_its_block_directory_is_refused_with_where_it_belongs(ds):
    path = ds.write_chunk([row(d) for d in range(1, 11)], 0.0)
    shutil.move(path, ds.path / path.name)
    with pytest.raises(StoreError, match=r"is not where this dataset keeps deals 1-10: move it to .*block=0000/"):
        store.read(ds.path)


def test_a_dataset_made_before_the_layout_stays_flat_when_resumed(capsys, tmp_path, fake):
    out = tmp_path / "old"
    out.mkdir()
    shutil.copy(SHIPPED / store.MANIFEST, out)
    shutil.copy(SHIPPED / "deals-0000000001-0000000500.parquet", out)
    code, stdout, _ = cli(capsys, "survey", "1-600", "--out", out, "--no-solutions", "--chunk-size", "500")
    assert code == 0 and stdout.startswith("Surveyed 100 deals")
    assert [p.name for p in store.chunk_files(out)] == ["deals-0000000001-0000000500.parquet",
                                                        "deals-0000000501-0000000600.parquet"]
    assert "layout" not in store.read_manifest(out)
    assert store.read(out)["deal"].to_pylist() == list(range(1, 601))
    assert sorted(store.read_log(out)[0]) == [p.name for p in store.chunk_files(out)]  # the log, seeded


# --- the chunk log ----------------------------------------------------------------------------

def test_the_log_names_every_file_with_its_deals_counts_and_size(ds):
    first = ds.write_chunk([row(1), row(2, "unsolvable"), row(3)], 0.0)
    ds.write_chunk([row(5), row(9, "error")], 0.0)
    lines = [json.loads(line) for line in (ds.path / store.CHUNK_LOG).read_text().splitlines()]
    fields = {"chunk": "block=0000/deals-0000000001-0000000003.parquet", "deals": [[1, 3]],
              "counts": {"solved": 2, "unsolvable": 1}, "bytes": first.stat().st_size,
              "mtime_ns": first.stat().st_mtime_ns}
    assert lines[0] == {**fields, "crc": zlib.crc32(json.dumps(fields, sort_keys=True).encode())}
    assert lines[1]["deals"] == [[5, 5], [9, 9]] and lines[1]["counts"] == {"solved": 1, "error": 1}


def test_resuming_opens_no_file_the_log_names(ds, monkeypatch):
    ds.write_chunk([row(d) for d in range(1, 101)], 0.0)
    ds.write_chunk([row(d) for d in range(101, 201)], 0.0)
    ds.write_chunk([row(201, "error")], 0.0)
    ds.close()

    def opened(*args, **kwargs):
        raise AssertionError("a chunk file was opened")
    monkeypatch.setattr(pq, "ParquetFile", opened)
    again = Dataset.open(ds.path, FREECELL, Limits(), DealSet([(1, 300)]))
    assert again.done() == DealSet([(1, 201)])
    monkeypatch.undo()
    assert again.deals_with("error") == [(ds.path / "block=0000/deals-0000000201-0000000201.parquet",
                                          DealSet([(201, 201)]))]
    again.close()


def test_a_file_renamed_in_but_not_logged_is_checked_and_logged(ds):
    """As a crash between a file's rename and its log line leaves it."""
    ds.write_chunk([row(d) for d in range(1, 11)], 0.0)
    ds.write_chunk([row(d) for d in range(11, 21)], 0.0)
    ds.close()
    log = ds.path / store.CHUNK_LOG
    log.write_text(log.read_text().splitlines(keepends=True)[0] + '{"chunk": "block=0000/deals-000')  # torn
    again = Dataset.open(ds.path, FREECELL, Limits(), DealSet([(1, 30)]))
    assert again.done() == DealSet([(1, 20)])
    assert sorted(store.read_log(ds.path)[0]) == [store.relative(ds.path, f) for f in store.chunk_files(ds.path)]
    assert log.read_text().endswith("\n")
    again.close()


def test_a_log_line_changed_since_it_was_written_is_not_trusted(capsys, ds):
    """A line naming deals its file does not hold (one digit changed, its size and time
    still the file's) would have a resumed survey skip deals never solved."""
    ds.write_chunk([row(d) for d in range(1, 11)], 0.0)
    ds.write_chunk([row(d) for d in range(11, 21)], 0.0)
    ds.close()
    log = ds.path / store.CHUNK_LOG
    first, second = log.read_text().splitlines(keepends=True)
    assert '"deals": [[11, 20]]' in second
    log.write_text(first + second.replace('"deals": [[11, 20]]', '"deals": [[11, 29]]'))
    entries, torn = store.read_log(ds.path)
    assert torn and sorted(entries) == ["block=0000/deals-0000000001-0000000010.parquet"]
    again = Dataset.open(ds.path, FREECELL, Limits(), DealSet([(1, 30)]))
    assert again.done() == DealSet([(1, 20)])
    again.close()
    code, out, _ = cli(capsys, "survey", "1-30", "--out", ds.path, "--check")
    assert "The chunk log agrees with the files." in out  # the open rewrote it from the file


@pytest.mark.parametrize("line", ["5", "null", '"x"', "[1, 2]", "{}"])
def test_a_log_line_that_is_no_entry_is_as_a_torn_one(ds, line):
    ds.write_chunk([row(d) for d in range(1, 11)], 0.0)
    ds.close()
    log = ds.path / store.CHUNK_LOG
    log.write_text(line + "\n" + log.read_text())
    entries, torn = store.read_log(ds.path)
    assert torn and sorted(entries) == ["block=0000/deals-0000000001-0000000010.parquet"]


def test_a_log_line_whose_crc_key_changed_is_not_trusted(ds):
    """A flipped bit in the key's name must not turn the check off for its line."""
    ds.write_chunk([row(d) for d in range(1, 11)], 0.0)
    ds.close()
    log = ds.path / store.CHUNK_LOG
    log.write_text(log.read_text().replace('"crc":', '"cbc":').replace('"deals": [[1, 10]]', '"deals": [[1, 19]]'))
    entries, torn = store.read_log(ds.path)
    assert torn and entries == {}


def test_a_logged_file_replaced_by_another_is_checked_again(capsys, ds, tmp_path):
    """A file of another size or time than the log says is not trusted: opened, and refused if
    foreign (this one has the size of the one it replaced: its rules say cells 3, not 4)."""
    path = ds.write_chunk([row(d) for d in range(1, 11)], 0.0)
    ds.close()
    other = Dataset.open(tmp_path / "three", FREECELL.replace(cells=3), Limits(), DealSet([(1, 10)]))
    shutil.copy(other.write_chunk([row(d) for d in range(1, 11)], 0.0), path)
    other.close()
    with pytest.raises(StoreError, match=r"was made for another dataset \(rules.cells 4 \(dataset\) vs 3"):
        Dataset.open(ds.path, FREECELL, Limits(), DealSet([(1, 10)]))


def test_a_deleted_file_is_solved_again(ds):
    ds.write_chunk([row(d) for d in range(1, 11)], 0.0)
    gone = ds.write_chunk([row(d) for d in range(11, 21)], 0.0)
    ds.close()
    gone.unlink()
    again = Dataset.open(ds.path, FREECELL, Limits(), DealSet([(1, 20)]))
    assert again.done() == DealSet([(1, 10)])
    again.close()


# --- fcsurvey survey --check ------------------------------------------------------------------

def test_check_rewrites_the_log_after_files_are_merged_in_by_hand(capsys, tmp_path, fake):
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli(capsys, "survey", "1-300", "--out", a, "--workers", "1", "--chunk-size", "100")[0] == 0
    assert cli(capsys, "survey", "301-500", "--out", b, "--workers", "1", "--chunk-size", "100")[0] == 0
    for f in store.chunk_files(b):
        shutil.move(f, a / store.relative(b, f))
    code, out, err = cli(capsys, "survey", "1-500", "--check", "--out", a)
    assert (code, err) == (0, "")
    assert out == (f"{a}: 5 chunk files holding 500 deals, each file checked.\n"
                   f"The chunk log differed from the files (2 files not in it, 0 in it but gone); it was "
                   f"rewritten from the files.\nEvery requested deal is there.\n")
    assert cli(capsys, "survey", "1-500", "--out", a, "--workers", "1") == (
        0, f"Nothing to do: all 500 deals are already in {a}.\n", "")
    code, out, _ = cli(capsys, "survey", "--check", "--out", a)
    assert (code, out) == (0, f"{a}: 5 chunk files holding 500 deals, each file checked.\n"
                              f"The chunk log agrees with the files.\nEvery requested deal is there.\n")


def test_check_names_what_is_missing_and_exits_1(capsys, tmp_path, fake):
    out = tmp_path / "out"
    assert cli(capsys, "survey", "1-300", "--out", out, "--workers", "1", "--chunk-size", "100")[0] == 0
    store.chunk_files(out)[1].unlink()
    code, text, _ = cli(capsys, "survey", "--check", "--out", out)
    assert code == 1 and text.endswith("(0 files not in it, 1 in it but gone); it was rewritten from the files.\n"
                                       "Missing 100 requested deals (101-200): the same survey command "
                                       "solves them.\n")


def test_check_of_a_directory_that_is_no_dataset_is_one_error(capsys, tmp_path):
    assert cli(capsys, "survey", "--check", "--out", tmp_path) == (
        2, "", f"Error: {tmp_path} is not an fcsurvey dataset (no _fcsurvey.json)\n")
    assert not list(tmp_path.iterdir())


def test_a_survey_of_the_given_deals_is_logged_as_it_runs(tmp_path, fake):
    Survey(parse_deals("1-250"), tmp_path, workers=2, chunk_size=100).run()
    assert store.check(tmp_path).repaired is False
