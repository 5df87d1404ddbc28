"""The C solver: verdicts against published results, solutions replayed by
the pure-Python engine, and the C move generator and autoplay rule held equal
to the reference engine."""

from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fcsurvey import engine
from fcsurvey._core import _fccore
from fcsurvey.cards import KING, parse_card, rank
from fcsurvey.deals import deal
from fcsurvey.engine import CELL, COLUMN, Position, legal_moves
from fcsurvey.limits import Limits
from fcsurvey.notation import format_board
from fcsurvey.replay import validate, walk
from fcsurvey.rules import PRESETS, preset
from fcsurvey.schema import SOLVED, UNKNOWN, UNSOLVABLE
from fcsurvey.solver import (MAX_DEALT_COLUMN, PROOF, SEARCH, SolverError, checkpoint_path, core_rules, solve,
                             solve_board, solve_position)

from conftest import (NEED_FOUR, NEED_NONE, RULE_SETS, SEARCH_PHASES, THE_EIGHT, golden_expanded, golden_phases,
                      golden_states, kill_mid_proof, phase_states, positions)

KIND = {COLUMN: 0, CELL: 1, engine.FOUNDATION: 2}


def assert_replays(number, rules, result):
    """The solution wins when the pure-Python engine replays it."""
    assert result.status == SOLVED, (number, result)
    check = validate(deal(number, rules), rules, result.solution)
    assert check.ok and check.won, (number, check.why, check.error_token)
    assert check.moves == result.moves


def survey(numbers, rules, limits=Limits()):
    return {n: solve(n, rules, limits) for n in numbers}


def test_first_thousand_deals_all_solve_and_replay():
    rules = PRESETS["freecell"]
    for number, result in survey(range(1, 1001), rules).items():
        assert_replays(number, rules, result)


@pytest.mark.parametrize("number", THE_EIGHT)
def test_the_eight_unsolvable_deals_below_a_million(number):
    result = solve(number)
    assert result.status == UNSOLVABLE
    assert result.solution is None


def test_three_cells_first_thousand_deals():
    rules = preset("freecell", cells=3)
    results = survey(range(1, 1001), rules)
    assert tuple(n for n, r in results.items() if r.status == UNSOLVABLE) == NEED_FOUR
    for number, result in results.items():
        if result.status != UNSOLVABLE:
            assert_replays(number, rules, result)


def test_no_cells_first_thousand_deals():
    rules = preset("freecell", cells=0)
    results = survey(range(1, 1001), rules)
    assert tuple(n for n, r in results.items() if r.status == SOLVED) == NEED_NONE
    assert all(r.status == UNSOLVABLE for n, r in results.items() if n not in NEED_NONE)
    for number in NEED_NONE:
        assert_replays(number, rules, results[number])


@pytest.mark.parametrize("number", [14720822, 647519280])
def test_five_cells_unsolvable_six_solvable(number):
    assert solve(number, preset("freecell", cells=5)).status == UNSOLVABLE
    six = preset("freecell", cells=6)
    assert_replays(number, six, solve(number, six))


def test_relaxed_freecell_solves_11982_but_single_cards_do_not():
    relaxed = PRESETS["relaxed-freecell"]
    assert_replays(11982, relaxed, solve(11982, relaxed))
    assert solve(11982, preset("freecell", sequence="single")).status == UNSOLVABLE


@pytest.mark.parametrize("variant", ["bakers-game", "eight-off", "seahaven-towers", "forecell"])
def test_variants_first_two_hundred_decided_and_replayed(variant):
    rules = PRESETS[variant]
    for number, result in survey(range(1, 201), rules).items():
        assert result.status != UNKNOWN, (number, result)
        if result.status == SOLVED:
            assert_replays(number, rules, result)


def test_foundation_return_solutions_replay():
    rules = preset("freecell", foundation_return=True)
    for number, result in survey(range(1, 31), rules).items():
        assert_replays(number, rules, result)


