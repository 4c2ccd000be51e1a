"""The layout's rules, checked on the source: the import arrows between modules, between packages
and between wings (who may import a front end among them), room sizes, and private members that
stay in their module.

The project's top-level packages are the library, ``dlgo``, and its front ends (every other
top-level package: ``gtp_engine``, ``dlgo_web``, ...). A package is ``dlgo.<name>`` (a
sub-package or a top-level module of ``dlgo``) or a front end. Every ``import`` counts,
module-level or inside a function, because a lazy import is still an arrow a reader has to
follow; so does a name a package loads on first use (``dlgo.lazy``): ``from dlgo.rl import
PolicyAgent`` is an arrow to ``dlgo.rl.policy``. Imports under ``if TYPE_CHECKING:`` are for type
hints only and never run, so they draw no arrow.
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import importlib
import warnings
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = "dlgo"
TOP_PACKAGES = sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name != "tests")
FRONT_ENDS = [name for name in TOP_PACKAGES if name != LIBRARY]
SOURCES = sorted(p for top in TOP_PACKAGES for p in ROOT.glob(f"{top}/**/*.py"))
EXPERIMENTS = sorted(ROOT.glob("experiments/*.py"))
# A module past SOFT_LINES gets a warning: a prompt to look for a second concern, never a reason
# to split one concern in two. Past MAX_LINES a module has surely grown more than one job.
SOFT_LINES = 500
MAX_LINES = 800


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in SOURCES}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[0] if parts[0] != LIBRARY else ".".join(parts[:2])


def _known(name: str) -> str | None:
    """The project module ``name`` is or lies in (``dlgo.x.f`` -> ``dlgo.x``); None outside."""
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name if name in MODULES else None


def _lazy_homes() -> dict[str, dict[str, str]]:
    """Package -> {name: module} of every package whose names load on first use (``dlgo.lazy``)."""
    homes = {}
    for module, path in MODULES.items():
        if path.name == "__init__.py" and "lazy_names(" in path.read_text(encoding="utf-8"):
            homes[module] = dict(importlib.import_module(module).__getattr__.homes)
    return homes


LAZY = _lazy_homes()


def _type_only(tree: ast.AST) -> set[int]:
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for inner in ast.walk(node)
    }


def _imports(path: Path) -> dict[str, int]:
    """The project modules ``path`` imports, each with the line of its first import."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = _type_only(tree)
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            # ``from dlgo import goboard`` names a module, ``from dlgo.rl import PolicyAgent`` a
            # name of a lazy package (its module), ``from dlgo.x import f`` a name in ``dlgo.x``
            names = [
                f"{source}.{alias.name}"
                if f"{source}.{alias.name}" in MODULES
                else LAZY.get(source, {}).get(alias.name, source)
                for alias in node.names
            ]
        else:
            continue
        for name in names:
            target = _known(name)
            if target is not None and target != module:
                found.setdefault(target, node.lineno)
    if module in LAZY:  # the package imports each of its lazy names' modules when asked
        for home in LAZY[module].values():
            found.setdefault(home, 1)
    return found


@cache
def module_graph() -> dict[str, dict[str, int]]:
    """Module -> {module it imports: line of the import}."""
    return {module: _imports(path) for module, path in MODULES.items()}


