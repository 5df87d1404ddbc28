"""Random text and random bytes fed to every input a user types or hands in: the ``deal`` and
``survey`` arguments, a ``--deals-file``, a ``--board-file``, a ``--solution-file`` and
``--where``.  Whatever comes in, ``fcsurvey.cli:main`` (the console script) ends with exit 0,
1 or 2 (``solve`` also 3, unknown), an exit 2 says why in exactly one ``Error:`` line, and no
exception escapes (which would be a traceback).

Random bytes on the command line arrive as Python decodes ``argv`` (``os.fsdecode``, so
undecodable bytes become surrogates).  Surveys solve with tests/fake_solver.py and are kept
to a few deals, so an input that happens to be a valid range never starts a long survey.
"""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Callable, Iterable, Optional, Tuple

import pytest
from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

import fake_solver
from fcsurvey.cli import main
from fcsurvey.deals import deal
from fcsurvey.dealset import DealError, DealSet, parse_deals, read_deals_file
from fcsurvey.engine import Position
from fcsurvey.notation import format_board
from fcsurvey.report import EQUALITY, FIELDS, KEYWORDS, ORDERING
from fcsurvey.rules import PRESETS
from fcsurvey.solver import solve
from fcsurvey.store import read
from fcsurvey.survey import SOLVER_ENV, Survey

from conftest import FAKE_SOLVER

FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
FEWER = settings(FUZZ, max_examples=25)  # examples that may run a survey, each a worker's start
MOST_DEALS = 20        # a survey input that parses to more deals than this is not run
BOARD_STATES = 2_000   # positions a fuzzed board may be searched for
BOM = "\ufeff"

#: Text a random string rarely gets to: pieces of the forms the parsers take.
DEAL_PIECES = st.text(alphabet="0123456789,-.+ _\t#²１", max_size=24)
MOVE_TOKENS = st.sampled_from(["1h", "3a", "a5", "36v3", "hS3", "12", "17", "81", "a1", "ha", "1", "h",
                               "99", "9a", "zz", "36v0", "36v99", "hX3", "-", ",", "0h", "ab"])
WHERE_TOKENS = st.sampled_from([*FIELDS, *KEYWORDS, *EQUALITY, *ORDERING, "(", ")", ",",
                                "0", "1", "-1", "2.5", ".5", "-.0", "4", "99999999999999999999999",
                                "9223372036854775807", "-9223372036854775808", "solved", "'unknown'",
                                '"error"', "bogus", "'", "1e3", "１"])
#: Whole numbers at the edges of the columns' types and of the int64 literals compare as.
WHOLE_EDGES = [2 ** 63 - 1, 2 ** 63, 2 ** 64, -(2 ** 63), -(2 ** 63) - 1, 10 ** 23, 255, 256, -1]
WHERE_LITERALS = st.one_of(st.integers(-100, 100).map(str), st.sampled_from(WHOLE_EDGES).map(str),
                           st.integers(-10 ** 25, 10 ** 25).map(str), st.floats(-1e30, 1e30).map("{:f}".format),
                           st.sampled_from(["true", "false", "solved", "'unknown'", "x", "1.5", "-.0"]))
#: --where expressions that parse as far as their literals: random fields, operators and values.
WHERE_EXPRESSIONS = st.recursive(
    st.one_of(st.builds("{} {} {}".format, st.sampled_from(list(FIELDS)),
                        st.sampled_from([*EQUALITY, *ORDERING]), WHERE_LITERALS),
              st.builds("{} in ({})".format, st.sampled_from(list(FIELDS)),
                        st.lists(WHERE_LITERALS, min_size=1, max_size=3).map(", ".join))),
    lambda inner: st.one_of(inner.map("not {}".format), inner.map("({})".format),
                            st.builds("{} and {}".format, inner, inner),
                            st.builds("{} or {}".format, inner, inner)),
    max_leaves=6)
TEXT = st.text(max_size=40)
ARGV_BYTES = st.binary(max_size=40).filter(lambda b: b"\0" not in b).map(os.fsdecode)


