"""Proof benchmark: what fcsurvey's hardest proofs cost, beside fc-solve's exhaustive search.

Run from a checkout with the package installed (Issue 25, item 5):

    python scripts/bench_proof.py                        # every part, no cap (hours)
    python scripts/bench_proof.py --part c               # intractable 4-cell deal 1252215044
    python scripts/bench_proof.py --part a b --cap-s 300 # the positions/s of the 2- and 1-cell proofs
    python scripts/bench_proof.py --part e --fc-caps 100000 1000000
    python scripts/bench_proof.py --deal 11982 --deals 1-20 --cap-s 60   # a quick look
    python scripts/bench_proof.py --part a --cap-s 120 --threads 2       # 1 and 2 threads side by side

It prints two lines per part, from one run on this machine: the verdict, then wall
and CPU time, positions, positions per wall second, peak RSS, peak disk and the load
average at the part's start and end (the CPU seconds say what the load took away):

  (a) 2-cell deal 982, (b) 1-cell deal 24966, (c) 4-cell deal 1252215044 (one of the
      nine "intractable" FreeCell Pro deals): each ``fcsurvey solve DEAL --cells K
      --json`` as a subprocess at the default limits, so the figures are the CLI's.
      Wall time, positions (the result's ``states``), positions/s, the peak RSS of the
      process (its VmHWM, sampled) and the peak disk used by the layered proof's spill file.
      With ``--threads N`` (N > 1) the deal's layered proof also runs alone (from the
      start, ``solve(..., phases=("proof",), threads=T)``, stopped at the cap), on one
      thread and then on N; its positions are those it expanded, and a last line gives
      the ratio of their positions per wall second and the CPU seconds each run got per
      wall second (what the machine's other load left it).
  (d) 2-cell deals 1-1000 as ``fcsurvey survey 1-1000 --cells 2 --workers 2 --out
      TMP``: wall time, positions summed over the dataset, the deals left undecided
      (status unknown or error, or not reached), the peak RSS of its largest process
      and of all its processes together (sampled), and peak disk (dataset, proof
      checkpoints and spill files).
  (e) when fc-solve is installed (Debian's freecell-solver-bin), its exhaustive
      single-card search of the same 2-cell deals at each per-deal cap of
      ``--fc-caps``: ``freecell-solver-range-parallel-solve FIRST LAST 1
      --freecells-num 2 --method soft-dfs -to 01ABCDE --max-iters CAP`` (one process).
      Test order 01ABCDE holds only fc-solve's single-card moves (to the foundations
      from a column or a cell; column to empty column, to a parent, to a cell; cell to
      a parent, to an empty column), and a soft-DFS scan keeps every position it
      has seen, so it reports a deal "Unsolved" only after it exhausted the deal's
      graph and "Intractable" when the cap stopped it: the intractable deals are the
      undecided ones.

Each part runs with a TMPDIR of its own (where the core's spill file goes: it is
unlinked as soon as it is made, so disk is measured from the open files of the
part's processes, ``/proc/PID/fd``, plus what the part's directories hold, sampled
every ``SAMPLE_EVERY_S``).  ``--cap-s`` bounds each part's wall clock: the solve is
given it as ``--timeout`` (the core stops and reports its positions so far: the
layered proof counts a part of a layer when it finishes it, so a floor), a survey
or fc-solve is stopped at it; such a part reports "not finished after X".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from fcsurvey import store
from fcsurvey.schema import SOLVED, UNSOLVABLE

#: The limit a solve stopped by --timeout names.
TIME_LIMIT = "time"

FC_SOLVE_RANGE = "freecell-solver-range-parallel-solve"
#: fc-solve's single-card moves, in its test-order letters (see the module docstring).
FC_SOLVE_ATOMIC_ORDER = "01ABCDE"
#: The proofs of parts a-c: part -> (deal, free cells).
PROOFS: Dict[str, Tuple[int, int]] = {"a": (982, 2), "b": (24966, 1), "c": (1252215044, 4)}
SURVEY_CELLS = 2
SURVEY_WORKERS = 2
DEFAULT_DEALS = "1-1000"
DEFAULT_FC_CAPS = (100_000, 1_000_000)
#: No cap unless asked: a week.
DEFAULT_CAP_S = 7 * 24 * 3600.0
SAMPLE_EVERY_S = 0.2
#: How long a solve given --timeout may run past it before it is killed.
GRACE_S = 60.0
PARTS = ("a", "b", "c", "d", "e")


@dataclass
class Usage:
    """What a part's processes used: the peaks the sampler saw, the wall time, the exit."""

    wall_s: float = 0.0
    cpu_s: float = 0.0  # user + system seconds of the part's processes (os.wait4)
    peak_rss: int = 0  # bytes, the largest process's high-water mark (VmHWM), sampled
    peak_tree_rss: int = 0  # bytes, all the part's processes together, sampled
    peak_disk: int = 0  # bytes
    returncode: Optional[int] = None
    stopped: bool = False  # stopped at the cap
    stdout: str = ""


