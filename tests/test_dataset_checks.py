"""Datasets check themselves when read: a chunk copied in from another dataset, a chunk whose
deals another file holds too, and a corrupt chunk are each refused by name, with the repair,
by every command that reads a dataset; a resumed survey refuses them too, an extension with
the other ``--no-solutions`` setting is refused, and a Dask survey that never reached its
scheduler leaves nothing behind.  Every case runs the real entry point (``fcsurvey.cli.main``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fcsurvey import schema, store
from fcsurvey.rules import PRESETS
from fcsurvey.dealset import parse_deals
from fcsurvey.survey import SOLVER_ENV, Survey

from conftest import FAKE_SOLVER, RESULTS, cli, fake_env, run_cli

SHIPPED_NO_SOLUTIONS = RESULTS / "freecell_1-1000000"
BLOCK = "block=0000"  # the partition directory of deals 1 to 10,000,000
FIRST, SECOND = f"{BLOCK}/deals-0000000001-0000000020.parquet", f"{BLOCK}/deals-0000000021-0000000040.parquet"
REPAIR = "delete it and rerun the survey, which solves its deals again"


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Deals 1-40 with 4 cells in chunks of 20; 21-40 with 3 cells; 1-10 with 4 cells in
    one chunk of 10 (the real solver: a few seconds)."""
    root = tmp_path_factory.mktemp("made")
    Survey(parse_deals("1-40"), root / "four", chunk_size=20, workers=2).run()
    Survey(parse_deals("21-40"), root / "three", rules=PRESETS["freecell"].replace(cells=3), chunk_size=20,
           workers=2).run()
    Survey(parse_deals("1-10"), root / "ten", chunk_size=10, workers=1).run()
    return root


@pytest.fixture
def four(made, tmp_path):
    """A copy of the sound 4-cell dataset of deals 1-40, to doctor."""
    return Path(shutil.copytree(made / "four", tmp_path / "four"))


def foreign(made, d):
    """A 3-cell chunk copied over the 4-cell one of the same deals."""
    shutil.copy(made / "three" / SECOND, d / SECOND)
    return f"chunk file {d / SECOND} was made for another dataset (rules.cells 4 (dataset) vs 3 (chunk)); {REPAIR}"


def overlapping(made, d):
    """Deals 1-10 from a run with another chunk size, beside the chunk of 1-20."""
    ten = f"{BLOCK}/deals-0000000001-0000000010.parquet"
    shutil.copy(made / "ten" / ten, d / ten)
    return (f"chunk files {d / ten} and {d / FIRST} both hold deals 1-10 (10 deals); one of them is a copy "
            f"or was left by another run: delete the one that does not belong (if unsure, both, and rerun "
            f"the survey to solve their deals again)")


def renamed(made, d):
    """The chunk of deals 1-20 copied under the name of deals 41-60."""
    misnamed = d / BLOCK / "deals-0000000041-0000000060.parquet"
    shutil.copy(d / FIRST, misnamed)
    return f"chunk file {misnamed} holds deals 1-20, not only the 41-60 of its name; {REPAIR}"


def truncated(made, d):
    """The second chunk cut to its first 300 bytes, as a full disk or a killed copy leaves it."""
    data = (d / SECOND).read_bytes()
    (d / SECOND).write_bytes(data[:300])
    return (f"chunk file {d / SECOND} is unreadable (Parquet magic bytes not found in footer. Either the "
            f"file is corrupted or this is not a parquet file.); {REPAIR}")


def garbage(made, d):
    """The second chunk overwritten with bytes that are no Parquet at all."""
    (d / SECOND).write_bytes(bytes(range(256)) * 8)
    return (f"chunk file {d / SECOND} is unreadable (Parquet magic bytes not found in footer. Either the "
            f"file is corrupted or this is not a parquet file.); {REPAIR}")


def damaged_rows(made, d):
    """The second chunk's first data page zeroed, its footer intact."""
    data = bytearray((d / SECOND).read_bytes())
    data[4:600] = bytes(596)
    (d / SECOND).write_bytes(bytes(data))


def dangling(made, d):
    """The second chunk replaced by a symbolic link to nothing (a merge from a moved disk)."""
    (d / SECOND).unlink()
    (d / SECOND).symlink_to(d / "gone.parquet")
    return (f"chunk file {d / SECOND} is unreadable (Failed to open local file '{d / SECOND}'. Detail: "
            f"[errno 2] No such file or directory); {REPAIR}")


DOCTORS = [foreign, overlapping, renamed, truncated, garbage, dangling]


def readers(d, tmp_path):
    """Every command that reads a dataset, as its arguments."""
    return {
        "summary": ["summary", d],
        "verify": ["verify", "--dataset", d],
        "export": ["export", d, "--out", tmp_path / "list.json"],
        "report": ["report", d, "--out", tmp_path / "report"],
    }


def needs(command):
    if command == "report":
        pytest.importorskip("matplotlib")


