"""The README's command examples run as written.

Every command in the README's ``sh`` code blocks, and every complete ``fcsurvey ...`` command
in its inline code, is accounted for here: run through the installed ``fcsurvey`` entry point
as written, run with a smaller range by an explicit row of :data:`SHORTENED`, run as a whole
block with the explicit substitutions of :data:`BLOCKS`, or listed in :data:`SKIPPED` or
:data:`NOT_EXAMPLES` with the reason.  A README command in none of them fails
:func:`test_every_readme_command_is_accounted_for`, so a new example gets its row, and a row
whose command left the README fails it too.

Commands run in a scratch directory holding a copy of the shipped datasets the README names,
so a command that writes (``fcsurvey verify`` caches its surveys under ``results/``) never
touches the checkout.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: The shipped datasets README commands read, copied into each scratch directory.
SHIPPED = ("results/freecell_1-32000", "results/ms-freecell-1-32000")
#: A command gets this long before the test gives up on it.
COMMAND_TIMEOUT_S = 120

#: README command -> the command run instead: the same command on a range small enough for a
#: test.  Deals 161-180 take about 0.1 s with ``--difficulty`` and hold two deals that need
#: 4 cells (169 and 178), so the export below has something to write.
SHORTENED: Dict[str, str] = {
    "fcsurvey survey 1-1000 --difficulty": "fcsurvey survey 161-180 --difficulty",
    'fcsurvey export results/freecell_difficulty_1-1000 --where "min_cells = 4" --out need-4-cells.json':
        'fcsurvey export results/freecell_difficulty_161-180 --where "min_cells = 4" --out need-4-cells.json',
    "fcsurvey report results/freecell_difficulty_1-1000 --out report/":
        "fcsurvey report results/freecell_difficulty_161-180 --out report/",
    "fcsurvey survey 1-32000 --difficulty --max-states 50000000 --workers 2":
        "fcsurvey survey 161-165 --difficulty --max-states 50000000 --workers 2",
    "fcsurvey survey 1-32000 --executor dask": "fcsurvey survey 1-40 --executor dask --workers 1",
    # the eight below 1,000,000, which the step before has in the cache already
    "fcsurvey verify --explore foundation-return --range 100M":
        "fcsurvey verify --explore foundation-return --range 1M",
}

#: README command -> why it is not run here.
SKIPPED: Dict[str, str] = {
    "fcsurvey survey 1-100000000 --no-solutions --executor dask --scheduler tcp://head:8786 "
    "--out /shared/fcsurvey/freecell_1-100000000":
        "needs a running Dask scheduler at tcp://head:8786 and storage shared by its workers "
        "(tests/test_dask.py runs the Dask backend on a local cluster)",
    "dask scheduler": "starts a Dask scheduler on a cluster's head host",
    "fcsurvey verify --explore foundation-return-5cells":
        "about 15 s of solving; tests/test_explore.py runs it (slow) and two of its deals (fast)",
    "dask worker tcp://head:8786 --nworkers 32 --nthreads 1": "starts Dask workers on a cluster's hosts",
    "fcsurvey verify --claim foundation-return-1-100000000":
        "fails as the README says (exit 1: 70 measured, 69 published); tests/test_foundation_return_shipped.py "
        "checks that verdict on the shipped slice",
    "fcsurvey verify --claim 4cells-1-10000000":
        "surveys 9,000,000 deals (1 h 21 min on 2 cores); tests/test_summaries_shipped.py checks the "
        "summary it shipped, and the verify tests run the same reuse-and-survey-the-rest on small claims",
    "fcsurvey survey 1-100 --optimal --max-states 150000000 --workers 2 --chunk-size 10":
        "made the shipped results/par-1-100 (24 min on 2 cores); tests/test_par_shipped.py checks it and "
        "tests/test_optimal.py runs --optimal surveys",
}

#: Text in the README that is not a command example to run: the set-up steps (what the
#: environment running this test already did) and commands named in prose.
NOT_EXAMPLES: Dict[str, str] = {
    "python3 -m venv .venv": "set-up: makes the virtual environment this test runs in",
    ". .venv/bin/activate": "set-up: activates it",
    "pip install .": "set-up: installs fcsurvey",
    'pip install -e ".[test,report,dask]"': "set-up: installs fcsurvey with the test extras",
    "pip install '.[dask]'": "set-up: installs the dask extra",
    "pytest": "runs the test suite, this test among them",
    "fcsurvey verify": "named in prose; its claims run below (--list, --claim, --explore)",
    "fcsurvey export": "named in prose; the export example runs below",
    "fcsurvey solve --show": "names the option in prose (its board is the notation)",
    "fcsurvey deal 1,2": "an input the README says is refused; tests/test_bad_input.py runs it",
}


@dataclass(frozen=True)
class Block:
    """A README code block run as a whole shell script, after explicit substitutions."""

    marker: str                              # text only this block of the README holds
    substitutions: Tuple[Tuple[str, str], ...]
    runs: Tuple[Dict[str, str], ...]         # the environment of each run, in order
    expected: Tuple[str, ...]                # text the runs' output must hold


#: The SLURM example: the job script run as two array tasks of 5 deals each, then the gather
#: block over the 10 deals.  ``$SHARED`` stands for the shared storage, a scratch directory.
BLOCKS: Dict[str, Block] = {
    "slurm job script": Block(
        marker="#SBATCH",
        substitutions=(("PER_TASK=1000000", "PER_TASK=5"), ("/shared/fcsurvey", "$SHARED")),
        runs=({"SLURM_ARRAY_TASK_ID": "0", "SLURM_CPUS_PER_TASK": "1"},
              {"SLURM_ARRAY_TASK_ID": "1", "SLURM_CPUS_PER_TASK": "1"}),
        expected=("Surveyed 5 deals",)),
    "slurm gather": Block(
        marker="find parts -name",
        substitutions=(("1-100000000", "1-10"), ("/shared/fcsurvey", "$SHARED")),
        runs=({},),
        expected=("Nothing to do: all 10 deals are already in freecell_1-10",
                  "10 of 10 requested (within 1-10); no gaps", "10 solved, 0 unsolvable")),
}
#: The gather block works on what the job script wrote, so they run in this order.
BLOCK_ORDER = ("slurm job script", "slurm gather")


@dataclass(frozen=True)
class Step:
    """One README command, what runs for it, its exit code and text its output must hold."""

    readme: str
    code: int = 0
    expected: Tuple[str, ...] = ()
    needs: Optional[str] = None  # a module of an extra: without it the group stops here, skipped

    @property
    def command(self) -> str:
        return SHORTENED.get(self.readme, self.readme)


#: The commands run, grouped where one reads what another wrote; each group runs in a scratch
#: directory of its own.
GROUPS: Dict[str, Tuple[Step, ...]] = {
    "quick start": (
        # Inside a checkout the shipped dataset is found complete and reused.
        Step("fcsurvey survey 1-32000", expected=("Nothing to do: all 32,000 deals",)),
        Step("fcsurvey summary results/freecell_1-32000",
             expected=("31,999 solved, 1 unsolvable", "Unsolvable  11982")),
    ),
    "verify": (
        Step("fcsurvey verify --list", expected=("min-cells-1-32000",)),
        Step("fcsurvey verify --tier full --plan",
             expected=("min-cells-1-32000              full      32,000      settled by 1 dataset already there",
                       "25 claims: ")),
        Step("fcsurvey verify --claim min-cells-1-32000 --dataset results/ms-freecell-1-32000",
             expected=("1 claims: 1 PASS, 0 FAIL",)),
        Step("fcsurvey verify --explore foundation-return",
             expected=("0 of 8 become solvable with foundation return",)),
        Step("fcsurvey verify --explore foundation-return --range 100M",
             expected=("0 of 8 become solvable with foundation return",)),
    ),
    "difficulty and deal lists": (
        Step("fcsurvey survey 1-1000 --difficulty", expected=("20 solved",)),
        Step('fcsurvey export results/freecell_difficulty_1-1000 --where "min_cells = 4" '
             '--out need-4-cells.json'),
        Step("fcsurvey survey 1-32000 --difficulty --max-states 50000000 --workers 2",
             expected=("5 solved",)),
        Step("fcsurvey report results/freecell_difficulty_1-1000 --out report/", needs="matplotlib"),
    ),
    "a proof on threads": (
        # The same counts as on one thread (tests/golden_counts.json, deal 1706 at 50,000).
        Step("fcsurvey solve 1706 --cells 1 --max-states 50000 --threads 2", code=1,
             expected=("unsolvable", "positions: 2,451,693 stored, 2,420,608 expanded")),
    ),
    "local dask cluster": (
        Step("fcsurvey survey 1-32000 --executor dask", expected=("40 solved",), needs="distributed"),
    ),
    "solution viewer": (
        Step("fcsurvey show 164 --html deal-164.html",
             expected=("Wrote deal-164.html: Deal 164: ", "replayed to a win by the rules engine")),
    ),
}
#: Groups slower than the default run affords (a local Dask cluster takes about 10 s to start).
SLOW_GROUPS = ("local dask cluster",)


def _strip_comment(line: str) -> str:
    """The line without a trailing ``# ...`` comment outside quotes."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def readme_blocks(text: str) -> List[str]:
    """The README's ``sh`` code blocks."""
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def block_commands(block: str) -> Iterator[str]:
    """The commands of one ``sh`` block: continuation lines joined, comments and host prompts
    (``head$``) dropped, ``&&`` chains split."""
    for line in block.replace("\\\n", " ").splitlines():
        line = re.sub(r"^\w+\$ ", "", _strip_comment(line))
        for command in line.split(" && "):
            command = " ".join(command.split())
            if command:
                yield command


