"""``fcsurvey deal`` through the real entry point (``python -m fcsurvey``)."""

from __future__ import annotations

import json
from typing import List

import pytest

from fcsurvey import __version__
from fcsurvey.rules import PRESETS

from conftest import DEAL_11982_COLUMNS, run_cli


def test_deal_11982_prints_the_eight_columns() -> None:
    result = run_cli("deal", "11982")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == DEAL_11982_COLUMNS
    assert result.stdout.endswith("\n")
    assert result.stderr == ""


def test_last_deal_number_works() -> None:
    result = run_cli("deal", "8589934591")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 8
    assert sum(len(line.split()) for line in lines) == 52


@pytest.mark.parametrize("args, words", [
    (["deal", "0"], "deal number"),
    (["deal", "-5"], "deal number"),
    (["deal", "8589934592"], "deal number"),
    (["deal", "abc"], "deal number"),
    (["deal", "1", "--variant", "nope"], "nope"),
    (["deal", "1", "--cells", "11"], "cells"),
])
def test_bad_input_is_one_error_line(args: List[str], words: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error:")
    assert words in lines[0]


def test_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert __version__ in result.stdout
    assert "fcsurvey" in result.stdout


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["deal", "--help"]])
def test_help(args: List[str]) -> None:
    result = run_cli(*args)
    assert result.returncode == 0, result.stderr
    assert "Usage:" in result.stdout
    assert "deal" in result.stdout
    assert "Traceback" not in result.stderr


def test_json_format() -> None:
    result = run_cli("deal", "1", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["deal"] == 1
    assert len(data["columns"]) == 8
    assert sum(len(col) for col in data["columns"]) == 52
    assert [col[0] for col in data["columns"]] == "JD 2D 9H JC 5D 7H 7C 5H".split()
    assert data["cells"] == [None] * 4
    assert data["rules"] == PRESETS["freecell"].to_dict()


def test_eight_off_shows_free_cells() -> None:
    result = run_cli("deal", "1", "--variant", "eight-off")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Freecells: ")
    cells = lines[0].split()[1:]
    assert len(cells) == 8
    assert [c == "-" for c in cells] == [False, True] * 4
    assert len(lines) == 1 + 8
    assert sum(len(line.split()) for line in lines[1:]) == 48
