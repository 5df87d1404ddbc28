"""The reference rules engine: positions, moves, and what each rule allows.

Every solution the C solver reports is replayed by these rules before it is
believed (see :mod:`fcsurvey.replay`), so they are written to be obviously
correct rather than fast: values are immutable and each move is validated
in full.  The move rules come from a :class:`~fcsurvey.rules.Rules` value, so
one engine serves every variant.  The text forms of positions and moves live
in :mod:`fcsurvey.notation`, which builds on this module; this module imports
neither it nor the replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Optional

from .cards import DECK_SIZE, DIAMONDS, HEARTS, KING, SUITS, card_text, deck_problem, is_red, make_card, rank, suit
from .rules import Rules

if TYPE_CHECKING:
    from .deals import Deal

COLUMN, CELL, FOUNDATION = "column", "cell", "foundation"
SUIT_NAMES = ("club", "diamond", "heart", "spade")
RED_SUITS = (DIAMONDS, HEARTS)


class IllegalMove(ValueError):
    """A move the rules forbid; ``why`` says which rule, for people to read."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass(frozen=True)
class Location:
    """A place cards sit: a column, a free cell, or a foundation (``index`` = suit)."""

    kind: str
    index: int


@dataclass(frozen=True)
class Move:
    """Move ``count`` cards from the top of ``source`` to ``dest``.

    Only column-to-column moves carry more than one card; they move the top
    ``count`` cards of the source column as one ordered run.
    """

    source: Location
    dest: Location
    count: int = 1


@dataclass(frozen=True)
class Position:
    """Where every card is.

    ``columns`` list each column deepest card first (the last card is the one
    that can move); ``cells`` has one entry per free cell, ``None`` when
    empty; ``foundations`` counts the cards home per suit in CDHS order, so
    the top card of a foundation is the one of that rank.
    """

    columns: tuple[tuple[int, ...], ...]
    cells: tuple[Optional[int], ...]
    foundations: tuple[int, int, int, int] = (0, 0, 0, 0)

    @classmethod
    def from_deal(cls, deal: Deal) -> Position:
        """The starting position of a dealt layout (nothing home yet)."""
        return cls(deal.columns, deal.cells, (0, 0, 0, 0))

    @property
    def is_won(self) -> bool:
        """All 52 cards are on the foundations."""
        return all(home == KING for home in self.foundations)

    def deck_problem(self) -> Optional[str]:
        """What keeps this from being a position of one deck, or None: a card that is not one
        of the 52, a foundation count outside 0-13, a card twice or one missing (the cards
        below each foundation's top count as there).  The solver reads the foundations as the
        cards the columns and cells lack, so it would solve such a position as another game."""
        if len(self.foundations) != len(SUITS) or any(
                not isinstance(home, int) or not 0 <= home <= KING for home in self.foundations):
            return f"the foundations must be {len(SUITS)} counts from 0 to {KING}, got {self.foundations!r}"
        cards = [card for column in self.columns for card in column] + [card for card in self.cells if card is not None]
        stray = next((card for card in cards if not isinstance(card, int) or not 0 <= card < DECK_SIZE), None)
        if stray is not None:
            return f"{stray!r} is not a card (cards are 0-{DECK_SIZE - 1})"
        homes = [make_card(r, s) for s, top in enumerate(self.foundations) for r in range(1, top + 1)]
        return deck_problem(cards + homes, "in the position")

    def card_count(self) -> int:
        """Cards on the columns, in the cells and on the foundations."""
        return (sum(len(column) for column in self.columns)
                + sum(card is not None for card in self.cells)
                + sum(self.foundations))


def can_build(card_below: int, card_on_top: int, rules: Rules) -> bool:
    """Whether ``card_on_top`` may sit on ``card_below`` in a column: one rank
    lower and of the other colour, the same suit, or any suit per ``rules.build``."""
    if rank(card_on_top) != rank(card_below) - 1:
        return False
    if rules.build == "alternate":
        return is_red(card_on_top) != is_red(card_below)
    if rules.build == "suit":
        return suit(card_on_top) == suit(card_below)
    return True


