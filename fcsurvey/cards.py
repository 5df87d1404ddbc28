"""Card encoding shared by every module.

A card is a plain ``int`` from 0 to 51: ``card = rank_index * 4 + suit`` where
``rank_index`` is 0 for the ace up to 12 for the king and ``suit`` follows
Microsoft FreeCell's deck order (clubs, diamonds, hearts, spades).  This is
exactly the index Microsoft's shuffle uses, so the deal generator needs no
translation table.  The C core stores ``card + 1`` so that 0 can mean "empty".
"""

from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

RANKS = "A23456789TJQK"
SUITS = "CDHS"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
ACE, KING = 1, 13
DECK_SIZE = 52


def make_card(rank: int, suit: int) -> int:
    """Card from a rank (1 = ace .. 13 = king) and a suit index (0..3, CDHS)."""
    if not (ACE <= rank <= KING and 0 <= suit < 4):
        raise ValueError(f"no such card: rank {rank}, suit {suit}")
    return (rank - 1) * 4 + suit


def rank(card: int) -> int:
    """Rank from 1 (ace) to 13 (king)."""
    return card // 4 + 1


def suit(card: int) -> int:
    """Suit index 0..3 in CDHS order."""
    return card % 4


def is_red(card: int) -> bool:
    """Diamonds and hearts are red."""
    return suit(card) in (DIAMONDS, HEARTS)


def card_text(card: int) -> str:
    """Two-character text such as ``TD`` or ``AH``."""
    return RANKS[card // 4] + SUITS[card % 4]


def parse_card(text: str) -> int:
    """Parse ``AH``, ``td``, ``10D`` (PySol's long form) into a card.

    Raises ValueError naming the text when it is not a card.
    """
    if not text.isascii():  # str.upper() turns some letters into ASCII ones: "ſ" is "S"
        raise ValueError(f"not a card: {text!r}")
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return make_card(RANKS.index(t[0]) + 1, SUITS.index(t[1]))


def deck_problem(cards: Sequence[int], place: str) -> Optional[str]:
    """What keeps ``cards`` from being the deck, every one of the 52 cards once, or None:
    the card that appears more than once, else those missing (``place`` says where the cards
    were counted).  A position's foundations stand for the cards below their tops, so a
    position that is not a deck would be solved as some other game."""
    counts = Counter(cards)
    repeated = next((card for card in cards if counts[card] > 1), None)
    if repeated is not None:
        times = "twice" if counts[repeated] == 2 else f"{counts[repeated]} times"
        return f"card {card_text(repeated)} appears {times}"
    missing = [card_text(card) for card in range(DECK_SIZE) if card not in counts]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        return f"{len(cards)} cards {place}; {', '.join(missing)} {verb} missing"
    return None