def test_limits_give_unknown_naming_the_limit():
    # With room for 500 positions (the layered proof: 2,000 in memory, 16,000 waiting on disk)
    # 11982 stays undecided; with 1,000 the layered proof settles it.
    states = solve(11982, limits=Limits(max_states=500))
    assert (states.status, states.limit, states.solution) == (UNKNOWN, "states", None)
    assert solve(11982, limits=Limits(max_states=1000)).status == UNSOLVABLE
    timed = solve(883, preset("freecell", cells=0), Limits(timeout=0.01))
    assert (timed.status, timed.limit) == (UNKNOWN, "time")
    # The least room there is: the layered proof (room for 4, slices of one) gives up at once.
    least = solve(27, preset("freecell", cells=1), Limits(max_states=1))
    assert (least.status, least.limit) == (UNKNOWN, "states")


def test_a_complete_search_out_of_room_leaves_the_greedy_search_a_last_try():
    # 3 cells, single-card moves, deal 5260: the greedy tries, the interlude and the complete
    # search find no win; the last try does.
    rules = preset("freecell", cells=3, sequence="single")
    result = solve(5260, rules, Limits(max_states=1_000_000))
    assert result.status == SOLVED and validate(deal(5260, rules), rules, result.solution).ok
    assert phase_states(result) == golden_phases("deal 5260, 3 cells, single cards, max_states 1000000")


@pytest.mark.slow
def test_with_foundation_return_a_safe_last_try_wins_53687601_at_the_default_limits():
    # About a minute: 4-cell deal 53687601 with foundation return holds no win in the
    # greedy tries, the interlude or the complete search's 10 million positions, and the
    # eager last try runs dry; the second last try, safe autoplay and every move, wins within
    # its 1,250,001, where the layered proof would run out of room before the win.
    rules = preset("freecell", foundation_return=True)
    result = solve(53687601, rules)
    assert result.status == SOLVED and validate(deal(53687601, rules), rules, result.solution).ok
    assert any(token.startswith("h") for token in result.solution.split())  # a card back down
    assert phase_states(result) == golden_phases("deal 53687601, foundation return")


def test_the_complete_search_goes_on_after_the_interlude():
    # 3 cells, single-card moves, deal 253: the greedy tries fail; once the complete search
    # has stored 100,000 positions the interlude has its go in a store of its own, finds
    # no win in the positions it reaches, and the complete search goes on where it stopped
    # and wins, with the counts of both.
    rules = preset("freecell", cells=3, sequence="single")
    result = solve(253, rules)
    assert result.status == SOLVED and validate(deal(253, rules), rules, result.solution).ok
    assert phase_states(result) == golden_phases("deal 253, 3 cells, single cards")


def test_the_first_greedy_try_out_of_room_gets_more():
    # 4-cell deal 12795: no win in the first two tries (10,000 and 20,000 positions); the
    # first again, with room for 100,000, wins.
    result = solve(12795)
    assert result.status == SOLVED and validate(deal(12795), PRESETS["freecell"], result.solution).ok
    assert phase_states(result) == golden_phases("deal 12795, freecell")


def test_the_layered_proof_decides_what_the_complete_search_has_no_room_for():
    # The complete search stores 101,641 positions to prove 11982; the layered proof needs
    # single cards only, no paths, and frees each layer when it is done.
    result = solve(11982, limits=Limits(max_states=30_000))
    assert (result.status, result.limit) == (UNSOLVABLE, None)
    assert result.phase_counts["layered_proof"].states > 0


def test_the_layered_proof_decides_foundation_return_by_the_pairs_alone():
    # With foundation return cards come back down, so cards home are no layer; the
    # out-of-order pairs still only go, and they alone layer the proof.  11982 with room for
    # 10,000 positions: the complete search runs out of room, the layered proof visits
    # 61,643 positions and proves it unsolvable (as the complete search does with room).
    rules = preset("freecell", foundation_return=True)
    result = solve(11982, rules, Limits(max_states=10_000))
    assert (result.status, result.limit) == (UNSOLVABLE, None)
    assert phase_states(result) == golden_phases("deal 11982, foundation return, max_states 10000")
    assert solve(11982, rules).phase_counts["layered_proof"].states == 0


