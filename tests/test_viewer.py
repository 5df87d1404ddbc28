"""The solution viewer (``fcsurvey show``, :mod:`fcsurvey.viewer`) and the tableau view of ``deal``.

The page is tested in a real headless Chromium driven by Playwright: it loads with no console
error and asks for nothing over the network, shows the 52 cards, and at every step shows the
very position the rules engine replayed; stepping to the end puts 52 cards on the foundations.
Without Chromium or Playwright that test skips, unless ``FCSURVEY_BROWSER_REQUIRED`` is set
(``.ci/run`` sets it once it has installed Chromium), when it fails instead.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, Dict, List

import pytest

import fcsurvey
from fcsurvey import output, viewer
from fcsurvey.cards import card_text, parse_card
from fcsurvey.deals import deal
from fcsurvey.engine import Position
from fcsurvey.replay import walk
from fcsurvey.rules import PRESETS
from fcsurvey.viewer import ViewerError, Walkthrough, tableau, walkthrough

from conftest import FREECELL, cli, run_cli

#: Deal 164: a quick solve (well under a second) and a line of 86 moves.
DEAL = 164
#: The environment variable that turns the browser test's skip into a failure.
BROWSER_REQUIRED = "FCSURVEY_BROWSER_REQUIRED"
#: Where Debian's package puts Chromium.
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def shown() -> Walkthrough:
    return walkthrough(DEAL)


def page_data(page: str) -> Dict:
    """The walkthrough a page carries, read back out of its JSON script element."""
    found = re.search(r'<script type="application/json" id="walkthrough">(.*?)</script>', page, re.S)
    assert found, "the page holds no walkthrough data"
    return json.loads(found[1])


# --- the tableau ----------------------------------------------------------------------------------

def test_the_tableau_of_deal_1_reads_like_the_game() -> None:
    assert tableau(Position.from_deal(deal(1)), FREECELL).splitlines() == [
        "cells: -- -- -- --    foundations: -- -- -- --",
        "",
        "  1  2  3  4  5  6  7  8",
        " JD 2D 9H JC 5D 7H 7C 5H",
        " KD KC 9S 5S AD QC KH 3H",
        " 2S KS 9D QD JS AS AH 3C",
        " 4C 5C TS QH 4H AC 4D 7S",
        " 3S TD 4S TH 8H 2C JH 7D",
        " 6D 8S 8D QS 6C 3D 8C TC",
        " 6S 9C 2H 6H",
    ]


def test_the_tableau_shows_cells_foundations_and_uneven_columns(shown: Walkthrough) -> None:
    middle = shown.positions[40]
    lines = tableau(middle, FREECELL).splitlines()
    cells = ["--" if card is None else card_text(card) for card in middle.cells]
    homes = [card_text(height * 4 - 4 + suit) if height else "--" for suit, height in enumerate(middle.foundations)]
    assert lines[0] == f"cells: {' '.join(cells)}    foundations: {' '.join(homes)}"
    # Read back column by column: each card's place in its row gives its column.
    rows = [[line[i:i + 3].strip() for i in range(0, 3 * len(middle.columns), 3)] for line in lines[3:]]
    columns = [[row[i] for row in rows if i < len(row) and row[i]] for i in range(len(middle.columns))]
    assert columns == [[card_text(card) for card in column] for column in middle.columns]


def test_deal_format_tableau_through_the_command_line() -> None:
    result = run_cli("deal", "1", "--variant", "eight-off", "--format", "tableau")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "cells: 6S -- 9C -- 2H -- 6H --    foundations: -- -- -- --"
    assert lines[2] == "  1  2  3  4  5  6  7  8" and len(lines) == 3 + 6


# --- the walkthrough --------------------------------------------------------------------------------

def test_the_walkthrough_is_the_rules_engine_s_replay(shown: Walkthrough) -> None:
    assert fcsurvey.walkthrough is walkthrough and fcsurvey.Walkthrough is Walkthrough
    assert shown.status == "solved" and len(shown.moves) == 86 and len(shown.positions) == 87
    start = Position.from_deal(deal(DEAL))
    assert list(shown.positions) == [start] + [position for _, position in walk(start, FREECELL, shown.moves)]
    assert shown.positions[-1].is_won and not shown.positions[-2].is_won
    assert all(position.card_count() == 52 for position in shown.positions)
    # The first move, 17, carries 6S, the top card of column 1.
    assert (shown.moves[0], shown.moved[0]) == ("17", (start.columns[0][-1],))


def test_the_page_carries_every_position_and_loads_nothing(shown: Walkthrough) -> None:
    page = shown.html()
    data = page_data(page)
    assert data["positions"] == [[[list(c) for c in p.columns], list(p.cells), list(p.foundations)]
                                 for p in shown.positions]
    assert [m["token"] for m in data["moves"]] == list(shown.moves)
    assert data["moves"][0] == {"token": "17", "card": "6S", "count": 1, "cards": [shown.moved[0][0]],
                                "from": "column 1", "to": "column 7"}
    # No address, no external script, style, image or font: nothing for a browser to fetch.
    for reference in ("://", " src=", "<link", "@import", "url(", "@font-face"):
        assert reference not in page, reference


def test_text_in_the_page_cannot_end_its_script_early(shown: Walkthrough) -> None:
    page = Walkthrough("</script><b>x & y</b>", FREECELL, shown.positions[:1], (), (), "unknown",
                       "</script>").html()
    assert page.count("</script>") == 2  # the page's own two script elements
    assert page_data(page)["title"] == "</script><b>x & y</b>"
    assert "<title>&lt;/script&gt;&lt;b&gt;x &amp; y&lt;/b&gt;</title>" in page


def test_a_given_solution_is_replayed_and_a_bad_one_refused(shown: Walkthrough) -> None:
    again = walkthrough(DEAL, FREECELL, " ".join(shown.moves))
    assert again.positions == shown.positions and again.note == "the solution given"
    with pytest.raises(ViewerError, match=r"move 2 \(99\): '99': there is no column 9"):
        walkthrough(DEAL, FREECELL, "17 99")
    with pytest.raises(ViewerError, match="not all cards are on the foundations after 85 moves"):
        walkthrough(DEAL, FREECELL, shown.moves[:-1])


def test_a_card_back_down_from_a_foundation_is_shown_moving(shown: Walkthrough) -> None:
    # Move 4 of deal 164's line sends the ace of diamonds home: bring it down to cell a and back.
    ace = parse_card("AD")
    assert shown.moves[3] == "1h" and shown.moved[3] == (ace,)
    rules = FREECELL.replace(foundation_return=True)
    back = walkthrough(DEAL, rules, [*shown.moves[:4], "hDa", "ah", *shown.moves[4:]])
    assert back.moved[4:6] == ((ace,), (ace,)) and back.positions[5].cells[0] == ace
    assert back.positions[6] == back.positions[4] == shown.positions[4]
    assert page_data(back.html())["moves"][4:6] == [
        {"token": "hDa", "card": "AD", "count": 1, "cards": [ace], "from": "foundation D", "to": "cell a"},
        {"token": "ah", "card": "AD", "count": 1, "cards": [ace], "from": "cell a", "to": "foundation D"}]


def test_an_unsolvable_deal_makes_a_page_of_the_deal_alone() -> None:
    alone = walkthrough(11982)
    assert (alone.status, alone.moves, alone.positions) == (
        "unsolvable", (), (Position.from_deal(deal(11982)),))
    assert "proved it unsolvable" in alone.note and page_data(alone.html())["moves"] == []


def test_the_page_is_written_whole_or_not_at_all(shown: Walkthrough, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "page.html"
    out.write_text("the page before")

    def refuse(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(output.os, "replace", refuse)
    with pytest.raises(ViewerError, match="No space left on device"):
        shown.write_html(out)
    assert os.listdir(tmp_path) == ["page.html"] and out.read_text() == "the page before"
    monkeypatch.undo()
    assert shown.write_html(out) == out and os.listdir(tmp_path) == ["page.html"]
    assert page_data(out.read_text(encoding="utf-8"))["title"] == f"Deal {DEAL}"
    with pytest.raises(ViewerError, match="Not a directory"):
        shown.write_html(out / "inside-a-file.html")


# --- the command ------------------------------------------------------------------------------------

def test_show_writes_the_page(shown: Walkthrough, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "deal.html"
    code, stdout, stderr = cli(capsys, "show", DEAL, "--html", out)
    assert (code, stderr) == (0, "")
    assert stdout.startswith(f"Wrote {out}: Deal {DEAL}: 86 moves, replayed to a win by the rules engine")
    assert page_data(out.read_text(encoding="utf-8"))["moves"] == page_data(shown.html())["moves"]
    solution = tmp_path / "164.sol"
    solution.write_text(" ".join(shown.moves[:10]) + "\n" + " ".join(shown.moves[10:]))
    code, stdout, _ = cli(capsys, "show", DEAL, "--solution-file", solution, "--html", out)
    assert code == 0 and "(the solution given)" in stdout


def test_show_exits_as_solve_does_for_a_deal_without_a_solution(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    code, stdout, _ = cli(capsys, "show", 11982, "--html", tmp_path / "a.html")
    assert code == 1 and "proved it unsolvable" in stdout
    code, stdout, _ = cli(capsys, "show", DEAL, "--max-states", 10, "--html", tmp_path / "b.html")
    assert code == 3 and "gave up at the states limit" in stdout
    assert sorted(os.listdir(tmp_path)) == ["a.html", "b.html"]


@pytest.mark.parametrize("args, words", [
    (["0", "--html", "{tmp}/x.html"], "deal number must be 1 to 8,589,934,591"),
    (["164", "--solution-file", "{tmp}/bad.sol", "--html", "{tmp}/x.html"],
     "the solution does not replay to a win: move 2 (99)"),
    (["164", "--solution-file", "{tmp}/missing.sol", "--html", "{tmp}/x.html"], "cannot read"),
    (["164", "--html", "{tmp}/no-such-directory/x.html"], "there is no directory"),
    (["164", "--html", "{tmp}"], "is a directory"),
    (["164"], "Missing option '--html'"),
    (["--html", "{tmp}/x.html"], "give a deal NUMBER or --board-file"),
    (["164", "--solution-file", "{tmp}/bad.sol", "--timeout", "5", "--html", "{tmp}/x.html"],
     "--timeout limits the search for a solution"),
])
def test_bad_input_is_one_error_line_and_no_page(args: List[str], words: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "bad.sol").write_text("17 99\n")
    code, stdout, stderr = cli(capsys, "show", *[a.format(tmp=tmp_path) for a in args])
    assert (code, stdout) == (2, "")
    assert len(stderr.splitlines()) == 1 and stderr.startswith("Error:") and words in stderr, stderr
    assert os.listdir(tmp_path) == ["bad.sol"]


def test_show_takes_a_board(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    board = tmp_path / "board.txt"
    board.write_text("\n".join(deal(DEAL).text_columns()))
    code, stdout, _ = cli(capsys, "show", "--board-file", board, "--html", tmp_path / "board.html")
    assert code == 0 and stdout.startswith(f"Wrote {tmp_path / 'board.html'}: Board: ")


# --- the page in a real browser ---------------------------------------------------------------------

def chromium() -> str:
    """Chromium's executable, and Playwright to drive it; a skip when either is missing, or a
    failure when BROWSER_REQUIRED says this run must test the page."""
    found = shutil.which("chromium") or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    if importlib.util.find_spec("playwright") is None:
        found, missing = None, "Playwright (pip install playwright)"
    else:
        missing = "Chromium (apt-get install -y chromium)"
    if found is None:
        if os.environ.get(BROWSER_REQUIRED):
            pytest.fail(f"{BROWSER_REQUIRED} is set, but {missing} is not installed")
        pytest.skip(f"the page is tested in a browser: needs {missing}")
    return found


#: What the page shows, read off its card elements: each place's cards, bottom to top.
BOARD_SCRIPT = """() => {
  const board = {column: [], cell: [], foundation: []};
  const cards = [...document.querySelectorAll("#board .card")];
  for (const el of cards) {
    const list = board[el.dataset.place];
    const i = Number(el.dataset.index);
    while (list.length <= i) list.push([]);
    list[i].push([parseFloat(el.style.top), Number(el.style.zIndex) % 100, el.dataset.card]);
  }
  const order = (places) => places.map((p) => p.sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((c) => c[2]));
  const box = document.getElementById("board").getBoundingClientRect();
  const inside = cards.filter((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.left >= box.left && r.right <= box.right && r.top >= box.top
      && r.bottom <= box.bottom;
  }).length;
  return {step: Number(document.body.dataset.step), cards: cards.length, inside,
          column: order(board.column), cell: order(board.cell), foundation: board.foundation.flat().length,
          current: [...document.querySelectorAll("#moves li.current")].map((li) => li.textContent)};
}"""


#: BOARD_SCRIPT's reading at the start and after each press of the right arrow key to the end.
STEPS_SCRIPT = """() => {
  const read = BOARD_SCRIPT;
  const boards = [read()];
  while (!document.getElementById("next").disabled) {
    document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", bubbles: true}));
    boards.push(read());
  }
  return boards;
}"""


def expected_board(position: Position) -> Dict:
    """What BOARD_SCRIPT must read for ``position`` (empty columns and cells at the end are
    simply not there)."""
    columns = [[card_text(card) for card in column] for column in position.columns]
    cells = [[card_text(card)] if card is not None else [] for card in position.cells]
    while columns and not columns[-1]:
        columns.pop()
    while cells and not cells[-1]:
        cells.pop()
    return {"column": columns, "cell": cells, "foundation": sum(position.foundations)}


def every_step(page: Any, shown: Walkthrough) -> List[Dict]:
    """BOARD_SCRIPT's reading at every step of the page open in ``page``, each checked to be the
    rules engine's position of that step."""
    boards = page.evaluate(STEPS_SCRIPT.replace("BOARD_SCRIPT", BOARD_SCRIPT))
    assert len(boards) == len(shown.positions)
    for step, (board, position) in enumerate(zip(boards, shown.positions)):
        assert (board["step"], board["cards"]) == (step, 52)
        assert {k: board[k] for k in ("column", "cell", "foundation")} == expected_board(position), step
    return boards