def invoke(*args: object) -> Tuple[int, str, str]:
    """``main`` on ``args`` with stdout and stderr captured (in any characters, surrogates too);
    asserts the exit contract and returns the code and both outputs."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), pytest.raises(SystemExit) as stop:
        main([str(a) for a in args])
    code, errors = stop.value.code, err.getvalue()
    assert "Traceback" not in errors
    if code == 2:
        lines = [line for line in errors.splitlines() if line.startswith("Error:")]
        assert len(lines) == 1, errors
    return code, out.getvalue(), errors


def small_survey(deals: Optional[DealSet]) -> bool:
    """Whether ``deals`` (None: input that does not parse) is few enough to survey, without
    the fake solver's failing deal (whose outcome is not this test's business)."""
    return deals is None or (len(deals) <= MOST_DEALS and fake_solver.RAISE_DEAL not in set(deals))


def parsed_or_none(parse: Callable[..., DealSet], *args: object) -> Optional[DealSet]:
    """What the library makes of the input, or None where it refuses it."""
    try:
        return parse(*args)
    except DealError:
        return None


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Surveys solve with the fake solver, in a scratch working directory."""
    monkeypatch.setenv(SOLVER_ENV, FAKE_SOLVER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- deal and survey arguments ----------------------------------------------------------------------

@FUZZ
@given(text=st.one_of(TEXT, ARGV_BYTES, DEAL_PIECES))
@example(" 11982 ").via("the accepted form")
@example("1,2").via("a list where one number is expected")
def test_deal_takes_any_argument(text: str) -> None:
    code, out, _ = invoke("deal", text)
    assert code in (0, 2)
    if code == 0 and not text.startswith("-"):
        assert out.splitlines() == deal(int(text.strip())).text_columns()


@FEWER
@given(text=st.one_of(TEXT, ARGV_BYTES, DEAL_PIECES))
@example("1,3..4").via("the accepted form")
@example("1-²").via("a superscript digit")
def test_survey_takes_any_deals_argument(fake: Path, text: str) -> None:
    deals = parsed_or_none(parse_deals, text)
    assume(small_survey(deals))
    out = fake / "out"
    code, _, _ = invoke("survey", text, "--workers", "1", "--out", out, "--force-new")
    assert code in (0, 2)
    if deals is not None and not text.startswith("-"):
        assert code == 0 and read(out)["deal"].to_pylist() == list(deals)  # exactly the deals asked


@FEWER
@given(content=st.one_of(st.binary(max_size=60), TEXT.map(str.encode),
                         st.lists(DEAL_PIECES, max_size=5).map(lambda lines: (BOM + "\n".join(lines)).encode())))
@example((BOM + "1,2  # two\n5-6\n").encode()).via("the accepted form")
@example(b"\x89PNG\r\n").via("a binary file")
def test_survey_takes_any_deals_file(fake: Path, content: bytes) -> None:
    path = fake / "deals.txt"
    path.write_bytes(content)
    deals = parsed_or_none(read_deals_file, path)
    assume(small_survey(deals))
    code, _, _ = invoke("survey", "--deals-file", path, "--workers", "1", "--out", fake / "out", "--force-new")
    assert code == (2 if deals is None else 0)
    if deals is not None:
        assert read(fake / "out")["deal"].to_pylist() == list(deals)


# --- files ------------------------------------------------------------------------------------------

BOARD = format_board(Position.from_deal(deal(1)), PRESETS["freecell"]) + "\n"


def mutated(text: str, edits: Iterable[Tuple[int, str]]) -> str:
    """``text`` with the character at each position replaced by the given piece."""
    chars = list(text)
    for at, piece in edits:
        chars[at % len(chars)] = piece
    return "".join(chars)


BOARD_PIECES = st.sampled_from(["", " ", "\n", "X", "T", "10", "0", ":", "AH", "-", "♠", BOM])
BOARD_EDITS = st.lists(st.tuples(st.integers(0, len(BOARD) - 1), BOARD_PIECES), max_size=4)


@FUZZ
@given(content=st.one_of(st.binary(max_size=200), TEXT.map(str.encode),
                         BOARD_EDITS.map(lambda edits: mutated(BOARD, edits).encode())))
@example((BOM + BOARD).encode()).via("the accepted form")
def test_solve_takes_any_board_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "board.txt"
    path.write_bytes(content)
    code, _, _ = invoke("solve", "--board-file", path, "--max-states", BOARD_STATES)
    assert code in (0, 1, 2, 3)


SOLUTION_1 = solve(1).solution


@FUZZ
@given(content=st.one_of(st.binary(max_size=200), TEXT.map(str.encode),
                         st.lists(MOVE_TOKENS, max_size=12).map(lambda tokens: " ".join(tokens).encode()),
                         st.integers(0, len(SOLUTION_1)).map(lambda cut: SOLUTION_1[:cut].encode())))
@example((BOM + SOLUTION_1).encode()).via("the accepted form")
def test_check_takes_any_solution_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "solution.txt"
    path.write_bytes(content)
    code, out, _ = invoke("check", "1", "--solution-file", path)
    assert code in (0, 1, 2)
    if code == 0:
        assert out.startswith("valid: ")


# --- --where ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A --difficulty survey of deals 1-4: every field --where knows."""
    out = tmp_path_factory.mktemp("fuzz") / "out"
    Survey(parse_deals("1-4"), out, workers=1, difficulty=True).run()
    return out


@FUZZ
@given(where=st.one_of(TEXT, ARGV_BYTES, st.lists(WHERE_TOKENS, max_size=10).map(" ".join)))
@example("min_cells >= 1 and not (deal in (2, 3))").via("the accepted form")
def test_export_takes_any_where(dataset: Path, where: str) -> None:
    exports_or_refuses(dataset, where)


@settings(FUZZ, max_examples=150)  # cheap, and the literals' edges are what they are after
@given(where=WHERE_EXPRESSIONS)
def test_export_takes_any_well_formed_where(dataset: Path, where: str) -> None:
    exports_or_refuses(dataset, where)


def exports_or_refuses(dataset: Path, where: str) -> None:
    code, out, _ = invoke("export", dataset, "--where", where, "--format", "txt")
    assert code in (0, 2)
    if code == 0:
        assert set(out.split()) <= {"1", "2", "3", "4"}
