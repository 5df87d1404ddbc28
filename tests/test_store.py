"""The Parquet dataset: deal sets, atomic chunk files, manifest checks, locking."""

from __future__ import annotations

import json

import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest
from hypothesis import given, strategies as st

from fcsurvey import store
from fcsurvey.dealset import DealSet
from fcsurvey.limits import Limits
from fcsurvey.rules import PRESETS, preset
from fcsurvey.store import MANIFEST, PROOFS, Dataset, StoreError

from conftest import leftovers

FREECELL = PRESETS["freecell"]


def row(deal, status="solved", **extra):
    base = {"deal": deal, "status": status, "moves": 90, "atomic_moves": 120, "solution": "3a 4h",
            "states": 1000 + deal, "elapsed_ms": 1.5, "limit": None, "error": None}
    return {**base, **extra}


@pytest.fixture
def ds(tmp_path):
    dataset = Dataset.open(tmp_path / "out", FREECELL, Limits(), DealSet([(1, 100)]))
    yield dataset
    dataset.close()


# --- DealSet -------------------------------------------------------------------------------

def test_dealset_merges_overlapping_and_touching_ranges():
    deals = DealSet([(10, 20), (1, 5), (6, 8), (15, 30), (40, 40)])
    assert deals.ranges == ((1, 8), (10, 30), (40, 40))
    assert len(deals) == 30 and str(deals) == "1-8,10-30,40"
    assert list(DealSet([(3, 5)])) == [3, 4, 5]


def test_dealset_handles_the_whole_numbering_without_materialising_it():
    everything = DealSet([(1, 8_589_934_591)])
    rest = everything - DealSet([(2, 8_589_934_590)])
    assert rest.ranges == ((1, 1), (8_589_934_591, 8_589_934_591))
    assert len(everything) == 8_589_934_591


ranges = st.lists(st.tuples(st.integers(1, 60), st.integers(0, 8)).map(lambda t: (t[0], t[0] + t[1])),
                  max_size=6)


@given(ranges, ranges)
def test_dealset_operations_agree_with_python_sets(a, b):
    sa, sb = DealSet(a), DealSet(b)
    xa, xb = set(sa), set(sb)
    assert xa == {n for lo, hi in a for n in range(lo, hi + 1)}
    assert set(sa - sb) == xa - xb
    assert set(sa | sb) == xa | xb
    assert DealSet.from_sorted(sorted(xa)) == sa
    assert len(sa) == len(xa)


# --- writing and reading ---------------------------------------------------------------------

def test_chunk_is_written_atomically_with_schema_and_metadata(ds):
    path = ds.write_chunk([row(3), row(1), row(2, "unsolvable", moves=None, solution=None)], run_started=1.0)
    assert path == ds.path / "block=0000" / "deals-0000000001-0000000003.parquet"
    assert sorted(p.name for p in ds.path.iterdir()) == [MANIFEST, store.CHUNK_LOG, "block=0000"]
    assert list((ds.path / "block=0000").iterdir()) == [path]  # no temp left
    table = pq.read_table(path)
    assert table.schema.remove_metadata() == store.SCHEMA
    assert table["deal"].to_pylist() == [1, 2, 3]
    assert table["variant"].to_pylist() == ["freecell"] * 3
    assert table["cells"].to_pylist() == [4] * 3
    assert table["foundation_return"].to_pylist() == [False] * 3
    assert table["moves"].to_pylist() == [90, None, 90]
    meta = {k.decode(): v.decode() for k, v in table.schema.metadata.items()}
    assert json.loads(meta[store.META_RULES]) == FREECELL.to_dict()
    assert json.loads(meta[store.META_LIMITS]) == {"max_states": Limits().max_states, "timeout": None}
    assert meta[store.META_GENERATOR] == "microsoft-freecell-pro-lcg"
    assert meta[store.META_VERSION]
    assert json.loads(meta[store.META_RUN])["started"] == 1.0
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "ZSTD"


def test_failed_write_leaves_neither_temp_nor_chunk(ds, monkeypatch):
    def broken(table, where, **kwargs):
        where.write(b"PAR1 partial")
        raise OSError("disk full")
    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(StoreError, match="disk full"):
        ds.write_chunk([row(1)], run_started=0.0)
    assert store.chunk_files(ds.path) == [] and leftovers(ds.path) == []
    assert (ds.path / store.CHUNK_LOG).read_bytes() == b""


def test_read_returns_all_chunks_sorted_with_dataset_metadata(ds):
    ds.write_chunk([row(d) for d in range(51, 61)], 0.0)
    ds.write_chunk([row(d) for d in range(1, 11)], 0.0)
    table = store.read(ds.path)
    assert table["deal"].to_pylist() == list(range(1, 11)) + list(range(51, 61))
    assert store.META_RUN.encode() not in table.schema.metadata
    assert store.META_RULES.encode() in table.schema.metadata