def package_graph() -> dict[str, set[str]]:
    """Package -> the packages it imports (itself left out)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in module_graph().items():
        source = _package(module)
        for target in targets:
            if target != LIBRARY and _package(target) != source:
                graph[source].add(_package(target))
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


def _circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One circle of imports in every strongly connected group of modules (Tarjan), each as
    ``module:line`` steps that end where they began."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, {})):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [_shortest_circle(graph, group) for group in groups]


def _shortest_circle(graph: dict[str, dict[str, int]], group: list[str]) -> list[str]:
    """The shortest circle through ``group[0]`` inside ``group`` (breadth first)."""
    start, members = group[0], set(group)
    came_from: dict[str, str] = {start: start}
    queue, end = [start], None
    while end is None:
        here = queue.pop(0)
        for nxt in sorted(graph[here]):
            if nxt == start:
                end = here
                break
            if nxt in members and nxt not in came_from:
                came_from[nxt] = here
                queue.append(nxt)
    path = [end]
    while path[-1] != start:
        path.append(came_from[path[-1]])
    path.reverse()
    path.append(start)
    return [f"{a}:{graph[a][b]}" for a, b in zip(path, path[1:])] + [start]


def test_no_import_circle_between_packages():
    assert _cycles(package_graph()) == []


def test_no_import_circle_between_modules():
    circles = [" -> ".join(circle) for circle in _circles(module_graph())]
    assert not circles, "import circles (module:line of its import -> ...):\n" + "\n".join(circles)


def test_the_front_ends_are_found():
    assert {"gtp_engine", "dlgo_web"} <= set(FRONT_ENDS) and LIBRARY not in FRONT_ENDS


def test_nothing_imports_an_experiment():
    """``experiments/`` holds one-off scripts: they may import the library, nothing imports them."""
    names = {"experiments", *(p.stem for p in EXPERIMENTS)}
    importers = []
    for path in [*SOURCES, *ROOT.glob("tests/**/*.py"), *EXPERIMENTS]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                imported = [node.module or ""]
            else:
                continue
            if any(name.split(".")[0] in names for name in imported):
                importers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert importers == []


def test_experiments_are_not_packaged():
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg", encoding="utf-8")
    include = setup["options.packages.find"]["include"].split()
    assert not any(fnmatch.fnmatch("experiments", pattern) for pattern in include)
    assert not (ROOT / "experiments" / "__init__.py").exists()


# --- the wings ----------------------------------------------------------------------------------
# Every package belongs to one wing (docs/architecture.md, section 1). The folders do not show the
# wings: the book's module names (``dlgo.goboard``, ``dlgo.mcts``) stay where its readers look.

#: Wing -> its packages, one row of the section's diagram a string. A new package fails
#: ``test_every_package_has_one_wing`` until it has a row here.
WINGS = {
    "front ends": ("gtp_engine dlgo_web dlgo_analysis dlgo_review dlgo_ogs",),
    "programs": ("dlgo.bench",),  # command-line programs that drive every wing
    "play": ("dlgo.play dlgo.analysis dlgo.review dlgo.shipped",),
    "training": ("dlgo.zero dlgo.alphago dlgo.rl dlgo.train dlgo.data dlgo.evaluate",),
    "matches": ("dlgo.match",),
    "book": ("dlgo.ttt dlgo.minimax dlgo.mcts",),  # the book's chapter 4 searches, kept as it wrote them
    "core": (
        "dlgo.agent_registry dlgo.game_runner",
        "dlgo.search dlgo.agent",
        "dlgo.inference dlgo.networks dlgo.encoders",
        "dlgo.sgf dlgo.utils dlgo.playout dlgo.kernels dlgo.deadstones dlgo.eyes dlgo.approach",
        "dlgo.goboard dlgo.gostring dlgo.gotypes dlgo.geometry dlgo.zobrist",
        "dlgo.scoring dlgo.territory dlgo.handicap dlgo.rules",
        # the root package too: ``import dlgo`` must stay as cheap as its rules modules
        "dlgo dlgo.lazy dlgo.extras dlgo.tomlfile dlgo.parallel",
    ),
}
#: (package, wing) for every package the table names, duplicates kept so that a test can see them.
_PLACED = [(name, wing) for wing, rows in WINGS.items() for row in rows for name in row.split()]
WING_OF = dict(_PLACED)

#: The diagram's arrows: wing -> the wings just below it. A wing may import every wing these
#: reach and its own, except that the front ends never import one another.
ARROWS = {
    "front ends": {"play"},
    "programs": {"play", "training", "book"},
    "play": {"core"},
    "training": {"matches"},
    "matches": {"core"},
    "book": {"core"},
    "core": set(),
}


def _below(wing: str) -> set[str]:
    """The wings ``wing``'s arrows reach, directly or through another wing."""
    reached, todo = set(), [wing]
    while todo:
        for nxt in ARROWS[todo.pop()] - reached:
            reached.add(nxt)
            todo.append(nxt)
    return reached