def inline_commands(text: str) -> Iterator[str]:
    """Complete ``fcsurvey`` commands in inline code; synopses (with ``[...]`` or upper-case
    placeholders such as ``N`` or ``DIR``) are not examples."""
    for span in re.findall(r"`(fcsurvey [^`]*)`", text):
        if "[" in span or any(re.fullmatch(r"[A-Z][A-Z.]*", word) for word in span.split()):
            continue
        yield " ".join(span.split())


def readme_commands() -> List[str]:
    text = README.read_text(encoding="utf-8")
    commands = [c for block in readme_blocks(text) for c in block_commands(block)]
    return list(dict.fromkeys(commands + list(inline_commands(text))))


def block_text(marker: str) -> str:
    blocks = [b for b in readme_blocks(README.read_text(encoding="utf-8")) if marker in b]
    assert len(blocks) == 1, f"one README sh block should hold {marker!r}, found {len(blocks)}"
    return blocks[0]


def entry_point() -> str:
    """The installed ``fcsurvey`` script: the one beside this Python, else the one on PATH."""
    beside = Path(sys.executable).with_name("fcsurvey")
    found = str(beside) if beside.exists() else shutil.which("fcsurvey")
    assert found, "the fcsurvey entry point is not installed (pip install -e '.[test]')"
    return found


