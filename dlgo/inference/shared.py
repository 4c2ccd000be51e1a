"""One network shared by many searches at once: ``SharedEvaluator`` merges their batches.

    shared = SharedEvaluator(BatchEvaluator(load_model("weights/zero-19x19.keras")))
    agents = [ZeroAgent(shared, ...) for _ in range(8)]     # each searched in its own thread

A ``BatchEvaluator`` serves one search: one thread, one batch of 16 leaves per network call.
An analysis engine searching many positions at once (a whole game's turns) would otherwise run
one small batch per search, each on its own. Here every search thread hands its batch's network
work to ``forward``; whichever thread finds the network idle runs the work of every thread
waiting then as one batch (up to ``max_positions``), so while one batch is in the network the
next one fills up with the leaves of all the other searches: KataGo's NN server threads, which
gather the leaves of all search threads into one batch (Wu 2019, "Accelerating Self-Play
Learning in Go", section 5; docs/Analysis_Engine.md: "cross-position batching"), with no
thread of its own and no waiting on a timer.

The position cache and the random symmetries stay the wrapped evaluator's (one cache for every
search: a turn's tree meets the next turn's positions); their bookkeeping runs under a lock,
the network outside it. ``evaluate``/``evaluate_full`` (the Python tree, analysis of a root)
go through the same merged batches. Thread-safe; ``stats`` adds the merged batches' sizes.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dlgo.goboard import GameState
from dlgo.inference.evaluator import AUX_HEADS, BatchEvaluator, EncodedBatch

__all__ = ["SharedEvaluator"]

_MASK = (1 << 64) - 1


@dataclass
class _Work:
    """One caller's positions waiting for the network, and then its answer."""

    x: np.ndarray
    dims: tuple[int, int]
    answer: dict[str, np.ndarray] | None = None
    error: BaseException | None = None
    done: bool = False


@dataclass
class _Counts:
    calls: int = 0  # network runs (merged batches)
    positions: int = 0  # positions run through the network
    requests: int = 0  # callers' batches merged into them
    largest: int = 0


