"""Python API over the C search core.

``solve`` deals a number (or takes a board), runs the compiled search with the
GIL released, and returns a :class:`Result`.  Verdicts are proofs: ``solved``
carries a solution the pure-Python engine has replayed, ``unsolvable`` means every
reachable position was visited with exact duplicate detection, anything else
is ``unknown`` with the limit that fired.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, Optional, Sequence, Tuple, Union

from ._core import _fccore
from .deals import Deal, deal as make_deal
from .engine import Position
from .limits import DEFAULT_LENGTH, OPTIMAL_LENGTH, SHORT_LENGTH, Limits, SolverError
from . import offer as offers
from .notation import parse_board
from .replay import validate
from .rules import BUILD_ORDERS, EMPTY_FILLS, PRESETS, SEQUENCE_MOVES, Rules
from .schema import BROKEN_LIMIT, SOLVED, THREADS_LIMIT

#: A layered proof given a checkpoint directory saves its progress at most this often, so
#: an interrupted one loses about ten minutes (more only where a save takes over 30 s: the C
#: core spaces saves so that they cost at most about 5% of the time).
CHECKPOINT_EVERY_S = 600.0

#: The most threads one layered proof runs on (``solve(..., threads=N)``).
MAX_THREADS = _fccore.MAX_THREADS

#: The search keeps room for 13 cards built on a column's dealt cards.
MAX_DEALT_COLUMN = 19

#: A solve's two phases: the searches (greedy tries, then the complete search, which proves
#: a deal unsolvable when it fits in ``max_states``), and the layered proof they hand over
#: to when it does not.  Run apart, the searches end ``unknown`` with the ``states`` limit
#: where the proof would start, and the proof alone starts there.
SEARCH, PROOF = "search", "proof"
PHASES = (SEARCH, PROOF)
_PHASE_BITS = {SEARCH: _fccore.PHASE_SEARCH, PROOF: _fccore.PHASE_PROOF}
#: The core's code for each of limits.LENGTHS.
_LENGTH_CODES = {DEFAULT_LENGTH: _fccore.LENGTH_DEFAULT, SHORT_LENGTH: _fccore.LENGTH_SHORT,
                 OPTIMAL_LENGTH: _fccore.LENGTH_OPTIMAL}
#: The least time limit a resumed proof is given (the core reads 0 as none).
_LEAST_TIMEOUT_S = 1e-9


#: The environment variable that puts other search weights in force in every process that
#: solves (survey workers inherit it): ``greedy.depth=1,complete.not_home=3`` changes those
#: weights of tuning.h's WEIGHTS and keeps the rest.  For experiments and the test that the
#: difficulty bands do not depend on the search (tests/test_bands.py); no verdict depends on
#: the weights, only how soon it comes, and a build with other weights names itself another
#: build (:func:`core_build`).
WEIGHTS_ENV = "FCSURVEY_WEIGHTS"
#: The weight sets that :data:`WEIGHTS_ENV` may change: the greedy searches' and the
#: complete search's (``--short``'s beam search keeps its own).
WEIGHT_SETS = ("greedy", "complete")
#: The names of the weights, in the C core's order (tuning.h).
WEIGHT_NAMES: Tuple[str, ...] = _fccore.WEIGHT_NAMES


class ReplayFailed(RuntimeError):
    """The C core claimed a solution the reference engine rejects: a solver bug."""


class ProofBroken(RuntimeError):
    """The layered proof met a move down a layer, which its argument rules out: a solver
    bug, raised rather than given as an ``unknown`` or ``unsolvable`` verdict."""


@dataclass(frozen=True)
class PhaseCount:
    """What one phase of a solve did: positions it stored (the proof: visited) and seconds."""

    states: int
    time_s: float


#: The phases :attr:`Result.phase_counts` counts, in order: the first four make up the
#: ``search`` of :data:`PHASES` (the interlude runs in the course of the complete search),
#: the last is its ``proof``.
COUNTED_PHASES = ("greedy_tries", "complete_search", "interlude", "last_try", "layered_proof")
#: The searches for a shorter line once a solve has won, which :attr:`Result.line_counts`
#: counts: ``--short``'s beam search and ``--optimal``'s A* for par.  They decide no verdict,
#: so their positions are not in ``states``, which stays the verdict's cost in every mode.
LINE_PHASES = ("beam_search", "par_search")


@dataclass(frozen=True)
class Result:
    """The verdict for one deal or board.

    ``moves`` counts solution tokens (a sequence move is one);
    ``atomic_moves`` counts the single-card moves they stand for.
    """

    status: str
    solution: Optional[str]
    moves: int
    atomic_moves: int
    states: int
    expanded: int
    elapsed_s: float
    limit: Optional[str] = None
    resumed: bool = False  # the layered proof went on from a checkpoint
    #: By phase (COUNTED_PHASES): their states add up to ``states``; empty where no solve ran.
    phase_counts: Dict[str, PhaseCount] = dataclasses.field(default_factory=dict)
    #: By line search (LINE_PHASES): the positions each kept and its seconds, zero where it
    #: did not run (the default length); empty where no solve ran.
    line_counts: Dict[str, PhaseCount] = dataclasses.field(default_factory=dict)
    #: With ``Limits(length="optimal")``: the fewest moves (tokens) of any solution, proved
    #: by A* (the solution is one of them); None when that search ran out of room or time.
    par: Optional[int] = None

    def to_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)


def core_rules(rules: Rules) -> Tuple[int, int, int, int, int, int]:
    """The rule set as the C core's 6-tuple of ints (order of rules.py's tuples)."""
    return (rules.cells, rules.columns, BUILD_ORDERS.index(rules.build),
            EMPTY_FILLS.index(rules.empty_fill), SEQUENCE_MOVES.index(rules.sequence),
            int(rules.foundation_return))


def parse_weights(text: str) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """The (greedy, complete) weight sets that ``text`` (as :data:`WEIGHTS_ENV` takes it)
    makes of tuning.h's; an empty text keeps them.  :class:`SolverError` for anything else."""
    sets = {name: list(values) for name, values in zip(WEIGHT_SETS, _fccore.weights(True))}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, _, value = item.partition("=")
        which, _, name = key.strip().partition(".")
        if which not in sets or name not in WEIGHT_NAMES or not value.strip().isdigit():
            raise SolverError(f"{WEIGHTS_ENV}: {item!r} is not SET.NAME=N with SET one of {', '.join(WEIGHT_SETS)}, "
                              f"NAME one of {', '.join(WEIGHT_NAMES)} and N a whole number")
        sets[which][WEIGHT_NAMES.index(name)] = int(value)
    return tuple(sets["greedy"]), tuple(sets["complete"])


