"""What both PUCT trees share (``dlgo.search.puct``, ``dlgo.search.compiled``): one search's
course (``BatchedTreeSearch.search``: the root, then leaves collected in batches with virtual
losses, one batch evaluated while the next is collected, early stop) and the batch loop."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dlgo.goboard import GameState, Move
from dlgo.search.base import ProgressCallback, SearchBudget, SearchResult, best_move_unsure

__all__ = ["run_batches", "InFlight", "BatchedTreeSearch", "moves_since", "remaining_visits"]


class InFlight:
    """What a batch's evaluation left: ``future`` while it runs in the worker thread, then
    ``answer`` (mixed into each tree's batch dataclass, which declares both fields)."""

    future: Any
    answer: Any

    def result(self) -> Any:
        if self.future is not None:
            self.answer, self.future = self.future.result(), None
        return self.answer

    def wait(self) -> None:
        """Let a running evaluation end (its outcome no longer matters)."""
        if self.future is not None:
            try:
                self.future.result()
            except BaseException:  # noqa: BLE001 - the caller is already handling an error
                pass


def run_batches(
    should_stop: Callable[[], bool],
    collect: Callable[[list], Any],
    start: Callable[[Any], None],
    finish: Callable[[Any], None],
    abandon: Callable[[Any], None],
    pipeline: bool,
    budget: SearchBudget,
    report: Callable[[], None] | None,
    progress_interval: float,
) -> None:
    """The batch loop both trees share: collect a batch of leaves (with virtual losses), start
    its evaluation, and finish (attach and back up) every batch but the newest one when
    pipelining, until ``should_stop`` and nothing is left in flight; ``report`` every
    ``progress_interval`` seconds. On an error the batches in flight are waited for and
    ``abandon``ed (their virtual losses taken back). A batch has ``size`` and ``wait()``."""
    next_report = progress_interval
    unfinished: list = []  # batches whose virtual losses are in the tree
    try:
        while True:
            done = should_stop()
            size = 0
            if not done:
                batch = collect(unfinished)
                size = batch.size
                if size:
                    unfinished.append(batch)
                    start(batch)
            # An empty batch means every new leaf is already waiting in the batch under
            # evaluation (a small tree): finish that one, or the next descents find the same.
            keep = 1 if pipeline and not done and size else 0
            while len(unfinished) > keep:
                finish(unfinished[0])
                unfinished.pop(0)
            if done and not unfinished:
                return
            if report is not None and budget.elapsed() >= next_report:
                next_report = budget.elapsed() + progress_interval
                report()
    except BaseException:
        for batch in unfinished:
            batch.wait()
            abandon(batch)
        raise


def moves_since(old: GameState, state: GameState) -> list[Move] | None:
    """The moves from ``old`` to ``state``, oldest first, when ``state`` descends from ``old``
    by moves (None otherwise: another game, or a turn handed over without a move)."""
    moves: list[Move] = []
    s: GameState | None = state
    while s is not None and s.move_number >= old.move_number:
        if s is old or _same_situation(s, old):
            moves.reverse()
            return moves
        if s.last_move is None or s.last_move.is_resign:
            return None
        moves.append(s.last_move)
        s = s.previous_state
    return None


def _same_situation(a: GameState, b: GameState) -> bool:
    return (
        a.move_number == b.move_number
        and a.board.num_rows == b.board.num_rows
        and a.board.num_cols == b.board.num_cols
        and a.situation_hash() == b.situation_hash()
        and a.komi == b.komi
        and a.previous_states == b.previous_states
    )


def remaining_visits(budget: SearchBudget, visits: int, done: int, seconds: float) -> float | None:
    """Visits the budget still allows at most (None: no limit known)."""
    bounds = []
    if budget.max_visits is not None:
        bounds.append(float(budget.max_visits - visits))
    left = []
    if budget.deadline is not None:
        left.append(budget.deadline - time.monotonic())
    if budget.max_seconds is not None:
        left.append(budget.max_seconds - budget.elapsed())
    if left and done >= 32 and seconds > 0:
        bounds.append(done / seconds * max(0.0, min(left)) * 1.2)
    return min(bounds) if bounds else None


class BatchedTreeSearch:
    """One search's course, the same for both trees; a tree supplies the hooks below and
    ``settings`` (``SearchSettings``), ``root_state``, ``last_statistics``."""

    settings: Any
    root_state: GameState | None
    last_statistics: Any

    # --- hooks ----------------------------------------------------------------------------------
    def clear(self) -> None: ...
    def _begin(self, self_play: bool) -> None: ...  # before anything else (what the search keeps)
    def _set_root(self, state: GameState, self_play: bool) -> None: ...  # reuse or evaluate; noise
    def _visits(self) -> int: ...  # of the root, 1 + its branches' (virtual ones included)
    def _root_branch_visits(self) -> np.ndarray: ...
    def _collect(self, budget: SearchBudget, unfinished: list) -> Any: ...
    def _start_evaluation(self, batch: Any) -> None: ...
    def _finish(self, batch: Any) -> None: ...
    def _abandon(self, batch: Any) -> None: ...
    def result(self, elapsed: float) -> SearchResult: ...
    def statistics(self, new_visits: int = 0) -> Any: ...

    # --- a root search of its own (``dlgo.search.gumbel``): the steps of ``search`` ---------------
    @property
    def root_visits(self) -> int:
        """The root's visits: 1 + its branches' (virtual ones included)."""
        return self._visits()

    def start_root(self, state: GameState, self_play: bool, root_noise: bool) -> None:
        """Make ``state`` the root as ``search`` does, without searching: the tree reused or the
        root evaluated. ``self_play``: keep no ownership or score; ``root_noise``: mix Dirichlet
        noise into the root's priors (``search`` mixes it in self-play)."""
        self._begin(self_play)
        self._set_root(state, root_noise)

    def run_until(self, done: Callable[[], bool]) -> None:
        """Collect and evaluate batches of leaves as ``search`` does until ``done()`` and no batch
        is left in flight (no visit or time limit of its own: ``done`` decides)."""
        self._run_batches(done, SearchBudget())

    def _run_batches(
        self,
        done: Callable[[], bool],
        budget: SearchBudget,
        on_progress: Callable[[], None] | None = None,
        progress_interval: float = 1.0,
    ) -> None:
        """The tree's batch loop (``run_batches``) with this search's collect, evaluate, finish and
        abandon steps and its pipelining, until ``done()``: one place for ``search`` and ``run_until``."""
        run_batches(
            done,
            lambda unfinished: self._collect(budget, unfinished),
            self._start_evaluation,
            self._finish,
            self._abandon,
            self.settings.pipeline,
            budget,
            on_progress,
            progress_interval,
        )

    # --- the search -----------------------------------------------------------------------------
    def search(
        self,
        state: GameState,
        budget: SearchBudget,
        on_progress: ProgressCallback | None = None,
        progress_interval: float = 0.5,
        self_play: bool = False,
    ) -> SearchResult:
        """Search ``state`` until the budget says stop; the result lists every visited root move."""
        started = time.monotonic()
        self._begin(self_play)
        if state.is_over():
            self.clear()
            return SearchResult(candidates=[], visits=0, winrate=0.5, elapsed=budget.elapsed())
        self._set_root(state, self_play)
        start_visits = self._visits()
        self._run_batches(
            lambda: self._should_stop(budget, start_visits, started, self_play),
            budget,
            (lambda: on_progress(self.result(budget.elapsed()))) if on_progress is not None else None,
            progress_interval,
        )
        result = self.result(budget.elapsed())
        self.last_statistics = self.statistics(new_visits=self._visits() - start_visits)
        return result

    def _moves_to(self, state: GameState, has_tree: bool) -> list[Move] | None:
        """The moves from the current root to ``state`` when its tree may serve ``state`` (tree
        reuse on, same komi, ``state`` descends from the root by moves), else None."""
        old = self.root_state
        if not has_tree or old is None or not self.settings.reuse_tree or state.komi != old.komi:
            return None
        return moves_since(old, state)

    def _batch_limit(self, budget: SearchBudget) -> int:
        """Leaves of the next batch: growing with the tree at first (a small tree is distorted
        most by virtual losses), never past the visit budget."""
        visits = self._visits()
        limit = min(self.settings.batch_size, max(1, visits // self.settings.batch_growth))
        if budget.max_visits is not None:
            limit = min(limit, budget.max_visits - visits)
        return max(1, limit)

    def _should_stop(self, budget: SearchBudget, start_visits: int, started: float, self_play: bool) -> bool:
        """The budget is spent, or (outside self-play) the most visited move can no longer be overtaken."""
        visits = self._visits()
        n = self._root_branch_visits()
        if len(n) == 0:
            return True
        if budget.exhausted(visits):
            # Main time: run on to the unsure deadline while another move may still overtake.
            return self_play or not budget.may_run_on(visits) or not best_move_unsure(n, budget.unsure_visit_ratio)
        if self_play or not self.settings.early_stop:
            return False
        remaining = remaining_visits(budget, visits, visits - start_visits, time.monotonic() - started)
        if remaining is None:
            return False
        if len(n) == 1:
            return bool(n[0] > 0)
        if not budget.banks_time:  # the time would be lost: deepen the tree the next move reuses
            return False
        top2 = np.partition(n, len(n) - 2)[-2:]
        return float(top2[1] - top2[0]) > remaining