def test_the_layered_proof_writes_waiting_layers_to_a_file_that_goes_with_it(tmp_path, monkeypatch):
    # 1-cell deal 27: room for 16,000 positions (4 x 4,000) is too little to hold the layers
    # waiting their turn (23,776 at most), enough for the one being worked through (15,360).
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    one = preset("freecell", cells=1)
    spilled = solve(27, one, Limits(max_states=4_000))
    roomy = solve(27, one, Limits(max_states=10_000))
    assert (spilled.status, roomy.status) == (UNSOLVABLE, UNSOLVABLE)
    # The proof visits as many positions either way.
    assert (spilled.states, roomy.states) == (golden_states("deal 27, 1 cell, max_states 4000"),
                                              golden_states("deal 27, 1 cell, max_states 10000"))
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))
    nowhere = solve(27, one, Limits(max_states=4_000))
    assert (nowhere.status, nowhere.limit) == (UNKNOWN, "disk")


def test_the_searches_and_the_proof_run_apart_as_they_run_together():
    one, room = preset("freecell", cells=1), Limits(max_states=10_000)
    searched = solve(27, one, room, phases=(SEARCH,))
    proved = solve(27, one, room, phases=(PROOF,))
    golden = "deal 27, 1 cell, max_states 10000"
    assert (searched.status, searched.limit) == (UNKNOWN, "states")
    assert searched.states == golden_states(golden, *SEARCH_PHASES)
    assert (proved.status, proved.states) == (UNSOLVABLE, golden_states(golden, "layered_proof"))
    whole = solve(27, one, room)
    assert whole.expanded == searched.expanded + proved.expanded
    with pytest.raises(SolverError, match="phases must be some of search, proof"):
        solve(27, one, room, phases=("search", "prove"))
    start = Position.from_deal(deal(27, one))
    with pytest.raises(ValueError, match="phases must be a non-zero mask"):
        _fccore.solve(core_rules(one), start.columns, start.cells, start.foundations, 10_000, 0.0, 4)


def test_a_layer_bigger_than_the_room_is_worked_through_in_slices(tmp_path, monkeypatch):
    # 1-cell deal 1706 with room for 40,000 positions: some groups' entries outgrow it, so they
    # come back from disk in slices, and the keys still on disk are sifted with the parts
    # visited.  Without slices it ran out of room with 80,000.  Either way the proof visits
    # exactly the positions it visits with room for 200,000, where it needs none.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    one = preset("freecell", cells=1)
    sliced = solve(1706, one, Limits(max_states=10_000))
    roomy = solve(1706, one, Limits(max_states=50_000))
    assert (sliced.status, sliced.limit, roomy.status) == (UNSOLVABLE, None, UNSOLVABLE)
    assert (phase_states(sliced), phase_states(roomy)) == (golden_phases("deal 1706, 1 cell, max_states 10000"),
                                                           golden_phases("deal 1706, 1 cell, max_states 50000"))
    assert list(tmp_path.iterdir()) == []


#: 1-cell deal 1706 with room for 200,000 positions: a layered proof of 2.4 million positions
#: (a few seconds) that sends waiting layers to disk on the way.
CHECKPOINTED = (1706, 1, 50_000)


