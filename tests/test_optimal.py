"""Issue 28: ``--optimal`` proves the fewest moves (``par``): equal to an exhaustive
breadth-first search over every legal move (each token one move, nothing goes home by
itself) wherever that search can finish, never above any other mode's solution, and every
line replays."""

from __future__ import annotations

import random
from collections import deque
from typing import Optional, Tuple

import pytest

from fcsurvey import engine
from fcsurvey._core import _fccore
from fcsurvey.cards import CLUBS, DIAMONDS, HEARTS, SPADES, make_card, rank, suit
from fcsurvey.deals import deal as make_deal
from fcsurvey.engine import Position
from fcsurvey.limits import OPTIMAL_LENGTH, SHORT_LENGTH, Limits
from fcsurvey.replay import validate, walk
from fcsurvey.rules import Rules, preset
from fcsurvey.schema import SOLVED
from fcsurvey.solver import core_rules, solve, solve_position

OPTIMAL = Limits(length=OPTIMAL_LENGTH)
#: Breadth-first search gives up past this many positions (the test then skips the case).
BFS_ROOM = 20_000


def canonical(pos: Position) -> Tuple:
    """A position up to the order of its columns and cells (the same moves either way)."""
    return (tuple(sorted(pos.columns)), tuple(sorted(c for c in pos.cells if c is not None)), pos.foundations)


def bfs_distance(start: Position, rules: Rules) -> Optional[int]:
    """The fewest moves to win from start, every legal move one, by breadth-first search;
    None past BFS_ROOM positions."""
    if start.is_won:
        return 0
    seen = {canonical(start)}
    frontier = deque([(start, 0)])
    while frontier:
        pos, dist = frontier.popleft()
        for move in engine.legal_moves(pos, rules):
            child = engine.apply(pos, move, rules)
            if child.is_won:
                return dist + 1
            key = canonical(child)
            if key not in seen:
                if len(seen) >= BFS_ROOM:
                    return None
                seen.add(key)
                frontier.append((child, dist + 1))
    raise AssertionError("a position reached from a won line cannot be lost")


def near_finished(number: int, rules: Rules, left: int) -> Position:
    """Deal `number`'s position `left` tokens before the end of its default solution."""
    start = Position.from_deal(make_deal(number, rules))
    tokens = solve(number, rules).solution.split()
    pos = start
    for _, pos in walk(start, rules, tokens[:len(tokens) - left]):
        pass
    return pos


#: (cells, deal, tokens left of its default solution): deals solvable with those cells.
CASES = [(0, 164, 8), (0, 892, 8), (1, 2, 8), (1, 5, 8), (2, 2, 8), (2, 4, 8)]
#: The same 10 tokens from the end: breadth-first search takes about 10-30 s each.
SLOW_CASES = [(0, 164, 10), (0, 892, 10), (1, 2, 10), (1, 5, 10), (2, 2, 10)]


def check_par(pos: Position, rules: Rules) -> int:
    """par of pos, checked against breadth-first search; returns it."""
    truth = bfs_distance(pos, rules)
    assert truth is not None, "breadth-first search ran out of room: pick a smaller position"
    result = solve_position(pos, rules, OPTIMAL)
    assert result.status == SOLVED
    assert result.par == result.moves == truth
    assert validate(pos, rules, result.solution).ok
    check_bound_on_line(pos, rules, result.solution, truth)
    return truth


def blocked_columns_bound(pos: Position) -> int:
    """The bound --optimal used before issue 28's runs: cards not home plus one for every
    column holding a card above a lower card of its own suit."""
    blocked = sum(any(rank(c) > rank(d) and suit(c) == suit(d) for i, c in enumerate(col) for d in col[:i])
                  for col in pos.columns)
    return 52 - sum(pos.foundations) + blocked


def check_bound_on_line(pos: Position, rules: Rules, line: str, par: int) -> None:
    """Along a shortest line, --optimal's bound never exceeds the tokens left (the line's
    rest is a shortest one), never falls by more than the token written, and is never below
    the bound it replaced."""
    line_positions = [pos] + [after for _, after in walk(pos, rules, line)]
    assert len(line_positions) == par + 1
    bounds = [_fccore.optimal_bound(core_rules(rules), q.columns, q.cells, q.foundations) for q in line_positions]
    for done, (q, bound) in enumerate(zip(line_positions, bounds)):
        assert blocked_columns_bound(q) <= bound <= par - done
    assert bounds[-1] == 0 and all(a - b <= 1 for a, b in zip(bounds, bounds[1:]))


@pytest.mark.parametrize("cells, number, left", CASES)
def test_par_equals_breadth_first_search(cells, number, left):
    rules = preset("freecell", cells=cells)
    assert check_par(near_finished(number, rules, left), rules) <= left


@pytest.mark.slow
@pytest.mark.parametrize("cells, number, left", SLOW_CASES)
def test_par_equals_breadth_first_search_further_out(cells, number, left):
    rules = preset("freecell", cells=cells)
    assert check_par(near_finished(number, rules, left), rules) <= left


