"""Winnable-deal tables: one bit a deal, the format a game loads in a few lines of any language.

A table is a bitmap of ``ceil(last / 8)`` bytes covering deals 1 to ``last`` (a multiple of
eight, past the last deal counted, when ``last`` is not): deal ``n`` is bit ``(n - 1) % 8``
(the least significant bit first) of byte ``(n - 1) // 8``.  A set bit means the deal has
a solution the rules engine replayed; a clear bit only means the table does not vouch for
it (proved unsolvable, not won within the survey's limits, or not surveyed).  Deals 1 to
1,000,000 take 125,000 bytes.  The file holds no header: the rules and the range are in
its name (``winnable-4cells-1-1000000.bin``), and docs/game-makers.md gives loaders.

``fcsurvey export DATASET --format bitmap`` writes one (report.py); :func:`load_table`
reads one back, and :func:`union` joins the tables of surveys run in passes (a second pass
at wider limits over the deals the first left unknown: scripts/run_tables.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator, List, Union

BITS_PER_BYTE = 8


class TableError(ValueError):
    """A table that cannot be made or read: a deal outside it, or an unreadable file."""


def table_bytes(last: int) -> int:
    """The size in bytes of a table covering deals 1 to ``last``."""
    return -(-last // BITS_PER_BYTE)


def encode(winnable: Iterable[int], last: int) -> bytes:
    """The table of deals 1 to ``last`` with the bits of the ``winnable`` deals set."""
    bits = bytearray(table_bytes(last))
    for number in winnable:
        if not 1 <= number <= last:
            raise TableError(f"deal {number:,} is outside the table's deals 1 to {last:,}")
        index = number - 1
        bits[index // BITS_PER_BYTE] |= 1 << (index % BITS_PER_BYTE)
    return bytes(bits)


class WinnableTable:
    """A loaded table: ``n in table`` says whether deal ``n`` is vouched winnable."""

    def __init__(self, bits: bytes) -> None:
        self.bits = bytes(bits)

    @property
    def last(self) -> int:
        """The last deal the table can speak of (a multiple of eight)."""
        return len(self.bits) * BITS_PER_BYTE

    def __contains__(self, number: object) -> bool:
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= self.last:
            return False
        index = number - 1
        return bool(self.bits[index // BITS_PER_BYTE] >> (index % BITS_PER_BYTE) & 1)

    def __len__(self) -> int:
        """How many deals the table vouches winnable."""
        return bin(int.from_bytes(self.bits, "little")).count("1")

    def __iter__(self) -> Iterator[int]:
        """The winnable deals, in order."""
        for byte_index, byte in enumerate(self.bits):
            for bit in range(BITS_PER_BYTE):
                if byte >> bit & 1:
                    yield byte_index * BITS_PER_BYTE + bit + 1

    def absent(self, first: int, last: int) -> List[int]:
        """The deals from ``first`` to ``last`` the table does not vouch for."""
        return [number for number in range(first, last + 1) if number not in self]

    def to_bytes(self) -> bytes:
        return self.bits


def union(*tables: WinnableTable) -> WinnableTable:
    """The deals any of ``tables`` vouches for (a bitwise OR), covering the longest of them:
    a deal one pass of a survey won is winnable, whatever another pass made of it."""
    size = max((len(t.bits) for t in tables), default=0)
    joined = 0
    for t in tables:
        joined |= int.from_bytes(t.bits, "little")
    return WinnableTable(joined.to_bytes(size, "little"))


def load_table(path: Union[str, Path]) -> WinnableTable:
    """Read a table written by ``fcsurvey export --format bitmap``."""
    try:
        return WinnableTable(Path(path).read_bytes())
    except OSError as exc:
        raise TableError(f"cannot read the table {path}: {exc.strerror}") from None
