"""Command-line interface: parse arguments, call the library, print.

Every command's bad input ends as one ``Error: ...`` line on stderr and exit
code 2 (see :func:`main`); no logic lives here.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable, List, Optional

import click

from . import __version__
from .cards import card_text
from .deals import deal as make_deal
from .dealset import TEXT_ENCODING, DealError, check_deal_number, parse_deals, read_text_bytes, requested_deals
from .engine import Position
from .executors import DaskExecutor, ExecutorError, check_scheduler_address, import_distributed, with_huge_pages
from .notation import NotationError, format_board, format_solution, parse_board, parse_solution
from .output import inside, whole_file
from .replay import validate, walk
from .rules import BUILD_ORDERS, EMPTY_FILLS, PRESETS, SEQUENCE_MOVES, Rules, RulesError, preset
from .limits import DEFAULT_LENGTH, DEFAULT_MAX_STATES, OPTIMAL_LENGTH, SHORT_LENGTH, Limits, SolverError
from .schema import SOLVED, UNKNOWN, UNSOLVABLE
from .solver import CHECKPOINT_EVERY_S, LINE_PHASES, MAX_THREADS, solve_position
from .known import CLAIMS, TIERS, ClaimError
from .report import BINARY_FORMATS, BITMAP, FIELDS, FORMATS, ReportError, export as export_deals, write_report
from .store import StoreError, check as check_dataset
from .console import ConsoleError, console_progress, setup_logging
from .hints import HINT_TIMEOUT_S, LOST, UNKNOWN as HINT_UNKNOWN, HintError, hint as find_hint
from .explore import (EXPLORATIONS, RANGES, ExploreError, below, explore_deals, explore_foundation_return,
                      explore_markdown, explore_text)
from .summary import summarize, summary_text
from .survey import Survey, SurveyError, default_out, plan_survey
from .verify import CACHE_DIR, check_all, claims_text, plan_check, plan_text, select, table_markdown, table_text
from .viewer import ViewerError, tableau, walkthrough

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
#: Why a command's output may not fit where it goes: the disk (or the quota) is full.
OUTPUT_FULL = (errno.ENOSPC, errno.EDQUOT)

#: Library errors that mean "the user asked for something impossible".
BAD_INPUT_ERRORS = (DealError, RulesError, SurveyError, StoreError, NotationError, SolverError, ClaimError,
                    ExecutorError, ReportError, ConsoleError, ExploreError, HintError, ViewerError)


def looks_like_option(word: str) -> bool:
    """Whether a word that reached a deal NUMBER argument is an option, not a (negative)
    number: the commands taking one let '-5' through to be refused as a deal number."""
    return word.startswith("-") and not word.lstrip("-").strip().isdigit()


class DealNumber(click.ParamType):
    """A deal number 1..8,589,934,591, rejected with the library's message."""

    name = "DEAL"

    def convert(self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> int:
        if isinstance(value, str) and looks_like_option(value):
            raise click.NoSuchOption(value, ctx=ctx)  # an option NumberCommand let through, not a number
        try:
            return check_deal_number(value)
        except DealError as exc:
            self.fail(str(exc), param, ctx)


DEAL = DealNumber()


#: Where a command's context notes the option that read standard input ('-'), which only one can.
STDIN_READ = "fcsurvey.stdin_read"


class TextFile(click.ParamType):
    """The text of a UTF-8 file (a byte-order mark is fine; '-' reads standard input), read
    while the arguments are parsed, so that a missing or binary file is bad input named by
    its option, not a decoding traceback."""

    name = "FILE"

    def convert(self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> str:
        if value == "-" and ctx is not None:
            if ctx.meta.get(STDIN_READ):
                self.fail(f"standard input is read already, by {ctx.meta[STDIN_READ]}: give one of them a file",
                          param, ctx)
            ctx.meta[STDIN_READ] = param.opts[0] if param is not None else "another option"
        try:
            with click.open_file(value, "rb") as source:
                data = read_text_bytes(source)
        except (OSError, ValueError) as exc:  # ValueError: a NUL in the name, or too big
            self.fail(f"cannot read {value}: {getattr(exc, 'strerror', None) or exc}", param, ctx)
        try:
            return data.decode(TEXT_ENCODING)
        except UnicodeDecodeError as exc:
            self.fail(f"{value} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                      param, ctx)


TEXT_FILE = TextFile()


class DataPath(click.Path):
    """A path of a dataset, a report or a cache, refused before any work when it cannot be
    used: an empty one (``Path("")`` would silently be the current directory), one that is
    not UTF-8 (pyarrow, which reads the datasets, takes no other), or a file to be written
    whose directory is missing or not writable."""

    def convert(self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> Any:
        if isinstance(value, str) and not value:
            self.fail("the path is empty", param, ctx)
        try:
            os.fsencode(value).decode("utf-8")
        except UnicodeDecodeError:
            self.fail(f"{os.fsencode(value)!r} is not a UTF-8 path, and pyarrow reads no other", param, ctx)
        path = super().convert(value, param, ctx)
        if not self.dir_okay and not (self.allow_dash and str(path) == "-"):
            folder = Path(path).parent
            if not folder.is_dir():
                self.fail(f"{str(path)!r}: there is no directory {str(folder)!r}", param, ctx)
            try:  # a real write, not os.access, which says yes to root even on /sys and /proc
                with tempfile.TemporaryFile(dir=folder):
                    pass
            except OSError:
                self.fail(f"{str(path)!r}: the directory {str(folder)!r} is not writable", param, ctx)
        return path


def rule_options(command: Callable) -> Callable:
    """The rule flags every command that deals or solves shares."""
    options = [
        click.option("--variant", default="freecell", show_default=True,
                     type=click.Choice(list(PRESETS)), help="Named rule set to start from."),
        click.option("--cells", type=int, default=None, help="Free cells (0-10); overrides the variant."),
        click.option("--build", type=click.Choice(BUILD_ORDERS), default=None,
                     help="Build order on columns: alternate colours, same suit or any suit."),
        click.option("--empty-fill", type=click.Choice(EMPTY_FILLS), default=None,
                     help="Which cards may fill an empty column."),
        click.option("--sequence", type=click.Choice(SEQUENCE_MOVES), default=None,
                     help="Sequence moves: limited by free space, unlimited, or single cards."),
        click.option("--foundation-return/--no-foundation-return", default=None,
                     help="May cards come back down from the foundations?"),
    ]
    for option in reversed(options):
        command = option(command)
    return command


SHORT_HELP = ("Spend more search on short solutions: a beam search after the usual solve, keeping "
              "the shorter line (about 25 deals per CPU second instead of about 4,000); verdicts do not "
              "change.")


OPTIMAL_HELP = ("Prove the fewest moves (par) with an A* search after the usual solve, within "
                "--max-states and --timeout again, and give a shortest solution; par is left "
                "out (the usual solution stays) when it runs out of them.")


def length_of(short: bool, optimal: bool = False) -> str:
    """The limits' length for the --short and --optimal flags."""
    if short and optimal:
        raise click.UsageError("--short and --optimal are two modes: give one")
    return SHORT_LENGTH if short else OPTIMAL_LENGTH if optimal else DEFAULT_LENGTH


SEARCHES_ONLY_HELP = ("Run the searches only, never the layered proof: a deal whose positions do not "
                      "fit in --max-states ends unknown (states limit) at once.  Cheap, and without "
                      "--timeout the same verdicts on any machine (winnable tables, docs/game-makers.md).")


def limit_options(command: Callable) -> Callable:
    """The search limits shared by solve and survey."""
    command = click.option("--searches-only", is_flag=True, help=SEARCHES_ONLY_HELP)(command)
    command = click.option("--optimal", is_flag=True, help=OPTIMAL_HELP)(command)
    command = click.option("--short", is_flag=True, help=SHORT_HELP)(command)
    command = click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
                           metavar="SECONDS",
                           help="Give up on a deal (verdict unknown) after this long; "
                                "makes results machine-dependent.")(command)
    return click.option("--max-states", type=click.IntRange(min=1), default=DEFAULT_MAX_STATES,
                        show_default=True,
                        help="Room for this many positions in each search (about 82 bytes each): "
                             "a deal that no search wins or exhausts within it ends unknown, or "
                             "goes to the layered proof, which gets four times as many in smaller "
                             "form.  The positions a solve reports count every phase's.")(command)


#: The parameters of rule_options and of limit_options, by name.
RULE_PARAMETERS = ("variant", "cells", "build", "empty_fill", "sequence", "foundation_return")
LIMIT_PARAMETERS = ("max_states", "timeout", "short", "optimal", "searches_only")


def given_flags(ctx: click.Context, names: Iterable[str]) -> List[str]:
    """The options among ``names`` (parameter names) set on the command line, as their flags."""
    flags = {p.name: max(p.opts, key=len) for p in ctx.command.params if isinstance(p, click.Option)}
    return [flags[name] for name in names
            if name in flags and ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE]


def refuse_unused(ctx: click.Context, mode: str, names: Iterable[str]) -> None:
    """UsageError naming the options of ``names`` given on the command line, which ``mode``
    does not use: an option silently ignored is input silently reinterpreted."""
    given = given_flags(ctx, names)
    if given:
        raise click.UsageError(f"{mode} does not use {', '.join(given)}: drop {'it' if len(given) == 1 else 'them'}")


def rules_from(opts: dict) -> Rules:
    """Build the Rules from the shared rule flags (removing them from opts)."""
    return preset(opts.pop("variant"), cells=opts.pop("cells"), build=opts.pop("build"),
                  empty_fill=opts.pop("empty_fill"), sequence=opts.pop("sequence"),
                  foundation_return=opts.pop("foundation_return"))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fcsurvey")
def cli() -> None:
    """Survey Microsoft-numbered FreeCell deals with a proof-grade solver.

    \b
    Examples:
      fcsurvey deal 11982
      fcsurvey deal 1 --variant seahaven-towers --format json
      fcsurvey survey 1-32000
      fcsurvey summary results/freecell_1-32000
    """


class NumberCommand(click.Command):
    """A command whose deal NUMBER may be written negative, so that ``-5`` is refused as a deal
    number (out of range) rather than as an unknown option.  Click then keeps unknown options
    as arguments; a word left over that starts with '-' is named as the unknown option it is,
    as every other command names it, not as an extra argument."""

    def parse_args(self, ctx: click.Context, args: List[str]) -> List[str]:
        rest = super().parse_args(ctx, args)
        if ctx.args:
            options = [word for word in ctx.args if looks_like_option(word)]
            if options:
                raise click.NoSuchOption(options[0], ctx=ctx)
            raise click.UsageError(f"Got unexpected extra argument{'s' if len(ctx.args) > 1 else ''} "
                                   f"({' '.join(ctx.args)})", ctx)
        return rest


#: Lets a negative deal number reach the DEAL type instead of parsing as an option (and keeps
#: what is left over for NumberCommand to name).
NUMBER_ARGUMENT_SETTINGS = {"ignore_unknown_options": True, "allow_extra_args": True}


@cli.command(cls=NumberCommand, context_settings=NUMBER_ARGUMENT_SETTINGS)
@click.argument("number", type=DEAL)
@rule_options
@click.option("--format", "fmt", type=click.Choice(["text", "tableau", "json"]), default="text", show_default=True,
              help="text: PySol/fc-solve layout, one column a line (what fc-solve reads); tableau: as the "
                   "game lays it out, free cells and foundations on top and the columns side by side; "
                   "json: columns and cells.")
def deal(number: int, fmt: str, **opts: Any) -> None:
    """Print the layout of deal NUMBER (1 to 8,589,934,591).

    \b
    Examples:
      fcsurvey deal 11982
      fcsurvey deal 11982 --format tableau
      fcsurvey deal 617 --variant forecell
      fcsurvey deal 8589934591 --format json
    """
    rules = rules_from(opts)
    layout = make_deal(number, rules)
    if fmt == "tableau":
        click.echo(tableau(Position.from_deal(layout), rules))
        return
    if fmt == "json":
        click.echo(json.dumps({
            "deal": number,
            "rules": rules.to_dict(),
            "columns": [[card_text(c) for c in col] for col in layout.columns],
            "cells": [None if c is None else card_text(c) for c in layout.cells],
        }))
        return
    if rules.prefilled_cells:
        click.echo("Freecells: " + " ".join("-" if c is None else card_text(c) for c in layout.cells))
    for line in layout.text_columns():
        click.echo(line)


#: Exit status of ``check`` when the solution does not win.
EXIT_INVALID = 1


@cli.command(cls=NumberCommand, context_settings=NUMBER_ARGUMENT_SETTINGS)
@click.argument("number", type=DEAL)
@click.argument("tokens", nargs=-1, metavar="[SOLUTION]...")
@click.option("--solution-file", type=TEXT_FILE, default=None,
              help="Read the solution from FILE ('-' reads standard input).")
@rule_options
@click.pass_context
def check(ctx: click.Context, number: int, tokens: tuple[str, ...], solution_file: Optional[str],
          **opts: Any) -> None:
    """Replay a solution to deal NUMBER and say whether it wins.

    The solution is move tokens (source then destination: columns 1-9 and 0,
    free cells a-g, k-m, h for the foundations, e.g. 3a a5 7h 36v3 hS3) given
    as arguments or in a file, separated by spaces, newlines or commas.
    Nothing goes home by itself: every foundation move must be written.
    Prints "valid: N moves" (exit 0), or "invalid: move K (TOKEN): WHY" for
    a move that does not apply, or "invalid: not all cards are on the
    foundations after N moves" (exit 1).  No move at all, or a token that is
    not in the notation or names a column or cell the game lacks, is bad
    input (exit 2).

    \b
    Examples:
      fcsurvey check 164 --solution-file 164.sol
      fcsurvey check 1 --variant bakers-game --solution-file - < 1.sol
      fcsurvey check 164 17 15 17 1h 12
    """
    options = [token for token in tokens if token.startswith("-")]  # no move token starts with '-'
    if options:
        raise click.NoSuchOption(options[0], ctx=ctx)
    if tokens and solution_file is not None:
        raise click.UsageError("give the solution as arguments or with --solution-file, not both")
    rules = rules_from(opts)
    solution = solution_file if solution_file is not None else " ".join(tokens)
    if not parse_solution(solution):
        raise click.UsageError("no solution given: no move token in the arguments or the file")
    result = validate(make_deal(number, rules), rules, solution)
    if result.malformed:
        raise click.UsageError(f"move {result.error_index + 1} ({result.error_token}): {result.why}")
    click.echo(result.verdict())
    ctx.exit(0 if result.ok else EXIT_INVALID)


#: Exit status of ``survey`` when a deal ended as error (no verdict; a rerun retries it).
EXIT_ERROR_DEALS = 1
#: Exit status of ``survey --check`` when deals are missing from the dataset.
EXIT_MISSING_DEALS = 1

#: --executor choices: this machine's processes, or a Dask cluster.
LOCAL, DASK = "local", "dask"
EXECUTORS = (LOCAL, DASK)


@cli.command()
@click.argument("deals", required=False)
@click.option("--deals-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Read the deals from a file instead: a number, range or comma list a line, # comments.")
@rule_options
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes solving in parallel (with --executor dask, the local Dask "
                   "cluster's).  [default: CPU count]")
@click.option("--executor", type=click.Choice(EXECUTORS), default=LOCAL, show_default=True,
              help="Where the workers run: processes of this machine, or a Dask cluster (needs "
                   "pip install '.[dask]' from a checkout).  With dask the workers write the chunk files "
                   "themselves, so --out must be storage every worker shares (NFS, Lustre, ...).")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="With --executor dask: use the running cluster whose scheduler is at ADDRESS "
                   "(tcp://HOST:8786) instead of starting a local one.")
@click.option("--out", type=DataPath(file_okay=False, path_type=Path), default=None,
              help="Dataset directory.  [default: results/<rules>_<deals>]")
@click.option("--chunk-size", type=click.IntRange(min=1), default=None,
              help="Deals per task and per Parquet file.  [default: chosen from the deals and rules: "
                   "about a minute of work a task, at least 8 tasks, 100,000 deals for 4-cell FreeCell "
                   "over a million deals]")
@click.option("--no-solutions", is_flag=True, help="Leave the solution column empty (much smaller files).")
@click.option("--difficulty", is_flag=True,
              help="Also find each deal's fewest winning free cells (proved both ways) and score its "
                   "difficulty (docs/difficulty.md); several extra solves a deal.")
@limit_options
@click.option("--force-new", is_flag=True,
              help="Delete whatever results --out holds and start afresh (without it, a survey refuses "
                   "to add to results made with other rules or limits).")
@click.option("--log-file", type=click.Path(dir_okay=False, writable=True, path_type=Path), default=None,
              help="Append the log of every process to this file.")
@click.option("-v", "--verbose", count=True, help="Log progress to the console; -vv logs every deal.")
@click.option("--plan", "plan_only", is_flag=True,
              help="Solve nothing but a stratified sample of DEALS (about a minute at most) and print "
                   "what the survey would cost: core-hours, bytes, files, wall time on --workers and on "
                   "100 and 1,000 cores, each with its 95% interval.")
@click.option("--check", is_flag=True,
              help="Solve nothing: open and check every file of the dataset (--out, or the one DEALS "
                   "names), rewrite its chunk log from the files where they differ (after a merge by "
                   "hand), and say which deals (DEALS, or those it was made for) are missing: exit 1 if any.")
@click.pass_context
def survey(ctx: click.Context, deals: Optional[str], deals_file: Optional[Path], workers: Optional[int], executor: str,
           scheduler: Optional[str], out: Optional[Path], chunk_size: Optional[int], no_solutions: bool,
           difficulty: bool, max_states: int, timeout: Optional[float], short: bool, optimal: bool,
           searches_only: bool, force_new: bool, log_file: Optional[Path], verbose: int, plan_only: bool, check: bool,
           **opts: Any) -> None:
    """Solve every deal in DEALS and write the verdicts to a Parquet dataset.

    DEALS is a number, a range (1-32000 or 1..32000) or a comma list of those;
    numbers are plain digits (1,000 is the two deals 1 and 0, not one thousand).
    Each chunk of deals becomes one Parquet file as soon as it is solved, so a
    stopped survey (Ctrl-C, a crash, a reboot) resumes where it stopped when the
    same command is run again.  Status is solved, unsolvable (proved), unknown
    (a limit fired) or error (no verdict: the solver raised or the worker died on
    that deal); running the same command again solves the error deals again.
    Progress moves a deal at a time; a deal running over a minute is named with
    its phase.  Exit code 0 when every deal got a verdict or unknown, 1 when a
    deal ended as error (as verify's 1 for a failed claim), 2 on bad input,
    130 when interrupted.

    \b
    Examples:
      fcsurvey survey 1-32000
      fcsurvey survey 1-1000000 --workers 8 --no-solutions --out results/million
      fcsurvey survey 1-32000 --variant bakers-game --max-states 2000000
      fcsurvey survey 164,617,11982 -v
      fcsurvey survey --deals-file hard.txt --timeout 60 --log-file hard.log
      fcsurvey survey 1-100000000 --executor dask --scheduler tcp://head:8786 --out /shared/fc
      fcsurvey survey 1-32000 --difficulty --max-states 50000000 --out results/ms-freecell-1-32000
      fcsurvey survey 1-8589934591 --plan --no-solutions --workers 1000
      fcsurvey survey 1-100000000 --check --out /shared/fc
      fcsurvey survey 1-1000000 --cells 3 --searches-only --max-states 100000 --no-solutions
    """
    rules = rules_from(opts)
    limits = Limits(max_states=max_states, timeout=timeout, length=length_of(short, optimal),
                    searches_only=searches_only)
    if plan_only and check:
        raise click.UsageError("--plan and --check do different things: give one")
    running = ("executor", "scheduler", "force_new", "log_file", "verbose")
    if check:
        refuse_unused(ctx, "--check", running + ("workers", "chunk_size", "no_solutions"))
        if out is not None:
            refuse_unused(ctx, "--check --out (the dataset's own rules and limits are checked)",
                          RULE_PARAMETERS + LIMIT_PARAMETERS + ("difficulty",))
        given = requested_deals(deals, deals_file) if deals is not None or deals_file is not None else None
        if out is None and given is None:
            raise click.UsageError("--check needs the dataset: --out DIRECTORY, or the DEALS it was made for")
        found = check_dataset(out or default_out(given, rules, limits, difficulty), given)  # type: ignore[arg-type]
        click.echo(found.text())
        ctx.exit(EXIT_MISSING_DEALS if found.missing else 0)
    if plan_only:
        refuse_unused(ctx, "--plan", running + ("out",))
        estimate = plan_survey(requested_deals(deals, deals_file), rules=rules, limits=limits, workers=workers,
                               chunk_size=chunk_size, solutions=not no_solutions, difficulty=difficulty)
        click.echo(estimate.text())
        return
    if scheduler is not None and executor != DASK:
        raise click.UsageError("--scheduler needs --executor dask")
    if scheduler is not None and workers is not None:
        raise click.UsageError("--workers sizes a local cluster; with --scheduler the cluster's own "
                               "workers run the survey")
    if scheduler is not None:
        check_scheduler_address(scheduler)
    if executor == DASK:
        import_distributed()  # the install hint comes before anything touches --out
    wanted = requested_deals(deals, deals_file)
    undo_logging = setup_logging(verbose, log_file)
    try:
        job = Survey(wanted, out or default_out(wanted, rules, limits, difficulty), rules=rules,
                     limits=limits, workers=workers, chunk_size=chunk_size, solutions=not no_solutions,
                     force_new=force_new, difficulty=difficulty)
        pool = DaskExecutor(job.workers, scheduler) if executor == DASK and job.todo else None
        if job.todo:
            click.echo(job.start_text(pool and str(pool)), err=True)
        try:
            report = job.run(progress=console_progress(job.todo) if job.todo else None, executor=pool)
        except KeyboardInterrupt:
            click.echo(job.stopped_text(), err=True)
            raise
        click.echo(report.text())
    finally:
        undo_logging()
    ctx.exit(EXIT_ERROR_DEALS if report.errors else 0)


@cli.command()
@click.argument("directory", type=DataPath(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts instead of text.")
def summary(directory: Path, as_json: bool) -> None:
    """Summarise the survey dataset in DIRECTORY.

    Shows the rules and limits, which requested deals are still missing, counts
    by status, the unsolvable and unknown deals (the first 50), solution lengths,
    total states searched, wall time and deals per second; for a --difficulty
    survey also deals by fewest cells, which are not proven, the spread of
    difficulty scores and the hardest deals.

    \b
    Examples:
      fcsurvey summary results/freecell_1-32000
      fcsurvey summary results/freecell_1-32000 --json | jq .status
      fcsurvey summary results/ms-freecell-1-32000 --json | jq .difficulty.min_cells
    """
    result = summarize(directory)
    click.echo(json.dumps(result, indent=2) if as_json else summary_text(result))


@cli.command()
@click.argument("dataset", type=DataPath(exists=True, file_okay=False, path_type=Path))
@click.option("--where", metavar="EXPR", default=None,
              help="Keep the deals matching EXPR, e.g. \"min_cells = 4 and moves <= 90\" "
                   "(fields: " + ", ".join(FIELDS) + "; and, or, not, in (...)).")
@click.option("--sort", type=click.Choice(list(FIELDS)), default="deal", show_default=True,
              help="Order the deals by this field (ties by deal number).")
@click.option("--desc", is_flag=True, help="Sort from the largest value down.")
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N", help="Export at most N deals.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="json", show_default=True,
              help="json: one record a deal with the solution and its moves; csv: one row a deal; "
                   "txt: deal numbers only; lines: deal<TAB>solution a line, solved deals only; "
                   "bitmap: the winnable table, one bit a deal from deal 1 (docs/game-makers.md).")
@click.option("--out", type=DataPath(dir_okay=False, allow_dash=True), default="-", metavar="FILE",
              help="Write here instead of standard output.")
@click.pass_context
def export(ctx: click.Context, dataset: Path, where: Optional[str], sort: str, desc: bool, limit: Optional[int],
           fmt: str, out: str) -> None:
    """Export deal lists from a survey DATASET for games and players.

    JSON records carry the deal, rules, status, band, difficulty and its rank, min_cells,
    moves, the solution in the move notation and every move as from, to, card and
    count.  Every solution is replayed by the rules engine before anything is
    written; one that does not win stops the export, naming the deal.  On a
    terminal, an export taking over two seconds shows its progress on stderr.

    \b
    Examples:
      fcsurvey export results/ms-freecell-1-32000 --where "min_cells = 4" --out need-4-cells.json
      fcsurvey export results/ms-freecell-1-32000 --where "status = solved" --sort difficulty --limit 1000
      fcsurvey export results/ms-freecell-1-32000 --sort difficulty --desc --limit 100 --format csv
      fcsurvey export results/ms-freecell-1-32000 --where "band = hard" --format txt
      fcsurvey export results/freecell_1-32000 --where "moves <= 80" --format txt
      fcsurvey export results/freecell_1-32000 --format lines | gzip -9n > solutions.txt.gz
      fcsurvey export results/freecell_1-1000000 --format bitmap --out winnable-4cells-1-1000000.bin
    """
    if fmt == BITMAP and limit is None:
        refuse_unused(ctx, "--format bitmap (one bit a deal, in deal order) without --limit", ("sort", "desc"))
    mode = "wb" if fmt in BINARY_FORMATS else "w"
    if out != "-" and inside(out, dataset):
        raise click.UsageError(f"--out {out} lies inside the dataset {dataset} it exports: write it elsewhere")
    with (click.open_file(out, mode) if out == "-" else whole_file(out, mode)) as stream:
        count = export_deals(dataset, stream, where=where, sort=sort, descending=desc, limit=limit, fmt=fmt,
                             progress=True)
    click.echo(f"Exported {count:,} deals.", err=True)


@cli.command()
@click.argument("dataset", type=DataPath(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=DataPath(file_okay=False, path_type=Path), required=True, metavar="DIR",
              help="Directory for the charts and the report page.")
def report(dataset: Path, out: Path) -> None:
    """Draw charts of a survey DATASET and a Markdown page showing them.

    Writes min_cells.png (deals by fewest cells), moves.png (solution lengths)
    and difficulty.png (difficulty by deal number) -- the first and last for
    --difficulty surveys -- and report.md with the summary.  Needs matplotlib:
    pip install '.[report]' from a checkout.

    \b
    Examples:
      fcsurvey report results/ms-freecell-1-32000 --out results/reports/ms-freecell-1-32000
      fcsurvey report results/freecell_1-32000 --out /tmp/report
    """
    if inside(out, dataset):
        raise click.UsageError(f"--out {out} lies inside the dataset {dataset} it reports on: write it elsewhere")
    click.echo(f"Wrote {write_report(dataset, out)}")


EXIT_FOR_STATUS = {SOLVED: 0, UNSOLVABLE: 1, UNKNOWN: 3}
SOLUTION_TOKENS_PER_LINE = 10
#: How ``solve`` names each of the searches for a shorter line (solver.LINE_PHASES, in order).
LINE_SEARCH_NAMES = dict(zip(LINE_PHASES, ("beam search for a shorter line", "A* search for par")))


@cli.command(cls=NumberCommand, context_settings=NUMBER_ARGUMENT_SETTINGS)
@click.argument("number", type=DEAL, required=False)
@click.option("--board-file", type=TEXT_FILE, default=None,
              help="Solve the position in FILE (fc-solve/PySol board text; '-' reads stdin).")
@rule_options
@limit_options
@click.option("--threads", type=click.IntRange(min=1, max=MAX_THREADS), default=1, show_default=True,
              help="Threads the layered proof runs on (the searches before it use one); the verdict "
                   "and, with the usual empty-column rule, the positions visited do not depend on it.")
@click.option("--checkpoint", type=DataPath(dir_okay=False, path_type=Path), default=None, metavar="PATH",
              help="Save a long layered proof's progress in PATH; the same command run again goes on "
                   "from it.  PATH goes when the solve ends.")
@click.option("--checkpoint-every", type=click.FloatRange(min=0, min_open=True), default=CHECKPOINT_EVERY_S,
              show_default=True, metavar="SECONDS",
              help="With --checkpoint: save at most this often (a save also waits 20 times its own length).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@click.option("--show", is_flag=True, help="Print the board after every move of the solution.")
@click.pass_context
def solve(ctx: click.Context, number: Optional[int], board_file: Optional[str], max_states: int,
          timeout: Optional[float], short: bool, optimal: bool, searches_only: bool, threads: int,
          checkpoint: Optional[Path], checkpoint_every: float, as_json: bool, show: bool, **opts: Any) -> None:
    """Solve deal NUMBER (or a board) and print the verdict and solution.

    A verdict is a proof: "solved" comes with a solution the rules engine
    replays to the end, "unsolvable" means every reachable position was
    searched; otherwise "unknown" names the limit that stopped the search.
    Exit code 0 solved, 1 unsolvable, 3 unknown, 2 bad input.

    \b
    Examples:
      fcsurvey solve 1
      fcsurvey solve 11982                  # unsolvable with 4 free cells
      fcsurvey solve 11982 --variant relaxed-freecell --show
      fcsurvey solve 617 --cells 3 --json
      fcsurvey solve 617 --short            # a shorter solution, found with more search
      fcsurvey solve 617 --optimal --max-states 50000000   # par: the proven fewest moves
      fcsurvey solve 1706 --cells 1 --max-states 50000 --threads 2   # a proof on 2 threads
      fcsurvey solve --board-file position.txt
      fcsurvey solve 798194 --cells 0 --checkpoint 798194.proof   # rerun to resume
      fcsurvey solve 1617 --cells 3 --searches-only --max-states 100000   # as a table's first pass
    """
    if (number is None) == (board_file is None):
        raise click.UsageError("give a deal NUMBER or --board-file, not both or neither")
    if checkpoint is None:
        refuse_unused(ctx, "a solve without --checkpoint", ["checkpoint_every"])
    if as_json:
        refuse_unused(ctx, "--json", ["show"])
    if searches_only:
        refuse_unused(ctx, "--searches-only (no layered proof, which is what runs on threads)", ["threads"])
    rules = rules_from(opts)
    limits = Limits(max_states=max_states, timeout=timeout, length=length_of(short, optimal),
                    searches_only=searches_only)
    if board_file is not None:
        start = parse_board(board_file, rules)
    else:
        start = Position.from_deal(make_deal(number, rules))
    result = solve_position(start, rules, limits, threads=threads, checkpoint=checkpoint,
                            checkpoint_every=checkpoint_every)
    if as_json:
        click.echo(json.dumps({"deal": number, "rules": rules.to_dict(), **result.to_dict()}))
        ctx.exit(EXIT_FOR_STATUS[result.status])
    name = f"deal {number}" if number is not None else "board"
    click.echo(f"{name} ({rules.describe()}): {result.status}"
               + (f" ({result.limit} limit)" if result.limit else ""))
    click.echo(f"positions: {result.states:,} stored, {result.expanded:,} expanded; "
               f"time: {result.elapsed_s:.3f} s" + (" (went on from the checkpoint)" if result.resumed else ""))
    for phase, count in result.line_counts.items():
        if count.time_s:  # it ran (the A* may keep none: its bound alone can prove par)
            click.echo(f"{LINE_SEARCH_NAMES.get(phase, phase)}: {count.states:,} positions kept, {count.time_s:.3f} s "
                       "(after the verdict: not counted above)")
    if result.solution is not None:
        click.echo(f"moves: {result.moves} ({result.atomic_moves} single-card moves)")
        if limits.length == OPTIMAL_LENGTH:
            click.echo(f"par: {result.par} (proved: no solution is shorter)" if result.par is not None
                       else "par: not proved (the A* search ran out of room or time)")
        click.echo(format_solution(parse_solution(result.solution), per_line=SOLUTION_TOKENS_PER_LINE))
        if show:
            click.echo(format_board(start, rules))
            for index, (token, position) in enumerate(walk(start, rules, result.solution), start=1):
                click.echo(f"\nmove {index}: {token}")
                click.echo(format_board(position, rules))
    ctx.exit(EXIT_FOR_STATUS[result.status])


#: Exit status of ``hint`` by what it found: as ``solve``'s (0 a move or won, 1 lost, 3 unknown).
EXIT_FOR_HINT = {LOST: 1, HINT_UNKNOWN: 3}


@cli.command(cls=NumberCommand, context_settings=NUMBER_ARGUMENT_SETTINGS)
@click.argument("number", type=DEAL, required=False)
@click.option("--board-file", type=TEXT_FILE, default=None,
              help="Start from the position in FILE (fc-solve/PySol board text; '-' reads stdin).")
@click.option("--moves", "played", default="", metavar="MOVES",
              help="The moves played so far from the start, in the move notation, separated by "
                   "spaces or commas (\"3a a5 7h 36v3\").")
@click.option("--moves-file", type=TEXT_FILE, default=None,
              help="Read the moves played so far from FILE instead ('-' reads standard input).")
@rule_options
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=HINT_TIMEOUT_S,
              show_default=True, metavar="SECONDS",
              help="Budget of the search: past it the hint is unknown.")
@click.option("--max-states", type=click.IntRange(min=1), default=DEFAULT_MAX_STATES, show_default=True,
              help="Most positions the search stores (about 82 bytes each).")
@click.option("--json", "as_json", is_flag=True, help="Print the hint as one JSON object.")
@click.pass_context
def hint(ctx: click.Context, number: Optional[int], board_file: Optional[str], played: str,
         moves_file: Optional[str], timeout: float, max_states: int, as_json: bool, **opts: Any) -> None:
    """Say the next move of a winning line from a position a player reached.

    The position is deal NUMBER (or --board-file) after the moves played so
    far.  The answer is a proof: the next move with the length of a winning
    line the rules engine replayed, or "lost" when an exhaustive search from
    the position found no win, or "unknown" when neither came within the
    budget.  Exit code 0 a move (or the game is won), 1 lost, 3 unknown,
    2 bad input (a played move that does not apply is named).

    \b
    Examples:
      fcsurvey hint 164
      fcsurvey hint 164 --moves "17 15 17" --json
      fcsurvey hint 11982 --moves-file played.txt --timeout 5
      fcsurvey hint --board-file position.txt --cells 3
    """
    if (number is None) == (board_file is None):
        raise click.UsageError("give a deal NUMBER or --board-file, not both or neither")
    if played and moves_file is not None:
        raise click.UsageError("give the played moves with --moves or --moves-file, not both")
    rules = rules_from(opts)
    found = find_hint(board_file if board_file is not None else number,
                      moves_file if moves_file is not None else played, rules,
                      timeout=timeout, max_states=max_states)
    if as_json:
        click.echo(json.dumps({"deal": number, "rules": rules.to_dict(), **found.to_dict()}))
    else:
        click.echo(found.text())
    ctx.exit(EXIT_FOR_HINT.get(found.status, 0))


#: The options that limit the search for a solution, which a given solution makes moot.
SEARCH_OPTIONS = LIMIT_PARAMETERS


@cli.command(cls=NumberCommand, context_settings=NUMBER_ARGUMENT_SETTINGS)
@click.argument("number", type=DEAL, required=False)
@click.option("--board-file", type=TEXT_FILE, default=None,
              help="Start from the position in FILE (fc-solve/PySol board text; '-' reads stdin).")
@click.option("--solution-file", type=TEXT_FILE, default=None,
              help="Show the solution in FILE ('-' reads standard input) instead of solving.")
@rule_options
@limit_options
@click.option("--html", "html_path", type=DataPath(dir_okay=False, path_type=Path), required=True,
              metavar="FILE", help="Write the page to FILE (a temporary file beside it, renamed into place).")
@click.pass_context
def show(ctx: click.Context, number: Optional[int], board_file: Optional[str], solution_file: Optional[str],
         max_states: int, timeout: Optional[float], short: bool, optimal: bool, html_path: Path,
         **opts: Any) -> None:
    """Write one HTML page that shows deal NUMBER and steps through a solution.

    The page shows the deal as the game does (free cells, foundations, the
    columns side by side) and plays the solution move by move: next, back,
    play and pause, a move list with the current move highlighted, and the
    arrow keys.  It is one self-contained file: no network, nothing loaded.
    The solution is the one in --solution-file, or else the solver's (within
    --max-states and --timeout, as solve); either way the rules engine replays
    it, and the page shows the positions of that replay.  A solution that does
    not replay to a win is bad input.  Exit code 0 (a page with a solution),
    1 unsolvable and 3 unknown (a page of the deal alone), 2 bad input.

    \b
    Examples:
      fcsurvey show 164 --html deal-164.html
      fcsurvey show 617 --short --html deal-617.html
      fcsurvey show 1 --variant bakers-game --solution-file 1.sol --html deal-1.html
      fcsurvey show --board-file position.txt --html position.html
    """
    if (number is None) == (board_file is None):
        raise click.UsageError("give a deal NUMBER or --board-file, not both or neither")
    if solution_file is not None:
        given = given_flags(ctx, SEARCH_OPTIONS)
        if given:
            one = len(given) == 1
            raise click.UsageError(f"{' and '.join(given)} {'limits' if one else 'limit'} the search for a "
                                   f"solution: with --solution-file nothing is searched, so drop "
                                   f"{'it' if one else 'them'}")
    rules = rules_from(opts)
    limits = Limits(max_states=max_states, timeout=timeout, length=length_of(short, optimal))
    shown = walkthrough(board_file if board_file is not None else number, rules, solution_file, limits=limits)
    shown.write_html(html_path)
    click.echo(f"Wrote {html_path}: {shown.text()}")
    ctx.exit(EXIT_FOR_STATUS[shown.status])


@cli.command()
@click.option("--tier", type=click.Choice(TIERS), default=None,
              help="Check this tier's claims and the cheaper tiers': quick (minutes on 2 cores), "
                   "standard (about an hour), full (hours).  [default: quick]")
@click.option("--claim", "claim_ids", multiple=True, metavar="ID",
              help="Check this claim (repeat for more); see --list.")
@click.option("--dataset", "datasets", multiple=True,
              type=DataPath(exists=True, file_okay=False, path_type=Path),
              help="Check this survey dataset as it stands (repeat for more); a missing or unknown "
                   "deal fails.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes for the surveys verify runs.  [default: CPU count]")
@click.option("--cache", type=DataPath(file_okay=False, path_type=Path), default=CACHE_DIR,
              show_default=True, help="Where verify keeps the surveys it runs; a rerun resumes them.")
@click.option("--report", type=DataPath(dir_okay=False, writable=True, path_type=Path), default=None,
              help="Also write the table to this file as Markdown.")
@click.option("--list", "list_claims", is_flag=True, help="List the claims with their tiers and sources.")
@click.option("--plan", "plan_only", is_flag=True,
              help="Say what checking each claim would take (the datasets that settle it, the deals "
                   "it would survey and where), without surveying.")
@click.option("--explore", type=click.Choice(list(EXPLORATIONS)), default=None,
              help="Instead of claims, re-solve the deals unsolvable with 4 cells below 1,000,000 "
                   "(10,000,000 with --tier full, or those of --range or --deals) with foundation "
                   "return, with proofs both ways; foundation-return-5cells: the six unsolvable "
                   "with 5 cells, with 5.")
@click.option("--range", "explore_range", type=click.Choice(list(RANGES)), default=None,
              help="With --explore: re-solve those below 1,000,000, 10,000,000, 100,000,000 (1,282 "
                   "deals), 1,000,000,000, or all 8,589,934,591 (102,075 deals).")
@click.option("--deals", "explore_among", metavar="DEALS", default=None,
              help="With --explore: re-solve the deals of DEALS (a number, range or comma list, as "
                   "survey takes) that are unsolvable, instead of the tier's.")
@click.option("--short", is_flag=True, help="The surveys verify runs spend more search on short "
                                            "solutions (survey --short); claims are about verdicts, "
                                            "which do not change.")
@click.option("--optimal", is_flag=True, help="The surveys verify runs prove each deal's par (survey "
                                              "--optimal); verdicts do not change.")
@click.pass_context
def verify(ctx: click.Context, tier: Optional[str], claim_ids: tuple[str, ...], datasets: tuple[Path, ...],
           workers: Optional[int], cache: Path, report: Optional[Path], list_claims: bool,
           explore: Optional[str], explore_range: Optional[str], explore_among: Optional[str], short: bool,
           optimal: bool, plan_only: bool) -> None:
    """Check fcsurvey against the published FreeCell record.

    Each claim (e.g. "exactly eight deals below 1,000,000 are unsolvable")
    is checked on a dataset given with --dataset, else on the datasets
    under results/ that together decide all its deals (a deal one leaves
    unknown another may prove), with a survey verify runs into --cache of
    the deals they leave.  Prints claim, expected, measured and PASS/FAIL;
    a deal left unknown or missing, or decided differently by two
    datasets, is a FAIL that names it.  Exit code 0 when every claim
    passes, 1 when one fails, 2 on bad input.

    \b
    Examples:
      fcsurvey verify --list
      fcsurvey verify                              # the quick tier
      fcsurvey verify --tier full --plan           # what the full tier would survey
      fcsurvey verify --tier standard --report verify.md
      fcsurvey verify --claim 4cells-1-1000000 --workers 8
      fcsurvey verify --dataset results/freecell_1-32000
      fcsurvey verify --explore foundation-return --tier full
      fcsurvey verify --explore foundation-return --range 100M
      fcsurvey verify --explore foundation-return --deals 1-20000000 --workers 1
      fcsurvey verify --explore foundation-return-5cells
    """
    if list_claims:
        refuse_unused(ctx, "--list", [p.name for p in ctx.command.params if p.name != "list_claims"])
        click.echo(claims_text(CLAIMS))
        return
    if claim_ids and tier is not None:
        raise click.UsageError("--claim and --tier both pick the claims: give one")
    if plan_only:
        refuse_unused(ctx, "--plan", ["report", "workers", "short", "optimal"])
    if report is not None and any(inside(report, d) for d in datasets):
        raise click.UsageError(f"--report {report} lies inside a --dataset it checks: write it elsewhere")
    started = time.monotonic()
    options = dict(cache=cache, workers=workers, progress=console_progress,
                   say=lambda line: click.echo(line, err=True))
    length = length_of(short, optimal)
    if length != DEFAULT_LENGTH and explore is not None:
        raise click.UsageError(f"--{length} is for the surveys of claims: drop it with --explore")
    if explore is None and (explore_among is not None or explore_range is not None):
        given = "--deals" if explore_among is not None else "--range"
        raise click.UsageError(f"{given} picks the deals of --explore: give --explore too")
    if explore is not None:
        if plan_only:
            raise click.UsageError("--plan is for claims: drop it with --explore")
        if claim_ids or datasets:
            raise click.UsageError("--explore checks no claim: drop --claim and --dataset")
        pickers = [name for name, value in (("--deals", explore_among), ("--range", explore_range),
                                            ("--tier", tier)) if value is not None]
        if len(pickers) > 1:
            both = "both" if len(pickers) == 2 else "all"
            raise click.UsageError(f"{', '.join(pickers[:-1])} and {pickers[-1]} {both} pick the deals of "
                                   "--explore: give one")
        among = parse_deals(explore_among) if explore_among is not None else below(explore_range)
        exploration = EXPLORATIONS[explore]
        explored = explore_foundation_return(explore_deals(tier, among, exploration), exploration=exploration,
                                             **options)
        click.echo(explore_text(explored, exploration.rules.cells))
        if report is not None:
            with whole_file(report) as page:
                page.write(explore_markdown(explored, exploration.rules.cells))
        ctx.exit(0 if all(e.proved for e in explored) else EXIT_INVALID)
    if plan_only:
        click.echo(plan_text([plan_check(task, cache=cache) for task in select(tier, claim_ids, datasets)]))
        return
    outcomes = list(check_all(select(tier, claim_ids, datasets), length=length, **options))
    elapsed = time.monotonic() - started
    click.echo(table_text(outcomes, elapsed))
    if report is not None:
        with whole_file(report) as page:
            page.write(table_markdown(outcomes, elapsed))
    ctx.exit(0 if all(o.passed for o in outcomes) else EXIT_INVALID)


#: Commands that solve in their own process, where a long layered proof holds gigabytes of
#: small hash buckets: run with glibc's malloc backing its heap with transparent huge pages,
#: as survey workers are (executors.HUGE_PAGES_TUNABLE; its lookups miss the TLB far less).
IN_PROCESS_SOLVES = ("solve",)


def restart_with_huge_pages() -> None:
    """Start this process's command again (same program, arguments and process) with glibc's
    huge pages on, when it solves in this process and its tunables did not choose (glibc reads
    them only when a process starts); return when it need not, or cannot."""
    env = with_huge_pages(os.environ)
    command = sys.argv[1] if len(sys.argv) > 1 else None
    orig_argv = getattr(sys, "orig_argv", None)  # Python 3.10 and later
    if env is None or command not in IN_PROCESS_SOLVES or not sys.platform.startswith("linux") or not orig_argv:
        return
    try:
        os.execve(sys.executable, orig_argv, env)
    except OSError:  # it goes on as it is: the pages change its speed, never its results
        return


def main(argv: Optional[list] = None) -> None:
    """Entry point: run the CLI, turning bad input into one ``Error:`` line.  Run as a
    program (no ``argv``), a command in IN_PROCESS_SOLVES starts again with huge pages."""
    if argv is None:
        restart_with_huge_pages()
    try:
        code = cli.main(args=argv, prog_name="fcsurvey", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Interrupted.", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.exceptions.NoArgsIsHelpError as exc:  # bare `fcsurvey`: a question, not bad input
        click.echo(exc.ctx.get_help() if exc.ctx is not None else cli.get_help(click.Context(cli)))
        sys.exit(0)
    except click.ClickException as exc:
        click.echo(f"Error: {exc.format_message()}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except BAD_INPUT_ERRORS as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except OSError as exc:
        if exc.errno not in OUTPUT_FULL:
            raise
        click.echo(f"Error: the output could not be written: {exc.strerror}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    sys.exit(code or 0)
