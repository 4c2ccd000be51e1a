"""``Analyzer``: whole games analysed in-process, many turns at once on shared network batches.

    from dlgo.analysis import Analyzer, TurnOptions
    from dlgo.play.config import default_config_path, load_config

    with Analyzer(load_config(default_config_path())) as analyzer:
        answers = analyzer.analyze(states, TurnOptions(max_visits=100))   # one dict per state

Each answer is KataGo's analysis answer for that position (``dlgo.analysis.report``: ``turnNumber``
its index in ``states``, ``moveInfos``, ``rootInfo``, ``ownership``/``policy`` when asked), or
``{"turnNumber": i, "error": "..."}`` when it could not be analysed. ``submit`` is the
asynchronous form the analysis engine (``dlgo_analysis``) uses. ``dlgo.analysis.positions.replay``
turns a game record into its ``states``.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from dlgo.analysis.options import TurnOptions
from dlgo.analysis.scheduler import DEFAULT_MAX_QUEUED_BYTES, Job, Position, Scheduler
from dlgo.analysis.searchers import SearcherPool
from dlgo.goboard import GameState
from dlgo.play.config import Config

__all__ = ["Analyzer", "DEFAULT_THREADS", "DEFAULT_MAX_QUEUED"]

# Searches at once (KataGo's numAnalysisThreads); each holds one tree. More threads fill the shared
# batches more, and cost more of Python's lock between batches: on 2 cores 4 were fastest on 9x9
# and on 19x19 (docs/analysis.md, "Speed"); a GPU, whose speed grows with the batch, wants more.
DEFAULT_THREADS = 4
DEFAULT_MAX_QUEUED = 1000  # turns waiting at most: two 19x19 games, or a thousand single positions

Answer = Callable[[dict[str, Any]], None]


class Analyzer:
    """Analysis of positions with the agents of ``config``: ``threads`` searches at once,
    ``max_queued`` turns waiting at most, holding records of ``max_queued_bytes`` at most.
    ``warm_up``: run each agent once when built."""

    def __init__(
        self,
        config: Config,
        threads: int = DEFAULT_THREADS,
        max_queued: int = DEFAULT_MAX_QUEUED,
        warm_up: bool = True,
        max_queued_bytes: int = DEFAULT_MAX_QUEUED_BYTES,
    ) -> None:
        self.config = config
        self.pool = SearcherPool(config, threads, warm_up=warm_up)
        playouts = int(config.get("analysis.ownership_playouts"))
        self.scheduler = Scheduler(self.pool, threads, max_queued, playouts, max_queued_bytes)
        self._keys = itertools.count()

    def __enter__(self) -> Analyzer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(finish=exc[0] is None)

    # --- boards --------------------------------------------------------------------------------------
    def preload(self, sizes: Sequence[int] | None = None) -> None:
        """Build the agents of ``sizes`` (default: the config's) in the background now, so that
        the first request does not wait for them."""
        self.pool.preload(list(sizes) if sizes is not None else self.pool.agents.startup_sizes())

    def check_board(self, rows: int, cols: int) -> None:
        """``UnsupportedSize``, ``AgentBuildError`` or ``NoAnalysis`` if this board cannot be
        analysed (see ``SearcherPool.check``)."""
        self.pool.check(rows, cols)

    def visit_cap(self, rows: int, cols: int) -> int:
        """The most visits one turn may search (``analysis.max_visits`` of the board's size)."""
        return int(self.config.get("analysis.max_visits", rows if rows == cols else None))

    # --- requests ------------------------------------------------------------------------------------
    def submit(
        self,
        key: str,
        turns: Sequence[tuple[int, Position]],
        options: TurnOptions,
        on_answer: Answer,
        on_error: Callable[[int, str], None],
        priorities: Sequence[int] | None = None,
    ) -> None:
        """Queue (turn number, position) pairs of request ``key`` (a position: a ``GameState``, or a
        ``RecordTurn`` replayed when searched); ``on_answer`` gets each answer
        (from the worker threads), ``on_error(turn, message)`` each failure. ``QueueFull`` (and
        nothing queued) when the queue cannot take them all."""
        jobs = []
        for i, (turn, state) in enumerate(turns):
            priority = priorities[i] if priorities is not None else 0
            jobs.append(Job(key, turn, state, options, on_answer, _bind(on_error, turn), priority=priority))
        self.scheduler.submit(jobs)

    def analyze(self, states: Sequence[GameState], options: TurnOptions | None = None) -> list[dict[str, Any]]:
        """Analyse every position (turn number = its index) and return the final answers in
        order; blocks until all are done. Turns run at once on the shared network."""
        options = options or TurnOptions()
        key = f"analyze-{next(self._keys)}"
        out: list[dict[str, Any] | None] = [None] * len(states)
        left = threading.Semaphore(0)

        def keep(result: dict[str, Any]) -> None:
            if not result.get("isDuringSearch"):
                out[result["turnNumber"]] = result
                left.release()

        def fail(turn: int, message: str) -> None:
            out[turn] = {"turnNumber": turn, "error": message}
            left.release()

        self.submit(key, list(enumerate(states)), options, keep, fail)
        for _ in states:
            left.acquire()
        return [r for r in out if r is not None]

    def terminate(self, key: str | None, turns: set[int] | None = None) -> None:
        self.scheduler.terminate(key, turns)

    def clear_cache(self) -> None:
        self.pool.clear_caches()

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self.scheduler.wait_idle(timeout)

    @property
    def stats(self) -> dict[str, Any]:
        """The shared networks' counters (``SharedEvaluator.stats``), one entry per network."""
        return {"waiting": self.scheduler.waiting, "networks": [s.stats for s in self.pool.shared_evaluators()]}

    def close(self, finish: bool = True) -> None:
        """Stop: after the queued turns (``finish``), else terminating them."""
        self.scheduler.close(finish=finish)


def _bind(on_error: Callable[[int, str], None], turn: int) -> Callable[[str], None]:
    return lambda message: on_error(turn, message)
