"""Replaying solutions: the walk, the verdict, and the fast checker.

Every solution the C solver reports is replayed here, by the rules of
:mod:`fcsurvey.engine` and the move notation of :mod:`fcsurvey.notation`,
before it is believed.  Nothing moves unless a token says so.

Replaying by the readable rules alone cost as much as the C search, so
:func:`replay` first runs :func:`_fast_replay`, the same rules on mutable
lists with the per-card checks looked up in tables that are read off
:func:`~fcsurvey.engine.can_build` and
:func:`~fcsurvey.engine.fills_empty_column`.  It stays pure Python and
independent of the C core, and it only ever answers "every token is legal,
and this is where they lead" or "not sure": at the first token it would
reject, or at anything it does not cover, the readable path replays the
solution from the start and gives the verdict, so every rejection and its
reason come from the readable rules.  tests/test_engine_replay.py replays
random play mixed with garbled tokens through both paths and requires the
same answer every time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import chain, product
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence, Union

from .cards import DECK_SIZE, KING, SUITS, rank, suit
from .engine import IllegalMove, Position, apply, can_build, fills_empty_column
from .notation import (CELL_CHARS, COLUMN_CHARS, COUNT_MARK, HOME_CHAR, MOVE_TOKEN, NotationError,
                       parse_solution, token_to_move)
from .rules import Rules

if TYPE_CHECKING:
    from .deals import Deal


@dataclass(frozen=True)
class ReplayResult:
    """How a solution replayed.

    ``moves`` counts the tokens applied; when a token is malformed or illegal
    ``ok`` is false, ``error_index`` is its 0-based index and ``final`` is the
    position just before it.  ``malformed`` tells the first apart: a token that
    is not in the move notation or names a place the game does not have
    (NotationError), where an illegal one is a move that does not apply there.
    """

    ok: bool
    moves: int
    final: Position
    won: bool
    error_index: Optional[int] = None
    error_token: Optional[str] = None
    why: Optional[str] = None
    malformed: bool = False

    def verdict(self) -> str:
        """One line for people: ``valid: N moves`` or ``invalid: ...`` (moves counted from 1)."""
        if self.ok:
            return f"valid: {self.moves} moves"
        if self.error_index is None:
            return f"invalid: {self.why}"
        return f"invalid: move {self.error_index + 1} ({self.error_token}): {self.why}"


def walk(start: Union[Deal, Position], rules: Rules,
         solution: Union[str, Sequence[str]]) -> Iterator[tuple[str, Position]]:
    """Yield each token of a solution with the position after it.

    Raises NotationError or IllegalMove at the first token that does not
    apply; :func:`replay` turns that into a report.
    """
    pos = start if isinstance(start, Position) else Position.from_deal(start)
    tokens = parse_solution(solution) if isinstance(solution, str) else list(solution)
    for token in tokens:
        pos = apply(pos, token_to_move(token, pos, rules), rules)
        yield token, pos


def replay(start: Union[Deal, Position], rules: Rules, solution: Union[str, Sequence[str]]) -> ReplayResult:
    """Apply a solution in the move notation of :mod:`fcsurvey.notation` token by
    token, stopping at the first malformed or illegal token.

    Nothing moves unless a token says so: a solution that relies on cards
    going home by themselves fails here.  A solution the fast checker accepts
    is done; anything else is replayed by the readable rules, which decide.
    """
    pos = start if isinstance(start, Position) else Position.from_deal(start)
    if isinstance(solution, str):
        tokens = parse_solution(solution)
        plain = True
    else:
        tokens = list(solution)
        plain = set(map(type, tokens)) <= {str}
    final = _fast_replay(pos, rules, tokens) if plain else None
    if final is not None:
        return ReplayResult(True, len(tokens), final, final.is_won)
    return _readable_replay(pos, rules, tokens)


def _readable_replay(pos: Position, rules: Rules, tokens: list[str]) -> ReplayResult:
    """:func:`replay` by :func:`walk` alone: the reference the fast checker must agree with."""
    index = 0
    try:
        for index, (_, pos) in enumerate(walk(pos, rules, tokens), start=1):
            pass
    except (NotationError, IllegalMove) as exc:
        return ReplayResult(False, index, pos, pos.is_won, index, tokens[index], str(exc),
                            isinstance(exc, NotationError))
    return ReplayResult(True, len(tokens), pos, pos.is_won)


def validate(start: Union[Deal, Position], rules: Rules, solution: Union[str, Sequence[str]]) -> ReplayResult:
    """:func:`replay`, and also require that the solution wins."""
    result = replay(start, rules, solution)
    if result.ok and not result.won:
        return replace(result, ok=False,
                       why=f"not all cards are on the foundations after {result.moves} moves")
    return result


# --- the fast checker ------------------------------------------------------------------------

# What a token does, by the kinds of its source and destination.  Tokens that
# are never legal (a cell to a cell, a place to itself) have no kind here.
(_COLUMN_HOME, _COLUMN_TO_COLUMN, _COLUMN_TO_CELL, _CELL_HOME, _CELL_TO_COLUMN,
 _RETURN_TO_COLUMN, _RETURN_TO_CELL) = range(7)
#: Rank and suit of each card, looked up instead of computed.
_RANKS = tuple(rank(card) for card in range(DECK_SIZE))
_SUITS = tuple(suit(card) for card in range(DECK_SIZE))
#: The cards, and the numbers of cards a foundation can hold.
_CARDS = frozenset(range(DECK_SIZE))
_HEIGHTS = frozenset(range(KING + 1))
# A token's kind, source index, destination index (the suit for a return) and
# card count, 0 when the token leaves the count implied.
_Entry = tuple[int, int, int, int]


@lru_cache(maxsize=64)
def _fast_tables(rules: Rules, columns: int, cells: int
                 ) -> tuple[dict[str, _Entry], tuple[frozenset[int], ...], frozenset[int],
                            tuple[tuple[int, ...], ...]]:
    """What :func:`_fast_replay` looks up for these rules and a game of this size:

    * every token that can be legal, in each mix of upper and lower case,
      mapped to its entry: column-to-column moves also with each count up to
      the deck, as :func:`~fcsurvey.notation.move_to_token` writes
      it; returns only with foundation return, and only the places
      the game has (the readable path rejects the rest);
    * for each card, the cards that :func:`can_build` puts on it;
    * the cards that :func:`fills_empty_column` lets start an empty column;
    * :meth:`Rules.sequence_capacity` by empty cells and empty columns, looked
      up rather than called for each sequence move.
    """
    column_chars, cell_chars = COLUMN_CHARS[:columns], CELL_CHARS[:cells]
    entries: list[tuple[str, _Entry]] = []
    for i, source in enumerate(column_chars):
        entries.append((source + HOME_CHAR, (_COLUMN_HOME, i, 0, 0)))
        for j, dest in enumerate(column_chars):
            if j != i:
                entries.append((source + dest, (_COLUMN_TO_COLUMN, i, j, 0)))
                entries.extend((f"{source}{dest}{COUNT_MARK}{count:x}", (_COLUMN_TO_COLUMN, i, j, count))
                               for count in range(1, DECK_SIZE + 1))
        entries.extend((source + dest, (_COLUMN_TO_CELL, i, j, 0)) for j, dest in enumerate(cell_chars))
    for i, source in enumerate(cell_chars):
        entries.append((source + HOME_CHAR, (_CELL_HOME, i, 0, 0)))
        entries.extend((source + dest, (_CELL_TO_COLUMN, i, j, 0)) for j, dest in enumerate(column_chars))
    if rules.foundation_return:
        for s, letter in enumerate(SUITS):
            entries.extend((HOME_CHAR + letter + dest, (_RETURN_TO_COLUMN, s, j, 0))
                           for j, dest in enumerate(column_chars))
            entries.extend((HOME_CHAR + letter + dest, (_RETURN_TO_CELL, s, j, 0))
                           for j, dest in enumerate(cell_chars))
    tokens = {"".join(spelling): entry for text, entry in entries
              for spelling in product(*({char.lower(), char.upper()} for char in text))}
    builds_on = tuple(frozenset(top for top in range(DECK_SIZE) if can_build(below, top, rules))
                      for below in range(DECK_SIZE))
    fills = frozenset(card for card in range(DECK_SIZE) if fills_empty_column(card, rules))
    capacity = tuple(tuple(rules.sequence_capacity(free, empty) for empty in range(columns))
                     for free in range(cells + 1))
    return tokens, builds_on, fills, capacity


def _rare_entry(token: str, tokens: dict[str, _Entry]) -> Optional[_Entry]:
    """The entry of a token missing from the table: one spelt in a case the table
    lacks, or a column-to-column move whose count it does not spell (leading
    zeros, more than a deck); ``None`` for anything else."""
    text = token.lower()
    entry = tokens.get(text)
    if entry is not None:
        return entry
    match = MOVE_TOKEN.fullmatch(text)
    if match is None or match[3] is None:
        return None
    entry = tokens.get(match[1] + match[2])
    count = int(match[3], 16)
    if entry is None or entry[0] != _COLUMN_TO_COLUMN or count < 1:
        return None
    return _COLUMN_TO_COLUMN, entry[1], entry[2], count


def _is_plain(pos: Position) -> bool:
    """Whether ``pos`` is what the fast checker's tables cover: tuples of plain
    ``int`` cards 0..51, ``None`` in an empty cell, and four foundations 0..13.
    Anything else can only be built by hand, and replays by the readable rules."""
    columns, cells, homes = pos.columns, pos.cells, pos.foundations
    if not (type(columns) is type(cells) is type(homes) is tuple and len(homes) == len(SUITS)
            and set(map(type, columns)) <= {tuple}):
        return False
    cards = list(chain(*columns)) + [card for card in cells if card is not None]
    return (set(map(type, chain(cards, homes))) <= {int}
            and _CARDS.issuperset(cards) and _HEIGHTS.issuperset(homes))


def _fast_replay(pos: Position, rules: Rules, tokens: list[str]) -> Optional[Position]:
    """The position after ``tokens``, each a plain ``str`` (the caller checks),
    when every one of them is legal (whether or not the game is won), else ``None``.

    The rules are those of :func:`token_to_move <fcsurvey.notation.token_to_move>`
    and :func:`~fcsurvey.engine.apply`, worked on lists in place.  ``None`` also means "not
    sure": a token the tables lack, or a position that is not plain.  Either
    way the readable path replays the solution and says why it fails, so
    nothing here needs to explain itself.
    """
    if not _is_plain(pos):
        return None
    table, builds_on, fills, capacity = _fast_tables(rules, len(pos.columns), len(pos.cells))
    try:
        return _fast_walk(pos, builds_on, fills, capacity, map(table.__getitem__, tokens))
    except KeyError:
        pass
    entries = [_rare_entry(token, table) for token in tokens]
    if None in entries:
        return None
    return _fast_walk(pos, builds_on, fills, capacity, entries)


def _fast_walk(pos: Position, builds_on: tuple[frozenset[int], ...], fills: frozenset[int],
               capacity: tuple[tuple[int, ...], ...], entries: Iterable[_Entry]) -> Optional[Position]:
    """:func:`_fast_replay`'s walk over the tokens' entries.  Each foundation is held as
    the next card it takes (the cards of a suit are ``len(SUITS)`` apart, see cards.py; a
    number past the deck when it is full),
    so a card goes home when it is that card.  An empty list's ``pop()`` or ``[-1]``
    raises IndexError where a token has nothing to move: that is a refusal too (the
    readable path says why), and costs nothing where no token does it."""
    ranks, suits, step = _RANKS, _SUITS, len(SUITS)
    columns = [list(column) for column in pos.columns]
    cells = list(pos.cells)
    nexts = [home * step + s for s, home in enumerate(pos.foundations)]
    try:
        for kind, a, b, count in entries:
            if kind == _COLUMN_HOME:
                card = columns[a].pop()  # a refusal discards the lists anyway
                s = suits[card]
                if nexts[s] != card:
                    return None
                nexts[s] = card + step
            elif kind == _COLUMN_TO_COLUMN:
                source, target = columns[a], columns[b]
                if not count:
                    # Only the card one rank below the target can build on it, so
                    # the implied run is as long as the ranks say (see _implied_count).
                    count = ranks[target[-1]] - ranks[source[-1]] if target else 1
                    if count < 1:
                        return None
                if count == 1:
                    if source[-1] not in (builds_on[target[-1]] if target else fills):
                        return None
                    target.append(source.pop())
                    continue
                if count > len(source) or source[-count] not in (builds_on[target[-1]] if target else fills):
                    return None
                for i in range(len(source) - count, len(source) - 1):
                    if source[i + 1] not in builds_on[source[i]]:
                        return None
                if count > capacity[cells.count(None)][columns.count([]) - (not target)]:
                    return None
                target.extend(source[-count:])
                del source[-count:]
            elif kind == _COLUMN_TO_CELL:
                if cells[b] is not None:
                    return None
                cells[b] = columns[a].pop()
            elif kind == _CELL_HOME:
                card = cells[a]
                if card is None or nexts[suits[card]] != card:
                    return None
                nexts[suits[card]] = card + step
                cells[a] = None
            elif kind == _CELL_TO_COLUMN:
                card, target = cells[a], columns[b]
                if card is None or card not in (builds_on[target[-1]] if target else fills):
                    return None
                target.append(card)
                cells[a] = None
            else:
                card = nexts[a] - step
                if card < 0:
                    return None
                if kind == _RETURN_TO_COLUMN:
                    target = columns[b]
                    if card not in (builds_on[target[-1]] if target else fills):
                        return None
                    target.append(card)
                else:
                    if cells[b] is not None:
                        return None
                    cells[b] = card
                nexts[a] = card
    except IndexError:
        return None
    return Position(tuple(map(tuple, columns)), tuple(cells), tuple(card // step for card in nexts))
