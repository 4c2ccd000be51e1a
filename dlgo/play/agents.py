"""The engine's agents, built in the background and kept: ``AgentPool``, and ``Overhead``,
the engine's own measured time per move.

Building an agent (ONNX Runtime, compiled kernels, the network's first answer) is never charged
to a move: the pool builds every board size's agent from start-up, one at a time, and pauses
builds nobody waits for while a move is searched.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

from dlgo import agent_registry as registry
from dlgo.agent.base import Agent
from dlgo.deadstones import count
from dlgo.goboard import MAX_SIZE, MIN_SIZE, GameState
from dlgo.play.config import Config
from dlgo.play.errors import AgentBuildError, UnsupportedSize
from dlgo.search import SearchAgent, SearchBudget

__all__ = ["AGENT_BUILD_THREAD", "AgentBuild", "AgentPool", "Overhead"]

log = logging.getLogger(__name__)
AGENT_BUILD_THREAD = "agent-build"  # the background thread that builds agents (``AgentPool.start``)


class Overhead:
    """The engine's own time per move after its search stops (the batch in flight, the move
    decision, the answer), measured on the last moves whose search ran to its deadline. The
    search of a move stops this much before the move's deadline (at most a quarter of the
    move's time: one stall on a busy machine must not starve the moves after it)."""

    def __init__(self, keep: int = 8) -> None:
        self._last: deque[float] = deque(maxlen=keep)

    def record(self, seconds: float) -> None:
        self._last.append(seconds)

    def estimate(self, floor: float, prior: float | None = None) -> float:
        """The upper quartile of the last measures (the largest of few), at least ``floor``
        (``time.move_overhead``); before any, ``prior`` (measured at the agent's warm-up)."""
        if not self._last:
            return max(floor, prior or 0.0)
        last = sorted(self._last)
        return max(floor, last[(3 * len(last)) // 4] if len(last) >= 4 else last[-1])


class AgentBuild:
    """One agent, built once in the background; moves wait on ``done``."""

    def __init__(self, name: str, params: dict[str, Any], rows: int, cols: int) -> None:
        self.name = name
        self.params = params
        self.rows = rows
        self.cols = cols
        self.done = threading.Event()
        self.agent: Agent | None = None
        self.error: str | None = None
        self.overhead: float | None = None  # seconds of a short search, measured at warm-up
        self.urgent = False  # a move or boardsize needs it: built even while a move is searched
        # Agents keep a search tree: one search at a time each. The thread using each lent
        # agent (by id), and idle spares built when several games search at once (the web page).
        self.lent_to: dict[int, int] = {}
        self.spares: list[Agent] = []

    def result(self) -> Agent:
        """The agent (the build must be done); ``AgentBuildError`` if it failed."""
        if self.error is not None:
            raise AgentBuildError(self.error)
        assert self.agent is not None
        return self.agent


WARM_UP_VISITS = 16  # one network batch: every compiled kernel and the ONNX session run once
SPARES_KEPT = 2  # idle extra agents per board: a few games searching at once without rebuilding


def _warm_up(agent: Agent, rows: int, cols: int) -> float | None:
    """Run the agent on an empty board, so that numba's kernels are compiled (or loaded from
    their cache) and the network has answered before a move needs them. Returns how long a
    second short search took (searching agents): a first measure of what stopping a search
    costs (a batch in flight), before any move has measured it."""
    state = GameState.new_game((rows, cols))
    seconds = None
    if isinstance(agent, SearchAgent):
        agent.search(state, SearchBudget(max_visits=WARM_UP_VISITS, max_seconds=10.0))
        started = time.monotonic()
        agent.search(state, SearchBudget(max_visits=2 * WARM_UP_VISITS, max_seconds=10.0))
        seconds = time.monotonic() - started
        clear = getattr(agent, "clear_tree", None)
        if callable(clear):
            clear()
    else:
        agent.select_move(state)
    count(state, 10)  # the dead-stone estimate behind pass decisions and scoring
    return seconds


class AgentPool:
    """Builds the agents in a background thread, one at a time, and keeps them.

    Building an agent (TensorFlow or ONNX Runtime, compiled kernels) takes from a fraction of a
    second to several seconds and is never charged to a move: ``preload`` queues the agents of
    every board size the config names at start-up, ``request`` puts the board in play first,
    and a move waits for its agent only as long as its budget allows (``PlaySession.genmove``).
    Builds nobody waits for yet pause while a move is searched (``searching``, ``idle``).
    """

    def __init__(self, config: Config, warm_up: bool = True) -> None:
        self.config = config
        self.warm_up = warm_up
        self._builds: dict[tuple, AgentBuild] = {}
        self._queue: deque[AgentBuild] = deque()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        # Cleared while a move is searched (``searching``): builds nobody waits for yet do not
        # compete with it.
        self.idle = threading.Event()
        self.idle.set()
        self._searches = 0

    @property
    def _agents(self) -> dict[tuple, Agent]:
        """The agents built so far."""
        return {k: b.agent for k, b in list(self._builds.items()) if b.agent is not None}

    def resolve(self, rows: int, cols: int, handicap: bool = False) -> tuple[str, dict[str, Any]] | None:
        """The agent name and parameters that play this board, or None if none can; ``handicap``:
        in a game with handicap stones (the config's ``[handicap]`` tables)."""
        if rows == cols:
            return self.config.agent_for_size(rows, handicap)
        name = self.config.agent_name()
        params = self.config.section(name, handicap=handicap)
        return (name, params) if self.config.agent_plays(name, params, rows) else None

    def startup_sizes(self) -> list[int]:
        """Board sizes whose agents are built at start-up: the start-up size, every ``[size.N]``
        of the config, and one size the top-level agent plays if no other has it built."""
        start = self.config.get("engine.board_size")
        sizes = [start, *sorted(self.config.as_dict()["size"])]
        top = (self.config.agent_name(), self.config.section(self.config.agent_name()))
        if all(self.resolve(n, n) != top for n in sizes):
            for n in (19, 13, 9, 7, *range(MIN_SIZE, MAX_SIZE + 1)):
                if self.resolve(n, n) == top:
                    sizes.append(n)
                    break
        return list(dict.fromkeys(sizes))

    def build_now(self, size: int) -> AgentBuild:
        """Build and warm up this board size's agent in the calling thread (``--prepare``: no
        game, nothing in the background); the build, its ``error`` set if it failed."""
        _, _, build = self.request(size, size, first=False)
        with self._lock:
            mine = build in self._queue
            if mine:
                self._queue.remove(build)
        if mine:
            self._build(build)
        build.done.wait()  # another size with the same agent built it, or the background does
        return build

    def request(
        self, rows: int, cols: int, first: bool = True, handicap: bool = False
    ) -> tuple[registry.AgentType, dict[str, Any], AgentBuild]:
        """The agent type, parameters and build for this board (``handicap``: in a game with
        handicap stones); the build is queued (``first``: ahead of the others) unless it is done
        or under way. Returns at once."""
        spec = self.resolve(rows, cols, handicap)
        if spec is None:
            raise UnsupportedSize(f"no agent of the config plays {cols}x{rows}")
        name, params = spec
        agent_type = registry.get(name)
        if agent_type.build is None:
            raise AgentBuildError(agent_type.unavailable or f"agent '{name}' is not available")
        key: tuple = (name, tuple(sorted(params.items())))
        with self._lock:
            build = self._builds.get(key)
            if build is not None and build.error is not None and (build.rows, build.cols) != (rows, cols):
                # One agent serves every size its parameters play, but a failed build names its
                # own board: another size tries its own build.
                key += ((rows, cols),)
                build = self._builds.get(key)
            if build is None:
                build = self._builds[key] = AgentBuild(name, params, rows, cols)
                self._queue.append(build)
            if first and build in self._queue:
                build.urgent = True
                self._queue.remove(build)
                self._queue.appendleft(build)
        if first:
            self.start()
        return agent_type, params, build

    def start(self) -> None:
        """Build what is queued, in the background (no-op when under way or nothing is)."""
        with self._lock:
            if self._queue and self._thread is None:
                self._thread = threading.Thread(target=self._run, name=AGENT_BUILD_THREAD, daemon=True)
                self._thread.start()

    def get(self, rows: int, cols: int, handicap: bool = False) -> tuple[registry.AgentType, dict[str, Any], Agent]:
        """The agent for this board, waiting for its build as long as it takes."""
        agent_type, params, build = self.request(rows, cols, handicap=handicap)
        build.done.wait()
        return agent_type, params, build.result()

    def preload(self, sizes: list[int], delay: float = 0.1) -> None:
        """Queue the agents of these board sizes (the first first) and start building them after
        ``delay`` seconds: the controller's first commands (``boardsize``) put theirs first.
        The agents of handicap games (``[handicap]`` tables) come after every size's own."""
        for handicap in (False, True):
            for size in sizes:
                if handicap and self.resolve(size, size, True) == self.resolve(size, size):
                    continue
                try:
                    self.request(size, size, first=False, handicap=handicap)
                except (UnsupportedSize, AgentBuildError) as e:
                    log.info("no agent to build for %dx%d: %s", size, size, e)
        timer = threading.Timer(delay, self.start)
        timer.daemon = True
        timer.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._thread = None
                    return
                waits = not self._queue[0].urgent and not self.idle.is_set()
                build = None if waits else self._queue.popleft()
            if build is None:
                self.idle.wait(0.1)  # then look again: a move may need a build first
                continue
            self._build(build)

    @contextlib.contextmanager
    def searching(self) -> Iterator[None]:
        """A move is searched while the ``with`` lasts: builds nobody waits for yet pause until
        every game of the pool searching at once is done."""
        with self._lock:
            self._searches += 1
            self.idle.clear()
        try:
            yield
        finally:
            with self._lock:
                self._searches -= 1
                if not self._searches:
                    self.idle.set()

    @contextlib.contextmanager
    def lend(self, build: AgentBuild) -> Iterator[Agent]:
        """The built agent of ``build`` for the calling thread alone while the ``with`` lasts:
        the agent itself when no other thread has it (a thread that has it gets it again: the
        pass decision counts with the agent that searches), else an idle spare, else a new one
        built now (several games searching at once). Spares are kept for the next move, at most
        ``SPARES_KEPT``."""
        agent = build.result()
        me = threading.get_ident()
        with self._lock:
            holder = build.lent_to.get(id(agent))
            if holder is None or holder == me:
                build.lent_to[id(agent)] = me
                spare = None
            else:
                spare = build.spares.pop() if build.spares else None
        if holder is None or holder == me:
            try:
                yield agent
            finally:
                if holder is None:
                    with self._lock:
                        build.lent_to.pop(id(agent), None)
            return
        if spare is None:
            log.info(
                "building a spare %s for %dx%d: its agent is searching for another game",
                build.name,
                build.rows,
                build.cols,
            )
            spare = self._make(build)
        try:
            yield spare
        finally:
            with self._lock:
                if len(build.spares) < SPARES_KEPT:
                    build.spares.append(spare)

    def _make(self, build: AgentBuild) -> Agent:
        """A new agent of ``build`` (warmed up when the pool warms its agents)."""
        params = registry.resolve_paths(registry.get(build.name), build.params, self.config.resolve_path)
        agent = registry.build_agent(build.name, params, build.rows)
        if self.warm_up:
            seconds = _warm_up(agent, build.rows, build.cols)
            build.overhead = seconds if build.overhead is None else build.overhead
        return agent

    def _build(self, build: AgentBuild) -> None:
        started = time.monotonic()
        try:
            agent = self._make(build)
        except Exception as e:
            if isinstance(e, registry.AgentUnavailable | ValueError):  # a clear message: no traceback
                log.warning("building agent %s failed: %s", build.name, e)
            else:
                log.exception("building agent %s failed", build.name)
            build.error = f"cannot build agent '{build.name}': {e}"
        else:
            build.agent = agent
            log.info(
                "agent %s for %dx%d ready in %.2f s", build.name, build.rows, build.cols, time.monotonic() - started
            )
        build.done.set()
