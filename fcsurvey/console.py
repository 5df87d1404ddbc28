"""What long commands say on the console while they work: progress, logging, durations.

A survey's progress moves a deal at a time.  On a terminal it is a tqdm bar; to a pipe or
file it is a plain line at least every :data:`PLAIN_PROGRESS_EVERY_S`, written even when
no deal finishes, so a log shows that a run is alive.  A deal that has run longer than
:data:`SLOW_DEAL_S` is named with its phase (``deal 982: 2-cell proof, 6m 02s``) in the
bar, in those lines and, with ``-v``, in the log.  Log records of every process go through
tqdm, so that they do not tear the bar.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any, Callable, List, Mapping, Optional, Protocol, Sequence, TextIO, Tuple

from tqdm import tqdm

from .executors import PACKAGE_LOGGER, SharedLogHandler
from .schema import STATUSES

#: A deal running longer than this is named, with its phase, in the progress and the log.
SLOW_DEAL_S = 60.0
#: Without a terminal, a progress line at least this often (and no more often).
PLAIN_PROGRESS_EVERY_S = 30.0
#: A bar for work that is not a survey (an export) shows only once it has run this long.
BAR_DELAY_S = 2.0
#: tqdm's bar without its own time left, for a survey that estimates it (Progress.estimate).
ESTIMATED_BAR = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}, {rate_fmt}{postfix}]"


class ConsoleError(ValueError):
    """A console destination that cannot be used: an unwritable log file."""


def duration(seconds: float) -> str:
    """``2h 03m``, ``4m 12s`` or ``7.3s``: the one way fcsurvey prints a duration."""
    if round(seconds, 1) < 60:  # 59.97 s would print as "60.0s"
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s"


def counts_text(counts: Mapping[str, int]) -> str:
    """``31,999 solved, 1 unsolvable, 0 unknown, 0 error``: every status, always in that order."""
    return ", ".join(f"{counts.get(s, 0):,} {s}" for s in STATUSES)


def running_text(deal: int, phase: str, seconds: float) -> str:
    """``deal 982: 2-cell proof, 6m 02s``: a long-running deal, as progress names it."""
    return f"deal {deal}: {phase}, {duration(seconds)}"


class Progress(Protocol):
    """Told about every deal finished and, at least once a second, about the deals that
    have been running long; the survey itself stays quiet."""

    def update(self, deals: int, counts: Mapping[str, int]) -> None:
        """``deals`` more finished; ``counts`` are the run's counts by status so far."""

    def working(self, slow: Sequence[str]) -> None:
        """The deals running longer than SLOW_DEAL_S now, as :func:`running_text` names them."""

    def estimate(self, remaining_s: float) -> None:
        """The survey's own estimate of the time left (plan.py's, weighed by a stratified
        sample), shown instead of the rate of the deals so far from then on."""

    def close(self) -> None: ...


class BarProgress:
    """A tqdm bar: deals done, deals/s, ETA, the running counts and the slow deals."""

    def __init__(self, total: int, file: Optional[TextIO] = None) -> None:
        self.bar = tqdm(total=total, unit="deal", file=file or sys.stderr, smoothing=0.05, dynamic_ncols=True)
        self.counts: Mapping[str, int] = {}
        self.slow: Sequence[str] = ()
        self.eta: List[str] = []  # the survey's estimate, once it gives one

    def _postfix(self) -> None:
        self.bar.set_postfix_str("; ".join([*self.eta, counts_text(self.counts), *self.slow]), refresh=False)

    def estimate(self, remaining_s: float) -> None:
        if not self.eta:
            self.bar.bar_format = ESTIMATED_BAR
        self.eta = [f"ETA {duration(remaining_s)}"]
        self._postfix()

    def update(self, deals: int, counts: Mapping[str, int]) -> None:
        self.counts = counts
        self._postfix()
        self.bar.update(deals)

    def working(self, slow: Sequence[str]) -> None:
        if list(slow) != list(self.slow):
            self.slow = list(slow)
            self._postfix()
            self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