def scratch(base: Path) -> Path:
    """A directory holding a copy of the shipped datasets the README's commands read."""
    for name in SHIPPED:
        shutil.copytree(ROOT / name, base / name)
    return base


def run(args: Sequence[str], cwd: Path, env: Optional[Dict[str, str]] = None) -> Tuple[int, str]:
    done = subprocess.run(list(args), cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True,
                          text=True, timeout=COMMAND_TIMEOUT_S)
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    return done.returncode, output


def test_every_readme_command_is_accounted_for():
    commands = readme_commands()
    in_blocks = {c for name in BLOCKS for c in block_commands(block_text(BLOCKS[name].marker))}
    run_as_steps = {step.readme for steps in GROUPS.values() for step in steps}
    accounted = run_as_steps | set(SKIPPED) | set(NOT_EXAMPLES) | in_blocks
    assert [c for c in commands if c not in accounted] == [], "README commands this test does not cover"
    gone = (run_as_steps | set(SHORTENED) | set(SKIPPED) | set(NOT_EXAMPLES)) - set(commands)
    assert gone == set(), "rows for commands the README no longer has"


def test_the_extractor_reads_blocks_as_a_shell_would():
    block = ('head$ dask scheduler   # a comment\n'
             'a && fcsurvey export d --where "x = 1 # not a comment" \\\n    --out f.json\n')
    assert list(block_commands(block)) == [
        "dask scheduler", "a", 'fcsurvey export d --where "x = 1 # not a comment" --out f.json']
    assert list(inline_commands("`fcsurvey deal N [--variant V]` `fcsurvey summary DIR` "
                                "`fcsurvey verify --list`")) == ["fcsurvey verify --list"]


@pytest.mark.parametrize("group", [pytest.param(g, marks=[pytest.mark.slow] if g in SLOW_GROUPS else [])
                                   for g in GROUPS])
def test_readme_commands_run(group, tmp_path):
    cwd = scratch(tmp_path)
    fcsurvey = entry_point()
    for step in GROUPS[group]:
        if step.needs:
            pytest.importorskip(step.needs)
        words = shlex.split(step.command)
        assert words[0] == "fcsurvey", step.command
        code, output = run([fcsurvey, *words[1:]], cwd)
        assert code == step.code, f"{step.command}: exit {code}\n{output}"
        for text in step.expected:
            assert text in output, f"{step.command}: no {text!r} in\n{output}"
        if step.command.startswith("fcsurvey export"):
            exported = json.loads((cwd / "need-4-cells.json").read_text())
            assert sorted(record["deal"] for record in exported) == [169, 178]
        if step.command.startswith("fcsurvey report"):
            assert (cwd / "report" / "report.md").is_file()


def test_readme_blocks_run(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    path = {"PATH": f"{Path(entry_point()).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "SHARED": str(shared)}
    for name in BLOCK_ORDER:
        block = BLOCKS[name]
        script = block_text(block.marker)
        for old, new in block.substitutions:
            assert old in script, f"{name}: the README block no longer holds {old!r}"
            script = script.replace(old, new)
        output = ""
        for env in block.runs:
            code, out = run(["bash", "-e", "-c", script], tmp_path, {**path, **env})
            assert code == 0, f"{name}: exit {code}\n{out}"
            output += out
        for text in block.expected:
            assert text in output, f"{name}: no {text!r} in\n{output}"


def test_the_readme_python_example_runs(tmp_path, monkeypatch):
    # The README names pandas and Polars as the reader's own installs: run where they are.
    pytest.importorskip("pandas")
    pytest.importorskip("polars")
    code = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(code) == 1
    monkeypatch.chdir(scratch(tmp_path))
    exec(compile(code[0], "README.md", "exec"), {})
