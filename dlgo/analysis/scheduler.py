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

The queue is bounded (``max_queued`` waiting turns, and ``max_queued_bytes`` of the records
they hold): a request that would overflow it is refused whole (``QueueFull``) and changes
nothing. A turn of a record waits as the record's moves (``RecordTurn``), built into its
position only when a worker takes it: positions hold their game's superko hashes, which grow
with the square of its length, and 40 long distinct records queued as positions held 1.9 GB.
``terminate`` stops running jobs (their answer reports what the search had) and drops waiting
ones (answered ``noResults``). Every job ends with exactly one final answer (``isDuringSearch``
false) or one error.
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
from dlgo.analysis.positions import RecordTurn
from dlgo.analysis.report import no_results
from dlgo.analysis.searchers import SearcherPool
from dlgo.analysis.turn import analyse_turn
from dlgo.goboard import GameState
from dlgo.play.errors import PlayError

__all__ = ["Job", "Scheduler", "QueueFull", "Position", "DEFAULT_MAX_QUEUED_BYTES"]

# A turn to analyse: a position built already (the library's callers hold their games), or a
# turn of a record replayed when searched (the analysis engine's queries).
Position = GameState | RecordTurn

DEFAULT_MAX_QUEUED_BYTES = 256 << 20  # the records waiting turns hold: about 1.3 million moves

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
    position: Position
    options: TurnOptions
    on_answer: Answer
    on_error: Callable[[str], None]
    priority: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    seq: int = 0


class Scheduler:
    """``threads`` workers over a priority queue of at most ``max_queued`` waiting jobs."""

    def __init__(
        self,
        pool: SearcherPool,
        threads: int,
        max_queued: int,
        ownership_playouts: int = 400,
        max_queued_bytes: int = DEFAULT_MAX_QUEUED_BYTES,
    ) -> None:
        self.pool = pool
        self.max_queued = max_queued
        self.max_queued_bytes = max_queued_bytes
        self._records: dict[int, list[int]] = {}  # id(record) -> [its bytes, waiting turns]
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
            held, asked = self.queued_bytes, _new_bytes(jobs, self._records)
            if held + asked > self.max_queued_bytes:
                raise QueueFull(
                    f"Too many moves queued: the waiting records hold {held >> 20} MB, this query {asked >> 20} MB "
                    f"more, at most {self.max_queued_bytes >> 20} MB (--max-queued-mb); wait for answers or "
                    "terminate queries"
                )
            for job in jobs:
                job.seq = next(self._seq)
                heapq.heappush(self._heap, (-job.priority, job.seq, job))
                self._hold(job)
            self._cond.notify(len(jobs))

    @property
    def queued_bytes(self) -> int:
        """The bytes the records of the waiting turns hold (each record once)."""
        return sum(size for size, _ in self._records.values())

    def _hold(self, job: Job) -> None:
        if isinstance(job.position, RecordTurn):
            entry = self._records.setdefault(id(job.position.record), [job.position.held_bytes, 0])
            entry[1] += 1

    def _release(self, job: Job) -> None:
        if isinstance(job.position, RecordTurn):
            entry = self._records[id(job.position.record)]
            entry[1] -= 1
            if entry[1] == 0:
                del self._records[id(job.position.record)]

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
                for job in dropped:
                    self._release(job)
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
            self._release(job)
            self._jobs[id(job)] = job
            return job

    def _pick(self, last: Job | None) -> int:
        """The index in the heap of the next job (see the module docstring); under the lock."""
        top = self._heap[0][0]
        running = [j for j in self._jobs.values()]
        best, best_key = 0, None
        for i, (priority, seq, job) in enumerate(self._heap):
            if priority != top:
                continue
            if last is not None and _follows(job, last):
                return i
            key = (_distance(job, running), -seq)
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
        rows, cols = _dims(job.position)
        try:
            if job.stop.is_set():
                job.on_answer(no_results(job.turn))
                return
            with self.pool.searcher(rows, cols) as searcher:
                if job.stop.is_set():  # terminated while it waited for its agent
                    job.on_answer(no_results(job.turn))
                    return
                state = job.position if isinstance(job.position, GameState) else job.position.state()
                final = analyse_turn(
                    searcher, state, job.options, job.turn, job.stop, job.on_answer, self.ownership_playouts
                )
            job.on_answer(final)
        except PlayError as e:  # no agent for the board, its build failed, it does not search
            job.on_error(str(e))
        except Exception as e:  # noqa: BLE001 - one turn's failure must not end the worker
            log.exception("analysis of %s turn %d failed", job.key, job.turn)
            job.on_error(f"analysis failed: {type(e).__name__}: {e}")


def _new_bytes(jobs: list[Job], held: dict[int, list[int]]) -> int:
    """The bytes the records of ``jobs`` add to those ``held`` already (each record once)."""
    records = {id(j.position.record): j.position.held_bytes for j in jobs if isinstance(j.position, RecordTurn)}
    return sum(size for key, size in records.items() if key not in held)


def _dims(position: Position) -> tuple[int, int]:
    if isinstance(position, GameState):
        return position.board.num_rows, position.board.num_cols
    return position.rows, position.cols


def _move_number(job: Job) -> int:
    return job.position.move_number if isinstance(job.position, GameState) else job.turn


def _follows(job: Job, last: Job) -> bool:
    """Whether ``job``'s position is the one one move after ``last``'s (the next turn of a game)."""
    a, b = job.position, last.position
    if isinstance(a, RecordTurn) and isinstance(b, RecordTurn):
        return a.follows(b)
    return isinstance(a, GameState) and isinstance(b, GameState) and _follows_state(a, b)


def _follows_state(state: GameState, before: GameState) -> bool:
    previous = state.previous_state
    return (
        previous is not None
        and state.move_number == before.move_number + 1
        and previous.board.num_rows == before.board.num_rows
        and previous.board.num_cols == before.board.num_cols
        and previous.situation_hash() == before.situation_hash()
    )


def _distance(job: Job, running: list[Job]) -> float:
    """Moves between ``job``'s position and the nearest one being searched on its board size."""
    dims = _dims(job.position)
    gaps = [abs(_move_number(job) - _move_number(r)) for r in running if _dims(r.position) == dims]
    return min(gaps) if gaps else float("inf")