@pytest.mark.parametrize("room, golden", [
    (CHECKPOINTED[2], "deal 1706, 1 cell, max_states 50000"),
    # Room for 40,000: groups come back in slices, and checkpoints fall between their parts.
    (10_000, "deal 1706, 1 cell, max_states 10000"),
])
def test_a_killed_proof_goes_on_from_its_checkpoint(tmp_path, monkeypatch, room, golden):
    number, cells, _ = CHECKPOINTED
    rules, limits = preset("freecell", cells=cells), Limits(max_states=room)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    saved = checkpoint_path(tmp_path / "proofs", Position.from_deal(deal(number, rules)), rules)
    kill_mid_proof(saved, number, f"preset('freecell', cells={cells})", room)
    resumed = solve(number, rules, limits, checkpoints=saved.parent)
    fresh = solve(number, rules, limits)
    assert (resumed.status, resumed.resumed, fresh.resumed) == (UNSOLVABLE, True, False)
    # The same positions, counted the same: nothing lost, nothing visited twice.
    assert (resumed.states, resumed.expanded) == (fresh.states, fresh.expanded) == (golden_states(golden),
                                                                                     golden_expanded(golden))
    assert list(saved.parent.iterdir()) == []  # a verdict takes its checkpoint (and any .tmp) away


def test_a_killed_proof_run_apart_goes_on_with_the_same_counts(tmp_path, monkeypatch):
    # As difficulty.decide runs them: the searches alone, then the proof alone.  Resuming,
    # the searches run again and the proof goes on, so the two add up as in one go.
    number, cells, room = CHECKPOINTED
    rules, limits = preset("freecell", cells=cells), Limits(max_states=room)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    saved = checkpoint_path(tmp_path / "proofs", Position.from_deal(deal(number, rules)), rules)
    kill_mid_proof(saved, number, f"preset('freecell', cells={cells})", room, phases=(PROOF,))
    searched = solve(number, rules, limits, checkpoints=saved.parent, phases=(SEARCH,))
    proved = solve(number, rules, limits, checkpoints=saved.parent, phases=(PROOF,))
    whole = solve(number, rules, limits)
    assert (searched.status, searched.resumed, proved.status, proved.resumed) == (UNKNOWN, False, UNSOLVABLE, True)
    assert (searched.states + proved.states, searched.expanded + proved.expanded) == (whole.states, whole.expanded)
    assert list(saved.parent.iterdir()) == []


def test_a_checkpoint_that_is_not_whole_is_not_taken(tmp_path):
    one = preset("freecell", cells=1)
    saved = checkpoint_path(tmp_path, Position.from_deal(deal(27, one)), one)
    saved.write_bytes(b"FCSPROOF" + bytes(200))  # another tag, and shorter than it says
    result = solve(27, one, Limits(max_states=10_000), checkpoints=tmp_path, checkpoint_every=0)
    assert (result.status, result.resumed, result.states) == (
        UNSOLVABLE, False, golden_states("deal 27, 1 cell, max_states 10000"))
    assert list(tmp_path.iterdir()) == []


#: Deals 1-100 won with one free cell (min_cells <= 1 in results/ms-freecell-1-32000); every
#: other deal up to 100 is proven unsolvable with one cell by the complete search.
WON_WITH_1_CELL_TO_100 = [2, 5, 7, 8, 11, 26, 30, 33, 37, 38, 51, 54, 56, 58, 59, 77, 79, 85, 87,
                          91, 94, 97, 98, 99]


def test_layered_proofs_agree_with_the_complete_search():
    # With room for 200 positions most complete searches run out; the layered proof (four
    # times that room at once) then decides many, and must never call a winnable deal unsolvable.
    rules = preset("freecell", cells=1)
    results = survey(range(1, 101), rules, Limits(max_states=200))
    unsolvable = [n for n, r in results.items() if r.status == UNSOLVABLE]
    assert not set(unsolvable) & set(WON_WITH_1_CELL_TO_100)
    assert len(unsolvable) >= 50
    assert sum(results[n].states > 200 for n in unsolvable) >= 30
    for number, result in results.items():
        if result.status == SOLVED:
            assert_replays(number, rules, result)


@pytest.mark.parametrize("variant, cells, proved", [
    ("bakers-game", 1, 6), ("kings-only-bakers-game", 1, 5), ("seahaven-towers", 3, 17),
    ("relaxed-freecell", 1, 7)])
