"""The fast replay checker against the readable rules: random play mixed with
garbled tokens under every preset (foundation return on and off) and random
rule sets, and the solver's own solutions."""

from __future__ import annotations

from random import Random
from typing import Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsurvey.cards import parse_card
from fcsurvey.deals import deal
from fcsurvey.dealset import MAX_DEAL
from fcsurvey.engine import CELL, COLUMN, Move, Position, apply, legal_moves, movable_run, sequence_capacity
from fcsurvey.notation import CELL_CHARS, COLUMN_CHARS, move_to_token, parse_solution
from fcsurvey.replay import ReplayResult, _fast_replay, _readable_replay, replay, validate
from fcsurvey.rules import Rules
from fcsurvey.solver import solve

from conftest import FREECELL, RULE_SETS, board

#: Tokens are read in any case.
SPELLINGS = (str, str.lower, str.upper, str.swapcase)
#: Near misses of the grammar: bad characters, counts that are zero, missing or
#: where none may be written, places to themselves, cell to cell, non-ASCII
#: letters that lower-case to ASCII (the Kelvin sign becomes cell k).
GARBLED = ["", "1", "12v", "12v0", "12V00", "1v2", "12vz", "12vx1", "1hv2", "a2v2", "ahv1", "h1", "hSh", "hX1",
           "hS", "hSav1", "1hh", "1i", "11", "11v2", "aa", "ab", "1a ", " 1a", "1\u212a", "\u212a1", "1\u0130",
           "0x", "12 v3", "1,2"]
#: What random text is made of: the notation's characters, near misses and separators.
GARBLE_CHARS = COLUMN_CHARS + CELL_CHARS + "hHvVCDSijxz ,\u212a"
#: How much more (or less) often random play picks a move that frees a cell
#: or empties a column (or fills a cell) than another.
FREEING, CRAMPING = 4, 0.2
#: How many random moves to try for one that is no dead end.
TRIES = 5
#: How many tokens each example walks after its random start, and how many
#: it tries at each step.
WALK, PROBES = 60, 4


def random_move(rnd: Random, pos: Position, moves: list[Move]) -> Move:
    """Half the time the first of ``moves`` (which sends a card home when one
    can go); else one where moves that free a cell or empty a column are
    favoured and moves into a cell shunned, so that play reaches positions
    with room to move runs."""
    if rnd.random() < 0.5:
        return moves[0]
    weights = [FREEING if move.source.kind == CELL or (move.source.kind == COLUMN
                                                      and move.count == len(pos.columns[move.source.index]))
               else CRAMPING if move.dest.kind == CELL else 1 for move in moves]
    return rnd.choices(moves, weights)[0]


def lively_move(rnd: Random, pos: Position, rules: Rules, moves: list[Move]) -> Optional[Move]:
    """A :func:`random_move` that leaves something to play, or ``None`` when a few tries find none."""
    for _ in range(TRIES) if moves else ():
        move = random_move(rnd, pos, moves)
        if legal_moves(apply(pos, move, rules), rules):
            return move
    return None


def probe(rnd: Random, pos: Position, rules: Rules, moves: list[Move]) -> str:
    """A token of any kind, in any case: a legal move's, any place to any place
    (with or without a count), a return, a near miss or random text."""
    places = COLUMN_CHARS[:rules.columns] + CELL_CHARS[:rules.cells]
    roll = rnd.random()
    if roll < 0.4 and moves:
        token = move_to_token(random_move(rnd, pos, moves), pos, rules)
    elif roll < 0.6:
        token = rnd.choice(places) + rnd.choice(places + "h")
    elif roll < 0.7:
        # A count at or near the edges (the run's length, the free space),
        # mostly into an empty column and from the longest run.
        runs = [movable_run(pos, rules, i) for i in range(rules.columns)]
        source = runs.index(max(runs)) if rnd.random() < 0.5 else rnd.randrange(rules.columns)
        empty = [i for i, column in enumerate(pos.columns) if not column and i != source]
        dest = rnd.choice(empty) if empty and rnd.random() < 0.7 else rnd.randrange(rules.columns)
        room = sequence_capacity(pos, rules, dest)
        count = rnd.choice([0, 1, runs[source], runs[source] + 1, room, room + 1, rnd.randrange(runs[source] + 3)])
        token = f"{COLUMN_CHARS[source]}{COLUMN_CHARS[dest]}v{count:x}"
    elif roll < 0.8:
        token = "h" + rnd.choice("cdhs") + rnd.choice(places)
    elif roll < 0.9:
        token = rnd.choice(GARBLED)
    else:
        token = "".join(rnd.choice(GARBLE_CHARS) for _ in range(rnd.randrange(6)))
    return rnd.choice(SPELLINGS)(token)