def _may_import(wing: str) -> set[str]:
    return _below(wing) | ({wing} if wing != "front ends" else set())


#: The training wing, with TensorFlow and Keras, which only training needs: the play path
#: imports none of it (the static arrows below, and a live process in
#: ``test_playing_imports_no_training_module``).
TRAINING_WING = (*(name for name, wing in _PLACED if wing == "training"), "tensorflow", "keras")


def test_every_package_has_one_wing():
    packages = {_package(module) for module in MODULES}
    placed = [name for name, _ in _PLACED]
    assert sorted(packages - set(placed)) == [], "packages in no wing (add them to WINGS)"
    assert sorted(set(placed) - packages) == [], "WINGS names packages that are gone"
    assert sorted({name for name in placed if placed.count(name) > 1}) == [], "packages in two wings"
    assert set(ARROWS) == set(WINGS)


def test_the_wings_point_only_downward():
    """No arrow points up or runs sideways: no wing reaches itself through another."""
    assert _cycles(ARROWS) == []


def test_no_front_end_reaches_the_training_wing():
    """No chain of imports, lazy ones included, leads from a front end or play to training: the
    wings they may import reach none of it, and the wing test below checks every import. The
    agent registry names its kinds' builders (``"module:attribute"``) and imports a kind only
    when one is built: no arrow."""
    assert "training" not in _below("front ends")
    assert "training" not in _below("play")


@pytest.mark.parametrize("wing", list(WINGS))
def test_a_wing_imports_only_its_own_wing_and_the_wings_below(wing: str):
    """Over the import graph, per module (``module:line -> module``), so a failure shows the line."""
    allowed = _may_import(wing)
    offenders = [
        f"{module}:{line} -> {target} ({WING_OF.get(_package(target), 'no wing')})"
        for module, targets in module_graph().items()
        if WING_OF.get(_package(module)) == wing
        for target, line in targets.items()
        if _package(target) != _package(module) and WING_OF.get(_package(target)) not in allowed
    ]
    assert not offenders, f"{wing} may import only {sorted(allowed)}:\n" + "\n".join(offenders)


# Inside a wing the table draws no arrows; these are the ones the layout keeps by name.
def test_alphago_and_zero_stand_side_by_side_on_the_search():
    graph = package_graph()
    assert "dlgo.zero" not in graph["dlgo.alphago"]
    assert "dlgo.search" in graph["dlgo.alphago"] and "dlgo.search" in graph["dlgo.zero"]


