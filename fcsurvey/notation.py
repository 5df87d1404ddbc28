"""Text forms: boards as fc-solve and PySol print them, and the move notation.

Board text::

    Foundations: H-0 C-0 D-0 S-0
    Freecells: AH - - -
    : 4C 2C 9C 8C QS 4S 2H
    :

One line per column, deepest card first; an empty column is ``:`` alone.

Move notation, one token per move, source then destination: columns are
``1``-``9`` and ``0`` (the tenth), free cells ``a``-``g`` then ``k``, ``l``,
``m`` (``h``, ``i`` and ``j`` are skipped so that ``h`` can mean home, the
foundations).  ``3a`` puts column 3's top card in cell a, ``a5`` moves it on
to column 5, ``7h`` sends column 7's top card home.  A column-to-column move
of several cards into an empty column says how many in hex after ``v``
(``36v3``); onto a non-empty column only one count can build, so it is not
written.  A card coming back down from a foundation is ``h``, the suit
letter and the destination: ``hS3``, ``hSa``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional, Sequence, Union

from .cards import CLUBS, DIAMONDS, HEARTS, RANKS, SPADES, SUITS, card_text, deck_problem, make_card, parse_card, suit
from .engine import (CELL, COLUMN, FOUNDATION, IllegalMove, Location, Move, Position, apply, can_build,
                     moving_card, movable_run, top_card)
from .rules import Rules

if TYPE_CHECKING:
    from .deals import Deal

COLUMN_CHARS = "1234567890"
CELL_CHARS = "abcdefgklm"
HOME_CHAR = "h"
COUNT_MARK = "v"
#: The order fc-solve and PySol list the foundations in.
FOUNDATION_ORDER = (HEARTS, CLUBS, DIAMONDS, SPADES)
EMPTY_CELL = "-"

_PLACE = f"[{COLUMN_CHARS}{CELL_CHARS}]"
#: A column or cell move: source, destination (or home), and the hex count if written.
MOVE_TOKEN = re.compile(f"({_PLACE})({_PLACE}|{HOME_CHAR})(?:{COUNT_MARK}([0-9a-f]+))?")
_RETURN_TOKEN = re.compile(f"{HOME_CHAR}([{SUITS.lower()}])({_PLACE})")
#: ASCII only: under Unicode case folding "ſ" would match "s" and the Kelvin sign "k".
_FOUNDATION_ENTRY = re.compile(r"([CDHS])-(0|10|[A2-9TJQK])", re.IGNORECASE | re.ASCII)


class NotationError(ValueError):
    """Board or move text that cannot be read; the message says exactly what is wrong."""


def format_board(pos: Position, rules: Rules) -> str:
    """The position as fc-solve / PySol board text (no trailing newline)."""
    if len(pos.columns) != rules.columns or len(pos.cells) != rules.cells:
        raise NotationError(f"the position has {len(pos.columns)} columns and {len(pos.cells)} free cells; "
                            f"the rules have {rules.columns} and {rules.cells}")
    homes = " ".join(f"{SUITS[s]}-{_home_text(pos.foundations[s])}" for s in FOUNDATION_ORDER)
    cells = " ".join(EMPTY_CELL if card is None else card_text(card) for card in pos.cells)
    lines = [f"Foundations: {homes}", f"Freecells: {cells}".rstrip()]
    lines.extend(" ".join([":"] + [card_text(card) for card in column]) for column in pos.columns)
    return "\n".join(lines)


def parse_board(text: str, rules: Rules) -> Position:
    """Read board text (see the module docstring), tolerantly.

    The ``Foundations:`` and ``Freecells:`` lines are optional and may come in
    any order; foundation entries may be ``H-5``, ``H-A``, ``H-T``, ``H-10``;
    the leading ``:`` of a column is optional; cards may be ``TD``, ``10D`` or
    lower case; blank lines are ignored.  Missing columns are empty.  Every
    card must be present exactly once, a foundation at rank k holding ranks
    1 to k of its suit.
    """
    foundations: Optional[list] = None
    cells: Optional[list] = None
    columns = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        head, colon, rest = line.partition(":")
        key = head.strip().lower()
        if colon and key == "foundations":
            if foundations is not None:
                raise NotationError(f"line {number}: a second Foundations line")
            foundations = _parse_foundations(rest, number)
        elif colon and key == "freecells":
            if cells is not None:
                raise NotationError(f"line {number}: a second Freecells line")
            cells = [None if word == EMPTY_CELL else _parse_card(word, number) for word in rest.split()]
        else:
            cards = line[1:] if line.startswith(":") else line
            columns.append(tuple(_parse_card(word, number) for word in cards.split()))
    cells = cells or []
    if len(columns) > rules.columns:
        raise NotationError(f"{len(columns)} columns; the rules have {rules.columns}")
    if len(cells) > rules.cells:
        raise NotationError(f"{len(cells)} free cells; the rules have {rules.cells}")
    homes = foundations or [0, 0, 0, 0]
    on_board = [card for column in columns for card in column] + [card for card in cells if card is not None]
    _check_deck(on_board + [make_card(r, s) for s in range(len(SUITS)) for r in range(1, homes[s] + 1)])
    columns.extend(() for _ in range(rules.columns - len(columns)))
    cells.extend(None for _ in range(rules.cells - len(cells)))
    return Position(tuple(columns), tuple(cells), tuple(homes))


def move_to_token(move: Move, pos: Position, rules: Rules) -> str:
    """The token for ``move`` made from ``pos``.

    Raises NotationError for a move the notation cannot express (from one
    foundation to another, several cards out of or into anything but a
    column, or a count onto a non-empty column other than the one that builds).
    """
    source, dest = move.source, move.dest
    if source.kind == FOUNDATION:
        if dest.kind == FOUNDATION:
            raise NotationError("a card cannot move from one foundation to another")
        token = HOME_CHAR + SUITS[source.index] + _place_char(dest)
    else:
        token = _place_char(source) + _place_char(dest)
    if move.count == 1:
        return token
    if not (source.kind == COLUMN and dest.kind == COLUMN):
        raise NotationError("only column-to-column moves carry more than one card")
    if not pos.columns[dest.index]:
        return f"{token}{COUNT_MARK}{move.count:x}"
    if move.count != _implied_count(pos, rules, source.index, dest.index):
        raise NotationError(f"{move.count} cards from column {source.index + 1} cannot build on "
                            f"column {dest.index + 1}, so the move has no token")
    return token


def token_to_move(token: str, pos: Position, rules: Rules) -> Move:
    """The move ``token`` means in ``pos``.

    Raises NotationError for a malformed token or one naming a column or cell
    the game does not have, and IllegalMove for a move home from an empty
    place (which names no foundation).  A column-to-column token without a
    count means, onto a non-empty column, the one run from the source's top
    that builds on it (one card when none does), and into an empty column one card.
    """
    text = token.lower()
    back = _RETURN_TOKEN.fullmatch(text)
    if back:
        suit_index = SUITS.lower().index(back[1])
        return Move(Location(FOUNDATION, suit_index), _place(back[2], token, pos))
    match = MOVE_TOKEN.fullmatch(text)
    if not match:
        raise NotationError(f"not a move: {token!r}")
    source = _place(match[1], token, pos)
    dest = None if match[2] == HOME_CHAR else _place(match[2], token, pos)
    both_columns = source.kind == COLUMN and dest is not None and dest.kind == COLUMN
    if match[3] is not None:
        count = int(match[3], 16)
        if not both_columns or count < 1:
            raise NotationError(f"{token!r}: a count is written only for column-to-column moves, and is at least 1")
        return Move(source, dest, count)
    if dest is None:
        card = top_card(pos, source)
        if card is None:
            raise IllegalMove(f"{label(source)} is empty")
        return Move(source, Location(FOUNDATION, suit(card)))
    if both_columns:
        return Move(source, dest, _implied_count(pos, rules, source.index, dest.index))
    return Move(source, dest)


def format_solution(tokens: Sequence[str], per_line: Optional[int] = None) -> str:
    """Tokens separated by spaces, ``per_line`` to a line when given."""
    if per_line is None:
        return " ".join(tokens)
    if per_line < 1:
        raise ValueError(f"per_line must be at least 1, got {per_line}")
    return "\n".join(" ".join(tokens[i:i + per_line]) for i in range(0, len(tokens), per_line))


def parse_solution(text: str) -> list[str]:
    """Split a solution into tokens at whitespace and commas."""
    return text.replace(",", " ").split()


def structured(start: Union[Deal, Position], rules: Rules, tokens: Union[str, Sequence[str]]) -> list[dict]:
    """Each move of a solution as ``{"from", "to", "card", "count"}`` for JSON export,
    e.g. ``{"from": "column 3", "to": "cell a", "card": "TD", "count": 1}``;
    ``card`` is the bottom card moved.  Raises NotationError or IllegalMove at
    the first bad token (check solutions with :func:`fcsurvey.replay.validate`).
    """
    pos = start if isinstance(start, Position) else Position.from_deal(start)
    rows = []
    for token in parse_solution(tokens) if isinstance(tokens, str) else tokens:
        move = token_to_move(token, pos, rules)
        card = moving_card(pos, move)
        pos = apply(pos, move, rules)
        rows.append({"from": label(move.source), "to": label(move.dest),
                     "card": card_text(card), "count": move.count})
    return rows


def label(loc: Location) -> str:
    """``column 3`` (counted from 1), ``cell a`` or ``foundation S``."""
    if loc.kind == COLUMN:
        return f"column {loc.index + 1}"
    if loc.kind == CELL:
        return f"cell {CELL_CHARS[loc.index]}"
    return f"foundation {SUITS[loc.index]}"


def _implied_count(pos: Position, rules: Rules, source: int, dest: int) -> int:
    """How many cards a count-less column-to-column token moves (see :func:`token_to_move`)."""
    cards, target = pos.columns[source], pos.columns[dest]
    if not target:
        return 1
    # The run's ranks fall one by one, so at most one of its cards is one rank below the target.
    run = range(1, movable_run(pos, rules, source) + 1)
    return next((k for k in run if can_build(target[-1], cards[-k], rules)), 1)


def _place_char(loc: Location) -> str:
    if loc.kind == COLUMN:
        return COLUMN_CHARS[loc.index]
    if loc.kind == CELL:
        return CELL_CHARS[loc.index]
    return HOME_CHAR


def _place(char: str, token: str, pos: Position) -> Location:
    """The column or cell ``char`` names, checked against the position."""
    if char in COLUMN_CHARS:
        loc, size, what = Location(COLUMN, COLUMN_CHARS.index(char)), len(pos.columns), "columns"
    else:
        loc, size, what = Location(CELL, CELL_CHARS.index(char)), len(pos.cells), "free cells"
    if loc.index >= size:
        raise NotationError(f"{token!r}: there is no {label(loc)}; the game has {size} {what}")
    return loc


def _home_text(home: int) -> str:
    return RANKS[home - 1] if home else "0"


def _parse_card(word: str, number: int) -> int:
    try:
        return parse_card(word)
    except ValueError as exc:
        raise NotationError(f"line {number}: {exc}") from None


def _parse_foundations(text: str, number: int) -> list[int]:
    """Cards home per suit, CDHS order, from entries such as ``H-5 C-A S-0``."""
    homes: list[Optional[int]] = [None] * len(SUITS)
    for word in text.split():
        entry = _FOUNDATION_ENTRY.fullmatch(word)
        if not entry:
            raise NotationError(f"line {number}: not a foundation: {word!r}")
        s = SUITS.index(entry[1].upper())
        if homes[s] is not None:
            raise NotationError(f"line {number}: the {SUITS[s]} foundation is given twice")
        value = entry[2].upper()
        homes[s] = 10 if value == "10" else 0 if value == "0" else RANKS.index(value) + 1
    return [home or 0 for home in homes]


def _check_deck(cards: list[int]) -> None:
    """Every one of the 52 cards exactly once."""
    problem = deck_problem(cards, "on the board")
    if problem is not None:
        raise NotationError(problem)
