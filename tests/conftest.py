"""What the test modules share: ways to run the command line, published data, positions
and solutions, and the golden counts of the search.

The test modules import these names from here (``from conftest import ...``) and from no
other test module; pytest puts this directory on the path.  ``fake_solver`` stays a module
of its own, because survey workers load it by name.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import pytest
from hypothesis import strategies as st

from fcsurvey import store
from fcsurvey.cards import DECK_SIZE, parse_card
from fcsurvey.cli import main
from fcsurvey.engine import Position, apply, legal_moves
from fcsurvey.rules import PRESETS, Rules
from fcsurvey.solver import COUNTED_PHASES
from fcsurvey.survey import SOLVER_ENV

TESTS = Path(__file__).resolve().parent
#: The datasets and lists the checkout ships (some tests skip when one is absent).
RESULTS = TESTS.parent / "results"
FREECELL = PRESETS["freecell"]

# --- the command line -----------------------------------------------------------------------

#: The stand-in solver (tests/fake_solver.py), as a survey's ``solver`` names it.
FAKE_SOLVER = "fake_solver:solve"


def cli(capsys: pytest.CaptureFixture, *args: Any) -> Tuple[int, str, str]:
    """Run the CLI in this process: (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as stop:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    return stop.value.code, out, err


def run_cli(*args: Any, env: Optional[Dict[str, str]] = None, cwd: Optional[Path] = None,
            timeout: float = 60) -> subprocess.CompletedProcess:
    """Run ``python -m fcsurvey`` as its own process, as a user would, and wait for it."""
    return subprocess.run([sys.executable, "-m", "fcsurvey", *map(str, args)], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def fake_env(delay: float = 0.0) -> Dict[str, str]:
    """Environment for a CLI process solving with fake_solver (FAKE_SOLVER_DELAY s a deal)."""
    path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, SOLVER_ENV: FAKE_SOLVER,
            "FAKE_SOLVER_DELAY": str(delay)}


def _ctrl_c_as_at_a_terminal() -> None:
    """A shell starts a background job with Ctrl-C ignored, and Python then installs no
    KeyboardInterrupt handler: the CLI under test must get SIGINT as a user's would."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def fcsurvey(*args: Any, env: Dict[str, str], cwd: Path) -> subprocess.Popen:
    """The CLI as its own process; ``cwd`` away from the checkout so the installed package runs."""
    return subprocess.Popen([sys.executable, "-m", "fcsurvey", *map(str, args)], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_ctrl_c_as_at_a_terminal)


def wait_for(condition: Callable[[], bool], proc: Optional[subprocess.Popen] = None,
             timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"fcsurvey exited early with status {proc.returncode}: {proc.communicate()[1]}")
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


# --- datasets -------------------------------------------------------------------------------

#: Every column but the timing, which differs from run to run.
DATA_COLUMNS = [c for c in store.SCHEMA.names if c != "elapsed_ms"]


def leftovers(path: Path) -> list:
    """Temporary files anywhere under ``path`` (a hidden name with ``.tmp`` in it, as the store
    and output.whole_file name theirs), found without the store's own helper, so that a
    cleanup that misses a place cannot hide it from the test that checks the cleanup."""
    return sorted(p for p in Path(path).rglob(".*") if p.is_file() and ".tmp" in p.name)


def data(out: Path) -> Any:
    """The dataset without timings, for byte-for-byte comparisons."""
    return store.read(out).select(DATA_COLUMNS)


# --- published results (shared/known-results/README.md) ------------------------------------

#: Deal 11982's columns, deepest card first.
DEAL_11982_COLUMNS = [
    "AH 3D KD JC 6C JD KC",
    "AS 3H 6H 5D 2C 7D 8D",
    "4H QS 5S 5C TH 8H 2S",
    "AC QC 4D 8C QH 9C 3S",
    "2D 8S 9H 9D 6D 2H",
    "6S 7H JH TD TC QD",
    "TS AD 9S KH 4S 4C",
    "JS KS 3C 7C 7S 5H",
]
#: The eight deals below 1,000,000 that FreeCell with 4 cells cannot win.
THE_EIGHT = (11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948)
#: Deals 1-1000 that 3 cells cannot win, so they need 4.
NEED_FOUR = (169, 178, 285, 454, 575, 598, 617, 657, 775, 829, 988)
#: Deals 1-1000 that need no free cell.
NEED_NONE = (164, 892)

# --- positions and solutions ----------------------------------------------------------------

# Winning solutions found with a small best-first search over legal_moves and
# autoplay (the autoplay moves written out), pasted here so that the replay is
# checked against fixed text.  Together they use a tenth column (0), cell k,
# several-card moves into empty columns (v) and onto non-empty ones.
SOLUTIONS = {
    ("freecell", 164): (
        "17 15 17 1h 12 1h 1h 5h 6h 6h 2h 82 82 21v3 2a 28 2h 5h 24 24 35 68 62 68 78 63 83 86 8h 58 "
        "54 5b 56 65 76 84 78 a6 26 72 76 38 37v2 31 3a 3c 3d 37 b7 27 45 42v3 47 42 24 67 42v5 42 4h 4h "
        "7h 1h 7h 1h 7h 1h 7h 5h 8h 1h 7h 5h 8h ch 7h 2h 8h 5h 7h 2h 8h 5h 7h 2h 8h 5h 7h 2h 8h 5h "
        "7h 2h 8h 5h 7h 2h 8h ah dh 7h"),
    ("seahaven-towers", 2): (
        "2h 9h 32 3h 0a 0h 1h 1h 0h 5h 6d 6h d6 29 7d 7h 2h ah 2h 9h 9h 9h bh ch 9h 5a 5h 1h 5h 4h "
        "4h 4h dh 9b 9h 3h 4h 8h 6h 6h 8h 1h 3h 7h 7h 08 0h 1h 7h 23 45 b6 86 83 58 a3 63 6h 8h 8h "
        "8h 3h 3h 3h 3h 3h 3h 3h 3h"),
    ("eight-off", 2): (
        "ah 2h 1a 1h 86 8h ah 4a 4h 5b 5h 38 51 15 52 3d 53 c2 1c a1 4a 4f 48 45 34v2 a3 b8 f3 7a 7b "
        "7h 7f 7h 1h 1h fh 17 6f 6k a1 6a 6h 6h 2h 2h 2h 2h 2h ah 6h fh kh 2h ch 6h 5h 5h 8h 8h 8h "
        "8h bh eh gh 8h 1h 8a 8h 3h 3h 3h ah dh 2h 2h 2h 3h 3h 4h 4h 7h 7h"),
    ("bakers-game", 3): (
        "5h 6h 3a 3h 5b 5h 2c 2h 2d 2h 3h 85 8h ch ah 8a 8h 38 86 d6 1c 13 41 41 4h 1h 1h 1h 1h 5h "
        "5h 5d 5h 75 7h 78 7h ch 7h 1h 5h 14 25 25 2h 8h 8h 42v2 4h 48 4h 38 36 3h 1h 61v5 6h 2h 2h 1h "
        "1h 1h 1h 1h 61 6h 6h bh 7h 5h 5h ah 8h 8h 8h dh 1h"),
}


def board(columns, cells=(), foundations=(0, 0, 0, 0), rules: Rules = FREECELL) -> Position:
    """A (possibly partial) position from card text, padded to the rules' size."""
    cols = [tuple(parse_card(c) for c in col.split()) for col in columns]
    cols += [()] * (rules.columns - len(cols))
    cell_cards = [None if c == "-" else parse_card(c) for c in cells]
    cell_cards += [None] * (rules.cells - len(cell_cards))
    return Position(tuple(cols), tuple(cell_cards), tuple(foundations))


#: proof/checkpoint.c's header: magic (8 bytes), tag (32), the file's size (8), then the CRC-32
#: of what follows the header and then of the header itself with that field 0.
CHECKPOINT_CRC_AT = 8 + 32 + 8


def checkpoint_crc(data: bytes, header: int) -> int:
    """zlib's CRC-32 of checkpoint bytes ``data`` whose header is ``header`` bytes, as
    checkpoint.c takes it: the body, then the header with its CRC field 0."""
    at = CHECKPOINT_CRC_AT
    return zlib.crc32(data[header:] + data[:at] + bytes(4) + data[at + 4:header])


def checkpoint_header_size(data: bytes) -> int:
    """Where a checkpoint's keys begin: the header size whose CRC is the one it records."""
    crc = int.from_bytes(data[CHECKPOINT_CRC_AT:CHECKPOINT_CRC_AT + 4], "little")
    return next(k for k in range(CHECKPOINT_CRC_AT + 8, 256) if checkpoint_crc(data, k) == crc)


def with_checkpoint_crc(data: bytes, header: int) -> bytes:
    """Checkpoint bytes ``data`` with their CRC set anew for what they hold now."""
    at = CHECKPOINT_CRC_AT
    return data[:at] + checkpoint_crc(data, header).to_bytes(4, "little") + data[at + 4:]


def plain_key(pos: Position) -> tuple:
    """The position up to the order of its columns and of its cells, which no rule depends on."""
    return tuple(sorted(pos.columns)), tuple(sorted(c for c in pos.cells if c is not None)), pos.foundations


def plain_winnable(start: Position, rules: Rules, room: int) -> Optional[bool]:
    """Whether some sequence of the rules engine's legal moves wins from ``start``, by the
    plainest search there is (depth first, no autoplay, no reduction but plain_key), or
    None once it would store more than ``room`` positions."""
    seen, todo = {plain_key(start)}, [start]
    while todo:
        pos = todo.pop()
        if pos.is_won:
            return True
        for move in legal_moves(pos, rules):
            child = apply(pos, move, rules)
            if child.is_won:
                return True
            if plain_key(child) not in seen:
                if len(seen) >= room:
                    return None
                seen.add(plain_key(child))
                todo.append(child)
    return False


#: Every preset with and without foundation return, and rule sets made up field by field.
RULE_SETS = st.one_of(
    st.builds(lambda name, back: PRESETS[name].replace(foundation_return=back),
              st.sampled_from(sorted(PRESETS)), st.booleans()),
    st.builds(Rules, cells=st.integers(0, 10), columns=st.integers(4, 10),
              build=st.sampled_from(["alternate", "suit", "any"]),
              empty_fill=st.sampled_from(["any", "kings", "none"]),
              sequence=st.sampled_from(["limited", "unlimited", "single"]),
              foundation_return=st.booleans()),
)


@st.composite
def positions(draw, rules: Rules) -> Position:
    """Any arrangement of the 52 cards: some home, the rest spread over the cells and columns."""
    foundations = tuple(draw(st.integers(0, 13)) for _ in range(4))
    rest = [card for card in range(DECK_SIZE) if card // 4 + 1 > foundations[card % 4]]
    rest = draw(st.permutations(rest))
    cell_count = draw(st.integers(0, min(rules.cells, len(rest))))
    slots = draw(st.permutations(range(rules.cells)))[:cell_count]
    cells = [None] * rules.cells
    for slot, card in zip(slots, rest):
        cells[slot] = card
    rest = rest[cell_count:]
    cuts = sorted(draw(st.lists(st.integers(0, len(rest)), min_size=rules.columns - 1,
                                max_size=rules.columns - 1)))
    bounds = [0] + cuts + [len(rest)]
    columns = tuple(tuple(rest[a:b]) for a, b in zip(bounds, bounds[1:]))
    return Position(columns, tuple(cells), foundations)


# --- golden counts --------------------------------------------------------------------------

#: Positions fixed solves store, by phase (tests/golden_counts.json): they move with any
#: tuning of the search, and this file is the one place that says what they are now.
GOLDEN: Dict[str, Dict[str, Any]] = json.loads((TESTS / "golden_counts.json").read_text())["solves"]


#: The phases of a solve that make up its searches (solve(phases=(SEARCH,))); the rest of
#: COUNTED_PHASES is its proof.
SEARCH_PHASES = ("greedy_tries", "complete_search", "interlude", "last_try")


def golden_states(solve: str, *phases: str) -> int:
    """The positions ``solve`` stores in ``phases`` (in all of them when none are named)."""
    counts = GOLDEN[solve]["states"]
    return sum(counts.get(phase, 0) for phase in phases or counts)


def golden_phases(solve: str) -> Dict[str, int]:
    """The positions ``solve`` stores in each phase of COUNTED_PHASES, as Result.phase_counts has them."""
    return {phase: GOLDEN[solve]["states"].get(phase, 0) for phase in COUNTED_PHASES}


def phase_states(result: Any) -> Dict[str, int]:
    """``result.phase_counts`` as positions by phase, to compare with :func:`golden_phases`."""
    return {phase: count.states for phase, count in result.phase_counts.items()}


def golden_expanded(solve: str) -> int:
    """The positions ``solve`` expands, all phases together."""
    return GOLDEN[solve]["expanded"]


def kill_mid_proof(saved: Path, number: int, rules: str, room: int,
                   phases: Tuple[str, ...] = ("search", "proof"), threads: int = 1) -> None:
    """Solve ``number`` in another process under ``rules`` (a ``preset(...)`` expression) with
    ``Limits(max_states=room)``, saving checkpoints at ``saved`` every 50 ms, and kill it well
    into the layered proof (its checkpoint past a megabyte)."""
    code = ("from fcsurvey.limits import Limits; from fcsurvey.rules import preset; "
            "from fcsurvey.solver import solve; "
            f"solve({number}, {rules}, Limits(max_states={room}), checkpoints={str(saved.parent)!r}, "
            f"checkpoint_every=0.05, phases={tuple(phases)!r}, threads={threads})")
    kill_once_saved([sys.executable, "-c", code], saved)


#: A checkpoint this big is from well into a layered proof (1706's grow past 2 MB and shrink
#: again at its end; waiting for a megabyte, a loaded machine once let the proof finish first).
MID_PROOF_BYTES = 250_000


def kill_once_saved(command: Sequence[str], saved: Path) -> None:
    """Run ``command`` (a proof saving checkpoints at ``saved`` every 50 ms) and kill it well
    into the layered proof (its checkpoint past MID_PROOF_BYTES)."""
    proc = subprocess.Popen(list(command))
    deadline = time.monotonic() + 60
    while not (saved.exists() and saved.stat().st_size > MID_PROOF_BYTES):
        assert proc.poll() is None and time.monotonic() < deadline, "no checkpoint while it ran"
        time.sleep(0.005)
    proc.kill()
    proc.wait()