def fills_empty_column(card: int, rules: Rules) -> bool:
    """Whether ``card`` (the bottom card of what moves) may start an empty column."""
    if rules.empty_fill == "any":
        return True
    if rules.empty_fill == "kings":
        return rank(card) == KING
    return False


def sequence_capacity(pos: Position, rules: Rules, dest_column: Optional[int]) -> int:
    """Most cards one column-to-column move into ``dest_column`` may carry.

    An empty destination is where the run is going, so it cannot also serve
    as temporary space; it is left out of the empty columns counted.
    """
    empty_cells = sum(card is None for card in pos.cells)
    empty_columns = sum(not column for i, column in enumerate(pos.columns) if i != dest_column)
    return rules.sequence_capacity(empty_cells, empty_columns)


def movable_run(pos: Position, rules: Rules, column: int) -> int:
    """Length of the ordered run at the top of ``column`` (0 when it is empty):
    the cards each built on the one below, which may move together."""
    cards = pos.columns[column]
    length = 1 if cards else 0
    while length < len(cards) and can_build(cards[-length - 1], cards[-length], rules):
        length += 1
    return length


def is_next_home(pos: Position, card: int) -> bool:
    """Whether ``card`` is the next card its foundation takes."""
    return rank(card) == pos.foundations[suit(card)] + 1


def is_safe_autoplay(pos: Position, rules: Rules, card: int) -> bool:
    """Whether sending ``card`` (the next card for its foundation) home can never
    cost a win.  The C solver applies the same rule and is tested against this.

    Proof sketch.  A card X of rank r is only ever useful in the tableau as a
    place to park the cards of rank r-1 that can build on it.  If all of those
    are home -- and, with foundation return on, can themselves never need to
    come back down, because everything that could build on them is home too --
    X is a pure obstacle and any win from here is still a win with X home.

    * An ace or a two: only aces could build on a two, and an ace can always
      go home directly, so neither ever needs to hold anything.
    * Build by suit: the only card that builds on X is the one of the same
      suit and rank r-1, which is home because X is next (and everything that
      could build on it, down to the ace, is home as well).
    * Alternate colours: the two opposite-colour foundations must hold rank
      r-1.  With foundation return those cards could come back down to hold
      the same-colour cards of rank r-2, so the other same-colour foundation
      must also hold r-2 (X's own suit holds r-1 already).
    * Any suit: every other foundation must hold rank r-1 (which also covers
      the rank r-2 cards that returned r-1 cards could hold).
    * Alternate colours without foundation return, second case: the
      opposite-colour foundations hold r-2 and the other same-colour one r-3.
      Then at most an opposite-colour r-1 card, and on it the other
      same-colour r-2 card, can ever hang on X (X's own r-2 is home, and so
      are the opposite-colour r-3 cards that would go on that), and each of
      them is the next card of its foundation.  So a win from before can put
      each of them home instead of on X (or on one already sent home so), and
      drop the later moves of cards sent home: still a win, no longer.
    """
    if not is_next_home(pos, card):
        raise ValueError(f"{card_text(card)} is not the next card for its foundation")
    r = rank(card)
    if r <= 2 or rules.build == "suit":
        return True
    others = [s for s in range(len(SUITS)) if s != suit(card)]
    if rules.build == "any":
        return all(pos.foundations[s] >= r - 1 for s in others)
    opposite = [s for s in others if (s in RED_SUITS) != is_red(card)]
    same_colour = [s for s in others if (s in RED_SUITS) == is_red(card)]
    holders = min(pos.foundations[s] for s in opposite)
    others = min(pos.foundations[s] for s in same_colour)
    if rules.foundation_return:
        return holders >= r - 1 and others >= r - 2
    return holders >= r - 1 or (holders >= r - 2 and others >= r - 3)