def test_the_page_in_a_real_browser(shown: Walkthrough, tmp_path: Path) -> None:
    executable = chromium()
    from playwright.sync_api import sync_playwright

    solved = shown.write_html(tmp_path / "deal.html")
    alone = walkthrough(11982).write_html(tmp_path / "alone.html")
    # Ten columns, two cells dealt full, a tenth column written 0 in the notation.
    seahaven = walkthrough(1, PRESETS["seahaven-towers"])
    other = seahaven.write_html(tmp_path / "seahaven.html")
    problems: List[str] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 800})
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
                    if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("request", lambda r: problems.append(f"request: {r.url}")
                    if r.url not in (solved.as_uri(), alone.as_uri(), other.as_uri()) else None)
            page.goto(solved.as_uri())
            board = page.evaluate(BOARD_SCRIPT)
            assert (board["step"], board["cards"], board["inside"]) == (0, 52, 52)
            assert board["current"] == ["start"]
            boards = every_step(page, shown)
            board = boards[-1]
            assert board["foundation"] == 52 and "52 of 52 cards home" in page.inner_text("#status")
            assert board["current"][0].startswith(f"86.{shown.moves[-1]}")
            page.keyboard.press("ArrowLeft")
            assert page.evaluate(BOARD_SCRIPT)["foundation"] == 51
            page.keyboard.press("Home")
            page.click("#last")
            assert page.evaluate(BOARD_SCRIPT)["foundation"] == 52 and page.is_disabled("#next")
            page.click("#moves li:nth-child(11)")  # the move list: the position after move 10
            assert page.evaluate(BOARD_SCRIPT)["step"] == 10
            page.click("#prev")
            assert page.evaluate(BOARD_SCRIPT)["step"] == 9
            page.select_option("#speed", "250")
            page.click("#play")
            page.wait_for_function("Number(document.body.dataset.step) >= 11", timeout=5000)
            page.keyboard.press(" ")  # pause
            paused = page.evaluate(BOARD_SCRIPT)["step"]
            page.wait_for_timeout(400)
            assert page.evaluate(BOARD_SCRIPT)["step"] == paused and page.inner_text("#play") == "Play"

            page.goto(alone.as_uri())
            board = page.evaluate(BOARD_SCRIPT)
            assert (board["cards"], board["inside"], board["foundation"]) == (52, 52, 0)
            assert {k: board[k] for k in ("column", "cell", "foundation")} == expected_board(
                Position.from_deal(deal(11982)))
            assert page.is_disabled("#play") and page.is_disabled("#next")

            page.goto(other.as_uri())
            assert every_step(page, seahaven)[-1]["foundation"] == 52
        finally:
            browser.close()
    assert problems == []


# --- docs/game-makers.md, "A solution viewer" -------------------------------------------------------

GAME_MAKERS = Path(__file__).resolve().parent.parent / "docs" / "game-makers.md"


def viewer_section() -> str:
    text = GAME_MAKERS.read_text(encoding="utf-8")
    return text[text.index("## A solution viewer"):]


def test_the_docs_python_example_runs_as_its_comments_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture) -> None:
    (code,) = re.findall(r"```python\n(.*?)```", viewer_section(), re.S)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/game-makers.md", "exec"), {})
    said = re.search(r"# (solved \d+ True)", code)
    assert said and capsys.readouterr().out.strip() == said[1]
    assert page_data((tmp_path / "deal-164.html").read_text(encoding="utf-8"))["title"] == "Deal 164"


def test_the_docs_tableau_is_deal_1_s() -> None:
    shown = re.search(r"prints the same view as text:\n\n```\n(.*?)```", viewer_section(), re.S)
    assert shown and shown[1].rstrip("\n") == tableau(Position.from_deal(deal(1)), FREECELL)
