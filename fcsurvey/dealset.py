"""Deal numbers and deal sets as people write them, and the set type surveys plan with.

Every command reads deal numbers through this one parser: ``deal``, ``solve`` and ``check``
take one number, ``survey`` and a deals file take a list.  The written forms are strict, so
that nothing is ever silently read as another deal:

* a number is ASCII digits ``0-9`` only (``str.isdigit`` and ``int`` would also take
  ``²`` or full-width digits), with no sign and no digit grouping;
* a list is numbers and ranges (``1-1000`` or ``1..1000``) separated by commas, so
  ``1,2`` is the two deals 1 and 2 where a list is allowed and an error where one number
  is expected -- a comma is never a thousands separator.

This module imports nothing of fcsurvey's (no pyarrow, no C core): the store, the claims
and the CLI all depend on it, and none of them should pay for the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, Iterable, Iterator, List, Optional, Tuple

MIN_DEAL = 1
MAX_DEAL = 8_589_934_591  # FreeCell Pro's last deal, 2**33 - 1
DIGITS = frozenset("0123456789")
LIST_SEPARATOR = ","
RANGE_SEPARATORS = ("..", "-")
COMMENT = "#"
#: Text encoding of the files users hand in: UTF-8, with or without a byte-order mark.
TEXT_ENCODING = "utf-8-sig"
#: The most a text file given to a command (a deals file, a board, a solution, moves) may
#: hold: far more than any real one (25 million deal numbers a line), and a bound on what
#: reading ``/dev/zero`` or a runaway pipe by mistake takes before it is refused.
MAX_TEXT_BYTES = 256 * 2 ** 20
SHOWN_CHARACTERS = 40  # of a bad number quoted back in a message


class DealError(ValueError):
    """A deal number outside 1 to 8,589,934,591, not a number at all, or a deal list that
    does not parse."""


def _shown(text: str) -> str:
    """``text`` quoted for a one-line message, cut if long."""
    return repr(text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + "...")


def _out_of_range(shown: str) -> DealError:
    return DealError(f"deal number must be {MIN_DEAL} to {MAX_DEAL:,}, got {shown}")


def _from_text(text: str) -> int:
    """One deal number written as ASCII digits; DealError saying exactly what else it is."""
    digits = text.strip()
    negative = digits.startswith("-") and len(digits) > 1 and set(digits[1:]) <= DIGITS
    if negative or (digits and set(digits) <= DIGITS):
        significant = digits.lstrip("-").lstrip("0")
        if len(significant) > len(str(MAX_DEAL)):  # int() of thousands of digits is refused
            raise _out_of_range(_shown(digits))
        return check_deal_number(int(digits))
    if LIST_SEPARATOR in digits:
        raise DealError(f"deal number must be one number, got {_shown(text)} (a comma separates "
                        f"the deals of a list, which only survey takes)")
    if any(c.isdigit() and c not in DIGITS for c in digits):
        raise DealError(f"deal number must be written with the digits 0-9 only, got {_shown(text)}")
    if digits[:1] in ("+", "-"):
        raise DealError(f"deal number takes no sign, got {_shown(text)}")
    raise DealError(f"deal number must be an integer, got {_shown(text)}")


def check_deal_number(number: object) -> int:
    """``number`` (an int, or its text) as an int in 1..MAX_DEAL, or DealError saying what is
    wrong; text may carry surrounding whitespace but nothing else (see the module notes)."""
    if isinstance(number, str):
        return _from_text(number)
    if isinstance(number, bool) or not isinstance(number, int):
        raise DealError(f"deal number must be an integer, got {number!r}")
    if not MIN_DEAL <= number <= MAX_DEAL:
        raise _out_of_range(f"{number:,}")
    return number


class DealSet:
    """Deal numbers kept as sorted, disjoint, non-touching inclusive ranges.

    Surveys ask for ranges of up to 8.6 billion deals, so sets are never materialised:
    ``1-8589934591`` is one pair, and set operations walk the pairs.
    """

    __slots__ = ("ranges",)

    def __init__(self, ranges: Iterable[Tuple[int, int]] = ()) -> None:
        merged: List[Tuple[int, int]] = []
        for lo, hi in sorted(ranges):
            if merged and lo <= merged[-1][1] + 1:
                if hi > merged[-1][1]:
                    merged[-1] = (merged[-1][0], hi)
            else:
                merged.append((lo, hi))
        self.ranges: Tuple[Tuple[int, int], ...] = tuple(merged)

    @classmethod
    def from_sorted(cls, numbers: Iterable[int]) -> "DealSet":
        """The set of ascending ``numbers`` (as read from a dataset's deal column)."""
        runs: List[Tuple[int, int]] = []
        for n in numbers:
            if runs and n <= runs[-1][1] + 1:
                runs[-1] = (runs[-1][0], max(n, runs[-1][1]))
            else:
                runs.append((n, n))
        return cls(runs)

    def __len__(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.ranges)

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def __iter__(self) -> Iterator[int]:
        for lo, hi in self.ranges:
            yield from range(lo, hi + 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DealSet) and self.ranges == other.ranges

    def __or__(self, other: "DealSet") -> "DealSet":
        return DealSet(self.ranges + other.ranges)

    def __sub__(self, other: "DealSet") -> "DealSet":
        cut, j, out = other.ranges, 0, []
        for lo, hi in self.ranges:
            while j < len(cut) and cut[j][1] < lo:
                j += 1
            start, k = lo, j
            while k < len(cut) and cut[k][0] <= hi:
                if cut[k][0] > start:
                    out.append((start, cut[k][0] - 1))
                start = max(start, cut[k][1] + 1)
                k += 1
            if start <= hi:
                out.append((start, hi))
        return DealSet(out)

    def __str__(self) -> str:
        """The survey command's own syntax, e.g. ``1-500,617,1000-2000``."""
        return ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in self.ranges)

    def __repr__(self) -> str:
        return f"DealSet({str(self)!r})"


