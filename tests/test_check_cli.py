"""``fcsurvey check``: replaying solutions from the command line."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from fcsurvey.cli import cli, main

from conftest import SOLUTIONS, run_cli

SOLUTION_164 = SOLUTIONS["freecell", 164]


def check(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, ["check", *args], input=stdin)


def test_valid_solution_as_arguments():
    result = check("164", *SOLUTION_164.split())
    assert result.exit_code == 0, result.output
    assert result.output == "valid: 100 moves\n"


def test_valid_solution_from_a_file(tmp_path):
    path = tmp_path / "164.sol"
    path.write_text(SOLUTION_164.replace(" ", "\n") + "\n")
    result = check("164", "--solution-file", str(path))
    assert (result.exit_code, result.output) == (0, "valid: 100 moves\n")


def test_valid_solution_from_stdin():
    result = check("164", "--solution-file", "-", stdin=SOLUTION_164.replace(" ", ", "))
    assert (result.exit_code, result.output) == (0, "valid: 100 moves\n")


def test_rule_flags_choose_the_variant():
    tokens = SOLUTIONS["seahaven-towers", 2].split()
    assert check("2", "--variant", "seahaven-towers", *tokens).output == f"valid: {len(tokens)} moves\n"
    result = check("2", *tokens)  # the FreeCell deal 2 is another layout
    assert result.exit_code == 1 and result.output.startswith("invalid: move 1 (2h): ")


@pytest.mark.parametrize("tokens, verdict", [
    ("17 15 1a a1", "invalid: move 4 (a1): 5H does not build on AD"),
    ("17 15 17 1h hD3", "invalid: move 5 (hD3): cards may not come back from the foundations under these rules"),
    ("17 15 17 1h", "invalid: not all cards are on the foundations after 4 moves"),
])
def test_invalid_solution_exits_1_naming_the_move(tokens, verdict):
    result = check("164", *tokens.split())
    assert (result.exit_code, result.output) == (1, verdict + "\n")


@pytest.mark.parametrize("tokens, why", [
    ("17 zz", "move 2 (zz): not a move: 'zz'"),
    ("17 15 9a", "move 3 (9a): '9a': there is no column 9; the game has 8 columns"),
    ("17 15 1e", "move 3 (1e): '1e': there is no cell e; the game has 4 free cells"),
    ("", "no solution given: no move token in the arguments or the file"),
])
def test_what_is_no_solution_is_bad_input(capsys, tokens, why):
    """Tokens outside the notation, or no move at all, are not a solution that fails but no
    solution: one Error line and exit 2, as hint and show say of the same input."""
    with pytest.raises(SystemExit) as exited:
        main(["check", "164", *tokens.split()])
    assert (exited.value.code, capsys.readouterr()) == (2, ("", f"Error: {why}\n"))


def test_an_empty_solution_file_is_bad_input(capsys, tmp_path):
    path = tmp_path / "empty.sol"
    path.write_text(" \n,\n")
    with pytest.raises(SystemExit) as exited:
        main(["check", "164", "--solution-file", str(path)])
    assert exited.value.code == 2 and capsys.readouterr().err.startswith("Error: no solution given")


def test_foundation_return_flag():
    result = check("164", "--foundation-return", "17", "15", "17", "1h", "hDa")
    assert result.output == "invalid: not all cards are on the foundations after 5 moves\n"


def test_missing_solution_file_is_bad_input(capsys, tmp_path):
    with pytest.raises(SystemExit) as exited:
        main(["check", "164", "--solution-file", str(tmp_path / "nope.sol")])
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and "nope.sol" in lines[0]


def test_arguments_and_file_together_are_bad_input(capsys, tmp_path):
    path = tmp_path / "s.sol"
    path.write_text("1a")
    with pytest.raises(SystemExit) as exited:
        main(["check", "164", "1a", "--solution-file", str(path)])
    assert exited.value.code == 2
    assert capsys.readouterr().err == "Error: give the solution as arguments or with --solution-file, not both\n"


def test_bad_deal_number_is_bad_input(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["check", "0", "1a"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.startswith("Error: ")


def test_help_has_an_example():
    result = check("--help")
    assert result.exit_code == 0
    assert "Examples:" in result.output and "fcsurvey check 164 --solution-file" in result.output


def test_through_python_m(tmp_path):
    path = tmp_path / "164.sol"
    path.write_text(SOLUTION_164)
    ok = run_cli("check", "164", "--solution-file", path)
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "valid: 100 moves\n", "")
    bad = run_cli("check", "164", "12")
    assert (bad.returncode, bad.stdout) == (1, "invalid: move 1 (12): 6S does not build on 6H\n")