@pytest.mark.parametrize("cells, number", [(0, 164), (1, 2), (2, 4)])
def test_par_equals_breadth_first_search_off_the_line(cells, number):
    """Three random moves off the default line, 6 tokens from its end."""
    rules, rng = preset("freecell", cells=cells), random.Random(number)
    pos = near_finished(number, rules, 6)
    for _ in range(3):
        pos = engine.apply(pos, rng.choice([m for m in engine.legal_moves(pos, rules)
                                            if m.dest.kind != engine.FOUNDATION]), rules)
    check_par(pos, rules)


def test_par_of_a_won_position_is_zero_and_of_four_kings_eight():
    rules = preset("freecell")
    won = Position(((),) * 8, (None,) * 4, (13, 13, 13, 13))
    assert solve_position(won, rules, OPTIMAL).par == 0
    # Each king on its own queen of the other colour: the queens cannot go first.
    kings = Position(((51, 46), (50, 47), (49, 44), (48, 45)) + ((),) * 4, (None,) * 4, (11, 11, 11, 11))
    assert bfs_distance(kings, rules) == solve_position(kings, rules, OPTIMAL).par == 8


@pytest.mark.parametrize("variant, middle, par", [("freecell", (12, 11), 18), ("bakers-game", (12, 11), 17),
                                                   ("freecell", (11, 12), 18), ("bakers-game", (11, 12), 18)])
def test_the_bound_counts_runs_of_blocking_cards_per_the_build_order(variant, middle, par):
    """T, J, Q and K of each suit left; the ten of spades under two higher spades.  Queen on
    jack or jack on queen: two blocking runs by alternate colours (two moves off), and in
    Baker's Game the jack on the queen builds, one run that one sequence move lifts."""
    rules = preset(variant)
    spades = (make_card(10, SPADES),) + tuple(make_card(r, SPADES) for r in middle)
    others = tuple(tuple(make_card(r, s) for r in (13, 12, 11, 10)) for s in (CLUBS, DIAMONDS, HEARTS))
    pos = Position((spades, (make_card(13, SPADES),)) + others + ((),) * 3, (None,) * 4, (9, 9, 9, 9))
    bound = _fccore.optimal_bound(core_rules(rules), pos.columns, pos.cells, pos.foundations)
    assert (blocked_columns_bound(pos), bound) == (17, par)
    result = solve_position(pos, rules, OPTIMAL)
    assert result.par == par and validate(pos, rules, result.solution).ok


def test_par_is_never_above_another_modes_solution():
    rules = preset("freecell")
    pos = near_finished(3, rules, 40)
    optimal = solve_position(pos, rules, OPTIMAL)
    assert optimal.par is not None
    for length in ("default", SHORT_LENGTH):
        other = solve_position(pos, rules, Limits(length=length))
        assert optimal.par <= other.moves
    assert validate(pos, rules, optimal.solution).ok


def test_no_par_without_optimal_or_past_its_room():
    rules = preset("freecell")
    assert solve(1).par is None
    tight = solve(1, rules, Limits(max_states=2000, length=OPTIMAL_LENGTH))
    assert tight.status == SOLVED and tight.par is None and validate(Position.from_deal(make_deal(1, rules)), rules,
                                                                     tight.solution).ok


def test_optimal_survey_has_a_par_column(tmp_path):
    from fcsurvey import store
    from fcsurvey.dealset import parse_deals
    from fcsurvey.survey import Survey
    out = tmp_path / "optimal"
    Survey(parse_deals("1-2"), out, limits=Limits(max_states=2000, length=OPTIMAL_LENGTH), workers=1).run()
    table = store.read(out)
    assert "par" in table.column_names
    assert table.column("par").to_pylist() == [None, None]  # 2,000 positions are far too few
    assert table.column("status").to_pylist() == [SOLVED, SOLVED]
    with pytest.raises(store.StoreError, match="other rules or limits"):
        Survey(parse_deals("1-2"), out, limits=Limits(max_states=2000), workers=1)


def test_cli_solve_optimal_prints_par(capsys, tmp_path):
    from conftest import cli
    from fcsurvey.notation import format_board
    rules = preset("freecell")
    kings = Position(((51, 46), (50, 47), (49, 44), (48, 45)) + ((),) * 4, (None,) * 4, (11, 11, 11, 11))
    (tmp_path / "kings.txt").write_text(format_board(kings, rules) + "\n")
    code, out, err = cli(capsys, "solve", "--board-file", tmp_path / "kings.txt", "--optimal")
    assert (code, err) == (0, "")
    assert "moves: 8 (8 single-card moves)\npar: 8 (proved: no solution is shorter)\n" in out
    code, out, err = cli(capsys, "solve", "1", "--optimal", "--short")
    assert (code, out, err) == (2, "", "Error: --short and --optimal are two modes: give one\n")