class LineProgress:
    """A plain line at most every ``every_s`` seconds when a deal finishes, and at least
    that often while deals run: for logs and pipes, where a bar would be noise."""

    def __init__(self, total: int, every_s: Optional[float] = None, file: Optional[TextIO] = None) -> None:
        self.total, self.file = total, file
        self.every_s = PLAIN_PROGRESS_EVERY_S if every_s is None else every_s
        self.done = 0
        self.counts: Mapping[str, int] = {}
        self.slow: Sequence[str] = ()
        self.started = self.last = time.monotonic()
        self.remaining: Optional[Tuple[float, float]] = None  # the survey's estimate, and when given

    def estimate(self, remaining_s: float) -> None:
        self.remaining = (remaining_s, time.monotonic())

    def update(self, deals: int, counts: Mapping[str, int]) -> None:
        self.counts = counts
        if deals:
            self.done += deals
            self._line()

    def working(self, slow: Sequence[str]) -> None:
        self.slow = list(slow)
        self._line()

    def _line(self) -> None:
        now = time.monotonic()
        if now - self.last < self.every_s:
            return
        self.last = now
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed else 0.0
        if self.remaining is not None:
            eta = duration(max(self.remaining[0] - (now - self.remaining[1]), 0.0))
        else:
            eta = duration((self.total - self.done) / rate) if rate else "?"
        running = "".join(f"; {s}" for s in self.slow)
        print(f"{self.done:,}/{self.total:,} deals ({100 * self.done / self.total:.1f}%), "
              f"{rate:,.1f} deals/s, ETA {eta}; {counts_text(self.counts)}{running}",
              file=self.file or sys.stderr, flush=True)

    def close(self) -> None:
        pass


def console_progress(total: int) -> Progress:
    """A bar when stderr is a terminal, plain lines otherwise."""
    return BarProgress(total) if sys.stderr.isatty() else LineProgress(total)


def work_bar(total: int, what: str, show: bool = True) -> Any:
    """A tqdm bar on stderr for ``total`` deals of ``what`` (an export's), shown only if
    ``show``, on a terminal, and once the work has taken BAR_DELAY_S; never on stdout."""
    return tqdm(total=total, desc=what, unit="deal", file=sys.stderr, delay=BAR_DELAY_S, leave=False,
                disable=not (show and sys.stderr.isatty()), dynamic_ncols=True)


class _ConsoleHandler(logging.Handler):
    """Writes through tqdm so that log lines do not tear the progress bar."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:
            self.handleError(record)


def setup_logging(verbose: int, log_file: Optional[Path]) -> Callable[[], None]:
    """Route fcsurvey's log records, from this process and every worker, to the console
    (warnings, or everything at ``verbose`` >= 1) and to ``log_file``; returns the undo.

    Everything funnels through multiprocessing-logging's handler, so lines from several
    processes never interleave mid-line.  ``verbose`` 2 adds one line per deal.
    """
    level = logging.DEBUG if verbose >= 2 else logging.INFO
    console = _ConsoleHandler(level if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s [%(processName)s] %(message)s"))
    destinations: List[logging.Handler] = [console]
    if log_file is not None:
        try:
            to_file = logging.FileHandler(log_file, encoding="utf-8")
        except OSError as exc:
            raise ConsoleError(f"cannot write log file {log_file}: {exc.strerror}") from None
        to_file.setLevel(level)
        to_file.setFormatter(logging.Formatter(
            "%(asctime)s %(levelname)s [%(processName)s] %(name)s: %(message)s"))
        destinations.append(to_file)
    logger = logging.getLogger(PACKAGE_LOGGER)
    level_before, propagate_before = logger.level, logger.propagate
    handlers = [SharedLogHandler(h) for h in destinations]
    for handler in handlers:
        logger.addHandler(handler)
    logger.setLevel(min(h.level for h in handlers))
    logger.propagate = False

    def undo() -> None:
        for handler in handlers:
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(level_before)
        logger.propagate = propagate_before
    return undo