def set_weights(text: str = "") -> None:
    """Put the weights of ``text`` (see :data:`WEIGHTS_ENV`) in force for the solves this
    process makes from now on; ``""`` restores tuning.h's.  Not while a solve runs."""
    _put_in_force(parse_weights(text))


@contextlib.contextmanager
def weights(text: str) -> Iterator[None]:
    """The weights of ``text`` (see :data:`WEIGHTS_ENV`) in force within the block, and
    those before it after."""
    _weights_from_env()
    before = _in_force
    set_weights(text)
    try:
        yield
    finally:
        _put_in_force(before)


def _put_in_force(sets: Tuple[Tuple[int, ...], Tuple[int, ...]]) -> None:
    global _in_force
    try:
        _fccore.set_weights(*sets)
    except ValueError as exc:
        raise SolverError(f"{WEIGHTS_ENV}: {exc}") from None
    _in_force = sets


#: The weight sets in force (tuning.h's until :func:`set_weights` or :data:`WEIGHTS_ENV`
#: says otherwise).
_in_force: Tuple[Tuple[int, ...], Tuple[int, ...]] = _fccore.weights(True)


@functools.lru_cache(maxsize=None)
def _weights_from_env() -> None:
    """Put :data:`WEIGHTS_ENV`'s weights in force, once a process, before its first solve."""
    text = os.environ.get(WEIGHTS_ENV, "")
    if text:
        set_weights(text)


@functools.lru_cache(maxsize=None)
def _library_digest() -> bytes:
    with open(_fccore.__file__, "rb") as f:
        return hashlib.sha256(f.read()).digest()


def _build_id() -> bytes:
    """A digest of the compiled core and of the weights in force when they are not
    tuning.h's: checkpoints are raw memory layouts of one build, and datasets name the
    build that searched (with other weights it is another search)."""
    _weights_from_env()
    if _in_force == _fccore.weights(True):
        return _library_digest()
    return hashlib.sha256(_library_digest() + repr(_in_force).encode()).digest()


def core_build() -> str:
    """This build of the C core, as datasets record it: the first 16 hex digits of its digest."""
    return _build_id().hex()[:16]


def checkpoint_tag(position: Position, rules: Rules) -> bytes:
    """What a proof's checkpoint must match to be resumed: the build, the rules, the start."""
    return hashlib.sha256(_build_id() + repr((core_rules(rules), position.columns, position.cells,
                                              position.foundations)).encode()).digest()