def _parse_range(item: str) -> Tuple[int, int]:
    """``1-1000``, ``1..1000`` or ``617`` as (first, last); a ``-`` in first place is the
    number's own (so ``-5`` is refused as a negative deal, not read as a range)."""
    if RANGE_SEPARATORS[0] in item:
        first, last = item.split(RANGE_SEPARATORS[0], 1)
    elif RANGE_SEPARATORS[1] in item[1:]:
        cut = item.index(RANGE_SEPARATORS[1], 1)
        first, last = item[:cut], item[cut + 1:]
    else:
        first = last = item
    try:
        lo, hi = check_deal_number(first), check_deal_number(last)
    except DealError as exc:
        raise DealError(f"bad deals {_shown(item)}: {exc}") from None
    if lo > hi:
        raise DealError(f"bad deals {_shown(item)}: the range runs backwards (did you mean {hi}-{lo}?)")
    return lo, hi


def parse_deals(text: str) -> DealSet:
    """Deals from ``1-32000``, ``1..32000``, ``11982`` or a comma list of those; an empty
    item (``1,,2``, a comma at either end) is refused, as it may be a number left out."""
    items = [item.strip() for item in text.split(LIST_SEPARATOR)]
    if not any(items):
        raise DealError("no deals given")
    if not all(items):
        raise DealError(f"bad deals {text!r}: an empty item in the comma list")
    return DealSet(_parse_range(item) for item in items)


def read_text_bytes(source: BinaryIO) -> bytes:
    """All of ``source``, or ValueError past MAX_TEXT_BYTES."""
    data = source.read(MAX_TEXT_BYTES + 1)
    if len(data) > MAX_TEXT_BYTES:
        raise ValueError(f"it holds more than {MAX_TEXT_BYTES // 2 ** 20} MiB, more than any text it should be")
    return data


def read_deals_file(path: Path) -> DealSet:
    """Deals from a UTF-8 file (a byte-order mark is fine) with a number, range or comma
    list of those a line; blank lines and ``#`` comments are skipped."""
    try:
        with open(path, "rb") as source:
            lines = read_text_bytes(source).decode(TEXT_ENCODING).splitlines()
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # ValueError: a NUL in the name, or too big
        raise DealError(f"cannot read deals file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    ranges: List[Tuple[int, int]] = []
    for number, line in enumerate(lines, 1):
        line = line.split(COMMENT, 1)[0].strip()
        if line:
            try:
                ranges += parse_deals(line).ranges
            except DealError as exc:
                raise DealError(f"{path}, line {number}: {exc}") from None
    if not ranges:
        raise DealError(f"no deals in {path}")
    return DealSet(ranges)


def requested_deals(spec: Optional[str], deals_file: Optional[Path]) -> DealSet:
    """The deals asked for on the command line: a DEALS argument or a deals file, not both."""
    if (spec is None) == (deals_file is None):
        raise DealError("give the deals either as DEALS (e.g. 1-32000) or with --deals-file"
                        + (", not both" if spec is not None else ""))
    return parse_deals(spec) if spec is not None else read_deals_file(deals_file)  # type: ignore[arg-type]
