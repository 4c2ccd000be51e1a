"""The analysis queue: turns waiting, ``threads`` workers searching them, termination.

Every turn of every request is one ``Job``. Workers take a job of the highest ``priority``
first (KataGo: "Analysis threads will prefer handling queries with the highest priority unless
already started on another task") and search it on a searcher of its board (``SearcherPool``):
with several workers the searches of different turns run at once and their network work shares
batches. Among jobs of equal priority (KataGo takes the earliest) a worker takes the turn that
follows the one it just searched when it waits, else the one farthest (in move number) from the
turns being searched: a game's review then runs as a few stretches of consecutive turns, and each
turn's search finds the positions of the turn before in the shared cache, as a review of one turn
after another does (a fifth fewer network evaluations than turns taken side by side, 9x9).

The queue is bounded (``max_queued`` waiting turns): a request that would overflow it is
refused whole (``QueueFull``) and changes nothing. ``terminate`` stops running jobs (their
answer reports what the search had) and drops waiting ones (answered ``noResults``). Every job
ends with exactly one final answer (``isDuringSearch`` false) or one error.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from dlgo.analysis.options import TurnOptions
from dlgo.analysis.report import no_results
from dlgo.analysis.searchers import SearcherPool
from dlgo.analysis.turn import analyse_turn
from dlgo.goboard import GameState
from dlgo.play.errors import PlayError

__all__ = ["Job", "Scheduler", "QueueFull"]

log = logging.getLogger(__name__)

Answer = Callable[[dict[str, Any]], None]


class QueueFull(RuntimeError):
    """Too many turns are waiting; the request was not queued."""


@dataclass
class Job:
    """One turn to analyse. ``on_answer`` gets every answer (reports during the search, then the
    final one); ``on_error`` the message when the turn cannot be analysed."""

    key: str  # the request's id
    turn: int
    state: GameState
    options: TurnOptions
    on_answer: Answer
    on_error: Callable[[str], None]
    priority: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    seq: int = 0


class Scheduler:
    """``threads`` workers over a priority queue of at most ``max_queued`` waiting jobs."""

    def __init__(self, pool: SearcherPool, threads: int, max_queued: int, ownership_playouts: int = 400) -> None:
        self.pool = pool
        self.max_queued = max_queued
        self.ownership_playouts = ownership_playouts
        self._heap: list[tuple[int, int, Job]] = []
        self._running: set[int] = set()  # ids of the jobs being searched
        self._jobs: dict[int, Job] = {}  # id -> job, running ones
        self._cond = threading.Condition()
        self._seq = itertools.count()
        self._closing = False
        self._workers = [threading.Thread(target=self._work, name=f"analysis-{i}", daemon=True) for i in range(threads)]
        for worker in self._workers:
            worker.start()

    # --- requests ------------------------------------------------------------------------------------
    def submit(self, jobs: Iterable[Job]) -> None:
        """Queue every job, or none (``QueueFull``)."""
        jobs = list(jobs)
        with self._cond:
            if self._closing:
                raise QueueFull("the analysis is shutting down")
            if len(self._heap) + len(jobs) > self.max_queued:
                raise QueueFull(
                    f"Too many turns queued: {len(self._heap)} are waiting, {len(jobs)} more asked, at most "
                    f"{self.max_queued} (--max-queued); wait for answers or terminate queries"
                )
            for job in jobs:
                job.seq = next(self._seq)
                heapq.heappush(self._heap, (-job.priority, job.seq, job))
            self._cond.notify(len(jobs))

    def terminate(self, key: str | None, turns: set[int] | None = None) -> None:
        """Stop the jobs of request ``key`` (None: of every request), only ``turns`` if given:
        running ones end with what they have, waiting ones are answered ``noResults`` now."""

        def hit(job: Job) -> bool:
            return (key is None or job.key == key) and (turns is None or job.turn in turns)

        with self._cond:
            dropped = [job for _, _, job in self._heap if hit(job)]
            if dropped:
                self._heap = [entry for entry in self._heap if not hit(entry[2])]
                heapq.heapify(self._heap)
            for job in self._jobs.values():
                if hit(job):
                    job.stop.set()
            self._cond.notify_all()
        for job in dropped:
            job.on_answer(no_results(job.turn))

    @property
    def waiting(self) -> int:
        with self._cond:
            return len(self._heap)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no job waits or runs; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._heap and not self._jobs, timeout)

    def close(self, finish: bool = True, timeout: float | None = None) -> None:
        """Stop the workers: after the queued jobs (``finish``), else terminating them all."""
        if finish:
            self.wait_idle()
        else:
            self.terminate(None)
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        for worker in self._workers:
            worker.join(timeout)

    # --- the workers ---------------------------------------------------------------------------------
    def _next(self, last: Job | None) -> Job | None:
        with self._cond:
            while not self._heap:
                if self._closing:
                    return None
                self._cond.wait()
            index = self._pick(last)
            job = self._heap[index][2]
            self._heap[index] = self._heap[-1]
            self._heap.pop()
            heapq.heapify(self._heap)
            self._jobs[id(job)] = job
            return job

    def _pick(self, last: Job | None) -> int:
        """The index in the heap of the next job (see the module docstring); under the lock."""
        top = self._heap[0][0]
        running = [j.state for j in self._jobs.values()]
        best, best_key = 0, None
        for i, (priority, seq, job) in enumerate(self._heap):
            if priority != top:
                continue
            if last is not None and _follows(job.state, last.state):
                return i
            key = (_distance(job.state, running), -seq)
            if best_key is None or key > best_key:
                best, best_key = i, key
        return best

    def _done(self, job: Job) -> None:
        with self._cond:
            self._jobs.pop(id(job), None)
            self._cond.notify_all()

    def _work(self) -> None:
        last = None
        while True:
            job = self._next(last)
            if job is None:
                return
            try:
                self._run(job)
            finally:
                self._done(job)
            last = job

    def _run(self, job: Job) -> None:
        rows, cols = job.state.board.num_rows, job.state.board.num_cols
        try:
            if job.stop.is_set():
                job.on_answer(no_results(job.turn))
                return
            with self.pool.searcher(rows, cols) as searcher:
                if job.stop.is_set():  # terminated while it waited for its agent
                    job.on_answer(no_results(job.turn))
                    return
                final = analyse_turn(
                    searcher, job.state, job.options, job.turn, job.stop, job.on_answer, self.ownership_playouts
                )
            job.on_answer(final)
        except PlayError as e:  # no agent for the board, its build failed, it does not search
            job.on_error(str(e))
        except Exception as e:  # noqa: BLE001 - one turn's failure must not end the worker
            log.exception("analysis of %s turn %d failed", job.key, job.turn)
            job.on_error(f"analysis failed: {type(e).__name__}: {e}")


def _follows(state: GameState, before: GameState) -> bool:
    """Whether ``state`` is the position one move after ``before`` (the next turn of a game)."""
    previous = state.previous_state
    return (
        previous is not None
        and state.move_number == before.move_number + 1
        and previous.board.num_rows == before.board.num_rows
        and previous.board.num_cols == before.board.num_cols
        and previous.situation_hash() == before.situation_hash()
    )


def _distance(state: GameState, running: list[GameState]) -> float:
    """Moves between ``state`` and the nearest position being searched on its board size."""
    dims = (state.board.num_rows, state.board.num_cols)
    gaps = [abs(state.move_number - r.move_number) for r in running if (r.board.num_rows, r.board.num_cols) == dims]
    return min(gaps) if gaps else float("inf")