def checkpoint_path(checkpoints: Path, position: Position, rules: Rules) -> Path:
    """The file in directory ``checkpoints`` where a proof of ``position`` saves its progress."""
    return _checkpoint_file(checkpoints, checkpoint_tag(position, rules))


def _checkpoint_file(checkpoints: Path, tag: bytes) -> Path:
    return Path(checkpoints) / f"{tag.hex()[:32]}.proof"


def solve_position(position: Position, rules: Rules = PRESETS["freecell"], limits: Limits = Limits(),
                   *, replay: bool = True, checkpoints: Optional[Path] = None,
                   checkpoint: Optional[Path] = None, checkpoint_every: float = CHECKPOINT_EVERY_S,
                   phases: Sequence[str] = PHASES, threads: int = 1,
                   offer: Optional[Union[str, Path]] = None,
                   on_threads: Optional[Callable[[int], None]] = None) -> Result:
    """Solve from any position; the solution starts from it as given.

    With ``replay`` (the default) a solution is believed only after the
    pure-Python engine has replayed it to the end: a solver bug raises
    :class:`ReplayFailed` instead of reporting ``solved``.  Turn it off only
    where the solutions are replayed later anyway.

    With a ``checkpoints`` directory, a layered proof (hours, for some deals with few
    cells) saves its progress there every ``checkpoint_every`` seconds, in a file named
    by :func:`checkpoint_tag`, so that if this process dies, a later solve of the same
    position under the same rules and build goes on from it (``resumed``) and reaches the
    same verdict with the same counts.  The file goes when the proof returns.  A directory
    that cannot be made only means no checkpoints.

    ``checkpoint`` names the file itself instead (one long solve run by hand, rerun by the
    same command): a file already there must be a checkpoint of this very solve, or
    :class:`SolverError` says so before any work, as taking or overwriting it would lose
    another proof's progress.

    ``phases`` (see :data:`PHASES`) runs only some of the solve; ``limits.searches_only`` is
    ``phases=("search",)``, recorded with the limits.  Run apart, the two give
    the counts of one whole solve between them, resumed or not: the proof alone resumes
    from a checkpoint, and the searches alone always run (a resumed whole solve skips
    them, as the checkpoint holds their counts).

    ``threads`` (1 to :data:`MAX_THREADS`) is how many threads the layered proof runs on;
    the searches before it run on one.  The verdict does not depend on it, nor, where the
    parts of a layer are its connected pieces (the usual empty-column rule), the positions
    visited; a checkpoint saved with any number is resumed with any other.

    With an ``offer`` file (offer.py), the proof goes on with the threads it names as it
    changes (``on_threads`` hears each new number): it stops at a checkpoint, in
    ``checkpoints`` or else a temporary directory, and is resumed on the number offered,
    with the counts and verdict it would have had; ``elapsed_s`` covers every stretch.

    A position that is not one deck (:meth:`Position.deck_problem`) is a SolverError.
    """
    problem = position.deck_problem()
    if problem is not None:
        raise SolverError(problem)
    return _solve_dealt(position, rules, limits, replay, checkpoints, checkpoint, checkpoint_every,
                        phases, threads, offer, on_threads)


