"""How much a layered proof needs: positions per layer, the most held at once, peak memory.

The survey's layered proof may hold 4 x ``--max-states`` positions at once
(fcsurvey/_core/tuning.h, PROOF_ROOM).  To see what a deal's proof would need
without that bound, this builds the C core as a standalone program whose room
is an argument and which prints a line per finished layer, and runs one deal
(the build is kept in $TMPDIR, named by a digest of the sources, and reused).  A
layer is named broken/home: out-of-order pairs the position has broken, and
cards on the foundations (proof/proof.c, proof_layer_of).

    python scripts/measure_proof.py 18032 --cells 1                  # room 1,000 x 1,000,000
    python scripts/measure_proof.py 982 --cells 2 --room-factor 500  # at most 500 million held

The complete search runs first with ``--max-states`` (default 1,000,000, so it
is over quickly); the proof then gets ``--room-factor`` times that, and when it
fills, sends the layers waiting their turn to a temporary file in $TMPDIR, up
to ``--disk-factor`` times the room in keys (tuning.h's PROOF_DISK unless told).  Needs
a C compiler (``cc``).  Memory: about 20 bytes a position held, so size the
room to the machine.  Prints each layer as it finishes (what it visited, the
most held at once and how much of that waited in higher layers, the positions
visited and keys written to disk so far), then the verdict, the total
positions, the most the proof held at once, the time and the peak resident
memory.  ``--check-back`` also makes and looks up every move the proof leaves out as the
move back to a position's parent (proof/proof.c, proof_expand) and prints how many there
were and how many were not in the part: none should be.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fcsurvey.dealset import MAX_DEAL
from fcsurvey.rules import MAX_CELLS
from fcsurvey.schema import CORE_LIMIT_NAMES

CORE = Path(__file__).resolve().parent.parent / "fcsurvey" / "_core"
#: Every source of the core but its Python binding.
SOURCES = tuple(sorted(str(p.relative_to(CORE)) for p in [*CORE.glob("*.c"), *CORE.glob("proof/*.c")]
                       if p.name != "module.c"))
STATUS = ("solved", "unsolvable", "unknown")
LIMIT = (None,) + CORE_LIMIT_NAMES  # by the core's FCS_LIMIT_ numbers
HELD = re.compile(r"most held at once: (\d+)")

MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deal.h"
#include "search.h"

uint64_t measure_room, measure_disk; /* PROOF_ROOM and PROOF_DISK (measure.h) */

int main(int argc, char **argv)
{
    fcs_rules rules = {0, 8, BUILD_ALTERNATE, FILL_ANY, SEQ_LIMITED, 0};
    fcs_limits limits;
    fcs_result res;
    fcs_pos start;
    uint8_t deck[FCS_DECK_SIZE];
    int k;
    if (argc != 6 || fcs_shuffled_deck(strtoull(argv[1], NULL, 10), deck) != 0)
        return 2;
    measure_room = strtoull(argv[4], NULL, 10);
    measure_disk = strtoull(argv[5], NULL, 10);
    rules.cells = atoi(argv[2]);
    memset(&limits, 0, sizeof(limits));
    limits.max_states = strtoull(argv[3], NULL, 10);
    memset(&start, 0, sizeof(start));
    for (k = 0; k < FCS_DECK_SIZE; k++)
        start.col[k % 8][start.len[k % 8]++] = (uint8_t)(deck[k] + 1);
    fcs_solve(&rules, &start, &limits, &res);
    printf("%d %d %llu\n", res.status, res.limit, (unsigned long long)res.states);
    free(res.solution);
    return 0;
}
"""
#: Force-included in every file of the build, so that the proof's room and disk share, which
#: the shipped core has as constants (tuning.h), are the program's arguments instead: one build
#: serves every room.
MEASURE_H = "#include <stdint.h>\nextern uint64_t measure_room, measure_disk;\n"
#: The shipped keys-on-disk factor, the default of --disk-factor.
SHIPPED_DISK = int(re.search(r"#define PROOF_DISK (\d+)", (CORE / "tuning.h").read_text()).group(1))