def test_layered_proofs_agree_with_the_complete_search_in_the_variants(variant, cells, proved):
    # Deals 1-40 with room for 200 positions, against room for 300,000.  Where an empty column
    # takes only kings (or nothing), moves within a proof layer cannot all be undone, so the
    # parts it is worked through in may overlap; unlimited sequence moves are all tried.
    rules = preset(variant, cells=cells)
    small = survey(range(1, 41), rules, Limits(max_states=200))
    big = survey(range(1, 41), rules, Limits(max_states=300_000))
    for number in range(1, 41):
        if small[number].status == UNSOLVABLE:
            assert big[number].status == UNSOLVABLE, (number, big[number])
        if small[number].status == SOLVED:
            assert_replays(number, rules, small[number])
    assert sum(r.status == UNSOLVABLE and r.states > 200 for r in small.values()) == proved


@pytest.mark.slow
def test_the_layered_proof_settles_1568_with_one_cell():
    # 2-cell deal 1568: no proof with one cell in 50 million complete-search positions; the
    # layered proof visits 111.9 million, holding far fewer at once (scripts/measure_proof.py).
    result = solve(1568, preset("freecell", cells=1), Limits(max_states=50_000_000))
    assert (result.status, result.limit) == (UNSOLVABLE, None)
    assert result.states > 150_000_000


def test_bad_limits_are_refused():
    with pytest.raises(SolverError):
        Limits(max_states=0)
    with pytest.raises(SolverError):
        Limits(timeout=-1)


def test_board_text_and_position_solve_like_the_deal():
    rules = PRESETS["freecell"]
    start = Position.from_deal(deal(5, rules))
    result = solve_board(format_board(start, rules), rules)
    assert result.solution == solve_position(start, rules).solution == solve(5, rules).solution
    check = validate(start, rules, result.solution)
    assert check.ok and check.won


def test_solving_from_a_position_part_way():
    rules = PRESETS["freecell"]
    first = solve(7, rules)
    tokens = first.solution.split()
    middle = Position.from_deal(deal(7, rules))
    for _, middle in walk(middle, rules, tokens[:20]):
        pass
    rest = solve_position(middle, rules)
    check = validate(middle, rules, rest.solution)
    assert check.ok and check.won


def test_threads_solve_at_once_with_the_same_results():
    numbers = list(range(1, 41))
    expected = {n: solve(n).solution for n in numbers}
    found = {}

    def work(part):
        for n in part:
            found[n] = solve(n).solution

    threads = [threading.Thread(target=work, args=(numbers[i::2],)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert found == expected


# ---- the C core against the reference engine -----------------------------

def normalized(moves, pos):
    """Moves as comparable tuples: which empty cell or empty column a move
    goes to does not matter (the C core always takes the first)."""
    out = set()
    for src_kind, src, dst_kind, dst, count in moves:
        if dst_kind == KIND[CELL]:
            dst = None
        elif dst_kind == KIND[COLUMN] and not pos.columns[dst]:
            dst = "empty"
        out.add((src_kind, src, dst_kind, dst, count))
    return out


def engine_moves(pos, rules, single_only):
    return [(KIND[m.source.kind], m.source.index, KIND[m.dest.kind], m.dest.index, m.count)
            for m in legal_moves(pos, rules, single_only=single_only)]


def core_moves(pos, rules, single_only):
    return _fccore.legal_moves(core_rules(rules), pos.columns, pos.cells, pos.foundations, single_only)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(sorted(PRESETS)), foundation_return=st.booleans(),
       number=st.integers(1, 8_589_934_591), steps=st.integers(0, 80), data=st.data())
def test_core_moves_equal_the_engine_moves(variant, foundation_return, number, steps, data):
    rules = preset(variant, foundation_return=foundation_return)
    pos = Position.from_deal(deal(number, rules))
    for _ in range(steps):
        for single_only in (True, False):
            assert normalized(core_moves(pos, rules, single_only), pos) == \
                normalized(engine_moves(pos, rules, single_only), pos)
        moves = legal_moves(pos, rules)
        if not moves:
            break
        pos = engine.apply(pos, moves[data.draw(st.integers(0, len(moves) - 1))], rules)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rules=RULE_SETS, data=st.data())
