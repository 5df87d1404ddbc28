"""Command-line interface: parse arguments, call the library, print.

Every command's bad input ends as one ``Error: ...`` line on stderr and exit
code 2 (see :func:`main`); no logic lives here.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable, Optional

import click

from . import __version__
from .cards import card_text
from .deals import DealError, check_deal_number, deal as make_deal
from .rules import BUILD_ORDERS, EMPTY_FILLS, PRESETS, SEQUENCE_MOVES, Rules, RulesError, preset

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

#: Library errors that mean "the user asked for something impossible".
BAD_INPUT_ERRORS = (DealError, RulesError)


class DealNumber(click.ParamType):
    """A deal number 1..8,589,934,591, rejected with the library's message."""

    name = "DEAL"

    def convert(self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> int:
        try:
            return check_deal_number(value)
        except DealError as exc:
            self.fail(str(exc), param, ctx)


DEAL = DealNumber()


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
    """


#: Lets a negative deal number reach the DEAL type instead of parsing as an option.
NUMBER_ARGUMENT_SETTINGS = {"ignore_unknown_options": True}


@cli.command(context_settings=NUMBER_ARGUMENT_SETTINGS)
@click.argument("number", type=DEAL)
@rule_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: PySol/fc-solve layout, one column a line; json: columns and cells.")
def deal(number: int, fmt: str, **opts: Any) -> None:
    """Print the layout of deal NUMBER (1 to 8,589,934,591).

    \b
    Examples:
      fcsurvey deal 11982
      fcsurvey deal 617 --variant forecell
      fcsurvey deal 8589934591 --format json
    """
    rules = rules_from(opts)
    layout = make_deal(number, rules)
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


def main(argv: Optional[list] = None) -> None:
    """Entry point: run the CLI, turning bad input into one ``Error:`` line."""
    try:
        code = cli.main(args=argv, prog_name="fcsurvey", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Interrupted.", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        click.echo(f"Error: {exc.format_message()}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except BAD_INPUT_ERRORS as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    sys.exit(code or 0)
