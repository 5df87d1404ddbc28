"""Board text and the move notation."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsurvey.cards import HEARTS, card_text, parse_card
from fcsurvey.deals import deal
from fcsurvey.engine import CELL, COLUMN, FOUNDATION, IllegalMove, Location, Move, Position, apply
from fcsurvey.notation import (NotationError, format_board, format_solution, move_to_token, parse_board,
                               parse_solution, structured, token_to_move)
from fcsurvey.rules import PRESETS, Rules

from conftest import RULE_SETS, SOLUTIONS, board, positions

FREECELL = PRESETS["freecell"]
SEAHAVEN = PRESETS["seahaven-towers"]
EIGHT_OFF = PRESETS["eight-off"]

# A full deck: hearts to 5, clubs to 2, diamonds none, spades to ace home.
BOARD_TEXT = """\
Foundations: H-5 C-2 D-0 S-A
Freecells: 6H - 3C -
: 4C 2S 9C 8C QS 4S
: KD QD JD TD 9D 8D
: 7D 6D 5D 4D 3D 2D AD
: KC QC JC TC
: 7C 6C 5C
: KH QH JH TH 9H 8H 7H
: KS JS TS 9S 8S 7S 6S 5S 3S
:
"""

# The same board written loosely: a leading blank line, cells before
# foundations, suits in another order, lower case, columns without colons
# or with odd spacing, 10D, the empty eighth column left out, trailing blanks.
LOOSE_TEXT = """
Freecells: 6h - 3c -

foundations: S-A D-0 h-5 C-2
4c 2s 9c 8c qs 4s
: kd qd jd 10d 9d 8d
7D 6D 5D 4D 3D 2D AD
:KC QC JC TC
  :  7C 6C   5C
