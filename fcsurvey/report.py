"""What fcsurvey hands to people: deal lists for games (``export``) and a chart report.

Exports pick deals with ``--where``, a small expression language compiled to a pyarrow
filter (never ``eval``)::

    min_cells = 4 and status = solved
    difficulty >= 3.5 or deal in (164, 892)
    not (moves > 90)

``field op literal`` comparisons (``=`` ``==`` ``!=`` ``<`` ``<=`` ``>`` ``>=``, or ``in``
a parenthesised list) joined by ``and``, ``or``, ``not`` and parentheses.  Strings may be
bare words or quoted; booleans are ``true``/``false``.  A deal whose field is null (say no
min_cells) matches no comparison on it.  An expression nests at most MAX_WHERE_DEPTH deep, joins
at most MAX_WHERE_COMPARISONS comparisons and its whole numbers fit int64: past those it is
refused by name rather than crash Python's stack or pyarrow's.  Every solution exported is
replayed by the rules engine first; one that does not win stops the export and names its deal.

The report draws its charts with matplotlib (the optional ``report`` extra), imported
only when a report is made.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from .deals import deal as make_deal
from .notation import structured
from .output import whole_file
from .console import work_bar
from .replay import validate
from .rules import Rules
from .bands import BANDS
from .schema import BAND, DIFFICULTY_RANK, SOLVED, STATUSES
from .store import read, read_manifest
from .summary import summarize, summary_text
from .tables import encode


#: Told how many more deals an export has got through, for its progress bar.
Tick = Callable[[int], object]


def _no_tick(_deals: int) -> None:
    """The tick of an export that shows no progress."""


class ReportError(ValueError):
    """An export or report that cannot be made: bad --where, a solution that does not
    replay, or matplotlib missing."""


# --- the --where language ------------------------------------------------------------------

#: The fields --where and --sort know, with the type of their literals.  Fields a dataset
#: lacks (the difficulty ones without --difficulty) are refused by name.
FIELDS: Dict[str, type] = {
    "deal": int, "status": str, "moves": int, "atomic_moves": int, "states": int,
    "min_cells": int, "min_cells_exact": bool, "difficulty": float, DIFFICULTY_RANK: int, BAND: str,
}
#: A column that sorting by band adds for a moment: each band's place in BANDS.
BAND_ORDER = "_band_order"
#: The words each word field takes.
WORDS = {"status": STATUSES, BAND: BANDS}
ORDERING = {"<": pc.less, "<=": pc.less_equal, ">": pc.greater, ">=": pc.greater_equal}
EQUALITY = {"=": pc.equal, "==": pc.equal, "!=": pc.not_equal}
BOOLEANS = {"true": True, "false": False}
KEYWORDS = ("and", "or", "not", "in", *BOOLEANS)
#: Deepest nesting of 'not' and brackets: far past any real filter, and well inside
#: Python's recursion limit, which deeper input would otherwise hit with a traceback.
MAX_WHERE_DEPTH = 100
#: Most comparisons one filter may join: pyarrow slows quadratically past this and crashes
#: (a segmentation fault) near 10,000; a long list of values belongs in ``in (...)``.
MAX_WHERE_COMPARISONS = 1_000
#: Whole-number literals must fit the int64 pyarrow compares them as.
WHOLE_RANGE = (-(2 ** 63), 2 ** 63 - 1)
QUOTED_CHARACTERS = 80  # of an expression or token quoted back in a message

_TOKEN = re.compile(r"""\s*(?:
    (?P<number>-?[0-9]+(?:\.[0-9]*)?|-?\.[0-9]+)
  | (?P<string>'[^']*'|"[^"]*")
  | (?P<word>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>==|!=|<=|>=|=|<|>)
  | (?P<punct>[(),])
)""", re.VERBOSE)


@dataclass(frozen=True)
class _Token:
    kind: str  # number, string, word, op, punct, end
    text: str
    at: int    # 1-based character position, for messages


def _quoted(text: str) -> str:
    """``text`` quoted for a one-line message, cut if long (a message quoting all of a
    machine-made filter would bury the character it points at)."""
    return repr(text if len(text) <= QUOTED_CHARACTERS else text[:QUOTED_CHARACTERS] + "...")


def _tokens(text: str) -> List[_Token]:
    found, pos, end = [], 0, len(text.rstrip())
    while pos < end:
        match = _TOKEN.match(text, pos)
        if match is None:
            start = len(text) - len(text[pos:].lstrip())
            bad = text[start:].split()[0]
            raise ReportError(f"cannot parse --where {_quoted(text)}: unexpected {_quoted(bad)} at character "
                              f"{start + 1}")
        kind = match.lastgroup or ""
        found.append(_Token(kind, match.group(kind), match.start(kind) + 1))
        pos = match.end()
    return found + [_Token("end", "", len(text) + 1)]


class _Parser:
    """Recursive descent over: or := and ('or' and)*; and := not ('and' not)*;
    not := 'not' not | '(' or ')' | FIELD OP literal | FIELD 'in' '(' literal (',' literal)* ')'."""

    def __init__(self, text: str, fields: Sequence[str]) -> None:
        self.text, self.fields = text, fields
        self.tokens, self.i = _tokens(text), 0
        self.depth = 0  # of the 'not's and brackets being parsed
        self.comparisons = 0

    def fail(self, token: _Token, why: str = "") -> ReportError:
        what = "end of expression" if token.kind == "end" else _quoted(token.text)
        return ReportError(f"cannot parse --where {_quoted(self.text)}: unexpected {what} at character "
                           f"{token.at}" + (f" ({why})" if why else ""))

    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def keyword(self, word: str) -> bool:
        token = self.peek()
        if token.kind == "word" and token.text.lower() == word:
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> None:
        token = self.take()
        if token.text != text:
            raise self.fail(token, f"expected {text!r}")

    def parse(self) -> pc.Expression:
        expression = self.either()
        if self.peek().kind != "end":
            raise self.fail(self.peek(), "expected 'and', 'or' or the end")
        return expression

    def either(self) -> pc.Expression:
        expression = self.both()
        while self.keyword("or"):
            expression = expression | self.both()
        return expression

    def both(self) -> pc.Expression:
        expression = self.negation()
        while self.keyword("and"):
            expression = expression & self.negation()
        return expression

    def negation(self) -> pc.Expression:
        token = self.peek()
        if not (token.kind == "word" and token.text.lower() == "not") and token.text != "(":
            return self.comparison()
        if self.depth == MAX_WHERE_DEPTH:
            raise self.fail(token, f"more than {MAX_WHERE_DEPTH} levels of 'not' and brackets")
        self.depth += 1
        try:
            if self.keyword("not"):
                return ~self.negation()
            self.take()
            expression = self.either()
            self.expect(")")
            return expression
        finally:
            self.depth -= 1

    def comparison(self) -> pc.Expression:
        token = self.take()
        self.comparisons += 1
        if self.comparisons > MAX_WHERE_COMPARISONS:
            raise self.fail(token, f"more than {MAX_WHERE_COMPARISONS:,} comparisons; list many values "
                                   f"with 'in (...)'")
        if token.kind != "word" or token.text.lower() in KEYWORDS:
            raise self.fail(token, "expected a field")
        name = token.text.lower()
        if name not in self.fields:
            raise self.fail(token, f"no such field; fields: {', '.join(self.fields)}")
        field, kind = pc.field(name), FIELDS[name]
        if self.keyword("in"):
            self.expect("(")
            values = [self.literal(name)]
            while self.peek().text == ",":
                self.take()
                values.append(self.literal(name))
            self.expect(")")
            return field.isin(values)
        op = self.take()
        if op.kind != "op":
            raise self.fail(op, "expected a comparison: = != < <= > >= or in")
        if op.text in ORDERING and kind not in (int, float):
            raise self.fail(op, f"{name} can only be compared with = or !=")
        return (ORDERING.get(op.text) or EQUALITY[op.text])(field, pa.scalar(self.literal(name)))

    def literal(self, name: str) -> Any:
        token, kind = self.take(), FIELDS[name]
        if kind is float and token.kind == "number":
            value = float(token.text)
            if not math.isfinite(value):
                raise self.fail(token, "too large")
            return value
        if kind is int and token.kind == "number":
            whole, _, fraction = token.text.partition(".")
            if fraction.strip("0"):
                raise self.fail(token, f"{name} is a whole number")
            digits = whole.lstrip("-").lstrip("0")
            beyond = f"whole numbers run from {WHOLE_RANGE[0]:,} to {WHOLE_RANGE[1]:,}"
            if len(digits) > len(str(WHOLE_RANGE[1])):  # int() of thousands of digits is refused
                raise self.fail(token, beyond)
            value = int(whole) if digits else 0
            if not WHOLE_RANGE[0] <= value <= WHOLE_RANGE[1]:
                raise self.fail(token, beyond)
            return value
        if kind is bool and token.kind == "word" and token.text.lower() in BOOLEANS:
            return BOOLEANS[token.text.lower()]
        if kind is str and token.kind in ("string", "word") and token.text.lower() not in KEYWORDS:
            value = token.text.strip("'\"") if token.kind == "string" else token.text
            if value not in WORDS[name]:
                raise self.fail(token, f"{name} is one of {', '.join(WORDS[name])}")
            return value
        expected = {int: "a whole number", float: "a number", bool: "true or false", str: "a word"}[kind]
        raise self.fail(token, f"{name} takes {expected}")


def parse_where(text: str, fields: Sequence[str] = tuple(FIELDS)) -> pc.Expression:
    """Compile a --where expression over ``fields`` into a pyarrow filter expression;
    ReportError naming the offending token when it cannot."""
    return _Parser(text, fields).parse()


# --- export ----------------------------------------------------------------------------------

#: Columns of a CSV export and of a JSON record (with the rules, the solution and its moves).
LIST_COLUMNS = ("deal", "status", BAND, "difficulty", DIFFICULTY_RANK, "min_cells", "min_cells_exact", "moves")


def select(path: Path, where: Optional[str] = None, sort: str = "deal", descending: bool = False,
           limit: Optional[int] = None, solved_only: bool = False) -> Tuple[pa.Table, Rules]:
    """The dataset's rows matching ``where`` (and solved, with ``solved_only``), ordered by
    ``sort`` (then deal), at most ``limit`` of them, and the rules they were solved under."""
    table = read(path)
    fields = [f for f in FIELDS if f in table.column_names]
    if sort not in fields:
        raise ReportError(f"cannot sort by {sort!r}; fields: {', '.join(fields)}")
    if where is not None:
        table = table.filter(parse_where(where, fields))
    if solved_only:
        table = table.filter(pc.equal(table["status"], SOLVED))
    order = "descending" if descending else "ascending"
    if sort == BAND:  # in the order of the bands, easiest first, not of their names
        table = table.append_column(BAND_ORDER, pc.index_in(table[BAND], value_set=pa.array(BANDS)))
        sort = BAND_ORDER
    table = table.sort_by([(sort, order)] + ([("deal", "ascending")] if sort != "deal" else []))
    if BAND_ORDER in table.column_names:
        table = table.drop_columns([BAND_ORDER])
    if limit is not None:
        table = table.slice(0, limit)
    return table, Rules.from_dict(read_manifest(path)["rules"])


def check_solutions(table: pa.Table, rules: Rules, tick: Tick = _no_tick) -> None:
    """Replay every solution in ``table`` with the rules engine; ReportError naming the
    first deal whose solution is illegal or does not win.  ``tick(1)`` after each deal."""
    for number, solution in zip(table["deal"].to_pylist(), table["solution"].to_pylist()):
        tick(1)
        if solution is not None:
            result = validate(make_deal(number, rules), rules, solution)
            if not result.ok:
                raise ReportError(f"deal {number}: the stored solution is {result.verdict()}; "
                                  f"nothing exported")


def _records(table: pa.Table, rules: Rules, tick: Tick) -> Iterator[Dict[str, Any]]:
    columns = [c for c in LIST_COLUMNS if c in table.column_names]
    for row in table.select(columns + ["solution"]).to_pylist():
        tick(1)
        solution = row["solution"]
        yield {"deal": row["deal"], "rules": rules.to_dict(), **row, "solution_moves": (
            None if solution is None else structured(make_deal(row["deal"], rules), rules, solution))}


def _write_json(table: pa.Table, rules: Rules, out: IO[Any], tick: Tick, last: int) -> None:
    out.write("[")
    for i, record in enumerate(_records(table, rules, tick)):
        out.write(("," if i else "") + "\n" + json.dumps(record))
    out.write("\n]\n")


def _write_csv(table: pa.Table, rules: Rules, out: IO[Any], tick: Tick, last: int) -> None:
    columns = [c for c in LIST_COLUMNS if c in table.column_names] + ["solution"]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in table.select(columns).to_pylist():
        writer.writerow(["" if row[c] is None else row[c] for c in columns])


def _write_txt(table: pa.Table, rules: Rules, out: IO[Any], tick: Tick, last: int) -> None:
    out.writelines(f"{number}\n" for number in table["deal"].to_pylist())


def _write_lines(table: pa.Table, rules: Rules, out: IO[Any], tick: Tick, last: int) -> None:
    out.writelines(f"{number}\t{solution}\n"
                   for number, solution in zip(table["deal"].to_pylist(), table["solution"].to_pylist()))


def _write_bitmap(table: pa.Table, rules: Rules, out: IO[Any], tick: Tick, last: int) -> None:
    out.write(encode(table["deal"].to_pylist(), last))


#: A format's writer: the rows, their rules, where to, the progress tick, and the last deal
#: the dataset was asked to cover (the bitmap's extent).
Writer = Callable[[pa.Table, Rules, IO[Any], Tick, int], None]
LINES, BITMAP = "lines", "bitmap"
WRITERS: Dict[str, Writer] = {
    "json": _write_json, "csv": _write_csv, "txt": _write_txt, LINES: _write_lines, BITMAP: _write_bitmap}
FORMATS = tuple(WRITERS)
#: Formats that write only the solved deals of the selection.
SOLVED_FORMATS = (LINES, BITMAP)
#: Formats written as bytes, to a binary stream; the others write text.
BINARY_FORMATS = (BITMAP,)


def export(path: Path, out: IO[Any], *, where: Optional[str] = None, sort: str = "deal",
           descending: bool = False, limit: Optional[int] = None, fmt: str = "json",
           progress: bool = False) -> int:
    """Write the selected deals of dataset ``path`` to ``out`` as ``fmt`` and return how many.

    json: a list of records, one a line: deal, rules, status, band, difficulty, difficulty_rank,
    min_cells, min_cells_exact, moves, solution (the move notation) and solution_moves
    (from, to, card, count).  csv: the same but the rules and solution_moves.  txt: deal
    numbers, one a line.  lines: ``deal<TAB>solution`` a line, for the solved deals only
    (compact, and gzip-friendly: ``| gzip -9n``).  bitmap: the winnable table of tables.py,
    a bit set for each solved deal selected, covering deals 1 to the last the dataset was
    asked to cover; ``out`` must then be a binary stream (see BINARY_FORMATS).  A solved
    deal is in a dataset only with a solution the rules engine replayed when it was solved
    (fcsurvey.solver.solve); every solution the dataset keeps is replayed again before
    anything is written.  With ``progress``, a large export shows bars on stderr
    (console.work_bar), never on ``out``.
    """
    if fmt not in WRITERS:
        raise ReportError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    table, rules = select(path, where, sort, descending, limit, solved_only=fmt in SOLVED_FORMATS)
    if fmt == LINES and table["solution"].null_count:
        first = table.filter(pc.is_null(table["solution"]))["deal"][0].as_py()
        raise ReportError(f"deal {first}: the dataset keeps no solution for it (surveyed with "
                          f"--no-solutions?), and --format lines writes solutions; nothing exported")
    last = max(hi for _, hi in read_manifest(path)["requested"])
    with work_bar(len(table), "replaying solutions", progress) as bar:
        check_solutions(table, rules, bar.update)
    with work_bar(len(table), f"writing {fmt}", progress) as bar:
        WRITERS[fmt](table, rules, out, bar.update, last)
    return len(table)


# --- the chart report ------------------------------------------------------------------------

MATPLOTLIB_HINT = "fcsurvey report needs matplotlib: pip install '.[report]' from a checkout"
REPORT_PAGE = "report.md"
CHART_DPI = 110
CHART_SIZE = (7.0, 4.0)  # inches
SCATTER_POINTS = 4        # marker area of one deal in the difficulty chart


def _figure_class() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ReportError(MATPLOTLIB_HINT) from None
    return Figure


def _figure() -> Tuple[Any, Any]:
    """A figure of its own (no pyplot state, no GUI backend) and its axes."""
    figure = _figure_class()(figsize=CHART_SIZE, layout="constrained")
    return figure, figure.subplots()


def _save(figure: Any, file: Path) -> None:
    """A chart as a PNG file, written whole (output.whole_file)."""
    with whole_file(file, "wb") as stream:
        figure.savefig(stream, format="png", dpi=CHART_DPI)


def _min_cells_chart(counts: Mapping[str, int], file: Path) -> None:
    figure, axes = _figure()
    labels = list(counts)
    bars = axes.bar(labels, [counts[k] for k in labels], color="tab:blue")
    axes.bar_label(bars, labels=[f"{counts[k]:,}" for k in labels])
    axes.set(xlabel="fewest free cells that win (min_cells)", ylabel="deals",
             title="Deals by the free cells they need")
    _save(figure, file)


def _moves_chart(moves: List[int], file: Path) -> None:
    figure, axes = _figure()
    axes.hist(moves, bins=range(min(moves), max(moves) + 2), color="tab:green")
    axes.set(xlabel="solution length (moves)", ylabel="deals", title="Solution lengths of the solved deals")
    _save(figure, file)


def _difficulty_chart(deals: List[int], scores: List[float], file: Path) -> None:
    figure, axes = _figure()
    axes.scatter(deals, scores, s=SCATTER_POINTS, alpha=0.5, linewidths=0, color="tab:red")
    axes.set(xlabel="deal number", ylabel="difficulty", title="Difficulty by deal number")
    _save(figure, file)


def write_report(path: Path, out_dir: Path) -> Path:
    """Draw the dataset's charts as PNGs in ``out_dir`` -- min_cells bars, solution-length
    histogram, difficulty by deal number (the first and last need a --difficulty survey)
    -- and a Markdown page that shows them beside the summary; returns the page."""
    _figure_class()  # fail on a missing matplotlib before anything is written
    summary = summarize(path)
    table = read(path)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"cannot write the report into {out_dir}: {exc.strerror}") from None
    solved = table.filter(pc.equal(table["status"], SOLVED))
    moves = solved["moves"].drop_null().to_pylist()
    charts: List[Tuple[str, str]] = []  # (title, file name)
    difficulty = summary["difficulty"]
    if difficulty is not None:
        _min_cells_chart(difficulty["min_cells"], out_dir / "min_cells.png")
        charts.append(("Fewest free cells", "min_cells.png"))
    if moves:
        _moves_chart(moves, out_dir / "moves.png")
        charts.append(("Solution lengths", "moves.png"))
    if difficulty is not None and difficulty["score"] is not None:
        scored = table.filter(pc.is_valid(table["difficulty"]))
        _difficulty_chart(scored["deal"].to_pylist(), scored["difficulty"].to_pylist(),
                          out_dir / "difficulty.png")
        charts.append(("Difficulty by deal number", "difficulty.png"))
    page = out_dir / REPORT_PAGE
    with whole_file(page) as stream:
        stream.write(_page(summary, charts))
    return page


def _page(summary: Mapping[str, Any], charts: List[Tuple[str, str]]) -> str:
    deals = summary["deals"]
    lines = [f"# FreeCell survey: deals {deals['first']:,}-{deals['last']:,}", "",
             f"{Rules.from_dict(summary['rules']).describe()}.", "",
             "```", summary_text(summary), "```", ""]
    difficulty = summary["difficulty"]
    if difficulty is None:
        lines += ["Surveyed without `--difficulty`: no min_cells or difficulty charts.", ""]
    else:
        lines += ["| min_cells | deals |", "|---:|---:|"]
        lines += [f"| {k} | {n:,} |" for k, n in difficulty["min_cells"].items()]
        lines += ["", "| band | deals |", "|---|---:|"]
        lines += [f"| {name} | {n:,} |" for name, n in difficulty["bands"].items()]
        lines += ["", "Hardest deals: " + ", ".join(
            f"{h['deal']} ({h['difficulty']:g}, {h['min_cells']} cells)" for h in difficulty["hardest"]),
            "", "The difficulty score (min_cells plus search effort) and the bands (proved facts "
            "only, stable between releases) are explained in fcsurvey's docs/difficulty.md.", ""]
    for title, file in charts:
        lines += [f"## {title}", "", f"![{title}]({file})", ""]
    return "\n".join(lines)
