"""``fcsurvey solve`` through the real entry point: exit codes and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from fcsurvey.deals import deal
from fcsurvey.engine import Position
from fcsurvey.notation import format_board
from fcsurvey.replay import validate
from fcsurvey.rules import PRESETS

from conftest import run_cli


def board_lines() -> list:
    """Deal 1 as board text, a line a column after the foundation and cell lines."""
    return format_board(Position.from_deal(deal(1)), PRESETS["freecell"]).splitlines()


def test_solved_exits_0_with_a_solution_that_replays() -> None:
    result = run_cli("solve", "1", "--json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["status"] == "solved"
    assert validate(deal(1), PRESETS["freecell"], verdict["solution"]).won


def test_unsolvable_exits_1() -> None:
    result = run_cli("solve", "11982")
    assert result.returncode == 1, result.stderr
    assert "unsolvable" in result.stdout.splitlines()[0]


def test_a_board_file_solves_like_the_deal(tmp_path: Path) -> None:
    board = tmp_path / "board.txt"
    board.write_text("\n".join(board_lines()) + "\n")
    assert run_cli("solve", "--board-file", str(board)).returncode == 0


def without_last_card(lines: list) -> list:
    first = next(i for i, line in enumerate(lines) if line.startswith(":"))
    return lines[:first] + [" ".join(lines[first].split()[:-1])] + lines[first + 1:]


def with_a_card_twice(lines: list) -> list:
    first, second = [i for i, line in enumerate(lines) if line.startswith(":")][:2]
    cards = lines[first].split()
    cards[-1] = lines[second].split()[-1]
    return lines[:first] + [" ".join(cards)] + lines[first + 1:]


@pytest.mark.parametrize("args, board, words", [
    (["solve", "0"], None, "deal number must be 1 to"),
    (["solve", "--board-file"], ["garbage here"], "not a card: 'garbage'"),
    (["solve", "--board-file"], without_last_card(board_lines()), "51 cards on the board"),
    (["solve", "--board-file"], with_a_card_twice(board_lines()), "appears twice"),
])
def test_bad_input_is_one_error_line_and_exit_2(tmp_path: Path, args: list, board, words: str) -> None:
    if board is not None:
        path = tmp_path / "board.txt"
        path.write_text("\n".join(board) + "\n")
        args = args + [str(path)]
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and words in lines[0], result.stderr


#: The CLI as a program, first printing the tunables it started with.
TUNABLES_PROBE = ("import os, sys; print(os.environ.get('GLIBC_TUNABLES'), file=sys.stderr, flush=True); "
                  "from fcsurvey.cli import main; main()")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's tunables")
@pytest.mark.parametrize("command, given, starts", [
    (["solve", "1", "--json"], None, ["None", "glibc.malloc.hugetlb=1"]),
    (["solve", "1", "--json"], "glibc.malloc.arena_max=2",
     ["glibc.malloc.arena_max=2", "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"]),
    (["solve", "1", "--json"], "glibc.malloc.hugetlb=0", ["glibc.malloc.hugetlb=0"]),  # set by the user: it stands
    (["deal", "1"], None, ["None"]),  # solves nothing: starts once
])
def test_solve_starts_again_with_huge_pages_for_malloc(command: list, given: Optional[str], starts: list) -> None:
    env = {name: value for name, value in os.environ.items() if name != "GLIBC_TUNABLES"}
    if given is not None:
        env["GLIBC_TUNABLES"] = given
    result = subprocess.run([sys.executable, "-c", TUNABLES_PROBE, *command], env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == starts
    if command[0] == "solve":
        assert json.loads(result.stdout)["status"] == "solved"