KH QH JH TH 9H 8H 7H
: KS JS TS 9S 8S 7S 6S 5S 3S

  
"""


def text_with(changes: dict) -> str:
    """BOARD_TEXT with each ``old: new`` replacement made."""
    text = BOARD_TEXT
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


# --- board text -----------------------------------------------------------------------------

def test_format_board_of_a_deal():
    layout = deal(164, FREECELL)
    lines = format_board(Position.from_deal(layout), FREECELL).split("\n")
    assert lines[:2] == ["Foundations: H-0 C-0 D-0 S-0", "Freecells: - - - -"]
    assert lines[2] == ": AH AS 5S AD 5H 2S 6S"
    assert lines[2:] == [": " + column for column in layout.text_columns()]


def test_board_example_round_trips():
    pos = parse_board(BOARD_TEXT, FREECELL)
    assert pos.foundations == (2, 0, 5, 1)
    assert pos.cells == (parse_card("6H"), None, parse_card("3C"), None)
    assert pos.columns[7] == () and pos.columns[0][-1] == parse_card("4S")
    assert pos.card_count() == 52
    assert format_board(pos, FREECELL) + "\n" == BOARD_TEXT


def test_board_text_is_read_tolerantly():
    assert parse_board(LOOSE_TEXT, FREECELL) == parse_board(BOARD_TEXT, FREECELL)


def test_board_headers_are_optional():
    text = text_with({"Foundations: H-5 C-2 D-0 S-A\n": "", "Freecells: 6H - 3C -\n": "",
                      ": 7C 6C 5C": ": 7C 6C 5C 3C 6H AC 2C AS AH 2H 3H 4H 5H"})
    pos = parse_board(text, FREECELL)
    assert pos.foundations == (0, 0, 0, 0) and pos.cells == (None,) * 4 and pos.card_count() == 52


@pytest.mark.parametrize("entry, home", [("H-A", 1), ("H-5", 5), ("H-T", 10), ("H-10", 10), ("h-k", 13),
                                         ("H-0", 0)])
def test_foundation_entries(entry, home):
    rest = [card_text(c) for c in range(52) if not (c % 4 == HEARTS and c // 4 < home)]
    text = f"Foundations: {entry}\n" + "\n".join(": " + " ".join(rest[i::8]) for i in range(8))
    assert parse_board(text, FREECELL).foundations == (0, 0, home, 0)


@pytest.mark.parametrize("old, new", [("2S", "2\u017f"),  # a long s, which str.upper() makes "S"
                                      ("KD", "\u212aD"),  # the Kelvin sign, "K" under case folding
                                      ("S-A", "\u017f-A")])
def test_letters_that_fold_to_ascii_are_not_cards(old, new):
    # Python folds these to ASCII letters; a board naming them must be refused, not read.
    with pytest.raises(NotationError):
        parse_board(text_with({old: new}), FREECELL)


@pytest.mark.parametrize("changes, message", [
    ({"8H 7H\n": "8H\n"}, "51 cards on the board; 7H is missing"),
    ({": 7C 6C 5C": ": 7C 6C 5C 7H"}, "card 7H appears twice"),
    ({": 7C 6C 5C": ": 7C 6C 5C 4H"}, "card 4H appears twice"),  # 4H is on the foundation
    ({": 7C 6C 5C": ": 7C 6C 5C 4H 4H"}, "card 4H appears 3 times"),
    ({"KD QD": "KD XX QD"}, "line 4: not a card: 'XX'"),
    ({"Freecells: 6H - 3C -": "Freecells: 6H - 3C - -"}, "5 free cells; the rules have 4"),
    ({"3S\n:\n": "3S\n:\n:\n"}, "9 columns; the rules have 8"),
    ({"S-A": "S-1"}, "line 1: not a foundation: 'S-1'"),
    ({"S-A": "S-A H-2"}, "line 1: the H foundation is given twice"),
    ({"Freecells: 6H - 3C -": "Freecells: 6H - 3C -\nFreecells: -"}, "line 3: a second Freecells line"),
    ({": KS JS": ": JS", " 3S\n": "\n"}, "50 cards on the board; 3S, KS are missing"),
])
def test_board_errors(changes, message):
    with pytest.raises(NotationError) as caught:
        parse_board(text_with(changes), FREECELL)
    assert str(caught.value) == message


def test_fewer_columns_are_padded():
    pos = parse_board(text_with({"3S\n:\n": "3S\n"}), FREECELL)
    assert pos == parse_board(BOARD_TEXT, FREECELL)
    assert parse_board(text_with({"3S\n:\n": "3S\n"}), FREECELL.replace(columns=9)).columns[7:] == ((), ())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=RULE_SETS, data=st.data())
def test_board_round_trip(rules, data):
    pos = data.draw(positions(rules))
    assert parse_board(format_board(pos, rules), rules) == pos


def test_format_board_refuses_a_position_of_other_rules():
    with pytest.raises(NotationError, match="the rules have 10 and 4"):
        format_board(Position.from_deal(deal(1, FREECELL)), SEAHAVEN)


# --- move tokens ----------------------------------------------------------------------------

def loc(kind: str, index: int) -> Location:
    return Location(kind, index)


# A position with every kind of move: column 1 holds the run 9C 8H 7S, column
# 2 is empty, spades are home to 6, cell a is full.
POS = board(["KD 9C 8H 7S", "", "TH", "9S", "8D", "5C", "4H", "QC", "", "KS"],
            cells=["2D", "-", "-", "-", "-", "-", "-", "-"], foundations=(0, 0, 0, 6),
            rules=Rules(cells=8, columns=10))
TEN = Rules(cells=8, columns=10, foundation_return=True)


@pytest.mark.parametrize("token, move", [
    ("1b", Move(loc(COLUMN, 0), loc(CELL, 1))),
    ("0g", Move(loc(COLUMN, 9), loc(CELL, 6))),
    ("0k", Move(loc(COLUMN, 9), loc(CELL, 7))),
    ("a5", Move(loc(CELL, 0), loc(COLUMN, 4))),
    ("1h", Move(loc(COLUMN, 0), loc(FOUNDATION, 3))),
    ("ah", Move(loc(CELL, 0), loc(FOUNDATION, 1))),
    ("13", Move(loc(COLUMN, 0), loc(COLUMN, 2), 3)),  # 9C on TH: the whole run
    ("14", Move(loc(COLUMN, 0), loc(COLUMN, 3), 2)),  # 8H on 9S
    ("15", Move(loc(COLUMN, 0), loc(COLUMN, 4), 1)),  # 7S on 8D
    ("16", Move(loc(COLUMN, 0), loc(COLUMN, 5), 1)),  # nothing builds on 5C: one card, refused by apply
    ("12", Move(loc(COLUMN, 0), loc(COLUMN, 1), 1)),  # into an empty column without v: one card
    ("12v3", Move(loc(COLUMN, 0), loc(COLUMN, 1), 3)),
    ("12va", Move(loc(COLUMN, 0), loc(COLUMN, 1), 10)),
    ("hS2", Move(loc(FOUNDATION, 3), loc(COLUMN, 1))),
    ("hs2", Move(loc(FOUNDATION, 3), loc(COLUMN, 1))),
    ("hSk", Move(loc(FOUNDATION, 3), loc(CELL, 7))),
    ("A5", Move(loc(CELL, 0), loc(COLUMN, 4))),
])
def test_token_to_move(token, move):
    assert token_to_move(token, POS, TEN) == move


@pytest.mark.parametrize("token", ["1b", "0k", "a5", "1h", "ah", "13", "14", "15", "16", "12", "12v3", "12va",
                                   "hS2", "hSk"])
def test_move_to_token_inverts_token_to_move(token):
    assert move_to_token(token_to_move(token, POS, TEN), POS, TEN) == token


@pytest.mark.parametrize("token, message", [
    ("", "not a move: ''"),
    ("1", "not a move: '1'"),
    ("1x", "not a move: '1x'"),
    ("1hh", "not a move: '1hh'"),
    ("h1", "not a move: 'h1'"),
    ("hX1", "not a move: 'hX1'"),
    ("hSh", "not a move: 'hSh'"),
    ("1i", "not a move: '1i'"),
    ("1v2", "not a move: '1v2'"),
    ("12vz", "not a move: '12vz'"),
    ("1hv2", "'1hv2': a count is written only for column-to-column moves, and is at least 1"),
    ("12v0", "'12v0': a count is written only for column-to-column moves, and is at least 1"),
    ("a2v2", "'a2v2': a count is written only for column-to-column moves, and is at least 1"),
])
def test_malformed_tokens(token, message):
    with pytest.raises(NotationError) as caught:
        token_to_move(token, POS, TEN)
    assert str(caught.value) == message


def test_tokens_naming_missing_places():
    pos = Position.from_deal(deal(1, FREECELL))
    with pytest.raises(NotationError, match=r"^'9a': there is no column 9; the game has 8 columns$"):
        token_to_move("9a", pos, FREECELL)
    with pytest.raises(NotationError, match=r"^'0a': there is no column 10; the game has 8 columns$"):
        token_to_move("0a", pos, FREECELL)
    with pytest.raises(NotationError, match=r"^'1e': there is no cell e; the game has 4 free cells$"):
        token_to_move("1e", pos, FREECELL)
    no_cells = FREECELL.replace(cells=0)
    with pytest.raises(NotationError, match="the game has 0 free cells"):
        token_to_move("1a", Position.from_deal(deal(1, no_cells)), no_cells)


def test_move_home_from_an_empty_place():
    with pytest.raises(IllegalMove, match="column 2 is empty"):
        token_to_move("2h", POS, TEN)


def test_move_to_token_refuses_moves_it_cannot_write():
    with pytest.raises(NotationError, match="cannot build"):
        move_to_token(Move(loc(COLUMN, 0), loc(COLUMN, 2), 2), POS, TEN)
    with pytest.raises(NotationError, match="only column-to-column"):
        move_to_token(Move(loc(COLUMN, 0), loc(CELL, 2), 2), POS, TEN)
    with pytest.raises(NotationError, match="from one foundation to another"):
        move_to_token(Move(loc(FOUNDATION, 0), loc(FOUNDATION, 1)), POS, TEN)


def test_tokens_apply_as_named():
    after = apply(POS, token_to_move("13", POS, TEN), TEN)
    assert after.columns[0] == (parse_card("KD"),)
    assert after.columns[2] == tuple(parse_card(c) for c in ("TH", "9C", "8H", "7S"))


# --- solutions ------------------------------------------------------------------------------

def test_format_and_parse_solution():
    tokens = [str(i % 8 + 1) + "a" for i in range(23)]
    assert format_solution(tokens) == " ".join(tokens)
    wrapped = format_solution(tokens, per_line=10)
    assert [len(line.split()) for line in wrapped.split("\n")] == [10, 10, 3]
    assert parse_solution(wrapped) == tokens
    assert parse_solution(" 3a,a5 ,\n7h\t36v3,, hS3\n") == ["3a", "a5", "7h", "36v3", "hS3"]
    assert parse_solution("") == [] and format_solution([]) == ""
    with pytest.raises(ValueError):
        format_solution(tokens, per_line=0)


def test_structured():
    rows = structured(deal(164, FREECELL), FREECELL, "17 15 17 1h 12 1h 1h 5h 6h 6h 2h 82 82 21v3 2a")
    assert rows[0] == {"from": "column 1", "to": "column 7", "card": "6S", "count": 1}
    assert rows[3] == {"from": "column 1", "to": "foundation D", "card": "AD", "count": 1}
    assert rows[13]["count"] == 3 and rows[13]["from"] == "column 2" and rows[13]["to"] == "column 1"
    assert rows[14]["to"] == "cell a"
    assert len(rows) == 15


def test_structured_full_solution_names_the_tenth_column():
    tokens = parse_solution(SOLUTIONS["seahaven-towers", 2])
    rows = structured(deal(2, SEAHAVEN), SEAHAVEN, tokens)
    assert len(rows) == len(tokens)
    assert rows[4]["from"] == "column 10" and rows[4]["to"] == "cell a"
    assert sum(row["to"].startswith("foundation") for row in rows) == 52


def test_structured_foundation_return():
    rows = structured(POS, TEN, ["hSb", "b2"])
    assert rows == [{"from": "foundation S", "to": "cell b", "card": "6S", "count": 1},
                    {"from": "cell b", "to": "column 2", "card": "6S", "count": 1}]


def test_structured_stops_at_an_illegal_token():
    with pytest.raises(IllegalMove, match="6S does not build on 6H"):
        structured(deal(164, FREECELL), FREECELL, ["12"])
    with pytest.raises(NotationError):
        structured(deal(164, FREECELL), FREECELL, ["zz"])


def test_eight_off_cells_skip_h_i_j():
    pos = Position.from_deal(deal(2, EIGHT_OFF))
    assert move_to_token(Move(loc(COLUMN, 5), loc(CELL, 7)), pos, EIGHT_OFF) == "6k"