def agree(start: Position, rules: Rules, tokens: list[str]) -> ReplayResult:
    """The readable replay, after checking that the fast checker and replay agree with it."""
    readable = _readable_replay(start, rules, tokens)
    assert _fast_replay(start, rules, tokens) == (readable.final if readable.ok else None), tokens
    assert replay(start, rules, tokens) == readable
    return readable


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=RULE_SETS, number=st.integers(1, MAX_DEAL), seed=st.integers(0, 2**32))
def test_fast_replay_agrees_with_the_readable_rules(rules, number, seed):
    # Hypothesis's own random draws favour zeros (empty tokens, no moves); a
    # seeded generator plays on.
    rnd = Random(seed)
    pos = Position.from_deal(deal(number, rules))
    for _ in range(rnd.randrange(100)):
        move = lively_move(rnd, pos, rules, legal_moves(pos, rules))
        if move is None:  # stop short of a dead end (some deals start in one)
            break
        pos = apply(pos, move, rules)
    # Walk on, probing every position with tokens of any kind.  The next step
    # is a probe that was accepted and leaves something to play, else a move.
    start, tokens, refused = pos, [], []
    for _ in range(WALK):
        moves = legal_moves(pos, rules)
        probes = [probe(rnd, pos, rules, moves) for _ in range(PROBES)]
        results = [agree(pos, rules, [token]) for token in probes]
        refused.extend((len(tokens), token) for token, result in zip(probes, results) if not result.ok)
        step = next(((token, result.final) for token, result in zip(probes, results)
                     if result.ok and legal_moves(result.final, rules)), None)
        if step is None:
            move = lively_move(rnd, pos, rules, moves) or next(iter(moves), None)
            if move is None:
                break
            step = move_to_token(move, pos, rules), apply(pos, move, rules)
        tokens.append(step[0])
        pos = step[1]
    # The whole walk in one replay, and with a refused probe put back where it was refused.
    agree(start, rules, tokens)
    if refused:
        at, token = rnd.choice(refused)
        agree(start, rules, tokens[:at] + [token] + tokens[at:])


def test_solver_solutions_replay_on_the_fast_path():
    for number in range(1, 301):
        solution = solve(number, FREECELL, replay=False).solution
        start = Position.from_deal(deal(number, FREECELL))
        tokens = parse_solution(solution)
        final = _fast_replay(start, FREECELL, tokens)
        assert final is not None and final.is_won, number
        assert validate(start, FREECELL, solution) == _readable_replay(start, FREECELL, tokens)


@pytest.mark.parametrize("pos, tokens", [
    # True is the card 1 (AD) to the readable rules, but not a plain int.
    (Position(((parse_card("5S"), True),) + ((),) * 7, (None,) * 4), ["1h", "1a"]),
    # A number past the deck: the readable rules move it all the same.
    (Position(((60,),) + ((),) * 7, (None,) * 4), ["1a", "a2"]),
    # A column that is a list stays one (emptied) in the readable replay.
    (Position(([parse_card("5S")],) + ((),) * 7, (None,) * 4), ["1a"]),
])
def test_positions_the_fast_checker_does_not_cover_replay_by_the_readable_rules(pos, tokens):
    assert _fast_replay(pos, FREECELL, tokens) is None
    expected = _readable_replay(pos, FREECELL, tokens)
    assert expected.ok and replay(pos, FREECELL, tokens) == expected


def test_a_token_that_is_not_a_string_fails_as_it_always_did():
    # An unhashable token would fail differently in the fast checker's table.
    with pytest.raises(AttributeError):
        replay(board(["5S 4H"]), FREECELL, ["12", ["not", "a", "string"]])
