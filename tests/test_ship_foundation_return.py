"""``scripts/ship_foundation_return.py``: a slice ships only when every deal below its bound
is decided in some source (else one ``Error:`` line, exit 2, nothing written), its dataset
requests exactly the slice's deals under the most room any source had, and its list says it
is a slice.  Sources are written directly with the store: no solving."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fcsurvey import known, store
from fcsurvey.dealset import DealSet
from fcsurvey.explore import FOUNDATION_RETURN
from fcsurvey.limits import Limits
from fcsurvey.schema import UNKNOWN, UNSOLVABLE

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "ship_foundation_return.py"
BELOW = 1_000_000
EIGHT = [n for n in known.IMPOSSIBLE_4_CELLS.numbers() if n < BELOW]  # all unsolvable with foundation return too


def source(path: Path, statuses: dict, limits: Limits = Limits()) -> Path:
    """A foundation-return dataset holding ``statuses`` (deal: status), no solutions needed."""
    deals = DealSet.from_sorted(sorted(statuses))
    dataset = store.Dataset.open(path, FOUNDATION_RETURN, limits, deals)
    dataset.write_chunk([{"deal": n, "status": s, "states": 1, "elapsed_ms": 1.0,
                          "limit": "time" if s == UNKNOWN else None} for n, s in sorted(statuses.items())], 0.0)
    dataset.close()
    return path


def ship(tmp_path: Path, *sources: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, sources), "--below", str(BELOW),
                           "--out", str(tmp_path / "out"), "--list", str(tmp_path / "list.txt")],
                          capture_output=True, text=True, timeout=60)


def test_a_slice_with_an_undecided_deal_is_refused(tmp_path):
    first = source(tmp_path / "p1", {n: UNKNOWN if n == EIGHT[3] else UNSOLVABLE for n in EIGHT})
    done = ship(tmp_path, first)
    assert done.returncode == 2 and done.stderr == f"Error: 1 of the 8 deals to ship are decided in no source: {EIGHT[3]}\n"
    assert not (tmp_path / "out").exists() and not (tmp_path / "list.txt").exists()


def test_a_slice_ships_once_a_later_pass_decides_the_rest(tmp_path):
    first = source(tmp_path / "p1", {n: UNKNOWN if n == EIGHT[3] else UNSOLVABLE for n in EIGHT},
                   Limits(timeout=300))
    later = source(tmp_path / "p3", {EIGHT[3]: UNSOLVABLE}, Limits(max_states=50_000_000))
    done = ship(tmp_path, first, later)
    assert done.returncode == 0, done.stderr
    manifest = store.read_manifest(tmp_path / "out")
    assert manifest["requested"] == [[n, n] for n in EIGHT]
    assert manifest["limits"] == {"max_states": 50_000_000, "timeout": None}
    rows = store.read(tmp_path / "out", columns=["deal", "status"]).to_pylist()
    assert [(r["deal"], r["status"]) for r in rows] == [(n, UNSOLVABLE) for n in EIGHT]
    text = (tmp_path / "list.txt").read_text()
    assert "0 of the 8 below 1,000,000 only (a slice" in text
    assert [line for line in text.splitlines() if not line.startswith("#")] == []
    assert "| 1,000,000 | 8 | 0 | 8 |" in done.stdout
