"""The layout's rules, checked on the source: the import arrows between packages, and room sizes.

Packages are ``dlgo.<name>`` (a sub-package or a top-level module of ``dlgo``) and ``gtp_engine``;
every ``import`` counts, module-level or inside a function, because a lazy import is still an
arrow a reader has to follow. Imports under ``if TYPE_CHECKING:`` are for type hints only and
never run, so they draw no arrow.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("dlgo/**/*.py"), *ROOT.glob("gtp_engine/**/*.py"), *ROOT.glob("dlgo_web/**/*.py")])
MAX_LINES = 500


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[0] if parts[0] in ("gtp_engine", "dlgo_web") else ".".join(parts[:2])


def _imports(path: Path) -> set[str]:
    """Absolute names of the project modules ``path`` imports."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return {n for n in found if n.split(".")[0] in ("dlgo", "gtp_engine", "dlgo_web")}


def package_graph() -> dict[str, set[str]]:
    """Package -> the packages it imports (itself left out)."""
    known = {_module_name(p) for p in SOURCES}
    graph: dict[str, set[str]] = defaultdict(set)
    for path in SOURCES:
        source = _package(_module_name(path))
        for name in _imports(path):
            # ``from dlgo import goboard`` names a module; ``from dlgo.x import f`` a function
            while name not in known and "." in name:
                name = name.rpartition(".")[0]
            if name == "dlgo":
                continue
            target = _package(name)
            if target != source:
                graph[source].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def test_no_import_circle_between_packages():
    assert _cycles(package_graph()) == []


def test_the_library_never_imports_the_engine():
    graph = package_graph()
    offenders = sorted(p for p, targets in graph.items() if p.startswith("dlgo.") and "gtp_engine" in targets)
    assert offenders == []
    assert not any("dlgo_web" in targets for p, targets in graph.items() if p != "dlgo_web")


def test_alphago_and_zero_stand_side_by_side_on_the_search_wing():
    graph = package_graph()
    assert "dlgo.zero" not in graph["dlgo.alphago"]
    assert "dlgo.search" in graph["dlgo.alphago"] and "dlgo.search" in graph["dlgo.zero"]
    assert not graph["dlgo.search"] & {"dlgo.zero", "dlgo.alphago", "dlgo.mcts"}


def test_the_rules_core_imports_no_network_or_search_code():
    graph = package_graph()
    for core in ("dlgo.goboard", "dlgo.gotypes", "dlgo.scoring", "dlgo.zobrist"):
        assert not graph[core] & {"dlgo.inference", "dlgo.networks", "dlgo.search", "dlgo.train", "gtp_engine"}
    assert "dlgo.goboard" not in graph["dlgo.scoring"]  # the book keeps scoring free of goboard


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_is_a_small_room(path: Path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by concern"


def test_engine_start_up_loads_no_compiler_and_no_network_runtime():
    """The engine answers its first commands before any agent is built: importing it must not
    pull in numba, ONNX Runtime or Keras (each costs a second or more on a small machine)."""
    import subprocess
    import sys

    heavy = "('numba', 'onnxruntime', 'keras')"
    probe = f"import sys, gtp_engine.__main__; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
