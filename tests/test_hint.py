"""The hint engine (Issue 29, item 3): ``fcsurvey.hint`` and ``fcsurvey hint``.

A hint's move must start a line that wins from the position; ``lost`` must be a real
loss.  The lost positions here are ones random play reaches (scripts/bench_hint.py's
sample, seed 29), each checked by an exhaustive search of this file's own over the rules
engine's legal moves, and positions reached from 11982, unsolvable with 4 cells.
"""

from __future__ import annotations

import json

import pytest

import fcsurvey
from fcsurvey.engine import Position, legal_moves
from fcsurvey.hints import LOST, UNKNOWN, WINNABLE, WON, HintError, position_after
from fcsurvey.notation import format_board, parse_solution
from fcsurvey.replay import validate
from fcsurvey.rules import PRESETS, preset

from conftest import FREECELL, TESTS, board, cli, plain_winnable

#: A budget no hint here comes near on a loaded machine: the verdicts must not depend on it.
AMPLE_S = 120.0

#: Positions random play reaches that are lost (deal, moves played, legal moves left).
LOST_AFTER = [
    (244, "6a a2 4a 8b 5c", 8),
    (286, "4a 4b 2c 3d 6h a7 7a 35 78 a8 71 6a 12", 4),
    (299, "3a 4b 2c 6d a8 8a d6 72 86 35 5d 18 27 72 27 d5 4d 72 27 a6 8a b6 3b", 3),
]


def exhaustively_lost(start: Position, rules=FREECELL, most: int = 5_000) -> bool:
    """Whether no sequence of legal moves wins from ``start``: every position reachable by
    the rules engine's moves is visited (at most ``most``; past that the test is wrong)."""
    won = plain_winnable(start, rules, most)
    assert won is not None, "the position is too big to check this way"
    return not won


def test_one_move_from_winning_gives_that_move():
    line = parse_solution(fcsurvey.solve(1).solution)
    found = fcsurvey.hint(1, line[:-1], FREECELL, timeout=AMPLE_S)
    assert (found.status, found.move, found.line, found.line_moves) == (WINNABLE, line[-1], line[-1], 1)
    assert found.played == len(line) - 1
    assert found.move_detail["to"].startswith("foundation ") and found.move_detail["count"] == 1


@pytest.mark.parametrize("number, played", [(164, ""), (617, "1a"), (1, "7a 87 18")])
def test_the_line_wins_from_the_position(number, played):
    found = fcsurvey.hint(number, played, FREECELL, timeout=AMPLE_S)
    assert found.status == WINNABLE
    position = position_after(number, played, FREECELL)
    assert validate(position, FREECELL, found.line).ok
    assert found.move == parse_solution(found.line)[0] and found.line_moves == len(parse_solution(found.line))


@pytest.mark.parametrize("number, played, moves_left", LOST_AFTER)
def test_a_lost_position_says_lost(number, played, moves_left):
    position = position_after(number, played, FREECELL)
    assert len(legal_moves(position, FREECELL)) == moves_left  # not merely stuck
    assert exhaustively_lost(position)
    found = fcsurvey.hint(number, played, FREECELL, timeout=AMPLE_S)
    assert (found.status, found.move, found.line, found.limit) == (LOST, None, None, None)
    assert found.states > 0


@pytest.mark.parametrize("played", ["", "3a 4b", "8a 8b 8c 1d"])
def test_positions_reached_from_11982_are_lost(played):
    """11982 has no win with 4 cells, so neither has any position reached from it."""
    found = fcsurvey.hint(11982, played, FREECELL, timeout=AMPLE_S)
    assert found.status == LOST and found.played == len(played.split())


def test_the_verdict_follows_the_rules_given():
    """617 needs four cells: lost from the start with three, winnable after a move with four."""
    assert fcsurvey.hint(617, "", preset("freecell", cells=3), timeout=AMPLE_S).status == LOST
    assert fcsurvey.hint(617, "1a", preset("freecell", cells=4), timeout=AMPLE_S).status == WINNABLE


def test_a_won_game_has_nothing_left():
    line = fcsurvey.solve(164).solution
    found = fcsurvey.hint(164, line, FREECELL)
    assert (found.status, found.move, found.line_moves, found.states) == (WON, None, 0, 0)


def test_the_budget_makes_unknown():
    """11982's proof takes over 100,000 positions, far past a hundredth of a second."""
    found = fcsurvey.hint(11982, "", FREECELL, timeout=0.01)
    assert (found.status, found.move, found.limit) == (UNKNOWN, None, "time")


def test_starts_a_board_a_deal_and_a_position_alike():
    dealt = fcsurvey.deal(164, FREECELL)
    start = Position.from_deal(dealt)
    hints = [fcsurvey.hint(start_, "17", FREECELL, timeout=AMPLE_S)
             for start_ in (164, dealt, start, format_board(start, FREECELL))]
    assert len({(h.status, h.line) for h in hints}) == 1 and hints[0].status == WINNABLE


