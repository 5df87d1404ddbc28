"""The C core stays in rooms a newcomer can read: no file over MAX_FILE_LINES, no function
over MAX_FUNCTION_LINES (Issue 23's bounds), each file named in the README."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Iterator, Tuple

CORE = Path(__file__).resolve().parent.parent / "fcsurvey" / "_core"
README = CORE.parent.parent / "README.md"
MAX_FILE_LINES = 700
MAX_FUNCTION_LINES = 90
#: A function body opens with a brace alone at the start of a line and closes with one.
OPEN, CLOSE = re.compile(r"^\{\s*$"), re.compile(r"^\}\s*$")
NAME = re.compile(r"(\w+)\s*\(")


def sources() -> Iterator[Path]:
    return (p for p in sorted(CORE.rglob("*")) if p.suffix in (".c", ".h"))


def function_lengths(text: str) -> Dict[str, int]:
    """Lines from each function's opening line to its closing brace, by name."""
    lengths: Dict[str, int] = {}
    lines = text.splitlines()
    start: Tuple[str, int] = ("", -1)
    for i, line in enumerate(lines):
        if OPEN.match(line) and i > 0:
            head = next(l for l in reversed(lines[:i]) if NAME.search(l))
            start = (NAME.search(head).group(1), i - 1)
        elif CLOSE.match(line) and start[1] >= 0:
            lengths[start[0]] = i - start[1] + 1
            start = ("", -1)
    return lengths


def test_the_length_rule_finds_a_function():
    text = "static int f(int a)\n{\n    return a;\n}\n"
    assert function_lengths(text) == {"f": 4}


def test_no_core_file_or_function_is_too_long():
    files = {p.relative_to(CORE).as_posix(): len(p.read_text().splitlines()) for p in sources()}
    assert files and max(files.values()) <= MAX_FILE_LINES, files
    functions = {f"{p.name}:{name}": n for p in sources() for name, n in function_lengths(p.read_text()).items()}
    assert len(functions) > 100  # the rule sees the core's functions, not nothing
    too_long = {name: n for name, n in functions.items() if n > MAX_FUNCTION_LINES}
    assert not too_long, too_long


def test_the_readme_names_every_core_file():
    readme = README.read_text()
    for path in sources():
        rel = path.relative_to(CORE).as_posix()
        stem = rel.rsplit(".", 1)[0]
        assert f"`{rel}`" in readme or f"`{stem}.[ch]`" in readme, f"README's development section lacks {rel}"
