"""The package's rooms: no import circle, a light public API, and the store and the known
results usable without the C core."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Set

import pytest

import fcsurvey

PACKAGE = Path(fcsurvey.__file__).resolve().parent


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_names(tree: ast.Module) -> List[ast.stmt]:
    """Every import statement that can run: at module level or inside a function (an import
    there closes a circle as surely, only later), but not under ``if TYPE_CHECKING:``."""
    found: List[ast.stmt] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            visit(child)

    visit(tree)
    return found


def import_graph(root: Path) -> Dict[str, Set[str]]:
    """Which modules of the package at ``root`` each of its modules imports."""
    paths = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: Dict[str, Set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in imported_names(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                if node.level:
                    base = ".".join(filter(None, [base, node.module]))
                else:
                    base = node.module or ""
                # ``from . import store`` imports the module store; ``from .store import read`` the module.
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in paths else base
                           for alias in node.names]
            graph[name].update(t for t in targets if t in paths and t != name)
    return graph


def find_cycle(graph: Dict[str, Set[str]]) -> Optional[List[str]]:
    """One import circle as a list of modules (the first repeated at the end), or None."""
    done: Set[str] = set()
    path: List[str] = []

    def visit(name: str) -> Optional[List[str]]:
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return None
        path.append(name)
        for target in sorted(graph[name]):
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        done.add(name)
        return None

    for name in sorted(graph):
        cycle = visit(name)
        if cycle:
            return cycle
    return None


def write_package(root: Path, modules: Dict[str, str]) -> Path:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in modules.items():
        (package / f"{name}.py").write_text(text)
    return package


def test_a_function_level_import_closing_a_circle_is_found(tmp_path):
    package = write_package(tmp_path, {
        "rules": "from .words import WORDS\n",
        "words": "def later():\n    from . import rules  # rules builds on this module\n",
    })
    assert find_cycle(import_graph(package)) == ["pkg.rules", "pkg.words", "pkg.rules"]


def test_an_import_for_type_checkers_only_closes_no_circle(tmp_path):
    package = write_package(tmp_path, {
        "a": "from .b import B\n",
        "b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\nB = 1\n",
    })
    assert import_graph(package) == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": set()}


def test_no_import_circle_in_the_package():
    graph = import_graph(PACKAGE)
    # The graph sees the imports it must: the replay builds on the rules and the notation.
    assert {"fcsurvey.engine", "fcsurvey.notation"} <= graph["fcsurvey.replay"]
    assert "fcsurvey.engine" in graph["fcsurvey.notation"]
    assert "fcsurvey._core" in graph["fcsurvey.deals"]  # imported inside deal()
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_rules_engine_imports_neither_notation_nor_replay():
    engine = import_graph(PACKAGE)["fcsurvey.engine"]
    assert not engine & {"fcsurvey.notation", "fcsurvey.replay", "fcsurvey._core"}


#: Run in a fresh interpreter: import some modules, and say which of the package's modules
#: and of the heavy ones got loaded, and through which of the package's modules each heavy
#: one was first asked for.
PROBE = """
import json, sys, traceback

HEAVY = ("fcsurvey._core", "pyarrow")

class Spy:
    via = {{}}

    def find_spec(self, name, path=None, target=None):
        heavy = next((h for h in HEAVY if name == h or name.startswith(h + ".")), None)
        if heavy and heavy not in Spy.via:
            names = [frame.f_globals.get("__name__", "") for frame, _ in traceback.walk_stack(None)]
            Spy.via[heavy] = " -> ".join(n for n in reversed(names) if n.startswith("fcsurvey"))
        return None

sys.meta_path.insert(0, Spy())
import {modules}
print(json.dumps({{"loaded": sorted(m for m in sys.modules if m.startswith("fcsurvey")),
                  "heavy": {{h: Spy.via[h] for h in HEAVY if h in sys.modules}}}}))
"""


def probe(modules: str) -> dict:
    run = subprocess.run([sys.executable, "-c", PROBE.format(modules=modules)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_store_and_the_known_results_do_not_load_the_c_core():
    loaded = probe("fcsurvey.known, fcsurvey.store")
    assert not {"fcsurvey._core", "fcsurvey._core._fccore"} & set(loaded["loaded"]), \
        f"fcsurvey._core loaded through {loaded['heavy']['fcsurvey._core']}"


def test_the_known_results_do_not_load_pyarrow():
    heavy = probe("fcsurvey.known")["heavy"]
    assert "pyarrow" not in heavy, f"pyarrow loaded through {heavy['pyarrow']}"


def test_importing_the_package_loads_nothing_else():
    assert probe("fcsurvey") == {"loaded": ["fcsurvey"], "heavy": {}}


def test_the_limits_and_their_error_come_from_the_package_without_the_c_core():
    # A caller that only sets limits or catches SolverError pays for neither the core nor pyarrow.
    assert probe("fcsurvey; fcsurvey.Limits, fcsurvey.SolverError") == {
        "loaded": ["fcsurvey", "fcsurvey.limits"], "heavy": {}}


@pytest.mark.parametrize("name, module", [
    ("solve", "fcsurvey.solver"), ("solve_board", "fcsurvey.solver"), ("Result", "fcsurvey.solver"),
    ("SolverError", "fcsurvey.limits"), ("Rules", "fcsurvey.rules"), ("RulesError", "fcsurvey.rules"),
    ("PRESETS", "fcsurvey.rules"), ("preset", "fcsurvey.rules"), ("Limits", "fcsurvey.limits"),
    ("read", "fcsurvey.store"), ("deal", "fcsurvey.deals"), ("validate", "fcsurvey.replay"),
    ("walkthrough", "fcsurvey.viewer"), ("Walkthrough", "fcsurvey.viewer"),
])
def test_the_public_api_is_the_library_s_own(name, module):
    assert name in fcsurvey.__all__
    assert getattr(fcsurvey, name) is getattr(sys.modules[module], name)


def test_the_public_api_works_from_the_package_alone():
    rules = fcsurvey.preset("freecell", cells=3)
    result = fcsurvey.solve(1, rules, fcsurvey.Limits(max_states=100_000))
    assert result.status == "solved"
    assert fcsurvey.validate(fcsurvey.deal(1, rules), rules, result.solution).ok
    assert sorted(fcsurvey.__all__) == sorted(n for n in dir(fcsurvey) if n in fcsurvey.__all__)
    with pytest.raises(AttributeError, match="module 'fcsurvey' has no attribute 'nope'"):
        fcsurvey.nope  # noqa: B018 -- the attribute access is the test


def test_the_readme_names_every_module_of_the_package():
    """The README's table of the package stays true: each module is in it."""
    table = (PACKAGE.parent / "README.md").read_text().split("The Python package, `fcsurvey/`")[1]
    table = table.split("The C core")[0]
    missing = [p.name for p in sorted(PACKAGE.glob("*.py"))
               if p.name not in ("__init__.py", "__main__.py", "cli.py") and f"`{p.name}`" not in table]
    assert not missing, f"README's table of the package lacks {missing}"