#: Eighteen red cards and one free cell, the black suits home: red cannot build on red, so
#: only the cell and the foundations move cards, and they do not free the fives enough.
RED_DEADLOCK = """Foundations: H-4 C-K D-4 S-K
Freecells: -
: QD TD 8D
: TH 7D 5H 7H QH
: 5D 6H
: JH 8H
: 9D
: KH
: 6D KD
: 9H JD
"""


def test_a_board_with_few_cards():
    two_kings = board(["KH", "KS"], foundations=(13, 13, 12, 12))
    found = fcsurvey.hint(two_kings, "", FREECELL)
    assert found.status == WINNABLE and found.line_moves == 2 and found.move_detail["card"] in ("KH", "KS")
    one_cell = preset("freecell", cells=1)
    position = position_after(RED_DEADLOCK, "", one_cell)
    assert len(legal_moves(position, one_cell)) == 8 and exhaustively_lost(position, one_cell)
    assert fcsurvey.hint(RED_DEADLOCK, "", one_cell, timeout=AMPLE_S).status == LOST


@pytest.mark.parametrize("played, why", [
    ("9h", "move 1 (9h): '9h': there is no column 9"),
    ("17 15 17 zz", "move 4 (zz)"),
    ("1h", "move 1 (1h)"),
])
def test_played_moves_that_do_not_replay_are_refused(played, why):
    with pytest.raises(HintError, match="the played moves do not replay: " + why.replace("(", r"\(")
                       .replace(")", r"\)")):
        fcsurvey.hint(164, played, FREECELL)


# --- the command ----------------------------------------------------------------------------

def test_cli_hint_text_and_exit_codes(capsys):
    code, out, _ = cli(capsys, "hint", 164, "--moves", "17 15")
    assert code == 0 and out.startswith("next: 17 (") and "\nline: 17 " in out
    code, out, _ = cli(capsys, "hint", 286, "--moves", LOST_AFTER[1][1])
    assert code == 1 and out.startswith("lost: no sequence of moves wins from here (proved: ")
    code, out, _ = cli(capsys, "hint", 11982, "--timeout", 0.01)
    assert code == 3 and out.startswith("unknown: ") and "(time limit, " in out


def test_cli_hint_json(capsys):
    code, out, _ = cli(capsys, "hint", 164, "--moves", "17,15", "--json")
    record = json.loads(out)
    assert code == 0 and record["deal"] == 164 and record["status"] == WINNABLE and record["played"] == 2
    assert record["rules"] == FREECELL.to_dict()
    assert validate(position_after(164, "17 15", FREECELL), FREECELL, record["line"]).ok
    assert record["move"] == record["line"].split()[0] and record["move_detail"]["count"] >= 1


def test_cli_hint_board_and_moves_files(capsys, tmp_path):
    (tmp_path / "deadlock.txt").write_text(RED_DEADLOCK)
    code, out, _ = cli(capsys, "hint", "--board-file", tmp_path / "deadlock.txt", "--cells", 1)
    assert code == 1 and out.startswith("lost: ")
    (tmp_path / "board.txt").write_text(format_board(position_after(286, "4a 4b", FREECELL), FREECELL))
    (tmp_path / "played.txt").write_text(" ".join(LOST_AFTER[1][1].split()[2:]) + "\n")
    code, out, _ = cli(capsys, "hint", "--board-file", tmp_path / "board.txt",
                       "--moves-file", tmp_path / "played.txt")
    assert code == 1 and out.startswith("lost: ")


def test_cli_hint_rule_flags(capsys):
    code, out, _ = cli(capsys, "hint", 617, "--cells", 3, "--timeout", AMPLE_S)
    assert code == 1 and out.startswith("lost: ")
    code, out, _ = cli(capsys, "hint", 1, "--variant", "bakers-game", "--json")
    assert code == 0 and json.loads(out)["rules"] == PRESETS["bakers-game"].to_dict()


@pytest.mark.parametrize("args, message", [
    (["hint"], "give a deal NUMBER or --board-file"),
    (["hint", "164", "--board-file", TESTS / "conftest.py"], "give a deal NUMBER or --board-file"),
    (["hint", "164", "--moves", "17 15 9h"], "the played moves do not replay: move 3 (9h)"),
    (["hint", "164", "--moves", "17", "--moves-file", TESTS / "conftest.py"], "--moves or --moves-file, not both"),
    (["hint", "0"], "Error: Invalid value for '[NUMBER]': deal number must be 1 to 8,589,934,591, got 0\n"),
    (["hint", "164", "--timeout", "0"], "Error: Invalid value for '--timeout': 0.0 is not in the range x>0.\n"),
    (["hint", "164", "--cells", "11"], "Error: cells must be a whole number from 0 to 10, got 11\n"),
    (["hint", "--board-file", "/nonexistent/board"], "cannot read"),
])
def test_cli_hint_bad_input_is_one_error_line(capsys, args, message):
    code, out, err = cli(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("Error: ") and message in err


def test_cli_hint_bad_board_is_one_error_line(capsys, tmp_path):
    (tmp_path / "board.txt").write_text(": KH KH\n")
    code, out, err = cli(capsys, "hint", "--board-file", tmp_path / "board.txt")
    assert (code, out, err) == (2, "", "Error: card KH appears twice\n")
