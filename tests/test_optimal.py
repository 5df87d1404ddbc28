"""Issue 28: ``--optimal`` proves the fewest moves (``par``): equal to an exhaustive
breadth-first search over every legal move (each token one move, nothing goes home by
itself) wherever that search can finish, never above any other mode's solution, and every
line replays."""

from __future__ import annotations

import random
import re
from collections import deque
from typing import List, Optional, Tuple

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


def blocks(col: Tuple[int, ...], i: int) -> bool:
    """Whether card i of a column lies above a lower card of its own suit."""
    return any(suit(d) == suit(col[i]) and rank(d) < rank(col[i]) for d in col[:i])


def column_runs(col: Tuple[int, ...], rules: Rules) -> List[List[int]]:
    """A column's maximal built runs, as lists of card indices, deepest first."""
    runs: List[List[int]] = []
    for i, card in enumerate(col):
        if i and engine.can_build(col[i - 1], card, rules):
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def runs_bound_and_cycles(pos: Position, rules: Rules) -> Tuple[int, List[Tuple[int, int]]]:
    """The runs bound (cards not home plus the runs holding a blocking card) and the
    two-column cycles between the other runs: pairs of runs (numbered over all columns) with
    a card each, x and y, such that x lies above a lower card of y's suit and y above a lower
    card of x's suit, so that one of the two must leave its column other than home."""
    blocked, clear = 0, []  # clear: (run number, column, card index) of cards in runs without a blocking card
    number = 0
    for c, col in enumerate(pos.columns):
        for run in column_runs(col, rules):
            if any(blocks(col, i) for i in run):
                blocked += 1
            else:
                clear += [(number, c, i) for i in run]
            number += 1

    def under(c: int, i: int, card: int) -> bool:
        return any(suit(d) == suit(card) and rank(d) < rank(card) for d in pos.columns[c][:i])

    cycles = {(a, b) for a, ca, i in clear for b, cb, j in clear
              if a < b and ca != cb and under(ca, i, pos.columns[cb][j]) and under(cb, j, pos.columns[ca][i])}
    return 52 - sum(pos.foundations) + blocked, sorted(cycles)


def vertex_cover(edges: List[Tuple[int, int]]) -> int:
    """The fewest runs that meet every cycle: one of an edge's two runs is in any cover."""
    if not edges:
        return 0
    a, b = edges[0]
    return 1 + min(vertex_cover([e for e in edges if run not in e]) for run in (a, b))


def check_bound(pos: Position, rules: Rules, bound: int) -> bool:
    """--optimal's bound lies between the runs bound plus half the runs that must leave to
    break the cycles (a maximal matching of the cycles, the term the C core adds, is at least
    that) and the runs bound plus all of them; returns whether the cycles raised it."""
    runs, cycles = runs_bound_and_cycles(pos, rules)
    cover = vertex_cover(cycles)
    assert blocked_columns_bound(pos) <= runs + (cover + 1) // 2 <= bound <= runs + cover
    return bound > runs


def check_bound_on_line(pos: Position, rules: Rules, line: str, par: int) -> int:
    """Along a shortest line, --optimal's bound never exceeds the tokens left (the line's
    rest is a shortest one), never falls by more than the token written, and lies where
    check_bound says; returns how many of the line's positions the cycles term raised."""
    line_positions = [pos] + [after for _, after in walk(pos, rules, line)]
    assert len(line_positions) == par + 1
    bounds = [_fccore.optimal_bound(core_rules(rules), q.columns, q.cells, q.foundations) for q in line_positions]
    raised = 0
    for done, (q, bound) in enumerate(zip(line_positions, bounds)):
        assert bound <= par - done
        raised += check_bound(q, rules, bound)
    assert bounds[-1] == 0 and all(a - b <= 1 for a, b in zip(bounds, bounds[1:]))
    return raised


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


def test_a_two_column_cycle_costs_a_move_off():
    """The kings of spades and hearts each on the other's queen: neither blocks a card of its
    own suit, but one must go to a cell before either queen can go home, so par is 5, one
    more than the cards not home, and the bound sees it."""
    rules = preset("freecell")
    columns = ((make_card(12, HEARTS), make_card(13, SPADES)), (make_card(12, SPADES), make_card(13, HEARTS)))
    pos = Position(columns + ((),) * 6, (None,) * 4, (13, 13, 11, 11))
    bound = _fccore.optimal_bound(core_rules(rules), pos.columns, pos.cells, pos.foundations)
    assert runs_bound_and_cycles(pos, rules) == (4, [(1, 3)])
    assert bound == bfs_distance(pos, rules) == 5
    result = solve_position(pos, rules, OPTIMAL)
    assert result.par == 5 and validate(pos, rules, result.solution).ok


@pytest.mark.parametrize("number", [2, 3, 4])
def test_the_cycles_term_on_whole_lines(number):
    """Along deals' default lines the bound lies where check_bound says, and the cycles term
    raises it above the runs bound at many of their positions."""
    rules = preset("freecell")
    start = Position.from_deal(make_deal(number, rules))
    line = [start] + [after for _, after in walk(start, rules, solve(number, rules).solution)]
    raised = sum(check_bound(q, rules, _fccore.optimal_bound(core_rules(rules), q.columns, q.cells, q.foundations))
                 for q in line)
    assert raised >= len(line) // 4


@pytest.mark.parametrize("number, par, short", [(2, 73, 74), (3, 70, 70)])
def test_par_of_whole_deals(number, par, short):
    """A* starts from the --short line and stores only positions a shorter line could pass:
    on deal 2 it finds one (73 tokens against 74), on deal 3 none (so par is the --short
    line's 70); both pars are those the search without that start proved (docs/solver.md)."""
    rules = preset("freecell")
    result = solve(number, rules, OPTIMAL)
    assert solve(number, rules, Limits(length=SHORT_LENGTH)).moves == short
    assert result.par == result.moves == par
    assert validate(Position.from_deal(make_deal(number, rules)), rules, result.solution).ok


@pytest.mark.parametrize("number, a_star", [(2, True), (3, False)])
def test_the_line_searches_count_apart_from_the_verdicts_positions(number, a_star):
    """``states`` is the verdict's cost in every mode; the beam and the A* after it count in
    ``line_counts``.  On deal 3 the bound alone proves the --short line's 70 tokens par, so
    the A* stores nothing; on deal 2 it searches and finds 73 against 74."""
    rules = preset("freecell")
    default, short, optimal = (solve(number, rules, Limits(length=length))
                               for length in ("default", SHORT_LENGTH, OPTIMAL_LENGTH))
    assert default.states == short.states == optimal.states
    assert [c.states for c in default.line_counts.values()] == [0, 0]
    assert short.line_counts["beam_search"].states == optimal.line_counts["beam_search"].states > 0
    assert short.line_counts["par_search"].states == 0
    assert (optimal.line_counts["par_search"].states > 0) == a_star
    assert (optimal.line_counts["par_search"].time_s > 0) and short.line_counts["beam_search"].time_s > 0


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
    code, out, err = cli(capsys, "solve", "2", "--optimal")
    assert (code, err) == (0, "")
    assert re.search(r"\nbeam search for a shorter line: [1-9][\d,]* positions kept, [\d.]+ s \(after the verdict: "
                     r"not counted above\)\nA\* search for par: [1-9][\d,]* positions kept", out)
    code, out, err = cli(capsys, "solve", "1", "--optimal", "--short")
    assert (code, out, err) == (2, "", "Error: --short and --optimal are two modes: give one\n")