def top_card(pos: Position, loc: Location) -> Optional[int]:
    """The card that would move from ``loc`` (``None`` when there is none)."""
    if loc.kind == COLUMN:
        column = pos.columns[loc.index]
        return column[-1] if column else None
    if loc.kind == CELL:
        return pos.cells[loc.index]
    home = pos.foundations[loc.index]
    return make_card(home, loc.index) if home else None


def moving_card(pos: Position, move: Move) -> int:
    """The bottom card of what ``move`` carries (the one that must fit the destination).

    Raises IllegalMove when the source does not hold ``move.count`` cards.
    """
    if move.source.kind == COLUMN:
        column = pos.columns[move.source.index]
        if len(column) < move.count:
            raise IllegalMove(_empty_source(move) if not column
                              else f"the source column holds only {len(column)} cards")
        return column[-move.count]
    card = top_card(pos, move.source)
    if card is None:
        raise IllegalMove(_empty_source(move))
    return card


def legal_moves(pos: Position, rules: Rules, *, single_only: bool = False) -> list[Move]:
    """Every legal move, in a fixed order: cards going home (cells first), then
    column to column, cell to column, column to cell, and with foundation
    return, foundation to column and to cell.

    A move into a free cell goes to the lowest-numbered empty one, since any
    empty cell is as good as another.  Into an empty column every count from
    one up to the limit is a separate move.  ``single_only`` leaves out
    moves of more than one card.
    """
    moves = list(_home_moves(pos))
    empty_cell = next((i for i, card in enumerate(pos.cells) if card is None), None)
    single = single_only or rules.sequence == "single"
    for src, cards in enumerate(pos.columns):
        if not cards:
            continue
        run = 1 if single else movable_run(pos, rules, src)
        for dst, target in enumerate(pos.columns):
            if dst == src:
                continue
            limit = min(run, sequence_capacity(pos, rules, dst))
            for count in range(1, limit + 1):
                card = cards[-count]
                if can_build(target[-1], card, rules) if target else fills_empty_column(card, rules):
                    moves.append(Move(Location(COLUMN, src), Location(COLUMN, dst), count))
    for i, card in enumerate(pos.cells):
        if card is not None:
            moves.extend(Move(Location(CELL, i), Location(COLUMN, dst))
                         for dst in _columns_taking(pos, rules, card))
    if empty_cell is not None:
        moves.extend(Move(Location(COLUMN, src), Location(CELL, empty_cell))
                     for src, cards in enumerate(pos.columns) if cards)
    if rules.foundation_return:
        for s, home in enumerate(pos.foundations):
            if home:
                source = Location(FOUNDATION, s)
                moves.extend(Move(source, Location(COLUMN, dst))
                             for dst in _columns_taking(pos, rules, make_card(home, s)))
                if empty_cell is not None:
                    moves.append(Move(source, Location(CELL, empty_cell)))
    return moves


def apply(pos: Position, move: Move, rules: Rules) -> Position:
    """The position after ``move``; raises IllegalMove saying why when the rules forbid it.

    Any empty free cell may be the destination of a move into a cell, not only
    the one :func:`legal_moves` picks.
    """
    _check(pos, move, rules)
    columns = list(pos.columns)
    cells = list(pos.cells)
    foundations = list(pos.foundations)
    source, dest = move.source, move.dest
    if source.kind == COLUMN:
        carried = columns[source.index][-move.count:]
        columns[source.index] = columns[source.index][:-move.count]
    elif source.kind == CELL:
        carried = (cells[source.index],)
        cells[source.index] = None
    else:
        carried = (make_card(foundations[source.index], source.index),)
        foundations[source.index] -= 1
    if dest.kind == COLUMN:
        columns[dest.index] = columns[dest.index] + tuple(carried)
    elif dest.kind == CELL:
        cells[dest.index] = carried[0]
    else:
        foundations[dest.index] += 1
    return Position(tuple(columns), tuple(cells), tuple(foundations))


