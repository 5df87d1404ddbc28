"""Give a ``--difficulty`` dataset made before the bands its ``kings_won`` column.

    python scripts/fill_kings_won.py results/ms-freecell-1-32000 --max-states 300000 \\
        --answers kings.tsv --workers 2

A survey made with ``--difficulty`` today asks every deal with a proved ``min_cells`` of 2
whether two cells still win with kings-only empty columns (fcsurvey/difficulty.py,
``kings_won``), and the bands (fcsurvey/bands.py) need the answer.  A dataset made before
lacks the column and reads with it null, so its 2-cell deals are ``unrated``.  This asks
them, exactly as a survey does (the same function, with ``--max-states``, by default the
dataset's own limit), and writes the answers into the dataset's files in place (store.py,
``fill_later_column``): every other column and all the files' metadata stay as they were.

Each answer is appended to ``--answers`` (deal, answer, status, positions, solver seconds,
CPU seconds; tab-separated) as it comes, so a killed run goes on where it stopped: a deal
listed there is not asked again, whatever its answer.  Answers made under other limits
(an earlier run's) are used as they are: a verdict either way is a proof whatever the
limit.  Prints the counts, the undecided deals and the CPU time.
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Dict, Optional, Tuple

from fcsurvey import store
from fcsurvey.bands import KINGS_SPLIT_CELLS
from fcsurvey.difficulty import MinCells, kings_won
from fcsurvey.limits import Limits
from fcsurvey.rules import Rules

#: One answer as the answers file holds it: answer, status, positions, solver s, CPU s.
Answer = Tuple[Optional[bool], str, int, float, float]
ANSWERS = {"True": True, "False": False, "None": None}


def ask(job: Tuple[int, Rules, Limits]) -> Tuple[int, Answer]:
    """kings_won of one deal whose min_cells of KINGS_SPLIT_CELLS is proved."""
    deal, rules, limits = job
    started = time.process_time()
    found = kings_won(deal, rules, MinCells(KINGS_SPLIT_CELLS, True, None, None, {}, 0.0), limits)
    verdict = found.kings
    status, states, seconds = ((verdict.status, verdict.states, verdict.elapsed_s) if verdict
                               else ("solved", 0, 0.0))  # empty columns take kings only already
    return deal, (found.kings_won, status, states, seconds, time.process_time() - started)


def read_answers(path: Path) -> Dict[int, Answer]:
    """The answers file's answers by deal (none if it does not exist yet).  A last line
    without its newline was torn by a kill mid-write: it is cut off the file, so that its
    deal is asked again and the next answer is not appended onto it."""
    answers: Dict[int, Answer] = {}
    if path.exists():
        data = path.read_bytes()
        whole = data[:data.rfind(b"\n") + 1]
        if whole != data:
            with open(path, "r+b") as f:
                f.truncate(len(whole))
        for line in whole.decode().splitlines():
            deal, answer, status, states, seconds, cpu = line.split("\t")
            answers[int(deal)] = (ANSWERS[answer], status, int(states), float(seconds), float(cpu))
    return answers


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--max-states", type=int, help="positions each answer may store (default: the dataset's)")
    parser.add_argument("--answers", type=Path, required=True, help="the answers file, appended to as they come")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    manifest = store.read_manifest(args.dataset)
    if not store.is_difficulty(manifest):
        print(f"Error: {args.dataset} was not surveyed with --difficulty", file=sys.stderr)
        return 2
    rules = Rules.from_dict(manifest["rules"])
    limits = Limits(max_states=args.max_states or manifest["limits"]["max_states"])
    rows = store.read(args.dataset, columns=["deal", "min_cells", "min_cells_exact", "kings_won"]).to_pylist()
    asked = [r["deal"] for r in rows if r["min_cells"] == KINGS_SPLIT_CELLS and r["min_cells_exact"]
             and r["kings_won"] is None]
    answers = read_answers(args.answers)
    todo = [d for d in asked if d not in answers]
    print(f"{len(asked):,} deals to answer, {len(todo):,} not in {args.answers}; "
          f"{limits.max_states:,} positions each", flush=True)
    with open(args.answers, "a") as out, Pool(args.workers) as pool:
        jobs = [(d, rules, limits) for d in todo]
        for deal, answer in pool.imap_unordered(ask, jobs, chunksize=4):
            won, status, states, seconds, cpu = answer
            out.write(f"{deal}\t{won}\t{status}\t{states}\t{seconds:.4f}\t{cpu:.4f}\n")
            out.flush()
            answers[deal] = answer
    decided = {d: answers[d][0] for d in asked if answers[d][0] is not None}
    changed = store.fill_later_column(args.dataset, "kings_won", decided)
    undecided = sorted(d for d in asked if answers[d][0] is None)
    won = sum(decided.values())
    print(f"kings_won: {won:,} true, {len(decided) - won:,} false, {len(undecided):,} undecided; "
          f"{changed:,} rows written; {sum(answers[d][4] for d in asked):,.0f} CPU-seconds in all")
    if undecided:
        print("undecided: " + ",".join(map(str, undecided)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