@dataclass
class Line:
    """One part's figures, as printed."""

    part: str
    what: str
    usage: Usage
    positions: Optional[int] = None
    verdict: str = ""
    extra: List[str] = field(default_factory=list)


def mib(n: int) -> str:
    """Bytes in MiB; "-" for none seen (a process that ended before its first sample)."""
    if not n:
        return "-"
    return f"{n / 2**20:,.0f} MiB" if n >= 10 * 2**20 else f"{n / 2**20:.2f} MiB"


def load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _children(pid: int) -> List[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def _tree(pid: int) -> List[int]:
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(_children(p))
    return found


def _memory(pid: int) -> Tuple[int, int]:
    """The process's resident bytes now and at their highest (VmRSS, VmHWM), or zeros."""
    found = {"VmRSS:": 0, "VmHWM:": 0}
    try:
        with open(f"/proc/{pid}/status") as f:
            for text in f:
                words = text.split()
                if words and words[0] in found:
                    found[words[0]] = int(words[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return found["VmRSS:"], found["VmHWM:"]


def _open_files_under(pid: int, roots: Sequence[str]) -> Dict[Tuple[int, int], int]:
    """Bytes on disk of the files the process holds open under roots, by (device, inode)."""
    held: Dict[Tuple[int, int], int] = {}
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return held
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if not any(target.startswith(r) for r in roots):
                continue
            st = os.stat(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        held[(st.st_dev, st.st_ino)] = st.st_blocks * 512
    return held


def _files_under(roots: Sequence[str]) -> Dict[Tuple[int, int], int]:
    found: Dict[Tuple[int, int], int] = {}
    for root in roots:
        for d, _, names in os.walk(root):
            for name in names:
                try:
                    st = os.lstat(os.path.join(d, name))
                except OSError:
                    continue
                found[(st.st_dev, st.st_ino)] = st.st_blocks * 512
    return found


def run_measured(cmd: Sequence[str], roots: Sequence[str], cap_s: float, env: Dict[str, str]) -> Usage:
    """Run cmd, sampling its processes' RSS and the disk under roots, stopped at cap_s.

    Disk counts the files under roots and the (unlinked) files the processes hold open
    there, each once.  Stopping sends SIGINT (a survey keeps its finished chunks), then
    SIGKILL after GRACE_S.
    """
    usage = Usage()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                            text=True, start_new_session=True)
    done = threading.Event()
    out: List[str] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)
    reader.start()

    def sample() -> None:
        while not done.is_set():
            pids = _tree(proc.pid)
            memory = [_memory(p) for p in pids]
            usage.peak_tree_rss = max(usage.peak_tree_rss, sum(now for now, _ in memory))
            usage.peak_rss = max([usage.peak_rss] + [high for _, high in memory])
            disk = _files_under(roots)
            for p in pids:
                disk.update(_open_files_under(p, roots))
            usage.peak_disk = max(usage.peak_disk, sum(disk.values()))
            done.wait(SAMPLE_EVERY_S)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()

    def stop() -> None:
        usage.stopped = True
        for sig, wait in ((signal.SIGINT, GRACE_S), (signal.SIGKILL, 0)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                return
            if done.wait(wait):
                return

    timer = threading.Timer(cap_s, stop)
    timer.daemon = True
    timer.start()
    _, status, rusage = os.wait4(proc.pid, 0)
    usage.returncode = proc.returncode = os.waitstatus_to_exitcode(status)
    usage.cpu_s = rusage.ru_utime + rusage.ru_stime
    usage.wall_s = time.perf_counter() - start
    done.set()
    timer.cancel()
    sampler.join()
    reader.join()
    usage.stdout = out[0] if out else ""
    return usage


def fcsurvey_command() -> List[str]:
    return [sys.executable, "-m", "fcsurvey"]


def own_tmpdir(base: Path, part: str) -> Tuple[str, Dict[str, str]]:
    tmp = base / f"part-{part}"
    tmp.mkdir()
    return str(tmp), {**os.environ, "TMPDIR": str(tmp)}


def read_result(line: Line, cap_s: float, count: str) -> Optional[dict]:
    """The solve's JSON result from ``line``'s output, with its verdict and its ``count``
    (``states`` or ``expanded``) put on the line; None when it printed none."""
    try:
        result = json.loads(line.usage.stdout)
    except ValueError:
        line.verdict = f"no result (exit {line.usage.returncode})"
        return None
    line.positions = result[count]
    line.verdict = result["status"] + (f" ({result['limit']} limit)" if result.get("limit") else "")
    if result.get("limit") == TIME_LIMIT:
        line.verdict = f"not finished after {cap_s:g} s ({line.verdict})"
    return result


def run_proof(part: str, deal: int, cells: int, cap_s: float, base: Path) -> Line:
    """Part a, b or c: ``fcsurvey solve DEAL --cells K --json`` with --timeout cap_s."""
    tmp, env = own_tmpdir(base, part)
    cmd = fcsurvey_command() + ["solve", str(deal), "--cells", str(cells), "--json", "--timeout", f"{cap_s:g}"]
    usage = run_measured(cmd, [tmp], cap_s + GRACE_S, env)
    line = Line(part, f"{cells}-cell deal {deal}", usage)
    result = read_result(line, cap_s, "states")
    if result is None:
        return line
    proof = result.get("phase_counts", {}).get("layered_proof")
    if proof and proof["states"]:
        line.extra.append(f"layered proof {proof['states']:,} positions in {proof['time_s']:,.0f} s")
    return line


def parse_deals(text: str) -> Tuple[int, int]:
    first, _, last = text.partition("-")
    lo, hi = int(first), int(last or first)
    if not 1 <= lo <= hi:
        raise ValueError(text)
    return lo, hi


def run_survey(first: int, last: int, cap_s: float, base: Path) -> Line:
    """Part d: ``fcsurvey survey FIRST-LAST --cells 2 --workers 2 --out TMP``, stopped at cap_s."""
    tmp, env = own_tmpdir(base, "d")
    out = Path(tmp) / "survey"
    cmd = fcsurvey_command() + ["survey", f"{first}-{last}", "--cells", str(SURVEY_CELLS),
                                "--workers", str(SURVEY_WORKERS), "--out", str(out)]
    usage = run_measured(cmd, [tmp], cap_s, env)
    line = Line("d", f"{SURVEY_CELLS}-cell deals {first}-{last}, survey, {SURVEY_WORKERS} workers", usage)
    try:
        table = store.read(out, columns=["deal", "status", "states"]).to_pydict()
    except Exception as exc:  # no chunk written before the cap, or a broken run
        line.verdict = f"no dataset ({type(exc).__name__}; exit {usage.returncode})"
        return line
    statuses = table["status"]
    decided = sum(s in (SOLVED, UNSOLVABLE) for s in statuses)
    undecided = (last - first + 1) - decided
    line.positions = sum(table["states"])
    line.verdict = (f"{undecided} undecided ({statuses.count(UNSOLVABLE)} unsolvable, "
                    f"{statuses.count(SOLVED)} solved, {len(statuses)} of {last - first + 1} written)")
    if usage.stopped:
        line.verdict = f"not finished after {cap_s:g} s: {line.verdict}"
    line.extra.append(f"all processes {mib(usage.peak_tree_rss)}")
    return line


FC_LINE = re.compile(r"^(Intractable|Unsolved|Reached) Board No\. (\d+) at \S+(?: \(total_num_iters=(\d+)\))?")


def run_fc_solve(first: int, last: int, cap: int, cap_s: float, base: Path) -> Line:
    """Part e at one per-deal cap: fc-solve's exhaustive single-card scan, one process."""
    tmp, env = own_tmpdir(base, f"e-{cap}")
    cmd = [FC_SOLVE_RANGE, str(first), str(last), "1", "--freecells-num", str(SURVEY_CELLS),
           "--method", "soft-dfs", "-to", FC_SOLVE_ATOMIC_ORDER, "--max-iters", str(cap)]
    usage = run_measured(cmd, [tmp], cap_s, env)
    line = Line("e", f"fc-solve {first}-{last}, 2 cells, atomic, --max-iters {cap:,}", usage)
    intractable, unsolved, reached, iters = set(), set(), set(), 0
    for text in usage.stdout.splitlines():
        m = FC_LINE.match(text)
        if not m:
            continue
        deal = int(m.group(2))
        {"Intractable": intractable, "Unsolved": unsolved, "Reached": reached}[m.group(1)].add(deal)
        if m.group(3):
            iters = int(m.group(3))
    done = len(reached)
    undecided = len(intractable) + (last - first + 1 - done)
    line.positions = iters
    line.verdict = (f"{undecided} undecided ({len(intractable)} at the cap, {len(unsolved)} unsolvable, "
                    f"{done - len(intractable) - len(unsolved)} solved)")
    if usage.stopped:
        line.verdict = f"not finished after {cap_s:g} s ({done} deals done): {line.verdict}"
    if intractable and len(intractable) <= 20:
        line.extra.append("at the cap: " + ",".join(map(str, sorted(intractable))))
    return line


#: The layered proof alone, from the deal's start (solve(..., phases=("proof",))), as JSON.
PROOF_ALONE = ("import json, sys; from fcsurvey.limits import Limits; from fcsurvey.rules import preset; "
               "from fcsurvey.solver import solve; deal, cells, cap, threads = sys.argv[1:]; "
               "r = solve(int(deal), preset('freecell', cells=int(cells)), Limits(timeout=float(cap)), "
               "phases=('proof',), threads=int(threads)); print(json.dumps(r.to_dict()))")


def run_proof_alone(part: str, deal: int, cells: int, cap_s: float, base: Path, threads: int) -> Line:
    """The layered proof of part a, b or c alone, on ``threads`` threads, stopped at cap_s: its
    positions are those it expanded (it counts the positions it visited only part by part)."""
    tmp, env = own_tmpdir(base, f"{part}-proof-{threads}")
    cmd = [sys.executable, "-c", PROOF_ALONE, str(deal), str(cells), f"{cap_s:g}", str(threads)]
    usage = run_measured(cmd, [tmp], cap_s + GRACE_S, env)
    line = Line(part, f"{cells}-cell deal {deal}, layered proof alone, {threads} thread{'s' * (threads > 1)}", usage)
    if read_result(line, cap_s, "expanded") is not None and line.verdict.startswith("not finished"):
        line.verdict += "; positions: expanded"
    return line


def print_speedup(one: Line, many: Line, threads: int) -> None:
    """The layered proof's positions per wall second on ``threads`` threads against one, and
    the CPU seconds each run got per wall second (what the machine's other load left it)."""
    u1, un = one.usage, many.usage
    if one.positions and many.positions and u1.wall_s and un.wall_s:
        ratio = many.positions / un.wall_s / (one.positions / u1.wall_s)
        print(f"    {threads} threads against 1: positions/s x{ratio:.2f}; "
              f"CPU seconds per wall second {u1.cpu_s / u1.wall_s:.2f} and {un.cpu_s / un.wall_s:.2f}", flush=True)


def print_line(line: Line, load_before: str) -> None:
    u = line.usage
    rate = f"{line.positions / u.wall_s:,.0f}/s" if line.positions and u.wall_s else "-"
    positions = f"{line.positions:,}" if line.positions is not None else "-"
    extra = "; ".join(line.extra)
    print(f"({line.part}) {line.what}: {line.verdict}\n"
          f"    wall {u.wall_s:,.1f} s | cpu {u.cpu_s:,.1f} s | positions {positions} | {rate} | peak RSS {mib(u.peak_rss)} | "
          f"peak disk {mib(u.peak_disk)} | load {load_before} -> {load()}" + (f" | {extra}" if extra else ""),
          flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", nargs="+", choices=PARTS, default=list(PARTS), help="parts to run (all)")
    parser.add_argument("--cap-s", type=float, default=DEFAULT_CAP_S,
                        help="wall-clock cap per part (per cap for e), seconds")
    parser.add_argument("--deal", type=int, default=None,
                        help="solve this deal in parts a-c instead of theirs (each with its cells)")
    parser.add_argument("--deals", default=DEFAULT_DEALS, help="2-cell deals of parts d and e (1-1000)")
    parser.add_argument("--fc-caps", type=int, nargs="+", default=list(DEFAULT_FC_CAPS),
                        help="fc-solve's per-deal --max-iters caps for part e")
    parser.add_argument("--threads", type=int, default=1,
                        help="also run the proofs of parts a-c on this many threads, beside one (1)")
    args = parser.parse_args()
    try:
        first, last = parse_deals(args.deals)
    except ValueError:
        parser.error(f"--deals wants FIRST-LAST with 1 <= FIRST <= LAST, not {args.deals!r}")
    if args.cap_s <= 0 or (args.deal is not None and args.deal < 1) or min(args.fc_caps) < 1 or args.threads < 1:
        parser.error("--cap-s, --deal, --fc-caps and --threads must be positive")

    print(f"proof benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"cap {args.cap_s:g} s per part", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-proof-") as scratch:
        base = Path(scratch)
        for part in PARTS:
            if part not in args.part:
                continue
            before = load()
            if part in PROOFS:
                deal, cells = PROOFS[part]
                print_line(run_proof(part, args.deal or deal, cells, args.cap_s, base), before)
                if args.threads > 1:
                    runs = []
                    for threads in (1, args.threads):
                        before = load()
                        runs.append(run_proof_alone(part, args.deal or deal, cells, args.cap_s, base, threads))
                        print_line(runs[-1], before)
                    print_speedup(*runs, args.threads)
            elif part == "d":
                print_line(run_survey(first, last, args.cap_s, base), before)
            elif shutil.which(FC_SOLVE_RANGE) is None:
                print(f"(e) fc-solve: {FC_SOLVE_RANGE} not installed (apt-get install freecell-solver-bin)")
            else:
                for cap in args.fc_caps:
                    before = load()
                    print_line(run_fc_solve(first, last, cap, args.cap_s, base), before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
