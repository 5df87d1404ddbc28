"""The hint engine: from any position a player can reach, the next move of a winning line.

A game hands over the deal (or a board) and the moves played so far, in the move notation;
:func:`hint` replays them with the rules engine and asks the C solver to solve from the
position reached (:func:`fcsurvey.solver.solve_position`), within a time budget.  The
answer is a proof like every verdict of fcsurvey:

* ``winnable``: the next move of a winning line, with the whole line and its length; the
  line was replayed to a win by the rules engine before it is given;
* ``lost``: the solver's exhaustive search from the position ended without a win, so no
  sequence of moves wins from here;
* ``unknown``: neither within the budget (``limit`` names what ran out);
* ``won``: every card is already home, nothing is left to play.

The search runs in C from the position as given; Python only replays the played moves
and the line found, so a hint costs what the solve costs plus those replays (about a tenth
of a millisecond for a typical hint: scripts/bench_hint.py, docs/game-makers.md).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Union

from .deals import Deal, deal as make_deal
from .engine import Position
from .limits import DEFAULT_MAX_STATES, Limits
from .notation import parse_board, parse_solution, structured
from .replay import replay
from .rules import PRESETS, Rules
from .schema import SOLVED, UNSOLVABLE
from .solver import solve_position

#: A hint's default time budget: short enough for a player waiting on a click, and ample for
#: 4-cell play: every one of scripts/bench_hint.py's 2,000 positions got its verdict within
#: 130 ms.
HINT_TIMEOUT_S = 1.0

#: What a hint can say about the position.
WINNABLE, LOST, UNKNOWN, WON = "winnable", "lost", "unknown", "won"
HINT_STATUSES = (WINNABLE, LOST, UNKNOWN, WON)

#: A start a hint takes: a deal number, a dealt layout, a position, or board text
#: (fc-solve/PySol, as :func:`fcsurvey.notation.parse_board` reads it).
Start = Union[int, Deal, Position, str]


class HintError(ValueError):
    """The played moves do not replay from the start: the message names the first bad one."""


@dataclass(frozen=True)
class Hint:
    """What :func:`hint` found for the position after the played moves.

    ``move`` is the first token of ``line`` (both ``None`` unless ``winnable``), and
    ``move_detail`` says it for people and programs (from, to, card, count);
    ``line_moves`` counts the line's tokens.  ``played`` is how many moves were replayed
    to reach the position; ``states`` and ``elapsed_s`` are the solver's.
    """

    status: str
    move: Optional[str]
    move_detail: Optional[Dict[str, Any]]
    line: Optional[str]
    line_moves: int
    played: int
    states: int
    elapsed_s: float
    limit: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)

    def text(self) -> str:
        """The hint for people, a line or two."""
        if self.status == WON:
            return "won: every card is on the foundations"
        if self.status == LOST:
            return (f"lost: no sequence of moves wins from here (proved: {self.states:,} positions "
                    f"searched in {self.elapsed_s:.3f} s)")
        if self.status == UNKNOWN:
            return (f"unknown: no winning line and no proof within the budget ({self.limit} limit, "
                    f"{self.states:,} positions in {self.elapsed_s:.3f} s)")
        detail = self.move_detail or {}
        return (f"next: {self.move} ({detail.get('card')} from {detail.get('from')} to {detail.get('to')}); "
                f"a line of {self.line_moves} move{'s' if self.line_moves != 1 else ''} wins from here\nline: {self.line}")


def start_position(start: Start, rules: Rules) -> Position:
    """The position ``start`` stands for under ``rules``: a deal number is dealt, board
    text is parsed (NotationError when it does not read)."""
    if isinstance(start, Position):
        return start
    if isinstance(start, Deal):
        return Position.from_deal(start)
    if isinstance(start, str):
        return parse_board(start, rules)
    return Position.from_deal(make_deal(start, rules))


def position_after(start: Start, played: Union[str, Sequence[str]], rules: Rules) -> Position:
    """The position reached from ``start`` by the ``played`` moves (tokens, or text of them
    split at spaces and commas); HintError naming the first move that does not apply."""
    tokens: List[str] = parse_solution(played) if isinstance(played, str) else list(played)
    result = replay(start_position(start, rules), rules, tokens)
    if not result.ok:
        raise HintError(f"the played moves do not replay: {result.verdict().partition(': ')[2]}")
    return result.final


def hint(board_or_deal: Start, played_moves: Union[str, Sequence[str]] = (),
         rules: Rules = PRESETS["freecell"], *, timeout: float = HINT_TIMEOUT_S,
         max_states: int = DEFAULT_MAX_STATES) -> Hint:
    """The next move of a winning line from the position after ``played_moves``, or that
    the position is lost (proved), or unknown within ``timeout`` seconds and
    ``max_states`` stored positions.

    ``board_or_deal`` is a deal number, a :class:`~fcsurvey.deals.Deal`, a
    :class:`~fcsurvey.engine.Position` or board text; ``played_moves`` are the moves made
    from it in the move notation (README, "Solution notation").  Every line returned has
    been replayed to a win by the rules engine.
    """
    limits = Limits(max_states=max_states, timeout=timeout)
    tokens = parse_solution(played_moves) if isinstance(played_moves, str) else list(played_moves)
    position = position_after(board_or_deal, tokens, rules)
    if position.is_won:
        return Hint(WON, None, None, None, 0, len(tokens), 0, 0.0)
    result = solve_position(position, rules, limits)
    if result.status == SOLVED and result.solution is not None:
        line = parse_solution(result.solution)
        return Hint(WINNABLE, line[0], structured(position, rules, line[:1])[0], result.solution, len(line),
                    len(tokens), result.states, result.elapsed_s)
    status = LOST if result.status == UNSOLVABLE else UNKNOWN
    return Hint(status, None, None, None, 0, len(tokens), result.states, result.elapsed_s, result.limit)