@pytest.mark.parametrize("command", ["summary", "verify", "export", "report"])
def test_a_sound_dataset_reads(capsys, four, tmp_path, command):
    needs(command)
    code, out, err = cli(capsys, *readers(four, tmp_path)[command])
    assert code == 0, err


@pytest.mark.parametrize("command", ["summary", "verify", "export", "report"])
@pytest.mark.parametrize("doctor", DOCTORS, ids=lambda d: d.__name__)
def test_every_reader_refuses_a_bad_chunk_by_name(capsys, made, four, tmp_path, doctor, command):
    needs(command)
    message = doctor(made, four)
    assert cli(capsys, *readers(four, tmp_path)[command]) == (2, "", f"Error: {message}\n")
    assert not (tmp_path / "list.json").exists() and not (tmp_path / "report").exists()


@pytest.mark.parametrize("doctor", DOCTORS, ids=lambda d: d.__name__)
def test_a_resumed_survey_refuses_a_bad_chunk_by_name(capsys, made, four, doctor):
    message = doctor(made, four)
    before = sorted(p.name for p in four.iterdir())
    assert cli(capsys, "survey", "1-40", "--out", four) == (2, "", f"Error: {message}\n")
    assert sorted(p.name for p in four.iterdir()) == before


@pytest.mark.parametrize("command", ["summary", "verify", "export"])
def test_a_chunk_whose_rows_are_damaged_is_named_with_the_repair(capsys, made, four, tmp_path, command):
    """pyarrow's words for it vary; the file and the repair are checked."""
    damaged_rows(made, four)
    code, out, err = cli(capsys, *readers(four, tmp_path)[command])
    assert (code, out, err.count("\n")) == (2, "", 1)
    assert err.startswith(f"Error: chunk file {four / SECOND} is unreadable (") and err.endswith(f"; {REPAIR}\n")


def test_the_repair_the_error_names_works(capsys, made, four):
    foreign(made, four)
    (four / SECOND).unlink()
    code, out, _ = cli(capsys, "survey", "1-40", "--out", four, "--workers", "1")
    assert code == 0 and out.startswith("Surveyed 20 deals in ")
    code, out, _ = cli(capsys, "summary", four, "--json")
    summary = json.loads(out)
    assert code == 0 and summary["deals"]["present"] == 40 and summary["status"]["solved"] == 40
    assert store.read(four)["cells"].to_pylist() == [4] * 40


# --- solutions on or off is part of what a dataset is ----------------------------------------

@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setenv(SOLVER_ENV, FAKE_SOLVER)


@pytest.mark.parametrize("first, then", [((), ("--no-solutions",)), (("--no-solutions",), ())])
def test_extending_with_the_other_solutions_setting_is_refused(capsys, tmp_path, fake, first, then):
    out = tmp_path / "out"
    assert cli(capsys, "survey", "1-10", "--out", out, "--workers", "1", *first)[0] == 0
    manifest = (out / store.MANIFEST).read_text()
    had, asked = ("false", "true") if first else ("true", "false")
    assert cli(capsys, "survey", "1-20", "--out", out, *then) == (
        2, "", f"Error: {out} holds results made with other rules or limits (solutions {had} (dataset) vs "
               f"{asked} (asked)); use --force-new to delete them and start afresh, or choose another --out\n")
    assert (out / store.MANIFEST).read_text() == manifest
    assert [store.relative(out, p) for p in store.chunk_files(out)] == [f"{BLOCK}/deals-0000000001-0000000010.parquet"]


def test_a_dataset_of_fcsurvey_0_1_0_is_told_by_its_rows_whether_it_keeps_solutions(capsys, tmp_path, fake):
    """Its manifest and chunks do not record solutions; the shipped million-deal survey has none."""
    out = tmp_path / "old"
    out.mkdir()
    shutil.copy(SHIPPED_NO_SOLUTIONS / store.MANIFEST, out)
    shutil.copy(SHIPPED_NO_SOLUTIONS / "deals-0000000001-0000000500.parquet", out)
    assert "solutions" not in json.loads((out / store.MANIFEST).read_text())
    code, stdout, err = cli(capsys, "survey", "1-500", "--out", out)
    assert (code, stdout) == (2, "") and "(solutions false (dataset) vs true (asked))" in err
    code, stdout, _ = cli(capsys, "survey", "1-500", "--out", out, "--no-solutions")
    assert (code, stdout) == (0, f"Nothing to do: all 500 deals are already in {out}.\n")
    # With nothing to do the manifest (a tracked file, for a shipped dataset) stays as it was.
    assert (out / store.MANIFEST).read_bytes() == (SHIPPED_NO_SOLUTIONS / store.MANIFEST).read_bytes()
    assert cli(capsys, "summary", out)[0] == 0
    code, stdout, _ = cli(capsys, "survey", "1-501", "--out", out, "--no-solutions")
    assert code == 0 and json.loads((out / store.MANIFEST).read_text())["solutions"] is False


