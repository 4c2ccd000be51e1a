"""The batch loop both PUCT trees share (``dlgo.search.puct``, ``dlgo.search.compiled``): leaves
collected in batches with virtual losses, one batch evaluated while the next is collected."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dlgo.search.base import SearchBudget

__all__ = ["run_batches", "InFlight"]


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