def _solve_dealt(position: Position, rules: Rules, limits: Limits, replay: bool, checkpoints: Optional[Path],
                 checkpoint: Optional[Path], checkpoint_every: float, phases: Sequence[str], threads: int,
                 offer: Optional[Union[str, Path]], on_threads: Optional[Callable[[int], None]]) -> Result:
    """:func:`solve_position` of a position known to hold one deck: a deal's layout or a
    parsed board (the hot path of a survey skips the check)."""
    if isinstance(phases, str) or not phases or not set(phases) <= set(PHASES):
        raise SolverError(f"phases must be some of {', '.join(PHASES)}, got {phases!r}")
    if limits.searches_only:
        if SEARCH not in phases:
            raise SolverError("the limits say searches only, so the proof alone has nothing to run")
        if checkpoint is not None:
            raise SolverError("a checkpoint keeps a layered proof's progress, and searches only run none")
        phases = (SEARCH,)
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise SolverError(f"threads must be a whole number from 1 to {MAX_THREADS}, got {threads!r}")
    longest = max(map(len, position.columns), default=0)
    if longest > MAX_DEALT_COLUMN:
        raise SolverError(f"a column holds {longest} cards; the solver takes at most {MAX_DEALT_COLUMN}")
    saving: Tuple[Any, ...] = (None, b"", 0.0)
    if checkpoint is not None:
        if checkpoints is not None:
            raise SolverError("give a checkpoint file or a checkpoints directory, not both")
        tag = checkpoint_tag(position, rules)
        if os.path.lexists(checkpoint) and not _fccore.checkpoint_matches(str(checkpoint), tag):
            raise SolverError(f"{str(checkpoint)!r} is not a checkpoint of this solve (another deal, "
                              "rules or build, damaged, or not a checkpoint): remove it or give another path")
        saving = (str(checkpoint), tag, checkpoint_every)
    if saving[0] is None and (checkpoints is not None or offer is not None):
        with contextlib.ExitStack() as scratch:
            if checkpoints is None:  # an offer goes on from a checkpoint
                checkpoints, checkpoint_every = Path(scratch.enter_context(tempfile.TemporaryDirectory())), math.inf
            tag = checkpoint_tag(position, rules)
            try:
                os.makedirs(checkpoints, exist_ok=True)
                saving = (str(_checkpoint_file(checkpoints, tag)), tag, checkpoint_every)
            except OSError:
                pass
            raw = _core_solve(position, rules, limits, phases, saving, threads,
                              offer if saving[0] is not None else None, on_threads)
    else:  # most solves: nothing to save, so no scratch directory either
        raw = _core_solve(position, rules, limits, phases, saving, threads,
                          offer if saving[0] is not None else None, on_threads)
    counts = raw["phase_counts"]
    raw["phase_counts"], raw["line_counts"] = ({name: PhaseCount(counts[name]["states"], counts[name]["time_s"])
                                                for name in names} for names in (COUNTED_PHASES, LINE_PHASES))
    result = Result(**raw)
    if replay and result.status == SOLVED:
        check = validate(position, rules, result.solution)
        if not check.ok:
            raise ReplayFailed(f"solution fails replay: {check.verdict()}")
    return result


def _core_solve(position: Position, rules: Rules, limits: Limits, phases: Sequence[str], saving: Tuple[Any, ...],
                threads: int, offer: Optional[Union[str, Path]],
                on_threads: Optional[Callable[[int], None]]) -> Dict[str, Any]:
    """The C core's solve, resumed from its checkpoint each time its proof stops to go on
    with the threads offered; what it did, over every stretch."""
    _weights_from_env()
    offered = (str(offer), offers.OFFER_EVERY_S) if offer is not None else (None, 0.0)
    elapsed, resumed = 0.0, None
    while True:
        timeout = max(limits.timeout - elapsed, _LEAST_TIMEOUT_S) if limits.timeout else 0.0
        raw = _fccore.solve(core_rules(rules), position.columns, position.cells, position.foundations,
                            limits.max_states, timeout, sum(_PHASE_BITS[p] for p in set(phases)),
                            *saving, threads, *offered, _LENGTH_CODES[limits.length])
        elapsed += raw["elapsed_s"]
        resumed = raw["resumed"] if resumed is None else resumed
        if raw["limit"] == BROKEN_LIMIT:
            raise ProofBroken("the layered proof met a move that goes down a layer, which its argument rules "
                              "out (docs/solver.md), so it proves nothing: a bug in the core, please report it")
        if raw["limit"] != THREADS_LIMIT:
            raw["elapsed_s"], raw["resumed"] = elapsed, resumed
            return raw
        now = offers.read_offer(offer) if offer is not None else None
        if now is not None and 1 <= now <= MAX_THREADS and now != threads:
            threads = now
            if on_threads is not None:
                on_threads(threads)


def solve(deal: Union[int, Deal], rules: Rules = PRESETS["freecell"], limits: Limits = Limits(),
          *, replay: bool = True, checkpoints: Optional[Path] = None,
          checkpoint: Optional[Path] = None, checkpoint_every: float = CHECKPOINT_EVERY_S,
          phases: Sequence[str] = PHASES, threads: int = 1, offer: Optional[Union[str, Path]] = None,
          on_threads: Optional[Callable[[int], None]] = None) -> Result:
    """Solve a deal number (dealt under ``rules``) or an already dealt layout."""
    layout = deal if isinstance(deal, Deal) else make_deal(deal, rules)
    return _solve_dealt(Position.from_deal(layout), rules, limits, replay, checkpoints, checkpoint,
                        checkpoint_every, phases, threads, offer, on_threads)


def solve_board(text: str, rules: Rules = PRESETS["freecell"], limits: Limits = Limits(),
                *, replay: bool = True) -> Result:
    """Solve a position given as fc-solve/PySol board text (see notation.py)."""
    return _solve_dealt(parse_board(text, rules), rules, limits, replay, None, None, CHECKPOINT_EVERY_S,
                        PHASES, 1, None, None)
