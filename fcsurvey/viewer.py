"""Showing a game as a player sees it: the tableau as text, and a page that steps through a solution.

:func:`tableau` draws a position the way a FreeCell window lays it out (free cells and
foundations on top, the columns side by side below), for ``fcsurvey deal --format tableau``.

:func:`walkthrough` takes a deal (or a board) and a solution -- given, or found by the solver
-- and replays it with the pure-Python rules engine, keeping the position after every move;
:meth:`Walkthrough.write_html` writes those positions into one self-contained HTML page
(``fcsurvey show``) whose script only draws them.  So the page shows exactly what the rules
engine says, move by move: nothing goes home by itself there either, since the notation
writes every foundation move.  The page needs no network and loads nothing else: cards are
drawn with CSS, suits with inline SVG, text in the browser's own fonts.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import __version__
from .cards import card_text, make_card
from .engine import CELL, COLUMN, Position, apply
from .deals import Deal
from .hints import Start, start_position
from .limits import Limits
from .notation import CELL_CHARS, COLUMN_CHARS, label, parse_solution, token_to_move
from .output import whole_file
from .replay import validate
from .rules import PRESETS, Rules
from .schema import SOLVED
from .solver import solve_position

#: The page template beside this module: ``__TITLE__`` and ``__DATA__`` are filled in.
TEMPLATE = "templates/viewer.html"
#: What a tableau shows for an empty free cell or foundation.
EMPTY_SLOT = "--"
#: What a tableau shows for the free cells of a game without any.
NO_CELLS = "none"
#: Characters a column takes in the tableau: a space and a two-character card.
TABLEAU_WIDTH = 3


class ViewerError(ValueError):
    """A solution that does not replay to a win, or a page that cannot be written."""


def tableau(position: Position, rules: Rules) -> str:
    """``position`` laid out as the game shows it (no trailing newline)::

        cells: -- -- -- --    foundations: -- -- -- --

          1  2  3  4  5  6  7  8
         JD 2D 9H JC 5D 7H 7C 5H
         ...

    Free cells in order a, b, c, ...; foundations by their top card, in the order C D H S;
    columns numbered as the move notation numbers them, deepest card on top.
    """
    cells = " ".join(EMPTY_SLOT if card is None else card_text(card) for card in position.cells) or NO_CELLS
    homes = " ".join(card_text(make_card(height, suit)) if height else EMPTY_SLOT
                     for suit, height in enumerate(position.foundations))
    lines = [f"cells: {cells}    foundations: {homes}", ""]
    lines.append("".join(f"{COLUMN_CHARS[i]:>{TABLEAU_WIDTH}}" for i in range(len(position.columns))))
    for depth in range(max((len(column) for column in position.columns), default=0)):
        row = "".join(f"{card_text(column[depth]) if depth < len(column) else '':>{TABLEAU_WIDTH}}"
                      for column in position.columns)
        lines.append(row.rstrip())
    return "\n".join(lines)


@dataclass(frozen=True)
class Walkthrough:
    """A deal or board and a line of play through it, position by position, as the rules
    engine replayed it.

    ``positions`` holds the start and then the position after each of ``moves`` (tokens of
    the move notation); ``moved`` holds, for each move, the cards it carried.  ``status``
    is ``solved`` when the line wins, else the solver's ``unsolvable`` or ``unknown`` for a
    deal it found no line for (then there are no moves, and the page shows the deal alone);
    ``note`` says where the line came from.
    """

    title: str
    rules: Rules
    positions: Tuple[Position, ...]
    moves: Tuple[str, ...]
    moved: Tuple[Tuple[int, ...], ...]
    status: str
    note: str

    def data(self) -> Dict[str, Any]:
        """What the page's script draws: every position, and each move described."""
        moves = []
        for index, (token, cards) in enumerate(zip(self.moves, self.moved)):
            move = token_to_move(token, self.positions[index], self.rules)
            moves.append({"token": token, "card": card_text(cards[0]), "count": len(cards), "cards": list(cards),
                          "from": label(move.source), "to": label(move.dest)})
        return {"title": self.title, "rules": self.rules.describe(), "note": self.note,
                "cell_names": list(CELL_CHARS[:self.rules.cells]), "moves": moves,
                "positions": [[[list(column) for column in p.columns], list(p.cells), list(p.foundations)]
                              for p in self.positions]}

    def html(self) -> str:
        """The page: one self-contained HTML document."""
        template = (resources.files(__package__) / TEMPLATE).read_text(encoding="utf-8")
        # In a <script> element only "</" can end it early: escape "<" (and ">", "&" for good measure).
        data = (json.dumps(self.data(), separators=(",", ":"))
                .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
        return template.replace("__TITLE__", html.escape(self.title)).replace("__DATA__", data)

    def write_html(self, path: Union[str, Path]) -> Path:
        """Write the page to ``path`` atomically (a temporary file beside it, then renamed), so
        that no reader ever sees half a page; ViewerError when it cannot be written."""
        target = Path(path)
        page = self.html()
        try:
            with whole_file(target) as out:
                out.write(page)
        except OSError as exc:
            raise ViewerError(f"cannot write {str(target)!r}: {exc.strerror or exc}") from None
        return target

    def text(self) -> str:
        """One line for people about what the page shows."""
        if self.status == SOLVED:
            return f"{self.title}: {len(self.moves)} moves, replayed to a win by the rules engine ({self.note})"
        return f"{self.title}: {self.note}"


def walkthrough(board_or_deal: Start, rules: Rules = PRESETS["freecell"],
                solution: Union[None, str, Sequence[str]] = None, *, limits: Optional[Limits] = None,
                title: Optional[str] = None) -> Walkthrough:
    """The positions of a winning line through ``board_or_deal`` (a deal number, a
    :class:`~fcsurvey.deals.Deal`, a :class:`~fcsurvey.engine.Position` or board text),
    replayed by the rules engine.

    With ``solution`` (tokens, or text of them) that line is replayed, and ViewerError says
    where it fails when it does not win.  Without it the solver finds one within ``limits``;
    a deal it proves unsolvable or gives up on makes a walkthrough of the start alone, with
    that verdict as its ``status``.
    """
    start = start_position(board_or_deal, rules)
    if title is None:
        title = (f"Deal {board_or_deal}" if isinstance(board_or_deal, int)
                 else f"Deal {board_or_deal.number}" if isinstance(board_or_deal, Deal) else "Board")
    if solution is None:
        result = solve_position(start, rules, limits or Limits())
        spent = f"{result.states:,} positions in {result.elapsed_s:.2f} s"
        if result.status != SOLVED or result.solution is None:
            why = (f"gave up at the {result.limit} limit" if result.limit
                   else "proved it unsolvable under these rules")
            return Walkthrough(title, rules, (start,), (), (), result.status,
                               f"no solution to show: fcsurvey {__version__}'s solver {why} ({spent})")
        tokens = parse_solution(result.solution)
        note = f"solved by fcsurvey {__version__}: {spent}"
    else:
        tokens = parse_solution(solution) if isinstance(solution, str) else list(solution)
        note = "the solution given"
    checked = validate(start, rules, tokens)
    if not checked.ok:
        raise ViewerError(f"the solution does not replay to a win: {checked.verdict().partition(': ')[2]}")
    positions: List[Position] = [start]
    moved: List[Tuple[int, ...]] = []
    for token in tokens:  # the readable rules, move by move (the check above took the fast path)
        position = positions[-1]
        move = token_to_move(token, position, rules)
        moved.append(_carried(position, move.source.kind, move.source.index, move.count))
        positions.append(apply(position, move, rules))
    return Walkthrough(title, rules, tuple(positions), tuple(tokens), tuple(moved), SOLVED, note)


def _carried(position: Position, kind: str, index: int, count: int) -> Tuple[int, ...]:
    """The cards a move from the place ``kind``/``index`` carries, deepest first."""
    if kind == COLUMN:
        return tuple(position.columns[index][-count:])
    if kind == CELL:
        return (position.cells[index],)  # type: ignore[return-value]  # validated: the cell holds a card
    return (make_card(position.foundations[index], index),)

