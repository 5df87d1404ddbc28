"""The threads offer: how a running layered proof learns it may use more (or fewer) threads.

A local survey whose queue of chunks is empty has idle workers while others are still in
long proofs; their cores are offered to those proofs (executors.LocalPool).  The offer is
a small file per worker holding a number of threads, rewritten whole (by a rename) when
the share changes.  The C core reads it at the proof's meetings between rounds, at most
every :data:`OFFER_EVERY_S`, so nothing is read per position; when it names another number
than the proof runs on, the proof saves a checkpoint and stops, and the solver
(solver.solve_position) resumes it at once on the number offered, with exactly the counts
and verdict of a proof run through (docs/solver.md, "Threads").

This module is what workers and the pool both import, so it stays light.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union

from .output import whole_file

#: A proof reads its offer at most this often: soon enough for a proof of hours, and
#: rare enough to cost nothing.
OFFER_EVERY_S = 1.0
#: A local worker's offer file, in its environment (set by executors.LocalPool).
OFFER_ENV = "FCSURVEY_THREADS_OFFER"


def write_offer(path: Union[str, Path], threads: int) -> None:
    """Offer ``threads`` through the file at ``path``, whole: a reader sees the old number
    or the new one, never part of either."""
    with whole_file(path, encoding="ascii") as f:
        f.write(f"{threads}\n")


def read_offer(path: Union[str, Path]) -> Optional[int]:
    """The threads the file at ``path`` offers, or None when it offers none (missing, or
    not a number)."""
    try:
        return int(Path(path).read_text(encoding="ascii"))
    except (OSError, ValueError):
        return None


def worker_offer() -> Optional[str]:
    """This process's offer file, when it is a local survey worker."""
    return os.environ.get(OFFER_ENV) or None
