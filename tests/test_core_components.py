"""Component tests for the C core: the key codec, a proof layer's buckets, the spill file and
the proof's checkpoints, each driven through its own header by a standalone harness
(tests/core/harness.c).  The end-to-end tests see these parts only through totals; here a
broken part fails by name.  The harness is built once per session with the system's C
compiler (the only requirement; set FCSURVEY_SANITIZE=1 to build it with ASan and UBSan)
and prints what it found as name=value fields; the assertions on them are all here.

Each component's tests were seen to fail with a bug planted in a scratch copy of the core
(never committed), one line each:
  planted: key.c k_bits one bit short (bits_for(dealt_max) - 1), caught by test_key_round_trips
           (every rule set: first its k_bits check, and with that check removed, decoded != canon)
  planted: key.c any-suit chain width 1 bit, not 2, caught by test_key_round_trips[any-suit] alone
           (the one rule set that builds in any suit: no preset does)
  planted: key.c key_code_columns skipping the lowest column it is asked to code, caught by
           test_key_round_trips (every rule set: decoded != canon)
  planted: proof/layer.c split_bucket parting keys by the wrong hash bit (bit << 1), caught by
           test_layer_finds_every_key_after_many_splits and test_layer_remove
  planted: proof/layer.c split_bucket dropping the expanded count of each part, caught by
           test_layer_keeps_expanded_keys_first_across_splits
  planted: proof/layer.c split_bucket hashing a key with its tail (len, not len - l->tail),
           caught by test_layer_keeps_each_keys_tail (keys found no more after splits)
  planted: proof/spill.c proof_add without its layer_has look-up (a duplicate inserted twice),
           caught by test_spill_store_adds_a_key_once, test_spill_slices_bring_every_key_back_once
           and test_checkpoint_round_trip
  planted: proof/spill.c proof_load_layer not skipping keys already visited (in `seen`), caught
           by test_spill_slices_bring_every_key_back_once (a duplicate dropped no more)
  planted: proof/spill.c reader_key taking a key of length 0, caught by
           test_spill_refuses_a_damaged_segment[zero_length]
  planted: proof/checkpoint.c header_of without its file-size check (a truncated checkpoint
           accepted), caught by test_checkpoint_refuses_a_truncated_file
  planted: proof/checkpoint.c header_of without its tag check, caught by
           test_checkpoint_refuses_a_foreign_tag
  planted: proof/checkpoint.c load_layers without its CRC comparison, caught by
           test_checkpoint_refuses_a_flipped_bit (every offset: loaded 1)
  planted: proof/checkpoint.c checkpoint_matches without crc_holds, caught by
           test_checkpoint_refuses_a_flipped_bit (matches 1)
  planted: proof/checkpoint.c crc_with_header leaving the header out, caught by
           test_checkpoint_refuses_a_flipped_bit[counts] alone (matches 1, loaded 1)
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from fcsurvey.deals import deal
from fcsurvey.engine import can_build
from fcsurvey.rules import BUILD_ORDERS, EMPTY_FILLS, PRESETS, SEQUENCE_MOVES, Rules, preset

from conftest import CHECKPOINT_CRC_AT, checkpoint_header_size, with_checkpoint_crc

TESTS = Path(__file__).resolve().parent
CORE = TESTS.parent / "fcsurvey" / "_core"
HARNESS_SOURCE = TESTS / "core" / "harness.c"
#: What the harness links of the core: rules and moves (to play random positions), the key
#: codec, and the layered proof's store: its layers, the spill file and checkpoints.
CORE_SOURCES = ("position.c", "key.c", "proof/layer.c", "proof/spill.c", "proof/checkpoint.c")
CFLAGS = ("-O1", "-g", "-Wall", "-Wextra")
SANITIZE_ENV = "FCSURVEY_SANITIZE"
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")

#: Every preset, and the rule settings no preset has that change the codec or the moves.
RULE_SETS: Dict[str, Rules] = {
    **PRESETS,
    "0-cells": preset("freecell", cells=0),
    "any-suit": Rules(build="any"),
    "single-card-moves": Rules(sequence="single"),
    "foundation-return": Rules(foundation_return=True),
}
KEY_DEALS = range(1, 7)
KEY_WALKS, KEY_STEPS = 4, 100
CHAIN_BITS = {"alternate": 1, "suit": 0, "any": 2}  # a built card's suit choice, per build order

LAYER_KEYS = 20_000
SPILL_KEYS = 100_000  # enough for one spilled segment to outgrow the 1 MiB I/O buffer
CHECKPOINT_KEYS = 20_000
#: The harness's checkpoint store (harness.c, checkpoint_layer): key i goes to layer 90 when
#: i % 50 == 0, else to 100 + i % 5; the checkpoint is saved from layer 100 up.
CHECKPOINT_FIRST = 100
CHECKPOINT_SAVED = sum(1 for i in range(CHECKPOINT_KEYS) if i % 50)
TAG = hashlib.sha256(b"tests/test_core_components.py").hexdigest()
FOREIGN_TAG = hashlib.sha256(b"another build, rules or start").hexdigest()
CHECKPOINT_END = b"\xff" * 4  # checkpoint.h: the file ends with CHECKPOINT_END
@dataclass(frozen=True)
class Harness:
    path: Path
    build_output: str

    def run(self, *args: object, stdin: str = "", tmpdir: Optional[Path] = None) -> List[Tuple[str, Record]]:
        """Run one command; each output line as (what it reports, its fields)."""
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0")
        if tmpdir is not None:
            env["TMPDIR"] = str(tmpdir)
        done = subprocess.run([str(self.path), *map(str, args)], input=stdin, capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode == 0, f"harness {args} exited {done.returncode}: {done.stderr}"
        assert done.stderr == "", done.stderr  # sanitizer reports land here
        records = []
        for line in done.stdout.splitlines():
            what, *fields = line.split("\t")
            records.append((what, dict(f.split("=", 1) for f in fields)))
        return records

    def one(self, what: str, *args: object, **kwargs: object) -> Dict[str, str]:
        """The one `what` record a command prints."""
        found = [fields for kind, fields in self.run(*args, **kwargs) if kind == what]
        assert len(found) == 1, f"expected one {what!r} record from {args}"
        return found[0]


def find_compiler() -> Optional[List[str]]:
    """The C compiler: `cc` on PATH, else the one Python was built with, if it is there."""
    if shutil.which("cc"):
        return ["cc"]
    configured = shlex.split(sysconfig.get_config_var("CC") or "")
    return configured if configured and shutil.which(configured[0]) else None


@pytest.fixture(scope="session")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Harness:
    compiler = find_compiler()
    if compiler is None:
        pytest.skip("no C compiler (cc) on PATH: the component tests build a standalone harness")
    out = tmp_path_factory.mktemp("core-harness") / "harness"
    flags = [*CFLAGS, *(SANITIZE_FLAGS if os.environ.get(SANITIZE_ENV) == "1" else ())]
    build = subprocess.run([*compiler, *flags, "-I", str(CORE), "-o", str(out), str(HARNESS_SOURCE),
                            *(str(CORE / s) for s in CORE_SOURCES)], capture_output=True, text=True)
    assert build.returncode == 0, f"the harness does not build:\n{build.stderr}"
    return Harness(out, build.stdout + build.stderr)


def test_without_a_compiler_the_component_tests_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(sysconfig, "get_config_var", lambda name: "no-such-cc -pthread")
    assert find_compiler() is None


def test_the_harness_and_the_core_build_without_warnings(harness: Harness) -> None:
    assert harness.build_output == ""


# ---- the key codec ----

def core_rules(rules: Rules) -> Tuple[int, ...]:
    return (rules.cells, rules.columns, BUILD_ORDERS.index(rules.build), EMPTY_FILLS.index(rules.empty_fill),
            SEQUENCE_MOVES.index(rules.sequence), int(rules.foundation_return))


def start_text(number: int, rules: Rules) -> Tuple[str, Position]:
    """Deal `number` as the harness reads a start (cards 1..52), and as a position."""
    dealt = deal(number, rules, reference=True)
    columns = tuple(tuple(c + 1 for c in col) for col in dealt.columns)
    cells = tuple(0 if c is None else c + 1 for c in dealt.cells)
    lines = [" ".join(map(str, core_rules(rules)))]
    lines += [" ".join(map(str, (len(col), *col))) for col in columns]
    lines += [" ".join(map(str, cells)) or "", "0 0 0 0"]
    return "\n".join(lines) + "\n", (columns, cells, (0, 0, 0, 0))


def parse_position(text: str) -> Position:
    columns, cells, found = text.split("|")
    cards = tuple(tuple(int(c) for c in col.split(",") if c) for col in columns.split("/"))
    return cards, tuple(int(c) for c in cells.split(",") if c), tuple(int(f) for f in found.split(","))


def content(p: Position) -> Position:
    """What a position is, whatever the order of its columns and cells."""
    columns, cells, found = p
    return tuple(sorted(c for c in columns if c)), tuple(sorted(c for c in cells if c)), found


def out_of_order_pairs(p: Position, rules: Rules) -> int:
    """Cards on a card they do not build on, in every column."""
    return sum(not can_build(col[j - 1] - 1, col[j] - 1, rules) for col in p[0] for j in range(1, len(col)))


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_key_round_trips(harness: Harness, name: str) -> None:
    # Positions of random legal play from six deals: decode(encode(p)) is p in canonical
    # order, a reordering of p's columns and cells has p's key, and in the sample of each
    # deal one key stands for one position and one position has one key.
    rules = RULE_SETS[name]
    distinct = reordered = cards_home = unanchored = empty_column = 0
    for number in KEY_DEALS:
        text, start = start_text(number, rules)
        records = harness.run("keys", number, KEY_WALKS, KEY_STEPS, stdin=text)
        codec = records[0][1]
        assert int(codec["chain_bits"]) == CHAIN_BITS[rules.build]
        assert int(codec["k_bits"]) == max(len(col) for col in start[0]).bit_length()
        dealt_bottoms = {col[0] for col in start[0] if col}
        key_of: Dict[Position, str] = {}
        content_of: Dict[str, Position] = {}
        for what, s in records[1:]:
            assert what == "sample"
            p, canon, decoded = (parse_position(s[f]) for f in ("pos", "canon", "decoded"))
            assert decoded == canon, s
            assert content(canon) == content(p)
            assert len(canon[0]) == rules.columns and len(canon[1]) == rules.cells
            assert sum(len(c) for c in decoded[0]) + len(content(decoded)[1]) + sum(decoded[2]) == 52
            assert s["again"] == s["key"], "the decoded position encodes to another key"
            assert s["shuffled_key"] == s["key"], f"reordering the columns changes the key: {s}"
            assert content(parse_position(s["shuffled"])) == content(p)
            assert int(s["bits"]) <= 64 * int(s["words"])
            assert (s["decoded_codes"], s["coded"], s["packed"]) == ("1", "1", "1"), s
            assert s["pairs"] == s["shuffled_pairs"]
            assert int(s["pairs"].split(":")[0]) == out_of_order_pairs(p, rules)
            assert key_of.setdefault(content(p), s["key"]) == s["key"], "one position, two keys"
            assert content_of.setdefault(s["key"], content(p)) == content(p), "two positions, one key"
            reordered += canon != p
            cards_home += sum(p[2]) > 0
            unanchored += any(col and col[0] not in dealt_bottoms for col in p[0])
            empty_column += any(not col for col in p[0])
        distinct += len(key_of)
    # The sample reaches what the codec must handle, or the test proves little.  (With no
    # free cell, random play frees no column, so every column stays where it was dealt.)
    assert distinct >= 30 and cards_home
    assert (reordered and unanchored and empty_column) or rules.cells == 0


# ---- a proof layer: buckets under linear hashing ----

@pytest.fixture(scope="module")
def layer_run(harness: Harness) -> Dict[str, Record]:
    return {what: fields for what, fields in harness.run("layer", 7, LAYER_KEYS)}


def ints(record: Record) -> Dict[str, int]:
    return {k: int(v) for k, v in record.items()}


def test_layer_finds_every_key_after_many_splits(layer_run: Dict[str, Record]) -> None:
    layer = ints(layer_run["layer"])
    assert layer["n"] == LAYER_KEYS
    assert layer["buckets"] > 32 * 2 ** ints(layer_run["tuning"])["first_level"]  # many splits
    assert layer["found"] == LAYER_KEYS
    assert layer["absent_found"] == 0
    assert layer["walk_keys"] == LAYER_KEYS
    # Each key in the bucket its hash picks, with its fingerprint, once, in arrival order.
    assert (layer["walk_misplaced"], layer["walk_foreign"], layer["walk_unordered"]) == (0, 0, 0)


def test_layer_grows_one_bucket_at_a_time(layer_run: Dict[str, Record]) -> None:
    # Linear hashing: a key that takes the layer past BUCKET_LOAD keys a bucket splits one.
    tuning, layer = ints(layer_run["tuning"]), ints(layer_run["layer"])
    buckets = 2 ** tuning["first_level"]
    for n in range(1, LAYER_KEYS + 1):
        buckets += n > buckets * tuning["bucket_load"]
    assert layer["buckets"] == buckets
    assert layer["buckets"] == 2 ** layer["level"] + layer["split"] and layer["split"] < 2 ** layer["level"]


def test_layer_keeps_expanded_keys_first_across_splits(layer_run: Dict[str, Record]) -> None:
    # Half the keys were marked expanded before the rest came: after the splits the rest
    # caused, each bucket's first `done` keys are exactly its keys of the first half.
    layer = ints(layer_run["layer"])
    assert layer["walk_done_sum"] == LAYER_KEYS // 2
    assert layer["walk_done_wrong"] == 0


def test_layer_remove(layer_run: Dict[str, Record]) -> None:
    removed = ints(layer_run["remove"])
    third = len(range(0, LAYER_KEYS, 3))
    assert removed["removed"] == third and removed["removed_again"] == 0
    assert removed["n"] == LAYER_KEYS - third == removed["walk_keys"] == removed["kept_found"]
    assert removed["removed_found"] == 0
    assert (removed["walk_misplaced"], removed["walk_foreign"], removed["walk_unordered"]) == (0, 0, 0)
    assert removed["reinserted_found"] == LAYER_KEYS
    # Removing every key empties every bucket and gives its memory back.
    assert removed["emptied"] == LAYER_KEYS
    assert (removed["emptied_n"], removed["emptied_nonempty"], removed["emptied_blocks"]) == (0, 0, 0)


def test_layer_keeps_each_keys_tail(layer_run: Dict[str, Record]) -> None:
    # The part keeps each key's back move after it (proof/layer.h, `tail`): a lookup and a
    # split see the key alone, and the tail stays with its key through splits and removals.
    tail = ints(layer_run["tail"])
    assert tail["n"] == tail["found"] == tail["walk_keys"] == LAYER_KEYS
    assert tail["buckets"] == ints(layer_run["layer"])["buckets"]  # the same splits as without tails
    assert tail["absent_found"] == 0
    assert (tail["walk_misplaced"], tail["walk_foreign"], tail["walk_unordered"], tail["walk_tail_wrong"]) == (0, 0, 0, 0)
    third = len(range(0, LAYER_KEYS, 3))
    assert tail["removed"] == third
    assert tail["kept_found"] == tail["kept_keys"] == LAYER_KEYS - third
    assert (tail["kept_misplaced"], tail["kept_foreign"], tail["kept_tail_wrong"]) == (0, 0, 0)
    assert tail["tail_after_free"] == 2  # a freed part is the part again


# ---- the spill file ----

@pytest.fixture(scope="module")
def spill_run(harness: Harness, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Dict[str, str]]:
    tmpdir = tmp_path_factory.mktemp("spill")
    records = {what: fields for what, fields in harness.run("spill", 11, SPILL_KEYS, tmpdir=tmpdir)}
    records["tmpdir"] = {"left": str(len(list(tmpdir.iterdir())))}
    return records


def test_spill_store_adds_a_key_once(spill_run: Dict[str, Record]) -> None:
    slices = ints({k: v for k, v in spill_run["slices"].items() if k != "slice_sizes"})
    assert slices["added"] == SPILL_KEYS // 10 * 6
    assert slices["added_again"] == 0


def test_spill_writes_a_layer_as_one_segment(spill_run: Dict[str, Record]) -> None:
    s = ints({k: v for k, v in spill_run["slices"].items() if k != "slice_sizes"})
    six = SPILL_KEYS // 10 * 6
    assert s["first_spill"] == 1
    assert (s["first_segments"], s["first_disk_keys"], s["first_memory_keys"]) == (1, six, 0)
    assert s["first_disk_bytes"] == s["first_bytes_expected"] > s["spill_buffer"]  # length byte + key, each
    assert (s["first_live"], s["first_waiting"], s["first_spilled"], s["first_layer_keys"]) == (0, six, six, six)
    # Keys that come again after their layer went out are written again: the file has
    # them twice until the layer comes back.
    again = SPILL_KEYS - SPILL_KEYS // 10 * 4
    assert s["readded"] == again and s["second_spill"] == 1
    assert (s["second_segments"], s["second_disk_keys"], s["second_layer_keys"]) == (2, six + again, six + again)


def test_spill_slices_bring_every_key_back_once(spill_run: Dict[str, Record]) -> None:
    s = spill_run["slices"]
    sizes = [int(x) for x in s["slice_sizes"].split(",")]
    slice_ = int(s["slice"])
    assert sum(sizes) == SPILL_KEYS == int(s["loaded"])
    assert all(n == slice_ for n in sizes[:-1]) and sizes[-1] <= slice_ and len(sizes) >= 4
    assert (int(s["foreign"]), int(s["repeats"])) == (0, 0)
    assert (int(s["end_segments"]), int(s["end_disk_keys"]), int(s["end_waiting"])) == (0, 0, 0)


def test_spill_sift_drops_visited_keys(spill_run: Dict[str, Record]) -> None:
    s = ints(spill_run["sift"])
    rest = SPILL_KEYS - SPILL_KEYS // 2
    assert s["sifted"] == 1 and s["seen_after"] == 0
    assert (s["sift_segments"], s["sift_disk_keys"], s["sift_waiting"]) == (1, rest, rest)
    assert s["loaded_ok"] == 1 and s["loaded"] == rest
    assert (s["foreign"], s["visited_loaded"]) == (0, 0)


@pytest.mark.parametrize("damage", ["zero_length", "long_length", "cut_key"])
def test_spill_refuses_a_damaged_segment(spill_run: Dict[str, Record], damage: str) -> None:
    s = ints(spill_run["corrupt"])
    assert s[f"{damage}_loaded"] == 0
    assert s[f"{damage}_limit"] == s["limit_disk"]


def test_spill_makes_room_by_sending_higher_layers_out(spill_run: Dict[str, Record]) -> None:
    s = ints(spill_run["room"])
    assert s["most_live"] <= s["room"] < SPILL_KEYS
    assert s["held"] == SPILL_KEYS and s["spilled"] > 0
    assert s["loaded"] == SPILL_KEYS
    assert (s["foreign"], s["repeats"], s["wrong_layer"], s["waiting"]) == (0, 0, 0, 0)


def test_spill_file_leaves_nothing_behind(spill_run: Dict[str, Record]) -> None:
    assert spill_run["tmpdir"]["left"] == "0"  # unlinked as soon as it is made


# ---- checkpoints ----

@pytest.fixture(scope="module")
def checkpoint(harness: Harness, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("checkpoint") / "proof.ckpt"
    saved = harness.one("save", "checkpoint", "save", 5, CHECKPOINT_KEYS, path, TAG)
    assert saved["saved"] == "1" and int(saved["disk_keys"]) > 0  # some of it came from the spill file
    assert path.exists() and not Path(f"{path}.tmp").exists()
    return path


def load(harness: Harness, path: Path, tag: str = TAG) -> Dict[str, int]:
    return ints(harness.one("load", "checkpoint", "load", 5, CHECKPOINT_KEYS, path, tag))


def test_checkpoint_round_trip(harness: Harness, checkpoint: Path) -> None:
    loaded = load(harness, checkpoint)
    assert (loaded["matches"], loaded["loaded"], loaded["limit"]) == (1, 1, 0)
    assert loaded["first"] == CHECKPOINT_FIRST
    assert loaded["counts_equal"] == 1
    # Every key saved comes back in its layer, once (a key in memory and on disk too is
    # dropped), and nothing of the finished layer below the first.
    assert loaded["keys"] == CHECKPOINT_SAVED
    assert (loaded["foreign"], loaded["repeats"], loaded["wrong_layer"], loaded["below_first"]) == (0, 0, 0, 0)


def test_checkpoint_refuses_a_foreign_tag(harness: Harness, checkpoint: Path) -> None:
    loaded = load(harness, checkpoint, FOREIGN_TAG)
    assert (loaded["matches"], loaded["loaded"], loaded["keys"]) == (0, 0, 0)
    assert loaded["limit"] == loaded["limit_disk"]


def damaged_copy(checkpoint: Path, tmp_path: Path, damage: str) -> Path:
    data = checkpoint.read_bytes()
    assert data.endswith(CHECKPOINT_END)
    damaged = {
        "empty": b"",
        "magic only": data[:8],
        "header only": data[:64],
        "half": data[:len(data) // 2],
        "without its end": data[:-len(CHECKPOINT_END)],
        "last byte gone": data[:-1],
        "a byte more": data + b"\0",
        "another magic": bytes([data[0] ^ 1]) + data[1:],
    }[damage]
    path = tmp_path / "damaged.ckpt"
    path.write_bytes(damaged)
    return path


@pytest.mark.parametrize("damage", ["empty", "magic only", "header only", "half", "without its end",
                                    "last byte gone", "a byte more", "another magic"])
def test_checkpoint_refuses_a_truncated_file(harness: Harness, checkpoint: Path, tmp_path: Path,
                                             damage: str) -> None:
    loaded = load(harness, damaged_copy(checkpoint, tmp_path, damage))
    assert (loaded["matches"], loaded["loaded"], loaded["keys"]) == (0, 0, 0)
    assert loaded["limit"] == loaded["limit_disk"]


def test_checkpoint_crc_is_zlibs_of_its_body_then_its_header(checkpoint: Path) -> None:
    data = checkpoint.read_bytes()
    assert CHECKPOINT_CRC_AT + 8 <= checkpoint_header_size(data) < len(data) - 1000


def test_checkpoint_refuses_a_file_not_as_written(harness: Harness, checkpoint: Path, tmp_path: Path) -> None:
    # Whole in size, tag and CRC (set anew), but its end marker overwritten: what follows
    # the last layer's keys is not a layer's header, so the load stops.
    data = checkpoint.read_bytes()
    header = checkpoint_header_size(data)
    bad = data[:-len(CHECKPOINT_END)] + b"\0" * len(CHECKPOINT_END)
    path = tmp_path / "bad-end.ckpt"
    path.write_bytes(with_checkpoint_crc(bad, header))
    loaded = load(harness, path)
    assert loaded["matches"] == 1
    assert loaded["loaded"] == 0 and loaded["limit"] == loaded["limit_disk"]


@pytest.mark.parametrize("where", [0, 1, 2, 7, 1000, -5, "counts"])
def test_checkpoint_refuses_a_flipped_bit(harness: Harness, checkpoint: Path, tmp_path: Path, where) -> None:
    # Whole in size and tag, one bit of its keys (or of the header's counts) flipped, as a
    # damaged disk block leaves it: a key lost or changed would leave positions unvisited,
    # so neither solve.c nor the load takes it.
    data = bytearray(checkpoint.read_bytes())
    header = checkpoint_header_size(bytes(data))
    data[header - 1 if where == "counts" else header + where if where >= 0 else len(data) + where] ^= 0x10
    path = tmp_path / "flipped.ckpt"
    path.write_bytes(bytes(data))
    loaded = load(harness, path)
    assert (loaded["matches"], loaded["loaded"]) == (0, 0)
    assert loaded["limit"] == loaded["limit_disk"]