def test_empty_dataset_reads_as_empty_table(ds):
    assert store.read(ds.path).num_rows == 0
    assert store.read(ds.path).schema.remove_metadata() == store.SCHEMA


def test_done_covers_full_and_sparse_chunks(ds):
    ds.write_chunk([row(d) for d in range(1, 51)], 0.0)
    ds.write_chunk([row(d) for d in (60, 61, 70)], 0.0)
    assert ds.done() == DealSet([(1, 50), (60, 61), (70, 70)])


def test_read_of_a_directory_that_is_not_a_dataset_is_refused(tmp_path):
    with pytest.raises(StoreError, match="not an fcsurvey dataset"):
        store.read(tmp_path)


# --- opening: manifest, mismatches, temp files, lock ------------------------------------------

def test_manifest_records_rules_limits_and_the_union_of_requests(tmp_path):
    limits = Limits(max_states=5000, timeout=2.5)
    Dataset.open(tmp_path, FREECELL, limits, DealSet([(1, 10)])).close()
    Dataset.open(tmp_path, FREECELL, limits, DealSet([(20, 30)])).close()
    manifest = store.read_manifest(tmp_path)
    assert manifest["rules"] == FREECELL.to_dict()
    assert manifest["limits"] == {"max_states": 5000, "timeout": 2.5}
    assert manifest["requested"] == [[1, 10], [20, 30]]
    lines = (tmp_path / MANIFEST).read_text().splitlines()
    assert lines[-5:] == [' "requested": [', '  [1, 10],', '  [20, 30]', ' ]', '}']  # a line a range


def test_a_scattered_request_costs_a_line_a_deal(tmp_path):
    deals = DealSet((d, d) for d in range(1_000_000_000, 1_000_020_000, 2))
    Dataset.open(tmp_path, FREECELL, Limits(), deals).close()
    assert store.read_manifest(tmp_path)["requested"] == [list(r) for r in deals.ranges]
    assert (tmp_path / MANIFEST).stat().st_size < 1000 + 28 * len(deals)  # indented numbers took 56


@pytest.mark.parametrize("rules, limits, field", [
    (preset("freecell", cells=3), Limits(), "rules.cells"),
    (PRESETS["bakers-game"], Limits(), "rules.build"),
    (FREECELL, Limits(max_states=1000), "limits.max_states"),
    (FREECELL, Limits(timeout=5.0), "limits.timeout"),
])
def test_other_rules_or_limits_are_refused_unless_force_new(ds, rules, limits, field):
    ds.write_chunk([row(1)], 0.0)
    ds.close()
    (ds.path / PROOFS).mkdir()
    (ds.path / PROOFS / "0123.proof").write_bytes(b"a checkpoint made under the old rules")
    with pytest.raises(StoreError, match=f"{field}.*--force-new"):
        Dataset.open(ds.path, rules, limits, DealSet([(1, 1)]))
    assert ds.done() == DealSet([(1, 1)]) and (ds.path / PROOFS).exists()  # nothing was touched
    fresh = Dataset.open(ds.path, rules, limits, DealSet([(1, 1)]), force_new=True)
    assert not fresh.done() and fresh.rules == rules and not (ds.path / PROOFS).exists()
    fresh.close()


def test_chunks_without_manifest_are_refused(ds):
    ds.write_chunk([row(1)], 0.0)
    ds.close()
    (ds.path / MANIFEST).unlink()
    with pytest.raises(StoreError, match="no _fcsurvey.json"):
        Dataset.open(ds.path, FREECELL, Limits(), DealSet([(1, 1)]))


def test_open_removes_temp_files_of_a_killed_run(ds):
    ds.write_chunk([row(1)], 0.0)
    ds.close()
    (partition,) = [p for p in ds.path.iterdir() if p.is_dir()]  # where chunks are written
    planted = [ds.path / ".manifest-probe.tmp", partition / ".deals-0000000002-0000000500.parquet.tmp"]
    for temp in planted:
        temp.write_bytes(b"partial")
    assert leftovers(ds.path) == sorted(planted)
    Dataset.open(ds.path, FREECELL, Limits(), DealSet([(1, 2)])).close()
    assert leftovers(ds.path) == []


def test_one_writer_at_a_time(ds):
    with pytest.raises(StoreError, match="another survey is writing"):
        Dataset.open(ds.path, FREECELL, Limits(), DealSet([(1, 1)]))
    ds.close()
    Dataset.open(ds.path, FREECELL, Limits(), DealSet([(1, 1)])).close()


def test_unusable_directory_is_refused(tmp_path):
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(StoreError, match="cannot use"):
        Dataset.open(tmp_path / "file" / "out", FREECELL, Limits(), DealSet([(1, 1)]))


def test_readers_ignore_manifest_and_temp_files(ds):
    ds.write_chunk([row(1), row(2)], 0.0)
    (ds.path / ".deals-0000000003-0000000004.parquet.tmp").write_bytes(b"partial")
    assert pads.dataset(ds.path, format="parquet").to_table().num_rows == 2
