"""The reference rules engine: full solutions, illegal moves, sequence capacity,
safe autoplay, and random play checked against its own invariants."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsurvey.cards import DECK_SIZE, KING, card_text, make_card, parse_card
from fcsurvey.deals import deal
from fcsurvey.dealset import MAX_DEAL
from fcsurvey.engine import (CELL, COLUMN, FOUNDATION, IllegalMove, Location, Move, Position, apply,
                             autoplay, can_build, is_safe_autoplay, legal_moves, movable_run, sequence_capacity)
from fcsurvey.notation import format_solution, move_to_token, parse_solution, token_to_move
from fcsurvey.replay import replay, validate
from fcsurvey.rules import PRESETS, Rules

from conftest import FREECELL, RULE_SETS, SOLUTIONS, board, positions

# Deal 164 after these moves: column 1 empty, cells a-c hold 5S 6D QH, and
# column 7 ends in the run 7D 6S 5H.
PREFIX_164 = "17 15 17 1h 12 1h 1h 2a 3b 4c"


def all_cards(pos: Position) -> list:
    """Every card the position holds, foundations included, sorted."""
    home = [make_card(r, s) for s, top in enumerate(pos.foundations) for r in range(1, top + 1)]
    on_board = [card for column in pos.columns for card in column] + [c for c in pos.cells if c is not None]
    return sorted(home + on_board)


# --- full solutions -------------------------------------------------------------------------

@pytest.mark.parametrize("variant, number", list(SOLUTIONS))
def test_solution_wins(variant, number):
    rules = PRESETS[variant]
    tokens = parse_solution(SOLUTIONS[variant, number])
    result = validate(deal(number, rules), rules, tokens)
    assert result.ok and result.won, result.verdict()
    assert result.moves == len(tokens)
    assert result.final.is_won and result.final.foundations == (13, 13, 13, 13)
    assert result.verdict() == f"valid: {len(tokens)} moves"


@pytest.mark.parametrize("variant, number", list(SOLUTIONS))
def test_solution_without_its_last_move_replays_but_does_not_win(variant, number):
    rules = PRESETS[variant]
    tokens = parse_solution(SOLUTIONS[variant, number])[:-1]
    replayed = replay(deal(number, rules), rules, tokens)
    assert replayed.ok and not replayed.won and replayed.final.card_count() == DECK_SIZE
    checked = validate(deal(number, rules), rules, tokens)
    assert not checked.ok and checked.error_index is None
    assert checked.why == f"not all cards are on the foundations after {len(tokens)} moves"


def test_solution_fails_under_other_rules():
    tokens = SOLUTIONS["freecell", 164]
    assert not validate(deal(164, FREECELL), PRESETS["bakers-game"], tokens).ok


def test_replay_never_moves_cards_home_by_itself():
    # Every move home left out: the first token that needs one of them fails.
    tokens = [t for t in parse_solution(SOLUTIONS["freecell", 164]) if not t.endswith("h")]
    result = replay(deal(164, FREECELL), FREECELL, tokens)
    assert not result.ok
    assert sum(result.final.foundations) == 0


def test_replay_accepts_a_position_and_the_string_form():
    start = Position.from_deal(deal(164, FREECELL))
    text = format_solution(parse_solution(SOLUTIONS["freecell", 164]), per_line=10)
    assert validate(start, FREECELL, text).ok


# --- illegal moves --------------------------------------------------------------------------

@pytest.mark.parametrize("tokens, index, why", [
    ("17 15 17 1h 12 1h 1h 1a", 7, "the source column is empty"),
    ("1a 2a", 1, "the destination free cell holds 6S"),
    ("12", 0, "6S does not build on 6H"),
    (PREFIX_164 + " 71v3", 10, "3 cards cannot move at once: the free space allows 2"),
    ("2h", 0, "6H cannot go home before AH"),
    ("17 15 17 1h hD3", 4, "cards may not come back from the foundations under these rules"),
    ("1a ab", 1, "cards do not move from one free cell to another"),
    ("ah", 0, "cell a is empty"),
    ("hS3", 0, "cards may not come back from the foundations under these rules"),
    ("1a 3z", 1, "not a move: '3z'"),
    ("9a", 0, "'9a': there is no column 9; the game has 8 columns"),
    ("1e", 0, "'1e': there is no cell e; the game has 4 free cells"),
    ("1av2", 0, "'1av2': a count is written only for column-to-column moves, and is at least 1"),
])
def test_illegal_move_is_reported_at_its_index(tokens, index, why):
    result = replay(deal(164, FREECELL), FREECELL, tokens)
    assert not result.ok
    assert (result.error_index, result.error_token, result.why) == (index, tokens.split()[index], why)
    assert result.moves == index
    assert result.verdict() == f"invalid: move {index + 1} ({tokens.split()[index]}): {why}"


def test_sequence_within_capacity_is_legal():
    result = replay(deal(164, FREECELL), FREECELL, PREFIX_164 + " 71v2")
    assert result.ok
    assert [card_text(c) for c in result.final.columns[0]] == ["6S", "5H"]


def test_foundation_return_when_allowed():
    rules = FREECELL.replace(foundation_return=True)
    start = deal(164, rules)
    result = replay(start, rules, "17 15 17 1h hDa")
    assert result.ok and result.final.cells[0] == parse_card("AD") and result.final.foundations[1] == 0
    refused = replay(start, rules, "17 15 17 1h hD3")
    assert refused.why == "AD does not build on 6D"


def test_apply_rejects_malformed_moves():
    pos = Position.from_deal(deal(164, FREECELL))
    col, cell = Location(COLUMN, 0), Location(CELL, 0)
    cases = [
        (Move(col, col), "the source and the destination are the same place"),
        (Move(col, Location(COLUMN, 8)), "column index 8 is out of range 0..7"),
        (Move(col, Location("pile", 0)), "no such kind of place: 'pile'"),
        (Move(col, Location(COLUMN, 1), 0), "a move must carry at least one card"),
        (Move(col, cell, 2), "only column-to-column moves carry more than one card"),
        (Move(col, Location(COLUMN, 6), 8), "the source column holds only 7 cards"),
        (Move(col, Location(COLUMN, 6), 2), "the top 2 cards of the source column are not an ordered run"),
        (Move(col, Location(FOUNDATION, 0)), "6S does not go on the club foundation"),
    ]
    for move, why in cases:
        with pytest.raises(IllegalMove) as caught:
            apply(pos, move, FREECELL)
        assert caught.value.why == why == str(caught.value)


def test_empty_column_fill_rules():
    layout = ["5H 9C", "TD", ""]  # column 3 empty
    for fill, accepts_9c in (("any", True), ("kings", False), ("none", False)):
        rules = FREECELL.replace(empty_fill=fill)
        move = Move(Location(COLUMN, 0), Location(COLUMN, 2))
        pos = board(layout, rules=rules)
        assert (move in legal_moves(pos, rules)) == accepts_9c
        if not accepts_9c:
            why = "empty columns may not be filled under these rules" if fill == "none" else \
                "only a king may fill an empty column, not 9C"
            with pytest.raises(IllegalMove, match=why):
                apply(pos, move, rules)
    kings = FREECELL.replace(empty_fill="kings")
    assert Move(Location(COLUMN, 0), Location(COLUMN, 2)) in legal_moves(board(["5D KH"], rules=kings), kings)
    # A lone king moving to another empty column is pointless but legal.
    assert Move(Location(COLUMN, 0), Location(COLUMN, 2)) in legal_moves(board(["KH"], rules=kings), kings)


def test_any_empty_cell_is_accepted_but_only_the_first_is_generated():
    pos = board(["5H 9C", "TD"], cells=["AS", "-", "-", "-"])
    to_cells = [m for m in legal_moves(pos, FREECELL) if m.dest.kind == CELL]
    assert to_cells == [Move(Location(COLUMN, 0), Location(CELL, 1)), Move(Location(COLUMN, 1), Location(CELL, 1))]
    moved = apply(pos, Move(Location(COLUMN, 0), Location(CELL, 3)), FREECELL)
    assert moved.cells == (parse_card("AS"), None, None, parse_card("9C"))


# --- building, runs and sequence capacity ---------------------------------------------------

def test_can_build_per_build_order():
    c = parse_card
    assert can_build(c("8S"), c("7H"), FREECELL) and not can_build(c("8S"), c("7C"), FREECELL)
    assert not can_build(c("8S"), c("6H"), FREECELL) and not can_build(c("7H"), c("8S"), FREECELL)
    suit = FREECELL.replace(build="suit")
    assert can_build(c("8S"), c("7S"), suit) and not can_build(c("8S"), c("7C"), suit)
    anything = FREECELL.replace(build="any")
    assert can_build(c("8S"), c("7S"), anything) and can_build(c("8S"), c("7D"), anything)
    assert not can_build(c("8S"), c("8D"), anything)


def test_movable_run():
    pos = board(["KS QH JC TD", "5H 9C 8D 7S 6H", "", "2C 2D"])
    assert [movable_run(pos, FREECELL, i) for i in range(4)] == [4, 4, 0, 1]
    assert movable_run(pos, FREECELL.replace(build="suit"), 0) == 1


def run_cards(build: str, high: int, length: int) -> list:
    """An ordered run from rank ``high`` down: spades for suit/any, spades and hearts alternating."""
    suits = [3, 2] if build == "alternate" else [3]
    return [make_card(high - i, suits[i % len(suits)]) for i in range(length)]


def expected_capacity(rules: Rules, empty_cells: int, empty_columns: int) -> int:
    """The formula written out independently of rules.py."""
    if rules.sequence == "single":
        return 1
    if rules.sequence == "unlimited":
        return 52
    return (empty_cells + 1) * 2 ** (empty_columns if rules.empty_fill == "any" else 0)


@settings(max_examples=300, deadline=None)
@given(build=st.sampled_from(["alternate", "suit", "any"]),
       fill=st.sampled_from(["any", "kings", "none"]),
       sequence=st.sampled_from(["limited", "unlimited", "single"]),
       cells=st.integers(0, 6), columns=st.integers(3, 10), data=st.data())
def test_sequence_capacity_and_moves(build, fill, sequence, cells, columns, data):
    rules = Rules(cells=cells, columns=columns, build=build, empty_fill=fill, sequence=sequence)
    empty_cells = data.draw(st.integers(0, cells), label="empty cells")
    empty_others = data.draw(st.integers(0, columns - 2), label="empty columns besides the destination")
    dest_empty = data.draw(st.booleans(), label="destination empty")
    length = data.draw(st.integers(1, 11), label="run length")
    high = KING if dest_empty else data.draw(st.integers(length, 12), label="run's top rank")
    run = run_cards(build, high, length)
    # The destination takes the run's bottom card (a spade): a red card or the next spade.
    target = () if dest_empty else (make_card(high + 1, 1 if build == "alternate" else 3),)
    # Filler cards for the other columns and the full cells are clubs and diamonds.
    fillers = iter(c for c in (make_card(r, s) for r in range(1, 14) for s in (0, 1)) if c not in target)
    others = [()] * empty_others + [(next(fillers),) for _ in range(columns - 2 - empty_others)]
    cell_cards = [None] * empty_cells + [next(fillers) for _ in range(cells - empty_cells)]
    pos = Position((tuple(run), target, *others), tuple(cell_cards))

    capacity = expected_capacity(rules, empty_cells, empty_others)
    assert sequence_capacity(pos, rules, 1) == capacity
    if dest_empty:  # the destination does not count, but it does when it is not the destination
        assert sequence_capacity(pos, rules, None) == expected_capacity(rules, empty_cells, empty_others + 1)
    counts = sorted(m.count for m in legal_moves(pos, rules)
                    if m.source == Location(COLUMN, 0) and m.dest == Location(COLUMN, 1))
    limit = min(length, capacity)
    if not dest_empty:
        expected = [length] if length <= capacity else []
    elif fill == "any":
        expected = list(range(1, limit + 1))
    elif fill == "kings":
        expected = [length] if length <= limit else []  # only the run's bottom card is a king
    else:
        expected = []
    assert counts == expected
    for count in range(1, length + 1):
        move = Move(Location(COLUMN, 0), Location(COLUMN, 1), count)
        legal = count in expected
        try:
            apply(pos, move, rules)
            assert legal, f"{move} was accepted"
        except IllegalMove as exc:
            assert not legal, f"{move} was refused: {exc}"
    single = [m for m in legal_moves(pos, rules, single_only=True) if m.count > 1]
    assert single == []


def test_sequence_capacity_examples():
    # 2 empty cells, columns 3 and 4 empty: 3 x 2 x 2 onto a card, 3 x 2 into an empty column.
    pos = board(["KS", "9H", "", "", "5C", "QD", "JC", "TD"], cells=["AS", "-", "AD", "-"])
    assert sequence_capacity(pos, FREECELL, 1) == 12
    assert sequence_capacity(pos, FREECELL, 2) == 6
    kings = FREECELL.replace(empty_fill="kings")
    assert sequence_capacity(pos, kings, 1) == sequence_capacity(pos, kings, 2) == 3
    assert sequence_capacity(pos, FREECELL.replace(sequence="unlimited"), 1) == 52
    assert sequence_capacity(pos, FREECELL.replace(sequence="single"), 1) == 1


# --- safe autoplay --------------------------------------------------------------------------

def homes(c=0, d=0, h=0, s=0) -> Position:
    """An otherwise empty position with these foundations."""
    return Position(((),) * 8, (None,) * 4, (c, d, h, s))


@pytest.mark.parametrize("build, foundation_return, foundations, card, safe", [
    # aces and twos are always safe
    ("alternate", False, (0, 0, 0, 0), "AH", True),
    ("alternate", True, (0, 0, 1, 0), "2H", True),
    ("any", True, (0, 0, 0, 1), "2S", True),
    # alternate colours: both black foundations must hold rank r-1 ...
    ("alternate", False, (2, 0, 2, 2), "3H", True),
    ("alternate", False, (0, 0, 2, 2), "3H", False),
    ("alternate", False, (2, 2, 2, 0), "3H", False),
    ("alternate", False, (5, 0, 5, 5), "6H", True),  # the other red suit does not matter then
    # ... or, without foundation return, r-2, with the other same-colour foundation at r-3
    ("alternate", False, (1, 0, 2, 2), "3H", True),
    ("alternate", False, (4, 3, 5, 4), "6H", True),
    ("alternate", False, (4, 2, 5, 4), "6H", False),
    ("alternate", False, (4, 3, 5, 3), "6H", False),
    ("alternate", False, (3, 4, 4, 5), "6S", True),
    ("alternate", False, (2, 4, 4, 5), "6S", False),
    # ... and with foundation return the other red foundation must hold r-2
    ("alternate", True, (5, 4, 5, 5), "6H", True),
    ("alternate", True, (5, 3, 5, 5), "6H", False),
    ("alternate", True, (4, 6, 6, 4), "5S", True),
    ("alternate", True, (2, 4, 4, 4), "5S", False),  # the other black suit needs 3
    ("alternate", True, (4, 3, 4, 4), "5S", False),  # diamonds need 4
    ("alternate", True, (4, 3, 5, 4), "6H", False),  # r-2 and r-3 are not enough with return
    # same suit: always safe
    ("suit", False, (0, 0, 9, 0), "TH", True),
    ("suit", True, (0, 0, 9, 0), "TH", True),
    # any suit: every other foundation must hold r-1
    ("any", False, (6, 6, 7, 6), "8H", False),
    ("any", False, (7, 7, 7, 7), "8H", True),
    ("any", True, (7, 9, 7, 7), "8H", True),
    ("any", True, (7, 6, 7, 7), "8H", False),
])
def test_is_safe_autoplay(build, foundation_return, foundations, card, safe):
    rules = FREECELL.replace(build=build, foundation_return=foundation_return)
    assert is_safe_autoplay(homes(*foundations), rules, parse_card(card)) is safe


def test_is_safe_autoplay_needs_the_next_card():
    with pytest.raises(ValueError, match="5H is not the next card"):
        is_safe_autoplay(homes(), FREECELL, parse_card("5H"))


def test_autoplay_sends_safe_cards_home_only():
    # 3C goes though 2D is not home: both red aces are, and the spades hold
    # at least an ace's worth less (r-3 = 0).  2H always goes, then 3H (both
    # black twos home).  4C stays: the diamonds hold only the ace.
    pos = board(["3C", "2H", "3H"], cells=["4C"], foundations=(2, 1, 1, 2))
    auto, moves = autoplay(pos, FREECELL)
    tokens = []
    for move in moves:
        tokens.append(move_to_token(move, pos, FREECELL))
        pos = apply(pos, move, FREECELL)
    assert tokens == ["1h", "2h", "3h"]
    assert auto == pos and auto.foundations == (3, 1, 3, 2) and auto.cells[0] == parse_card("4C")


def test_autoplay_finishes_a_won_game():
    pos = board(["KC", "KD", "", "KH KS"], foundations=(12, 12, 12, 12))
    auto, moves = autoplay(pos, FREECELL)
    assert auto.is_won and len(moves) == 4


def test_autoplay_stops_at_unsafe_cards():
    # 3H needs both black twos home, or both black aces with the diamonds
    # anywhere; the ace of spades is not home.  4C needs both red threes, or
    # both red twos with the ace of spades.
    pos = board(["9S 3H", "4C"], foundations=(2, 2, 2, 0))
    auto, moves = autoplay(pos, FREECELL)
    assert moves == [] and auto == pos
    assert Move(Location(COLUMN, 0), Location(FOUNDATION, 2)) in legal_moves(pos, FREECELL)


# --- random play ----------------------------------------------------------------------------

def candidate_moves(pos: Position, rules: Rules) -> list:
    """Every move worth trying on apply: all places to all places, with
    column counts up to two past the movable run (larger ones cannot be legal)."""
    places = ([Location(COLUMN, i) for i in range(len(pos.columns))]
              + [Location(CELL, i) for i in range(len(pos.cells))]
              + [Location(FOUNDATION, s) for s in range(4)])
    moves = []
    for source in places:
        top = movable_run(pos, rules, source.index) + 2 if source.kind == COLUMN else 2
        for dest in places:
            moves.extend(Move(source, dest, n) for n in range(1, top + 1))
    return moves


def check_moves_match_apply(pos: Position, rules: Rules) -> None:
    """apply accepts exactly legal_moves, allowing any empty cell as a destination."""
    first_empty = next((i for i, c in enumerate(pos.cells) if c is None), None)
    accepted = set()
    for move in candidate_moves(pos, rules):
        try:
            apply(pos, move, rules)
        except IllegalMove:
            continue
        if move.dest.kind == CELL:
            move = Move(move.source, Location(CELL, first_empty), move.count)
        accepted.add(move)
    generated = legal_moves(pos, rules)
    assert len(generated) == len(set(generated))
    assert set(generated) == accepted


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=RULE_SETS, number=st.integers(1, MAX_DEAL), data=st.data())
def test_random_play_keeps_the_deck_and_round_trips_tokens(rules, number, data):
    pos = Position.from_deal(deal(number, rules))
    assert all_cards(pos) == list(range(DECK_SIZE))
    for step in range(60):
        moves = legal_moves(pos, rules)
        assert moves == legal_moves(pos, rules)
        assert all(m.source != m.dest for m in moves)
        assert [m for m in legal_moves(pos, rules, single_only=True)] == [m for m in moves if m.count == 1]
        if step % 20 == 0:
            check_moves_match_apply(pos, rules)
        if not moves:
            break
        # Half the time take the first move, which sends a card home when one can go.
        index = 0 if data.draw(st.booleans()) else data.draw(st.integers(0, len(moves) - 1))
        move = moves[index]
        token = move_to_token(move, pos, rules)
        (parsed,) = parse_solution(format_solution([token]))
        assert token_to_move(parsed, pos, rules) == move
        pos = apply(pos, move, rules)
        assert pos.card_count() == DECK_SIZE
        assert all_cards(pos) == list(range(DECK_SIZE))
        assert len(pos.cells) == rules.cells and len(pos.columns) == rules.columns
    auto, made = autoplay(pos, rules)
    assert all_cards(auto) == list(range(DECK_SIZE))
    for move in made:
        pos = apply(pos, move, rules)
    assert pos == auto


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=RULE_SETS, data=st.data())
def test_random_positions_moves_match_apply(rules, data):
    pos = data.draw(positions(rules))
    check_moves_match_apply(pos, rules)
    for move in legal_moves(pos, rules):
        after = apply(pos, move, rules)
        assert all_cards(after) == list(range(DECK_SIZE))
        assert token_to_move(move_to_token(move, pos, rules), pos, rules) == move


def test_won_position():
    won = Position(((),) * 8, (None,) * 4, (13, 13, 13, 13))
    assert won.is_won and won.card_count() == DECK_SIZE and legal_moves(won, FREECELL) == []
    assert not Position.from_deal(deal(1, FREECELL)).is_won
