"""Every verdict of the solver against a plain search that leaves nothing out.

The solver's searches and its layered proof rest on reductions (safe autoplay, the lowest
empty cell or column, single cards in the proof, layers and groups, the move back left out;
docs/solver.md).  Here each is checked at once against the plainest search there is: depth
first over every legal move of the rules engine (engine.legal_moves, engine.apply), with no
autoplay and no reduction but the order of columns and cells, which no rule depends on.  The
positions are small (4 to 12 cards off the foundations) and the rules random over every field
the Rules allow, so the plain search finishes, and a reduction that is sound only under
standard rules (an autoplay rule with foundation return, a capacity with kings-only empty
columns) would show here as a wrong verdict.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from fcsurvey.cards import DECK_SIZE, KING, SUITS
from fcsurvey.engine import Position
from fcsurvey.limits import Limits
from fcsurvey.rules import BUILD_ORDERS, EMPTY_FILLS, SEQUENCE_MOVES, Rules
from fcsurvey.schema import SOLVED, UNSOLVABLE
from fcsurvey.solver import PROOF, SEARCH, SolverError, solve_position

from conftest import plain_winnable

#: Positions a plain search may store before its case is dropped as too large to know.
PLAIN_ROOM = 5_000
#: Room for the solver: far more than any case needs, so that it decides every one.
ROOM = Limits(max_states=200_000)
#: At most this many cards off the foundations.
MOST_OFF = 12
CASES = 150

def random_rules(rng: random.Random) -> Rules:
    return Rules(cells=rng.randint(0, 2), columns=rng.randint(3, 5), build=rng.choice(BUILD_ORDERS),
                 empty_fill=rng.choice(EMPTY_FILLS), sequence=rng.choice(SEQUENCE_MOVES),
                 foundation_return=rng.random() < 0.5)


def random_position(rules: Rules, rng: random.Random) -> Position:
    """4 to MOST_OFF cards off the foundations, strewn over the cells and columns."""
    while True:
        homes = [rng.randint(KING - MOST_OFF, KING) for _ in SUITS]
        if 4 <= DECK_SIZE - sum(homes) <= MOST_OFF:
            break
    off = [c for c in range(DECK_SIZE) if c // 4 + 1 > homes[c % 4]]
    rng.shuffle(off)
    held = rng.randint(0, min(rules.cells, len(off)))
    cells = [None] * rules.cells
    for i, slot in enumerate(rng.sample(range(rules.cells), held)):
        cells[slot] = off[i]
    columns = [[] for _ in range(rules.columns)]
    for card in off[held:]:
        columns[rng.randrange(rules.columns)].append(card)
    return Position(tuple(map(tuple, columns)), tuple(cells), tuple(homes))


def test_the_searches_and_the_proof_give_the_plain_searchs_verdict_under_random_rules():
    rng = random.Random(28)
    tally: Counter = Counter()
    for _ in range(CASES):
        rules = random_rules(rng)
        pos = random_position(rules, rng)
        truth = plain_winnable(pos, rules, PLAIN_ROOM)
        if truth is None:
            tally["too large"] += 1
            continue
        for phase in (SEARCH, PROOF):
            status = solve_position(pos, rules, ROOM, phases=(phase,)).status  # a win is replayed
            assert status == (SOLVED if truth else UNSOLVABLE), (phase, rules, pos)
        tally[SOLVED if truth else UNSOLVABLE] += 1
    assert tally == {SOLVED: 60, UNSOLVABLE: 27, "too large": 63}, tally


@pytest.mark.parametrize("pos, message", [
    (Position(((),) * 8, (None,) * 4, (13, 13, 11, 13)), "50 cards in the position; QH, KH are missing"),
    (Position(((51, 51),) + ((),) * 7, (None,) * 4, (13, 13, 12, 12)), "card KS appears twice"),
    (Position(((50,),) + ((),) * 7, (50, None, None, None), (13, 13, 12, 13)), "card KH appears twice"),
    (Position(((60,),) + ((),) * 7, (None,) * 4, (13, 13, 13, 12)), "60 is not a card (cards are 0-51)"),
    (Position(((),) * 8, (None,) * 4, (13, 13, 14, 13)), "the foundations must be 4 counts from 0 to 13"),
])
def test_a_position_that_is_not_one_deck_is_refused(pos, message):
    """The solver reads the foundations as the cards the columns and cells lack: without the
    check, the first position came back unsolvable and the second solved."""
    with pytest.raises(SolverError, match=f"^{re.escape(message)}"):
        solve_position(pos)