def build(check_back: bool = False) -> Path:
    """The core compiled with its layer trace on (and, with ``check_back``, its check of the
    moves back it leaves out), kept in the temporary directory under a digest of its sources
    and flags, so the runs after the first (the tests make a dozen) do not compile again."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        sys.exit("Error: no C compiler (cc) found")
    flags = ["-O2", "-pthread", "-DPROOF_ROOM=measure_room", "-DPROOF_DISK=measure_disk", "-DFCS_PROOF_TRACE",
             *(["-DFCS_PROOF_CHECK_BACK"] if check_back else [])]
    digest = hashlib.sha256("\0".join([compiler, *flags, MAIN, MEASURE_H]).encode())
    for source in sorted([*CORE.glob("*.[ch]"), *CORE.glob("proof/*.[ch]")]):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    program = Path(tempfile.gettempdir()) / f"fcsurvey-measure-proof-{digest.hexdigest()[:16]}"
    if program.exists():
        return program
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "main.c").write_text(MAIN)
        (work / "measure.h").write_text(MEASURE_H)
        subprocess.run([compiler, *flags, "-include", str(work / "measure.h"), f"-I{CORE}", "-o", str(work / "program"),
                        str(work / "main.c"), *(str(CORE / s) for s in SOURCES), "-lm"], check=True)
        os.replace(work / "program", program)  # whole or not at all, should two runs build at once
    return program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("deal", type=int, help="Microsoft deal number")
    parser.add_argument("--cells", type=int, default=1, help="free cells (default 1)")
    parser.add_argument("--max-states", type=int, default=1_000_000,
                        help="the complete search's limit (default 1,000,000)")
    parser.add_argument("--room-factor", type=int, default=1000,
                        help="positions the proof may hold, per --max-states (default 1000)")
    parser.add_argument("--disk-factor", type=int,
                        help="keys the proof may write to disk, per position of room (default: the shipped PROOF_DISK)")
    parser.add_argument("--check-back", action="store_true",
                        help="make and look up every move back the proof leaves out, and print how many "
                             "were not in the part (there should be none)")
    args = parser.parse_args()
    if not 1 <= args.deal <= MAX_DEAL:
        parser.error(f"deal {args.deal} is outside 1-{MAX_DEAL}")
    if not 0 <= args.cells <= MAX_CELLS:
        parser.error(f"--cells {args.cells} is outside 0-{MAX_CELLS}")
    if args.max_states < 1 or args.room_factor < 1 or (args.disk_factor is not None and args.disk_factor < 1):
        parser.error("--max-states, --room-factor and --disk-factor must be at least 1")
    program = build(args.check_back)
    disk = SHIPPED_DISK if args.disk_factor is None else args.disk_factor
    started = time.perf_counter()
    with subprocess.Popen([str(program), str(args.deal), str(args.cells), str(args.max_states),
                           str(args.room_factor), str(disk)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as run:
        held = 0
        for line in run.stderr:
            sys.stderr.write(line)
            found = HELD.search(line)
            held = max(held, int(found.group(1))) if found else held
        out = run.stdout.read()
        # The program's own peak, not the compiler's (RUSAGE_CHILDREN would count both).
        _, status, usage = os.wait4(run.pid, 0)
        run.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - started
    if run.returncode != 0:
        sys.exit(f"Error: the measurement program failed (exit {run.returncode})")
    status, limit, states = (int(v) for v in out.split())
    peak_kib = usage.ru_maxrss
    verdict = STATUS[status] + (f" ({LIMIT[limit]} limit)" if LIMIT[limit] else "")
    cells = f"{args.cells} cell{'' if args.cells == 1 else 's'}"
    print(f"deal {args.deal} with {cells}: {verdict}; {states:,} positions in all phases; "
          f"most held at once {held:,}; {elapsed:.0f} s; peak RSS {peak_kib / 2**20:.2f} GiB")


if __name__ == "__main__":
    main()