def test_chunks_record_solutions_and_difficulty(tmp_path, fake):
    Survey(parse_deals("1-5"), tmp_path / "out", solutions=False, workers=1).run()
    metadata = pq.read_schema(store.chunk_files(tmp_path / "out")[0]).metadata
    assert (metadata[b"fcsurvey.solutions"], metadata[b"fcsurvey.difficulty"]) == (b"false", b"false")


# --- a Dask survey that never started ----------------------------------------------------------

def test_a_dask_survey_that_never_reached_its_scheduler_leaves_no_manifest(tmp_path):
    """As real processes: the first one's lock on the directory goes when it exits."""
    pytest.importorskip("distributed")
    out, env = tmp_path / "out", fake_env()

    def fcsurvey(*args):
        return run_cli("survey", "1-20", "--out", out, *args, env=env, cwd=tmp_path, timeout=120)
    unreachable = fcsurvey("--executor", "dask", "--scheduler", "tcp://127.0.0.1:1")
    assert (unreachable.returncode, unreachable.stdout, unreachable.stderr.count("\n")) == (2, "", 1)
    assert unreachable.stderr.startswith("Error: cannot reach the Dask scheduler at tcp://127.0.0.1:1: ")
    assert not (out / store.MANIFEST).exists() and not store.chunk_files(out)
    other_rules = fcsurvey("--cells", "3", "--workers", "1")
    assert other_rules.returncode == 0 and other_rules.stdout.startswith("Surveyed 20 deals in ")
    assert store.read(out)["cells"].to_pylist() == [3] * 20


# --- the one home of the words and the columns -------------------------------------------------

def test_the_limit_names_are_the_c_cores():
    source = (Path(schema.__file__).parent / "_core" / "module.c").read_text()
    names = re.search(r"LIMIT_NAMES\[\] = \{NULL, ([^}]*)\}", source).group(1)
    assert tuple(n.strip().strip('"') for n in names.split(",")) == schema.CORE_LIMIT_NAMES


def test_the_schema_and_the_store_load_neither_the_c_core_nor_pyarrow_needlessly():
    probe = ("import sys, fcsurvey.schema; assert 'pyarrow' not in sys.modules; "
             "import fcsurvey.store; assert 'fcsurvey._core' not in sys.modules; print('ok')")
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout == "ok\n"


# --- a flipped bit is caught, not read as a verdict ---------------------------------------------

def silent_flip(f: Path) -> int:
    """The offset of a byte in the status column's pages of chunk file ``f`` whose lowest bit,
    flipped, still reads as Parquet (checksums unchecked) but changes a deal's status: the
    damage a bad disk block does unseen without page checksums."""
    data, meta = f.read_bytes(), pq.read_metadata(f)
    statuses = pq.read_table(f, columns=["status"])["status"].to_pylist()
    column = meta.row_group(0).column(meta.schema.names.index("status"))
    start = column.dictionary_page_offset or column.data_page_offset
    for offset in range(start, start + column.total_compressed_size):
        flipped = bytearray(data)
        flipped[offset] ^= 1
        try:
            got = pq.read_table(pa.BufferReader(bytes(flipped)), columns=["status"])["status"].to_pylist()
        except Exception:
            continue
        if got != statuses:
            return offset
    raise AssertionError(f"no silent flip in {f}")


def test_a_flipped_bit_that_changes_a_status_is_refused_by_name(capsys, made, four, tmp_path):
    """The offset is found by reading without checksums, so the test fails if the store
    stops writing them or stops checking them."""
    offset = silent_flip(four / SECOND)
    data = bytearray((four / SECOND).read_bytes())
    data[offset] ^= 1
    (four / SECOND).write_bytes(bytes(data))
    for command in (["summary", four], ["export", four, "--out", tmp_path / "list.json"],
                    ["survey", "1-40", "--out", four, "--check"]):
        code, out, err = cli(capsys, *command)
        assert (code, out, err.count("\n")) == (2, "", 1), command
        assert err.startswith(f"Error: chunk file {four / SECOND} is unreadable (") and err.endswith(f"; {REPAIR}\n")


def test_check_reads_every_column(capsys, made, four):
    """A flip in the solution column, which resuming never reads, is found by --check."""
    f = four / SECOND
    meta = pq.read_metadata(f)
    column = meta.row_group(0).column(meta.schema.names.index("solution"))
    start = column.dictionary_page_offset or column.data_page_offset
    data = bytearray(f.read_bytes())
    data[start + column.total_compressed_size - 1] ^= 1  # the last byte of its last page
    f.write_bytes(bytes(data))
    code, out, err = cli(capsys, "survey", "1-40", "--out", four, "--check")
    assert (code, out, err.count("\n")) == (2, "", 1)
    assert err.startswith(f"Error: chunk file {f} is unreadable (") and err.endswith(f"; {REPAIR}\n")