def test_the_rules_core_imports_no_network_or_search_code():
    graph = package_graph()
    for core in ("dlgo.goboard", "dlgo.gotypes", "dlgo.scoring", "dlgo.zobrist"):
        assert not graph[core] & {"dlgo.inference", "dlgo.networks", "dlgo.search"}
    assert "dlgo.goboard" not in graph["dlgo.scoring"]  # the book keeps scoring free of goboard


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_is_a_small_room(path: Path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by concern"
    if lines > SOFT_LINES:
        warnings.warn(f"{path.relative_to(ROOT)} has {lines} lines: does it have one concern?", stacklevel=1)


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


def test_playing_imports_no_training_module():
    """The play path in a process of its own: the engine imported, a session on the shipped
    default config, its 19x19 agent built (the Zero agent on the shipped network, loaded from
    its committed ONNX export; not warmed up, which would compile the search's kernels)."""
    import subprocess
    import sys

    probe = f"""
import sys
import gtp_engine.engine
from dlgo.play.agents import AgentPool
from dlgo.play.config import check_model_files, load_config
from dlgo.play.session import PlaySession

config = load_config("configs/engine/default.toml", [])
check_model_files(config)
session = PlaySession(config, AgentPool(config, warm_up=False))
print(type(session.agents.build_now(19).result()).__name__)
wing = {TRAINING_WING!r}
print(sorted(m for m in sys.modules if any(m == w or m.startswith(w + ".") for w in wing)))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    agent, imported = out.stdout.strip().splitlines()
    assert agent == "ZeroAgent"
    assert imported == "[]", f"playing imports the training wing: {imported}"


# --- private members stay in their module -------------------------------------------------------
# A name with one leading underscore (``_x``, not a dunder) is its module's business: code in
# another module uses the owner's public interface instead. The rule, per file of the library and
# the front ends:
# - ``obj._x`` is allowed when ``obj`` is ``self``, ``cls`` or ``super()``, or when a class of the
#   same file defines ``_x`` (a method, a class attribute, a ``__slots__`` entry or a ``self._x =``
#   assignment): a module may handle its own classes' insides (``Board.copy`` filling ``b._geo``);
# - ``from module import _x`` is never allowed (a module's own private names need no import);
# - the names of code outside the project in ALLOWED_PRIVATE are allowed, each with its reason.
# Tests (``tests/``) may reach into privates: they check the insides on purpose.

#: ``name._x`` (``name``: the object's last name, as in ``os._exit`` or ``model.optimizer._x``) or a
#: bare ``_x`` (on any object) -> why it is allowed.
ALLOWED_PRIVATE = {
    "os._exit": "the standard library's way to end a child process without the parent's clean-up",
    "sys._getframe": "the standard library's documented access to a caller's frame",
    "_replace": "namedtuple's public API (the underscore keeps it apart from the field names)",
    "_asdict": "namedtuple's public API (the underscore keeps it apart from the field names)",
    "_fields": "namedtuple's public API (the underscore keeps it apart from the field names)",
    "_make": "namedtuple's public API (the underscore keeps it apart from the field names)",
    "optimizer._learning_rate": "Keras 3 keeps an optimizer's schedule object there with no public "
    "getter (its ``learning_rate`` is the current rate); resuming training stretches the schedule",
}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_members(tree: ast.AST) -> set[str]:
    """The member names the classes of a file define: methods, class attributes, ``__slots__``
    entries, and attributes assigned on ``self`` or ``cls`` in their methods."""
    names: set[str] = set()
    for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(stmt.name)
            targets = (
                stmt.targets
                if isinstance(stmt, ast.Assign)
                else [stmt.target]
                if isinstance(stmt, ast.AnnAssign)
                else []
            )
            for target in targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                    if target.id == "__slots__" and isinstance(stmt.value, (ast.Tuple, ast.List)):
                        names.update(e.value for e in stmt.value.elts if isinstance(e, ast.Constant))
        for node in ast.walk(cls):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                names.add(node.attr)
    return names


def _last_name(node: ast.expr) -> str:
    """``os`` for ``os``, ``optimizer`` for ``model.optimizer``, ``super()`` for ``super()``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
        return "super()"
    return ""


def private_reaches(source: str) -> list[tuple[int, str]]:
    """(line, code) of every use of another module's private member in ``source``."""
    tree = ast.parse(source)
    own = _own_members(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            holder = _last_name(node.value)
            if holder in ("self", "cls", "super()") and not isinstance(node.value, ast.Attribute):
                continue
            if node.attr in own or node.attr in ALLOWED_PRIVATE or f"{holder}.{node.attr}" in ALLOWED_PRIVATE:
                continue
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if _is_private(alias.name):
                    found.append((node.lineno, f"from {'.' * node.level}{node.module or ''} import {alias.name}"))
    return sorted(found)


def test_the_private_member_check_sees_reaches_and_allows_a_module_its_own_classes():
    source = """
from dlgo.agent.helpers import _is_eye_index
import os

class Tree:
    __slots__ = ("_slot",)

    def __init__(self):
        self._arena = None

    def _visits(self):
        return self.other._hidden + super()._base()

def read(tree: Tree, board):
    os._exit(0)
    return tree._arena, tree._visits(), tree._slot, board._strings, point._replace(row=1)
"""
    assert private_reaches(source) == [
        (2, "from dlgo.agent.helpers import _is_eye_index"),
        (12, "self.other._hidden"),
        (16, "board._strings"),
    ]


def test_no_module_reaches_into_another_modules_private_members():
    reaches = [
        f"{path.relative_to(ROOT)}:{line}: {code}"
        for path in SOURCES
        for line, code in private_reaches(path.read_text(encoding="utf-8"))
    ]
    assert not reaches, "private members used outside their module (add a public interface):\n" + "\n".join(reaches)


# --- one game runner ----------------------------------------------------------------------------
# Every game the library plays in-process goes through ``dlgo.game_runner.play_game`` (as KataGo's
# play.cpp is one loop): self-play, gating, the search A/B, RL's simulated games, the benchmark.
# A game loop is a ``while`` loop that plays moves on a game state (calls ``apply_move``); a
# ``for`` loop over a fixed number of moves (an opening drawn from a policy, a corner start, a
# benchmark's middle-game position) plays a prefix, not a game, and the end of a game is not its
# business. The ``while`` loops that apply moves and are not in-process games, each with its reason:
GAME_LOOPS_ALLOWED = {
    ("dlgo/game_runner.py", "play_game"): "the runner itself",
    ("dlgo/match/referee.py", "_play_moves"): "a match between two GTP programs (the anchor's GNU Go "
    "games): the programs choose, pass and resign, the referee relays moves, keeps clocks and forfeits",
    ("dlgo/bench/soak.py", "play_soak_game"): "the engine's process against GNU Go over GTP, a test of "
    "the engine's clock: the programs decide the moves and the end",
    ("dlgo/bench/nn.py", "sample_states"): "not a game: random positions to time the network on, "
    "collected until there are enough",
    ("dlgo/mcts/mcts.py", "add_random_child"): "not a game: a tree node tries untried moves until one is legal",
    ("dlgo/search/puct.py", "_descend"): "not a game: one descent of the search tree",
}


def game_loops(source: str) -> list[tuple[int, str]]:
    """(line, function) of every ``while`` loop in ``source`` that calls ``.apply_move``."""
    tree = ast.parse(source)
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.While) and any(
                isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "apply_move"
                for call in ast.walk(node)
            ):
                found.append((node.lineno, function.name))
    return sorted(set(found))


def test_the_game_loop_check_sees_while_loops_that_apply_moves():
    source = """
def replay(state, moves):
    for move in moves:
        state = state.apply_move(move)
    return state

def game(state, agent):
    while not state.is_over():
        state = state.apply_move(agent.select_move(state))
    return state
"""
    assert game_loops(source) == [(8, "game")]


def test_no_module_but_the_runner_plays_a_game_loop():
    loops = []
    seen = set()
    for path in SOURCES:
        name = path.relative_to(ROOT).as_posix()
        for line, function in game_loops(path.read_text(encoding="utf-8")):
            seen.add((name, function))
            if (name, function) not in GAME_LOOPS_ALLOWED:
                loops.append(f"{name}:{line}: {function}")
    assert not loops, "a game loop outside dlgo.game_runner (play it through play_game):\n" + "\n".join(loops)
    stale = sorted(set(GAME_LOOPS_ALLOWED) - seen)
    assert not stale, f"allowed game loops that are gone (drop them from GAME_LOOPS_ALLOWED): {stale}"