class SharedEvaluator:
    """``BatchEvaluator``'s search interface (``start_encoded``/``forward``/``finish_encoded``,
    ``encoded_aux``, ``evaluate``, ``evaluate_full``) for many threads at once, their network
    work merged into shared batches of at most ``max_positions`` (default: the evaluator's
    ``max_batch``)."""

    def __init__(self, evaluator: BatchEvaluator, max_positions: int | None = None) -> None:
        self.inner = evaluator
        self.max_positions = max_positions or evaluator.max_batch
        self._lock = threading.Lock()  # the cache, the symmetry draws, the counters
        self._network = threading.Condition()  # the waiting work and who runs the network
        self._waiting: list[_Work] = []
        self._running = False
        self._counts = _Counts()

    # --- what a search reads of its evaluator --------------------------------------------------
    @property
    def encoder_name(self) -> str:
        return self.inner.encoder_name

    @property
    def heads(self) -> list[str]:
        return self.inner.heads

    @property
    def has_aux(self) -> bool:
        return self.inner.has_aux

    def encoder_for(self, board_size: int | tuple[int, int]) -> Any:
        with self._lock:
            return self.inner.encoder_for(board_size)

    @property
    def stats(self) -> dict[str, Any]:
        with self._lock:
            counts = self._counts
            mean = counts.positions / counts.calls if counts.calls else 0.0
            return {
                **self.inner.stats,
                "merged_batches": counts.calls,
                "merged_positions": counts.positions,
                "merged_requests": counts.requests,
                "mean_merged_batch": round(mean, 2),
                "largest_merged_batch": counts.largest,
            }

    def clear_cache(self) -> None:
        with self._lock:
            self.inner.clear_cache()

    # --- the compiled tree's three steps --------------------------------------------------------
    def start_encoded(self, keys: Sequence[int], planes: np.ndarray) -> EncodedBatch:
        with self._lock:
            return self.inner.start_encoded(keys, planes)

    def forward(self, batch: EncodedBatch) -> dict[str, np.ndarray] | None:
        """The network's answers for the batch's cache misses, run together with whatever other
        threads are waiting for the network (None: every position was in the cache)."""
        if batch.x is None:
            return None
        return self._run_shared(batch.x, batch.dims)

    def finish_encoded(self, batch: EncodedBatch, raw: dict[str, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            return self.inner.finish_encoded(batch, raw)

    def encoded_aux(self, batch: EncodedBatch) -> tuple[np.ndarray, np.ndarray]:
        return self.inner.encoded_aux(batch)

    def evaluate_encoded(self, keys: Sequence[int], planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        batch = self.start_encoded(keys, planes)
        return self.finish_encoded(batch, self.forward(batch))

    # --- whole positions (the Python tree; a root's raw policy) -------------------------------
    def evaluate(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        heads = self.evaluate_full(states)
        return heads["policy"], heads["value"]

    def evaluate_full(self, states: Sequence[GameState]) -> dict[str, np.ndarray]:
        """``BatchEvaluator.evaluate_full`` through the shared batches: the states are encoded
        here and cached under keys of their own (a hash of what the tuple keys of
        ``BatchEvaluator.evaluate`` hold, which the compiled tree's keys never equal)."""
        if not states:
            raise ValueError("no states to evaluate")
        dims = {(s.board.num_rows, s.board.num_cols) for s in states}
        if len(dims) != 1:
            raise ValueError(f"states of one call must share a board size, got {sorted(dims)}")
        encoder = self.encoder_for(dims.pop())
        planes = encoder.encode_batch(list(states))
        keys = [_state_key(state, encoder.history_moves) for state in states]
        batch = self.start_encoded(keys, planes)
        policy, value = self.finish_encoded(batch, self.forward(batch))
        out = {"policy": policy, "value": value}
        if all(head in self.heads for head in AUX_HEADS):
            out["ownership"], out["score"] = self.encoded_aux(batch)
        return out

    def policy(self, states: Sequence[GameState]) -> np.ndarray:
        return self.evaluate_full(states)["policy"]

    def value(self, states: Sequence[GameState]) -> np.ndarray:
        return self.evaluate_full(states)["value"]

    # --- the merged batches ---------------------------------------------------------------------
    def _run_shared(self, x: np.ndarray, dims: tuple[int, int]) -> dict[str, np.ndarray]:
        mine = _Work(x, dims)
        with self._network:
            self._waiting.append(mine)
            while not mine.done:
                if self._running:
                    self._network.wait()
                    continue
                self._running = True  # this thread runs the network for everyone waiting now
                taken = self._take()
                self._network.release()
                try:
                    self._run(taken)
                finally:
                    self._network.acquire()
                    self._running = False
                    self._network.notify_all()
        if mine.error is not None:
            raise mine.error
        assert mine.answer is not None
        return mine.answer

    def _take(self) -> list[_Work]:
        """The oldest waiting work and all the others of its board size, up to ``max_positions``
        (the oldest always: a batch larger than that runs alone, in the evaluator's chunks)."""
        first = self._waiting[0]
        taken, total = [], 0
        for work in list(self._waiting):
            if work.dims != first.dims or (taken and total + len(work.x) > self.max_positions):
                continue
            taken.append(work)
            total += len(work.x)
            self._waiting.remove(work)
        return taken

    def _run(self, taken: list[_Work]) -> None:
        x = taken[0].x if len(taken) == 1 else np.concatenate([w.x for w in taken])
        try:
            merged = EncodedBatch([], [], {}, x=x, dims=taken[0].dims)
            raw = self.inner.forward(merged)
        except BaseException as e:  # noqa: BLE001 - every caller whose positions were in it raises it
            for work in taken:
                work.error, work.done = e, True
            return
        assert raw is not None
        start = 0
        for work in taken:
            end = start + len(work.x)
            # a dict per caller: finishing a batch replaces some of its heads in place
            work.answer = {head: values[start:end] for head, values in raw.items()}
            work.done = True
            start = end
        with self._lock:
            counts = self._counts
            counts.calls += 1
            counts.positions += len(x)
            counts.requests += len(taken)
            counts.largest = max(counts.largest, len(x))


def _state_key(state: GameState, history_moves: int) -> int:
    """A cache key for a whole position: its situation, komi, size and the recent moves (what
    the zero encoder's planes depend on), as one 64-bit int."""
    history = []
    s: GameState | None = state
    for _ in range(history_moves):
        move = s.last_move if s is not None else None
        if move is None:
            break
        history.append(move.point.row * 256 + move.point.col if move.is_play else -1)
        s = s.previous_state
    board = state.board
    return hash(("whole", board.num_rows, board.num_cols, state.situation_hash(), state.komi, tuple(history))) & _MASK
