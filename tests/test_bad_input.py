"""Bad input through the real entry point: exactly one ``Error:`` line, exit 2, no traceback,
and never a silent reinterpretation (Issue 24, section 1).

Most cases call ``fcsurvey.cli:main`` -- the console script itself -- in this process, where
a traceback would be an exception escaping ``main``; a few run ``python -m fcsurvey`` as a
user would, and the disk filling up and a read-only directory, which a test cannot arrange
portably, are made by making the write or the delete fail.
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
from pathlib import Path
from typing import List

import pytest

from fcsurvey import store
from fcsurvey.deals import deal
from fcsurvey.dealset import DealError, DealSet, check_deal_number, parse_deals, read_deals_file
from fcsurvey.engine import Position
from fcsurvey.executors import ExecutorError, check_scheduler_address
from fcsurvey.limits import MAX_STATES
from fcsurvey.notation import format_board
from fcsurvey.report import MAX_WHERE_COMPARISONS, MAX_WHERE_DEPTH, ReportError, parse_where
from fcsurvey.rules import PRESETS
from fcsurvey.solver import solve
from fcsurvey.survey import SOLVER_ENV, Survey

from conftest import DEAL_11982_COLUMNS, FAKE_SOLVER, cli, leftovers, run_cli

TESTS = Path(__file__).parent
BOM = "\ufeff"


def the_error(code: int, out: str, err: str) -> str:
    """The one line on stderr, which must be an Error line after exit 2 with nothing on stdout."""
    assert (code, out) == (2, ""), err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    return lines[0]


def error_line(capsys: pytest.CaptureFixture, *args: object) -> str:
    """The Error line ``main`` prints for ``args`` (asserting it is all it prints)."""
    return the_error(*cli(capsys, *args))


def run(*args: object) -> subprocess.CompletedProcess:
    """``python -m fcsurvey`` as its own process, away from the checkout."""
    return run_cli(*args, cwd=TESTS.parent.parent, timeout=120)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> None:
    """Surveys solve with tests/fake_solver.py (instant verdicts)."""
    monkeypatch.setenv(SOLVER_ENV, FAKE_SOLVER)


def surveyed(path: Path) -> List[int]:
    return store.read(path)["deal"].to_pylist()


# --- deal numbers: one parser, ASCII digits, no sign, a comma is a list --------------------------

NOT_ONE_NUMBER = [
    ("1,2", "must be one number, got '1,2'"),
    ("1,000", "must be one number, got '1,000'"),
    ("²", "digits 0-9 only, got '²'"),
    ("１２", "digits 0-9 only, got '１２'"),   # full-width digits
    ("٣", "digits 0-9 only"),                # Arabic-Indic three
    ("+5", "takes no sign, got '+5'"),
    ("++5", "takes no sign, got '++5'"),
    ("+-5", "takes no sign, got '+-5'"),
    ("--5", "takes no sign, got '--5'"),
    ("-5", "must be 1 to 8,589,934,591, got -5"),
    ("1_000", "must be an integer, got '1_000'"),
    ("1e3", "must be an integer, got '1e3'"),
    ("9" * 5000, "must be 1 to 8,589,934,591, got '9999"),
    ("", "must be an integer, got ''"),
]


@pytest.mark.parametrize("command", [["deal"], ["solve"], ["check"]])
@pytest.mark.parametrize("text, words", NOT_ONE_NUMBER)
def test_a_single_deal_number_is_ascii_digits_only(capsys, command, text, words):
    line = error_line(capsys, *command, text, *(["1h"] if command == ["check"] else []))
    assert words in line


def test_deal_1_comma_2_is_an_error_not_deal_12_through_python_m():
    result = run("deal", "1,2")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ("Error: Invalid value for 'NUMBER': deal number must be one number, got '1,2' "
                             "(a comma separates the deals of a list, which only survey takes)\n")


def test_whitespace_and_leading_zeros_still_read_as_the_number(capsys):
    code, out, _ = cli(capsys, "deal", " 0011982 ")
    assert (code, out) == (0, "".join(f"{line}\n" for line in deal(11982).text_columns()))
    assert out.splitlines() == DEAL_11982_COLUMNS  # the published layout, not the code's
    assert check_deal_number(" 0011982 ") == 11982


@pytest.mark.parametrize("text, ranges", [
    ("1,2", [(1, 2)]),
    ("164,617,11982", [(164, 164), (617, 617), (11982, 11982)]),
    (" 5 - 7 , 1..3", [(1, 3), (5, 7)]),
])
def test_a_comma_separates_a_list(text, ranges):
    assert parse_deals(text).ranges == tuple(ranges)


def test_a_comma_is_never_a_thousands_mark():
    with pytest.raises(DealError, match="bad deals '000': deal number must be 1 to 8,589,934,591, got 0"):
        parse_deals("1,000")


@pytest.mark.parametrize("text, words", [
    ("1-²", "bad deals '1-²': deal number must be written with the digits 0-9 only"),
    ("+5", "bad deals '+5': deal number takes no sign"),
    ("1--5", "bad deals '1--5': deal number must be 1 to 8,589,934,591, got -5"),
    ("++5", "bad deals '++5'"),
    ("5-+7", "bad deals '5-+7': deal number takes no sign"),
    ("1,x", "bad deals 'x'"),
])
def test_a_survey_list_refuses_what_a_number_refuses(capsys, text, words):
    assert words in error_line(capsys, "survey", text)


def test_a_survey_of_1_comma_2_surveys_deals_1_and_2(capsys, tmp_path, fake):
    code, _, err = cli(capsys, "survey", "1,2", "--workers", "1", "--out", tmp_path / "out")
    assert code == 0, err
    assert surveyed(tmp_path / "out") == [1, 2]


def test_a_deals_file_line_1_2_3_is_three_deals_and_a_bom_is_fine(capsys, tmp_path, fake):
    deals = tmp_path / "deals.txt"
    deals.write_bytes((BOM + "1,2,3  # three\n617\n").encode())
    assert read_deals_file(deals) == DealSet([(1, 3), (617, 617)])
    code, _, err = cli(capsys, "survey", "--deals-file", deals, "--workers", "1", "--out", tmp_path / "out")
    assert code == 0, err
    assert surveyed(tmp_path / "out") == [1, 2, 3, 617]


@pytest.mark.parametrize("content, words", [
    ("1\n1²\n", "deals.txt, line 2: bad deals '1²': deal number must be written with the digits 0-9 only"),
    ("1\n+5\n", "deals.txt, line 2: bad deals '+5': deal number takes no sign"),
    ("1,x\n", "deals.txt, line 1: bad deals 'x'"),
    ("1,,2\n", "deals.txt, line 1: bad deals '1,,2': an empty item in the comma list"),
    (BOM + BOM + "1\n", "deals.txt, line 1: bad deals"),  # only one mark, at the very start
])
def test_a_bad_deals_file_line_is_named(capsys, tmp_path, content, words):
    deals = tmp_path / "deals.txt"
    deals.write_bytes(content.encode())
    assert words in error_line(capsys, "survey", "--deals-file", deals)


def test_a_binary_deals_file_is_one_error_line(capsys, tmp_path):
    deals = tmp_path / "deals.bin"
    deals.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff")
    assert "cannot read deals file" in error_line(capsys, "survey", "--deals-file", deals)


# --- files ---------------------------------------------------------------------------------------

def board_text() -> str:
    return format_board(Position.from_deal(deal(1)), PRESETS["freecell"]) + "\n"


@pytest.mark.parametrize("option", ["--board-file", "--solution-file"])
def test_a_binary_file_is_one_error_line(capsys, tmp_path, option):
    binary = tmp_path / "file.bin"
    binary.write_bytes(b"\x1f\x8b\x08\x00\xff\xfe")
    args = ["solve", option, binary] if option == "--board-file" else ["check", "1", option, binary]
    assert error_line(capsys, *args) == (
        f"Error: Invalid value for '{option}': {binary} is not UTF-8 text (byte 0x8b at offset 1)")


def test_a_binary_board_file_through_python_m(tmp_path):
    binary = tmp_path / "board.bin"
    binary.write_bytes(bytes(range(256)))
    result = run("solve", "--board-file", binary)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"Error: Invalid value for '--board-file': {binary} is not UTF-8 text "
                             f"(byte 0x80 at offset 128)\n")


def test_a_board_file_with_a_bom_solves(capsys, tmp_path):
    board = tmp_path / "board.txt"
    board.write_bytes((BOM + board_text()).encode())
    code, out, err = cli(capsys, "solve", "--board-file", board)
    assert code == 0, err
    assert out.startswith("board (")


def test_a_solution_file_with_a_bom_replays(capsys, tmp_path):
    solution = tmp_path / "1.sol"
    solution.write_bytes((BOM + solve(1).solution + "\n").encode())
    code, out, err = cli(capsys, "check", "1", "--solution-file", solution)
    assert (code, err) == (0, "")
    assert out.startswith("valid: ")


@pytest.mark.parametrize("command", [["survey", "1-2", "--out"], ["report", "DATASET", "--out"],
                                     ["verify", "--cache"]])
def test_an_empty_output_path_is_refused(capsys, tmp_path, command):
    args = [str(tmp_path) if a == "DATASET" else a for a in command]
    line = error_line(capsys, *args, "")
    assert line == f"Error: Invalid value for '{command[-1]}': the path is empty"
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("command", [["survey", "1-2", "--out", "PATH"], ["summary", "PATH"],
                                     ["export", "PATH"], ["report", "PATH", "--out", "PATH"],
                                     ["verify", "--dataset", "PATH"]])
def test_a_path_that_is_not_utf8_is_refused_before_pyarrow_meets_it(capsys, tmp_path, command):
    path = os.fsdecode(os.fsencode(tmp_path) + b"/results-\xff")  # as Python decodes argv
    os.mkdir(path)
    line = error_line(capsys, *[path if a == "PATH" else a for a in command])
    assert line.endswith(" is not a UTF-8 path, and pyarrow reads no other")
    assert os.listdir(path) == []


def test_verify_report_into_a_missing_directory_fails_before_any_claim_runs(tmp_path):
    # The quick tier would survey its claims into results/verify, taking minutes.
    result = run_cli("verify", "--report", "/nonexistent/dir/r.md", cwd=tmp_path, timeout=120)
    assert not (tmp_path / "results").exists(), "a claim ran before the report path was checked"
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ("Error: Invalid value for '--report': '/nonexistent/dir/r.md': there is no "
                             "directory '/nonexistent/dir'\n")


def test_force_new_on_a_read_only_out_is_one_error_line(capsys, tmp_path, fake, monkeypatch):
    out = tmp_path / "out"
    assert cli(capsys, "survey", "1-4", "--workers", "1", "--out", out)[0] == 0

    unlink = Path.unlink

    def read_only(self: Path, missing_ok: bool = False) -> None:
        # The old chunks cannot go, though the directory takes the store's write probe.
        if self.suffix != ".parquet":
            return unlink(self, missing_ok=missing_ok)
        raise PermissionError(errno.EROFS, os.strerror(errno.EROFS), str(self))
    monkeypatch.setattr(Path, "unlink", read_only)
    line = error_line(capsys, "survey", "1-4", "--cells", "3", "--force-new", "--out", out)
    assert line == f"Error: cannot delete the old files in {out}: Read-only file system"


def test_the_disk_filling_up_mid_survey_is_one_error_line_and_loses_nothing(capsys, tmp_path, fake,
                                                                            monkeypatch):
    out = tmp_path / "out"
    write_table, writes = store.pq.write_table, []

    def filling_up(table, where, **options):
        writes.append(table.num_rows)
        if len(writes) > 2:
            where.write(b"PAR1 half a chunk")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write_table(table, where, **options)
    monkeypatch.setattr(store.pq, "write_table", filling_up)
    code, out_text, err = cli(capsys, "survey", "1-20", "--chunk-size", "5", "--workers", "1", "--out", out)
    assert code == 2 and out_text == "" and "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0], err
    assert "the same command resumes" in errors[0]
    assert surveyed(out) == list(range(1, 11))            # the two chunks written before are whole
    assert leftovers(out) == []
    monkeypatch.setattr(store.pq, "write_table", write_table)
    code, _, err = cli(capsys, "survey", "1-20", "--chunk-size", "5", "--workers", "1", "--out", out)
    assert code == 0, err
    assert surveyed(out) == list(range(1, 21))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full, a device that is always full")
def test_an_export_onto_a_full_disk_is_one_error_line(capsys, dataset):
    line = error_line(capsys, "export", dataset, "--out", "/dev/full")
    assert line == "Error: the output could not be written: No space left on device"


@pytest.mark.parametrize("out, words", [("missing/x.json", "there is no directory"),
                                       ("file/x.json", "there is no directory")])
@pytest.mark.parametrize("fmt", ["json", "bitmap"])
def test_an_export_to_a_folder_that_is_not_there_is_one_error_line(capsys, tmp_path, dataset, out, words, fmt):
    (tmp_path / "file").write_text("a file, not a folder")
    line = error_line(capsys, "export", dataset, "--format", fmt, "--out", tmp_path / out)
    assert line.startswith("Error: ") and words in line, line
    assert sorted(os.listdir(tmp_path)) == ["file"]


@pytest.mark.parametrize("args, line", [
    (["deal", "1", "--bogus"], "Error: No such option '--bogus'."),
    (["deal", "--bogus", "1"], "Error: No such option '--bogus'."),
    (["solve", "1", "--bogus=3"], "Error: No such option '--bogus=3'."),
    (["hint", "164", "-x"], "Error: No such option '-x'."),
    (["check", "164", "17", "--bogus"], "Error: No such option '--bogus'."),
    (["deal", "1", "2"], "Error: Got unexpected extra argument (2)"),
    (["deal", "1", "-5", "7"], "Error: Got unexpected extra arguments (-5 7)"),
    (["deal", "-5"], "Error: Invalid value for 'NUMBER': deal number must be 1 to 8,589,934,591, got -5"),
])
def test_an_unknown_option_beside_a_deal_number_is_named(capsys, args, line):
    """The commands taking one deal NUMBER let '-5' through to be refused as a number; an
    unknown option is still named as one, as the other commands name it."""
    assert error_line(capsys, *args) == line


# --- --where -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("where") / "out"
    Survey(parse_deals("1-3"), out, workers=1).run()
    return out


@pytest.mark.parametrize("where, words", [
    ("deal = 99999999999999999999999", "whole numbers run from -9,223,372,036,854,775,808 to "
                                       "9,223,372,036,854,775,807"),
    ("deal = 9223372036854775808", "whole numbers run from"),
    ("deal = -9223372036854775809", "whole numbers run from"),
    ("deal in (1, " + "9" * 5000 + ")", "whole numbers run from"),
    ("deal = 1" + "0" * 30 + ".0", "whole numbers run from"),
    ("(" * 2000 + "deal = 1" + ")" * 2000, f"unexpected '(' at character {MAX_WHERE_DEPTH + 1} "
                                           f"(more than {MAX_WHERE_DEPTH} levels of 'not' and brackets)"),
    ("not " * 5000 + "deal = 1", f"more than {MAX_WHERE_DEPTH} levels"),
    ("moves > " + "9" * 400 + ".5", "moves is a whole number"),
    ("deal = １", "unexpected '１'"),  # a full-width digit is no number here either
])
def test_where_bounds_literals_and_depth(capsys, dataset, where, words):
    line = error_line(capsys, "export", dataset, "--where", where)
    assert line.startswith("Error: cannot parse --where '") and words in line
    assert len(line) < 400  # a huge expression is quoted cut, not whole


def test_where_at_the_depth_limit_still_works(capsys, dataset):
    nested = "not " * MAX_WHERE_DEPTH + "deal = 2"  # an even number of nots
    code, out, _ = cli(capsys, "export", dataset, "--where", nested, "--format", "txt")
    assert (code, out) == (0, "2\n")
    bracketed = "(" * MAX_WHERE_DEPTH + "deal = 3" + ")" * MAX_WHERE_DEPTH
    code, out, _ = cli(capsys, "export", dataset, "--where", bracketed, "--format", "txt")
    assert (code, out) == (0, "3\n")


def test_where_with_10000_comparisons_is_refused_not_a_segmentation_fault(capsys, dataset):
    many = " or ".join(f"deal = {d}" for d in range(1, 10_001))
    line = error_line(capsys, "export", dataset, "--where", many)
    assert f"(more than {MAX_WHERE_COMPARISONS:,} comparisons; list many values with 'in (...)')" in line
    at_the_limit = " or ".join(f"deal = {d}" for d in range(1, MAX_WHERE_COMPARISONS + 1))
    code, out, _ = cli(capsys, "export", dataset, "--where", at_the_limit, "--format", "txt")
    assert (code, out) == (0, "1\n2\n3\n")
    listed = "deal in (" + ", ".join(str(d) for d in range(2, 10_002)) + ")"  # one comparison
    code, out, _ = cli(capsys, "export", dataset, "--where", listed, "--format", "txt")
    assert (code, out) == (0, "2\n3\n")


def test_where_at_the_edges_of_int64_compares(capsys, dataset):
    code, out, _ = cli(capsys, "export", dataset, "--where", "deal < 9223372036854775807 and states > "
                       "-9223372036854775808 and deal != -5", "--format", "txt")
    assert (code, out) == (0, "1\n2\n3\n")


def test_where_depth_through_python_m(dataset):
    result = run("export", dataset, "--where", "not " * 5000 + "deal = 1")
    assert (result.returncode, result.stdout) == (2, "")
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1
    assert f"more than {MAX_WHERE_DEPTH} levels" in result.stderr


def test_parse_where_raises_report_error_not_recursion_error():
    with pytest.raises(ReportError, match="levels"):
        parse_where("(" * 100_000)
    with pytest.raises(ReportError, match="whole numbers"):
        parse_where("deal = " + "1" * 100_000)


# --- limits ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["solve", "1"], ["survey", "1-2", "--out", "OUT"]])
@pytest.mark.parametrize("states", [MAX_STATES + 1, 2 ** 64])  # 2**64 wrapped to 0 in the core: 1 state
def test_max_states_past_what_the_core_counts_is_refused_not_wrapped(capsys, tmp_path, command, states):
    out = tmp_path / "out"
    line = error_line(capsys, *[out if a == "OUT" else a for a in command], "--max-states", states)
    assert line == f"Error: max_states can be at most {MAX_STATES:,}, got {states:,}"
    assert not out.exists()


# --- --scheduler ---------------------------------------------------------------------------------

@pytest.mark.parametrize("address", ["bogus", "tcp://head", "head:", ":8786", "tcp://head:0",
                                     "head:99999", "tcp://head:8786/x", "tcp:// head:8786",
                                     "foo://bar:1", "inproc://head:8786"])
def test_a_malformed_scheduler_address_is_one_error_line(capsys, tmp_path, address):
    line = error_line(capsys, "survey", "1-2", "--executor", "dask", "--scheduler", address,
                      "--out", tmp_path / "out")
    assert line == (f"Error: a Dask scheduler address is [PROTOCOL://]HOST:PORT, e.g. tcp://head:8786 "
                    f"(PROTOCOL one of tcp, tls, ucx, ws, wss); got {address!r}")
    assert not (tmp_path / "out").exists()  # refused before anything touched --out


def test_scheduler_bogus_through_python_m():
    result = run("survey", "1-2", "--executor", "dask", "--scheduler", "bogus")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("Error: a Dask scheduler address is") and result.stderr.count("\n") == 1


@pytest.mark.parametrize("address", ["tcp://head:8786", "head:8786", "tls://10.0.0.1:8786", "[::1]:8786",
                                     "tcp://[fe80::1]:1"])
def test_well_formed_scheduler_addresses_pass(address):
    check_scheduler_address(address)
    with pytest.raises(ExecutorError):
        check_scheduler_address(address + "x")


# --- a damaged manifest is named, not met as a crash -----------------------------------------------

@pytest.mark.parametrize("edit, words", [
    (lambda m: None, "is not an fcsurvey manifest (a JSON object expected, got NoneType)"),
    (lambda m: [1, 2], "is not an fcsurvey manifest (a JSON object expected, got list)"),
    (lambda m: {k: v for k, v in m.items() if k != "limits"}, "is damaged: its 'limits' is missing or not an object"),
    (lambda m: {**m, "limits": "x"}, "is damaged: its 'limits' is missing or not an object"),
    (lambda m: {k: v for k, v in m.items() if k != "requested"}, "is damaged: its 'requested' is missing or not an array"),
    (lambda m: {**m, "requested": [["a", "b"]]}, "is damaged: its requested deals hold ['a', 'b'], not a range"),
    (lambda m: {**m, "requested": [[5, 1]]}, "is damaged: its requested deals hold [5, 1], not a range"),
    (lambda m: {**m, "requested": [[0, 3]]}, "is damaged: its requested deals hold [0, 3], not a range"),
    (lambda m: {**m, "requested": [[1, 2 ** 40]]}, "not a range of deal numbers 1-8589934591"),
    (lambda m: {**m, "rules": 5}, "holds rules fcsurvey cannot play"),
    (lambda m: {**m, "layout": 5}, "is damaged: its 'layout' is 5, not one this fcsurvey writes"),
    (lambda m: {**m, "layout": {"partition": "block", "block_deals": 0}}, "its 'layout' is {\"partition\": \"block\", "
                                                                       "\"block_deals\": 0}, not one"),
    (lambda m: {**m, "core_build": 7}, "is damaged: its 'core_build' is 7, not a string"),
    (lambda m: {**m, "difficulty": "yes"}, "is damaged: its 'difficulty' is \"yes\", not true or false"),
    (lambda m: {**m, "solutions": 3}, "is damaged: its 'solutions' is 3, not true, false or null"),
])
@pytest.mark.parametrize("command", [["summary", "PATH"], ["export", "PATH"], ["survey", "1-3", "--out", "PATH"],
                                     ["survey", "--check", "--out", "PATH"], ["verify", "--dataset", "PATH", "--plan"]])
def test_a_damaged_manifest_is_one_error_line(capsys, tmp_path, fake, edit, words, command):
    out = tmp_path / "out"
    Survey(parse_deals("1-3"), out, workers=1).run()
    manifest = out / store.MANIFEST
    manifest.write_text(json.dumps(edit(json.loads(manifest.read_text()))))
    line = error_line(capsys, *[out if a == "PATH" else a for a in command])
    assert line.startswith(f"Error: {manifest} ") and words in line, line


# --- deal lists and text files -------------------------------------------------------------------

@pytest.mark.parametrize("text", ["1,,2", ",1", "1,", "1-3,,"])
def test_an_empty_item_in_a_deal_list_is_refused(capsys, text):
    assert error_line(capsys, "survey", text, "--plan") == f"Error: bad deals {text!r}: an empty item in the comma list"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("command", [["survey", "--deals-file", "/dev/zero", "--plan"],
                                     ["solve", "--board-file", "/dev/zero"]])
def test_an_endless_file_is_refused_after_a_bounded_read(capsys, command):
    assert error_line(capsys, *command).endswith("/dev/zero: it holds more than 256 MiB, more than any text it should be")


def test_standard_input_is_read_by_one_option_only(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(format_board(Position.from_deal(deal(1)), PRESETS["freecell"]).encode())))
    assert error_line(capsys, "hint", "--board-file", "-", "--moves-file", "-") == (
        "Error: Invalid value for '--moves-file': standard input is read already, by --board-file: give one of them a file")


def test_bare_fcsurvey_prints_its_help_and_succeeds(capsys):
    code, out, err = cli(capsys)
    assert (code, err) == (0, "") and out.startswith("Usage: fcsurvey [OPTIONS] COMMAND")


@pytest.mark.parametrize("command", [["solve", "1"], ["hint", "1"], ["survey", "1", "--plan"]])
@pytest.mark.parametrize("seconds", ["inf", "1e309", "nan"])
def test_a_timeout_must_be_finite(capsys, command, seconds):
    line = error_line(capsys, *command, "--timeout", seconds)
    assert line == f"Error: timeout must be positive, finite seconds, got {float(seconds)!r}"


def test_check_refuses_an_option_among_the_moves(capsys):
    assert error_line(capsys, "check", "1", "--bogus") == "Error: No such option '--bogus'."


# --- options a mode does not use are refused, not ignored --------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["solve", "1", "--checkpoint-every", "5"], "a solve without --checkpoint does not use --checkpoint-every"),
    (["solve", "1", "--json", "--show"], "--json does not use --show"),
    (["solve", "1", "--searches-only", "--threads", "2"], "does not use --threads"),
    (["survey", "1-3", "--plan", "--force-new", "--log-file", "x.log"], "--plan does not use --force-new, --log-file: drop them"),
    (["survey", "1-3", "--plan", "--out", "OUT"], "--plan does not use --out"),
    (["survey", "1-3", "--check", "--workers", "3"], "--check does not use --workers"),
    (["survey", "--check", "--out", "OUT", "--cells", "3"], "--check --out (the dataset's own rules and limits are checked) does not use --cells"),
    (["verify", "--list", "--tier", "full"], "--list does not use --tier"),
    (["verify", "--claim", "4cells-1-32000", "--tier", "full"], "--claim and --tier both pick the claims: give one"),
    (["verify", "--plan", "--report", "r.md"], "--plan does not use --report"),
    (["show", "1", "--solution-file", "/dev/null", "--searches-only", "--html", "p.html"],
     "--searches-only limits the search for a solution: with --solution-file nothing is searched, so drop it"),
])
def test_an_option_the_mode_does_not_use_is_refused(capsys, tmp_path, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    line = error_line(capsys, *[tmp_path / "out" if a == "OUT" else a for a in args])
    assert words in line, line
    assert os.listdir(tmp_path) == []


# --- outputs: whole or not at all, and never into the dataset read ------------------------------------

@pytest.mark.parametrize("command", [["export", "DATASET", "--out", "DATASET/x.json"],
                                     ["export", "DATASET", "--format", "txt", "--out", "DATASET/_fcsurvey.json"],
                                     ["report", "DATASET", "--out", "DATASET/charts"],
                                     ["verify", "--dataset", "DATASET", "--report", "DATASET/r.md"]])
def test_an_output_inside_the_dataset_read_is_refused(capsys, dataset, command):
    before = sorted(p.name for p in dataset.rglob("*"))
    line = error_line(capsys, *[str(a).replace("DATASET", str(dataset)) for a in command])
    assert "lies inside" in line and str(dataset) in line
    assert sorted(p.name for p in dataset.rglob("*")) == before


def test_an_interrupted_export_leaves_the_old_file_and_no_temporary(capsys, tmp_path, dataset, monkeypatch):
    out = tmp_path / "deals.txt"
    out.write_text("old\n")

    def half_then_interrupted(path, stream, **options):
        stream.write("1\n")
        raise KeyboardInterrupt

    monkeypatch.setattr("fcsurvey.cli.export_deals", half_then_interrupted)
    code, _, err = cli(capsys, "export", dataset, "--format", "txt", "--out", out)
    assert (code, err.strip()) == (130, "Interrupted.")
    assert out.read_text() == "old\n" and os.listdir(tmp_path) == ["deals.txt"]


def test_an_export_replaces_its_file_whole(capsys, tmp_path, dataset):
    out = tmp_path / "deals.txt"
    out.write_text("old\n")
    code, _, err = cli(capsys, "export", dataset, "--format", "txt", "--out", out)
    assert (code, err) == (0, "Exported 3 deals.\n")
    assert out.read_text() == "1\n2\n3\n" and os.listdir(tmp_path) == ["deals.txt"]


def test_a_survey_will_not_make_its_dataset_among_other_files(capsys, tmp_path, fake):
    (tmp_path / "notes.txt").write_text("mine\n")
    line = error_line(capsys, "survey", "1-3", "--out", tmp_path)
    assert line == (f"Error: {tmp_path} holds files that are no survey's (notes.txt); choose an empty or new "
                    "directory for --out")
    assert os.listdir(tmp_path) == ["notes.txt"]
