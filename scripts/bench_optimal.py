#!/usr/bin/env python
"""Benchmark ``--optimal`` side by side: two builds prove par for the same deals.

Run with two installed ``fcsurvey`` commands, the base build's and the new one's::

    python scripts/bench_optimal.py /work/venv-base/bin/fcsurvey /work/venv-new/bin/fcsurvey \\
        --deals 1-20 --max-states 20000000

For each deal it starts ``fcsurvey solve N --optimal --max-states CAP`` with both at once (one a
core) and reads, from the operating system, each process's CPU seconds (user + system) and peak
resident memory.  It prints a line a deal (par or ``-`` where not proved, CPU s, peak MB) and,
for each build, the deals proved, their mean par, the CPU seconds in all and the largest peak.
On a shared machine the wall clock says little; CPU seconds are the figures to compare.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from typing import List, NamedTuple, Optional

PAR = re.compile(r"^par: (\d+) ", re.MULTILINE)


class Run(NamedTuple):
    """One build's ``--optimal`` solve of one deal."""
    par: Optional[int]
    cpu_s: float
    peak_mb: float


def start(command: str, deal: int, max_states: int, timeout: Optional[float]) -> subprocess.Popen:
    """Start one solve; its output is read when it ends."""
    argv = [command, "solve", str(deal), "--optimal", "--max-states", str(max_states)]
    if timeout:
        argv += ["--timeout", str(timeout)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def finish(process: subprocess.Popen) -> Run:
    """Wait for a solve: its par, CPU seconds and peak memory (the kernel's figures)."""
    out = process.stdout.read()
    process.stdout.close()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{process.args} exited {process.returncode}")
    found = PAR.search(out)
    return Run(int(found.group(1)) if found else None, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def deal_range(text: str) -> List[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def summary(name: str, runs: List[Run]) -> str:
    proved = [r.par for r in runs if r.par is not None]
    mean = f"{sum(proved) / len(proved):.2f}" if proved else "-"
    return (f"{name}: {len(proved)} of {len(runs)} proved, mean par {mean}, "
            f"{sum(r.cpu_s for r in runs):.1f} CPU s, peak {max(r.peak_mb for r in runs):.0f} MB")


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the base build's fcsurvey command")
    parser.add_argument("new", help="the new build's fcsurvey command")
    parser.add_argument("--deals", type=deal_range, default=deal_range("1-20"), help="a range, e.g. 1-20")
    parser.add_argument("--max-states", type=int, default=20_000_000, help="each solve's --max-states")
    parser.add_argument("--timeout", type=float, help="each solve's --timeout in seconds")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that a kill ends the solves as well
    base_runs, new_runs = [], []
    print("deal  base: par CPU s MB  new: par CPU s MB", flush=True)
    for deal in args.deals:
        processes = [start(cmd, deal, args.max_states, args.timeout) for cmd in (args.base, args.new)]
        try:
            base, new = (finish(p) for p in processes)
        finally:  # interrupted: end the solves it started
            for process in processes:
                if process.returncode is None:
                    process.kill()
        base_runs.append(base)
        new_runs.append(new)
        print(f"{deal:4}  " + "  ".join(f"{r.par if r.par is not None else '-':>3} {r.cpu_s:6.1f} {r.peak_mb:5.0f}"
                                      for r in (base, new)), flush=True)
        if None not in (base.par, new.par) and base.par != new.par:
            raise SystemExit(f"deal {deal}: the builds disagree on par ({base.par} against {new.par})")
    print(summary("base", base_runs))
    print(summary("new", new_runs))


if __name__ == "__main__":
    main()