def test_core_moves_equal_the_engine_moves_under_any_rules(rules, data):
    """Beyond the presets: any-suit building, single cards only, empty columns that take
    nothing, 0 to 10 cells, 4 to 10 columns, with foundation return on and off."""
    pos = data.draw(positions(rules))
    assume(max(map(len, pos.columns)) <= MAX_DEALT_COLUMN)
    for single_only in (True, False):
        assert normalized(core_moves(pos, rules, single_only), pos) == \
            normalized(engine_moves(pos, rules, single_only), pos)


def greedy_leaves_out(move, pos, rules):
    """The moves the greedy move set (FCS_MOVES_GREEDY) leaves out, all from a column: taking a card built
    on the card below it, anywhere but to an empty column; while a cell is free and runs
    can move into an empty column, a single card other than a king into one; and a top
    card to a cell when another column can take it or it is a king alone in its column."""
    src_kind, src, dst_kind, dst, count = move
    if src_kind != KIND[COLUMN]:
        return False
    column = pos.columns[src]
    if dst_kind == KIND[COLUMN] and not pos.columns[dst]:
        return (count == 1 and rank(column[-1]) != KING and None in pos.cells
                and engine.sequence_capacity(pos, rules, dst) > 1)
    if dst_kind == KIND[CELL] and (column == (column[-1],) and rank(column[-1]) == KING or any(
            other and engine.can_build(other[-1], column[-1], rules) for other in pos.columns)):
        return True
    return len(column) > count and engine.can_build(column[-count - 1], column[-count], rules)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(sorted(PRESETS)), foundation_return=st.booleans(),
       number=st.integers(1, 8_589_934_591), steps=st.integers(0, 80), data=st.data())
def test_core_leaves_out_exactly_what_the_greedy_move_set_does_without_when_asked(variant, foundation_return, number, steps,
                                                                  data):
    rules = preset(variant, foundation_return=foundation_return)
    pos = Position.from_deal(deal(number, rules))
    for _ in range(steps):
        everything = core_moves(pos, rules, False)
        kept = _fccore.legal_moves(core_rules(rules), pos.columns, pos.cells, pos.foundations, False, True)
        assert kept == [m for m in everything if not greedy_leaves_out(m, pos, rules)]
        moves = legal_moves(pos, rules)
        if not moves:
            break
        pos = engine.apply(pos, moves[data.draw(st.integers(0, len(moves) - 1))], rules)


def test_the_greedy_move_set_keeps_an_empty_column_for_a_run_or_a_king_while_a_cell_is_free():
    # Random play seldom empties a column, so this position is made by hand: 9C alone,
    # 5S on 6H, KD alone, and five empty columns.
    nine, six, five, king = map(parse_card, ("9C", "6H", "5S", "KD"))
    columns = ((), (nine,), (six, five), (king,)) + ((),) * 4
    to_empty = {(1, 1), (2, 1), (2, 2), (3, 1)}  # (column, cards) into empty column 0
    for rules, cells, left_out in [
            (PRESETS["freecell"], (None,) * 4, {(1, 1), (2, 1)}),  # 9C and 5S alone take a cell instead
            (PRESETS["freecell"], (1, 2, 3, 4), set()),  # no cell free
            (preset("freecell", sequence="single"), (None,) * 4, set())]:  # runs move card by card
        pos = Position(columns, cells, (0, 0, 0, 0))
        everything = core_moves(pos, rules, False)
        kept = _fccore.legal_moves(core_rules(rules), pos.columns, pos.cells, pos.foundations, False, True)
        assert kept == [m for m in everything if not greedy_leaves_out(m, pos, rules)]
        into_empty = {(src, count) for src_kind, src, dst_kind, dst, count in kept
                      if src_kind == KIND[COLUMN] and (dst_kind, dst) == (KIND[COLUMN], 0)}
        possible = {(1, 1), (2, 1), (3, 1)} if rules.sequence == "single" else to_empty
        assert into_empty == possible - left_out
        # To a cell only 9C: 5S is built on 6H, and KD alone is where it belongs.
        to_cell = {src for src_kind, src, dst_kind, _, _ in kept if (src_kind, dst_kind) == (KIND[COLUMN], KIND[CELL])}
        assert to_cell == ({1} if None in cells else set())