def autoplay(pos: Position, rules: Rules) -> tuple[Position, list[Move]]:
    """Send home every card that :func:`is_safe_autoplay` allows, from the cells
    and the column tops, until none is left; returns the position and the moves.

    This is for display and search; :func:`fcsurvey.replay.replay` never moves
    a card unasked.
    """
    made = []
    while True:
        move = next((m for m in _home_moves(pos)
                     if is_safe_autoplay(pos, rules, top_card(pos, m.source))), None)
        if move is None:
            return pos, made
        pos = apply(pos, move, rules)
        made.append(move)


def _home_moves(pos: Position) -> Iterator[Move]:
    """Moves sending a free cell's card or a column's top card home."""
    sources = ([Location(CELL, i) for i in range(len(pos.cells))]
               + [Location(COLUMN, i) for i in range(len(pos.columns))])
    for source in sources:
        card = top_card(pos, source)
        if card is not None and is_next_home(pos, card):
            yield Move(source, Location(FOUNDATION, suit(card)))


def _columns_taking(pos: Position, rules: Rules, card: int) -> list[int]:
    """Columns a single ``card`` may be put on."""
    return [i for i, cards in enumerate(pos.columns)
            if (can_build(cards[-1], card, rules) if cards else fills_empty_column(card, rules))]


def _empty_source(move: Move) -> str:
    if move.source.kind == FOUNDATION:
        return f"the {SUIT_NAMES[move.source.index]} foundation is empty"
    return f"the source {'column' if move.source.kind == COLUMN else 'free cell'} is empty"


def _check_location(pos: Position, loc: Location) -> None:
    sizes = {COLUMN: len(pos.columns), CELL: len(pos.cells), FOUNDATION: len(SUITS)}
    if loc.kind not in sizes:
        raise IllegalMove(f"no such kind of place: {loc.kind!r}")
    if not 0 <= loc.index < sizes[loc.kind]:
        raise IllegalMove(f"{loc.kind} index {loc.index} is out of range 0..{sizes[loc.kind] - 1}")


def _check(pos: Position, move: Move, rules: Rules) -> None:
    """Raise IllegalMove unless ``move`` is legal in ``pos``."""
    source, dest, count = move.source, move.dest, move.count
    _check_location(pos, source)
    _check_location(pos, dest)
    if source == dest:
        raise IllegalMove("the source and the destination are the same place")
    if count < 1:
        raise IllegalMove("a move must carry at least one card")
    if count > 1 and not (source.kind == COLUMN and dest.kind == COLUMN):
        raise IllegalMove("only column-to-column moves carry more than one card")
    if source.kind == FOUNDATION and not rules.foundation_return:
        raise IllegalMove("cards may not come back from the foundations under these rules")
    card = moving_card(pos, move)
    if dest.kind == FOUNDATION:
        if suit(card) != dest.index:
            raise IllegalMove(f"{card_text(card)} does not go on the {SUIT_NAMES[dest.index]} foundation")
        if not is_next_home(pos, card):
            needed = card_text(make_card(pos.foundations[dest.index] + 1, dest.index))
            raise IllegalMove(f"{card_text(card)} cannot go home before {needed}")
        return
    if dest.kind == CELL:
        if source.kind == CELL:
            raise IllegalMove("cards do not move from one free cell to another")
        if pos.cells[dest.index] is not None:
            raise IllegalMove(f"the destination free cell holds {card_text(pos.cells[dest.index])}")
        return
    if count > 1:
        if rules.sequence == "single":
            raise IllegalMove("these rules move one card at a time")
        if movable_run(pos, rules, source.index) < count:
            raise IllegalMove(f"the top {count} cards of the source column are not an ordered run")
        capacity = sequence_capacity(pos, rules, dest.index)
        if count > capacity:
            raise IllegalMove(f"{count} cards cannot move at once: the free space allows {capacity}")
    target = pos.columns[dest.index]
    if target:
        if not can_build(target[-1], card, rules):
            raise IllegalMove(f"{card_text(card)} does not build on {card_text(target[-1])}")
    elif not fills_empty_column(card, rules):
        if rules.empty_fill == "none":
            raise IllegalMove("empty columns may not be filled under these rules")
        raise IllegalMove(f"only a king may fill an empty column, not {card_text(card)}")
