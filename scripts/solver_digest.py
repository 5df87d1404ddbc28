"""One SHA-256 over the solver's exact behaviour on a fixed set of deals.

Run from a checkout with the package installed:

    python scripts/solver_digest.py             # the digest, and how long it took
    python scripts/solver_digest.py --list      # also each case's line, to diff two builds

A restructuring of the C core must leave the digest unchanged: it covers every verdict,
every position count and every solution text of 4 cells deals 1-8000, 3 cells 1-500,
2 cells 1-150, 0 cells 1-300, every variant preset on deals 1-100, 1-cell deal 1706 through
the layered proof (room for 50,000 positions) and again killed mid-proof and resumed from
its checkpoint (room for 10,000, so groups come back in slices), deal 11982 in Relaxed
FreeCell and with single-card moves, and foundation return on 11982 and 4266168.
New fields of a result (such as per-phase counts) stay out of it.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

from fcsurvey.deals import deal
from fcsurvey.engine import Position
from fcsurvey.limits import Limits
from fcsurvey.rules import PRESETS, Rules, preset
from fcsurvey.solver import checkpoint_path, solve

#: (deal, rules, room): None is the default limits.
Case = Tuple[int, Rules, Optional[int]]

#: The layered proof's deal, the room that sends it there, and the smaller room of the
#: checkpointed run (groups come back in slices).
PROOF_DEAL, PROOF_CELLS, PROOF_ROOM, SLICED_ROOM = 1706, 1, 50_000, 10_000


def cases() -> Iterator[Case]:
    """Every solve the digest covers, in a fixed order."""
    for cells, last in ((4, 8000), (3, 500), (2, 150), (0, 300)):
        rules = preset("freecell", cells=cells)
        for number in range(1, last + 1):
            yield number, rules, None
    for rules in PRESETS.values():
        for number in range(1, 101):
            yield number, rules, None
    yield PROOF_DEAL, preset("freecell", cells=PROOF_CELLS), PROOF_ROOM
    yield 11982, PRESETS["relaxed-freecell"], None
    yield 11982, preset("freecell", sequence="single"), None
    for number in (11982, 4266168):
        yield number, preset("freecell", foundation_return=True), None


def line(number: int, rules: Rules, result) -> str:
    """The digested fields of one solve, as one text line."""
    return repr((number, rules.to_json(), result.status, result.states, result.expanded, result.moves,
                 result.atomic_moves, result.solution))


def run_case(case: Case) -> str:
    number, rules, room = case
    limits = Limits() if room is None else Limits(max_states=room)
    return line(number, rules, solve(number, rules, limits, replay=False))


def resumed_case() -> str:
    """The layered proof killed once a checkpoint is on disk, then resumed from it."""
    rules, limits = preset("freecell", cells=PROOF_CELLS), Limits(max_states=SLICED_ROOM)
    with tempfile.TemporaryDirectory() as tmp:
        saved = checkpoint_path(Path(tmp), Position.from_deal(deal(PROOF_DEAL, rules)), rules)
        code = ("from fcsurvey.limits import Limits; from fcsurvey.rules import preset; "
                "from fcsurvey.solver import solve; "
                f"solve({PROOF_DEAL}, preset('freecell', cells={PROOF_CELLS}), "
                f"Limits(max_states={SLICED_ROOM}), checkpoints={tmp!r}, checkpoint_every=0.05)")
        proc = subprocess.Popen([sys.executable, "-c", code])
        while not (saved.exists() and saved.stat().st_size > 1_000_000):
            if proc.poll() is not None:
                raise SystemExit("the checkpointed proof ended before it saved a checkpoint")
            time.sleep(0.005)
        proc.kill()
        proc.wait()
        result = solve(PROOF_DEAL, rules, limits, replay=False, checkpoints=Path(tmp))
    if not result.resumed:
        raise SystemExit("the checkpointed proof did not resume")
    return "resumed " + line(PROOF_DEAL, rules, result)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print every case's line too")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    with multiprocessing.Pool(args.workers) as pool:
        lines: List[str] = pool.map(run_case, list(cases()), chunksize=50)
    lines.append(resumed_case())
    if args.list:
        print("\n".join(lines))
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    print(f"solver digest: {digest} ({len(lines)} solves, {time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
