"""The searches an analysis runs at once, per board: ``SearcherPool`` builds and lends them.

The config says which agent plays a board (``dlgo.play.config``); ``dlgo.play.agents.AgentPool``
builds it once in the background and warms it up (compiled kernels, the network's first answer).
From that agent the pool makes ``count`` searchers, one per analysis thread:

- a Zero agent (a PUCT search on a ``BatchEvaluator``): its network is wrapped once in a
  ``SharedEvaluator`` and every searcher is a Zero agent of the same parameters searching on it
  through a ``RootView`` of its own, so the searches of all threads fill shared network batches
  and share one position cache. Searchers never reuse a tree (each turn is a search of its own,
  as in KataGo's analysis engine) and never stop early (a reported move's visits are those it
  earned in the whole budget);
- an agent without a network (MCTS): ``count`` independent agents of the same parameters;
- any other searching agent (AlphaGo's, whose evaluator serves one thread): the built agent
  alone, lent to one thread at a time.

An agent that does not search has nothing to analyse: ``NoAnalysis``.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from dlgo import agent_registry as registry
from dlgo.analysis.root_view import RootView
from dlgo.inference.evaluator import BatchEvaluator
from dlgo.inference.shared import SharedEvaluator
from dlgo.play.agents import AgentPool
from dlgo.play.config import Config
from dlgo.play.errors import NoAnalysis
from dlgo.search import SearchAgent
from dlgo.search.agent import PUCTAgent

__all__ = ["Searcher", "SearcherPool"]

log = logging.getLogger(__name__)


@dataclass
class Searcher:
    """One search at a time. ``view``: the root's priors (None: the agent's evaluator is not
    shared); ``shared``: the network all searchers of the board use (None: no shareable one);
    ``score_utility``/``score_scale``: the search's score utility (0: win rate only)."""

    agent: SearchAgent
    view: RootView | None = None
    shared: SharedEvaluator | None = None
    score_utility: float = 0.0
    score_scale: float = 5.0

    def clear(self) -> None:
        """Drop the search's tree (a turn's tree is memory no later turn uses)."""
        clear = getattr(self.agent, "clear_tree", None)
        if callable(clear):
            clear()
        if self.view is not None:
            self.view.disarm()


class _Group:
    """The searchers of one agent (name and parameters), built once."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.free: queue.Queue[Searcher] = queue.Queue()
        self.shared: SharedEvaluator | None = None
        self.error: Exception | None = None


class SearcherPool:
    """Searchers per board, ``count`` of each (one per analysis thread)."""

    def __init__(self, config: Config, count: int, warm_up: bool = True) -> None:
        if count < 1:
            raise ValueError("a searcher pool needs at least one searcher per board")
        self.config = config
        self.count = count
        self.agents = AgentPool(config, warm_up=warm_up)
        self._groups: dict[tuple, _Group] = {}
        self._lock = threading.Lock()

    def preload(self, sizes: list[int]) -> None:
        """Build the agents of these board sizes in the background (``AgentPool.preload``)."""
        self.agents.preload(sizes)

    def check(self, rows: int, cols: int) -> None:
        """Raise what analysing this board would raise now: ``UnsupportedSize`` (no agent of the
        config plays it), ``AgentBuildError`` (its build failed), ``NoAnalysis`` (its agent does
        not search). A build still under way passes: the analysis waits for it."""
        agent_type, params, build = self.agents.request(rows, cols)
        if not agent_type.searches:
            raise NoAnalysis(f"agent '{agent_type.name}' does not search: nothing to analyse")
        if build.done.is_set():
            build.result()

    @contextmanager
    def searcher(self, rows: int, cols: int) -> Iterator[Searcher]:
        """A free searcher for this board, for the ``with`` block (waits for the agent's build
        and for a free searcher)."""
        group = self._group(rows, cols)
        found = group.free.get()
        try:
            yield found
        finally:
            found.clear()
            group.free.put(found)

    def shared_evaluators(self) -> list[SharedEvaluator]:
        with self._lock:
            return [g.shared for g in self._groups.values() if g.shared is not None]

    def clear_caches(self) -> None:
        """Empty every network's position cache (KataGo's ``clear_cache``)."""
        for shared in self.shared_evaluators():
            shared.clear_cache()

    # --- building ----------------------------------------------------------------------------------
    def _group(self, rows: int, cols: int) -> _Group:
        agent_type, params, build = self.agents.request(rows, cols)
        key = (agent_type.name, tuple(sorted(params.items())))
        with self._lock:
            group = self._groups.get(key)
            owner = group is None
            if owner:
                group = self._groups[key] = _Group()
        if owner:
            try:
                build.done.wait()
                self._fill(group, agent_type.name, params, build.result(), rows)
            except Exception as e:  # noqa: BLE001 - every analysis of the board answers it
                group.error = e
            group.ready.set()
        group.ready.wait()
        if group.error is not None:
            raise group.error
        return group

    def _fill(self, group: _Group, name: str, params: dict[str, Any], built: Any, size: int) -> None:
        if not isinstance(built, SearchAgent):
            raise NoAnalysis(f"agent '{name}' does not search: nothing to analyse")
        if isinstance(built, PUCTAgent) and isinstance(built.evaluator, BatchEvaluator):
            group.shared = SharedEvaluator(built.evaluator)
            settings = built.settings
            own = {**params, "reuse_tree": False}  # every turn a search of its own
            for _ in range(self.count):
                view = RootView(group.shared)
                agent = registry.build_agent(name, own, size, evaluator=view, early_stop=False)
                group.free.put(Searcher(agent, view, group.shared, settings.score_utility, settings.score_scale))
            log.info("%d searchers of agent %s share one network for %dx%d", self.count, name, size, size)
        elif getattr(built, "evaluator", None) is None:  # no network: agents of their own are cheap
            resolved = registry.resolve_paths(registry.get(name), params, self.config.resolve_path)
            group.free.put(Searcher(built))
            for _ in range(self.count - 1):
                group.free.put(Searcher(registry.build_agent(name, resolved, size)))
        else:
            group.free.put(Searcher(built))