@given(variant=st.sampled_from(sorted(PRESETS)), foundation_return=st.booleans(),
       foundations=st.lists(st.integers(0, 12), min_size=4, max_size=4), suit=st.integers(0, 3))
def test_core_autoplay_rule_equals_the_engine(variant, foundation_return, foundations, suit):
    rules = preset(variant, foundation_return=foundation_return)
    card = foundations[suit] * 4 + suit
    pos = Position(columns=((card,),) + ((),) * (rules.columns - 1), cells=(None,) * rules.cells,
                   foundations=tuple(foundations))
    assert _fccore.safe_home(core_rules(rules), foundations, card) == \
        engine.is_safe_autoplay(pos, rules, card)


@given(rules=RULE_SETS, foundations=st.lists(st.integers(0, 12), min_size=4, max_size=4), suit=st.integers(0, 3))
def test_core_autoplay_rule_equals_the_engine_under_any_rules(rules, foundations, suit):
    card = foundations[suit] * 4 + suit
    pos = Position(columns=((card,),) + ((),) * (rules.columns - 1), cells=(None,) * rules.cells,
                   foundations=tuple(foundations))
    assert _fccore.safe_home(core_rules(rules), foundations, card) == engine.is_safe_autoplay(pos, rules, card)


def proof_layer(pos, rules):
    """What the layered proof orders positions by (proof/proof.h, proof_layer_of):
    out-of-order pairs left as dealt, fewest last, then, without foundation return, cards
    home (with it they can go down)."""
    disorder = sum(not engine.can_build(below, above, rules)
                   for column in pos.columns for below, above in zip(column, column[1:]))
    return (-disorder,) if rules.foundation_return else (-disorder, sum(pos.foundations))


def proof_group(pos, rules):
    """What the layered proof splits a layer by (proof/proof.h, proof_layer_of): which
    out-of-order pairs are held, and, without foundation return, the cards home in each suit."""
    pairs = frozenset((below, above) for column in pos.columns for below, above in zip(column, column[1:])
                      if not engine.can_build(below, above, rules))
    return (pairs,) if rules.foundation_return else (pairs, tuple(pos.foundations))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(sorted(PRESETS)), foundation_return=st.booleans(),
       number=st.integers(1, 8_589_934_591), steps=st.integers(0, 120), data=st.data())
def test_no_move_lowers_the_proof_layer_or_leaves_its_group(variant, foundation_return, number, steps, data):
    # Each child as the proof makes it: a move, then safe autoplay.  With foundation return
    # the moves include cards coming back down, which autoplay's cards home make possible.
    rules = preset(variant, foundation_return=foundation_return)
    pos, _ = engine.autoplay(Position.from_deal(deal(number, rules)), rules)
    for _ in range(steps):
        moves = legal_moves(pos, rules)
        if not moves:
            break
        child, _ = engine.autoplay(engine.apply(pos, moves[data.draw(st.integers(0, len(moves) - 1))], rules),
                                   rules)
        assert proof_layer(child, rules) >= proof_layer(pos, rules)
        if proof_layer(child, rules) == proof_layer(pos, rules):  # so groups never mix
            assert proof_group(child, rules) == proof_group(pos, rules)
        pos = child
