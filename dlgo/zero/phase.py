"""What every phase of the Zero loop gets besides its own context: the runtime the loop lends it.

A phase (self-play, training, gating, anchor games) is a function of its context (a small frozen
dataclass of paths, settings and the state fields it reads) and a ``PhaseRuntime``: the loop's
workers, its phase clock, its deadline, its log and its progress bars. The phase returns what it
produced; only the loop writes ``state.json``. ``PhaseRuntime()`` with no arguments runs a phase
without a loop: tasks in this process, no clock, no deadline, no bars.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

__all__ = ["Clock", "PhaseRuntime", "TaskStep", "in_process", "iteration_dir"]


class Clock(Protocol):
    """Time charged to a phase from its start until ``stop`` (``dlgo.zero.loop_clock.PhaseClock``)."""

    def stop(self) -> None: ...


class _Untimed:
    def stop(self) -> None:
        pass


def _untimed(phase: str) -> Clock:
    return _Untimed()


def in_process(fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[Any]:
    """``fn`` of every task, one after the other in this process (a generator: ``close`` stops it)."""
    for task in tasks:
        yield fn(task)


def _never() -> bool:
    return False


def _say(text: str) -> None:
    print(f"zero-loop: {text}", file=sys.stderr, flush=True)


def _no_status() -> str:
    return ""


@dataclass(frozen=True)
class TaskStep:
    """What a phase made of one finished task (``PhaseRuntime.run_tasks``): games for the bar,
    the bar's postfix, and whether the phase needs no more tasks."""

    games: int
    postfix: str = ""
    stop: bool = False


@dataclass(frozen=True)
class PhaseRuntime:
    """The loop's services for one phase; none of them reads or writes the loop's state.

    ``run_on_workers(fn, tasks)``: results as they finish (``close`` on the iterator stops the
    rest); ``clock(phase)``: charge the time from now to ``phase`` until ``stop``; ``time_up``:
    is the run's time spent (a phase stops after the task under way); ``say``: one log line;
    ``status``: the loop's one-line status, shown beside progress bars; ``progress``: draw bars.
    """

    run_on_workers: Callable[[Callable[[Any], Any], Sequence[Any]], Iterator[Any]] = in_process
    clock: Callable[[str], Clock] = _untimed
    time_up: Callable[[], bool] = _never
    say: Callable[[str], None] = _say
    status: Callable[[], str] = _no_status
    progress: bool = False

    def progress_bar(self, total: int, desc: str, initial: int = 0) -> Any:
        """A tqdm bar of games on stderr; None without ``progress``."""
        if not self.progress:
            return None
        from tqdm import tqdm

        return tqdm(total=total, initial=initial, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)

    def run_tasks(
        self,
        fn: Callable[[Any], Any],
        tasks: Sequence[Any],
        handle: Callable[[Any], TaskStep],
        total: int,
        desc: str,
        initial: int = 0,
    ) -> None:
        """``fn`` of every task on the workers, each result given to ``handle`` as it finishes
        (it stores what the task made), under a progress bar of ``total`` games; the rest is
        stopped once ``handle`` says so or the time is up (a stop keeps every finished task)."""
        bar = self.progress_bar(total, desc, initial=initial)
        try:
            results = self.run_on_workers(fn, tasks)
            for result in results:
                step = handle(result)
                if bar is not None:
                    bar.update(step.games)
                    bar.set_postfix_str(step.postfix, refresh=True)
                if step.stop or self.time_up():
                    results.close()
                    break
        finally:
            if bar is not None:
                bar.close()


def iteration_dir(out: Path, iteration: int) -> Path:
    """``iter-NNNN/`` of ``iteration`` in the run folder ``out`` (made with its ``games/`` folder if missing)."""
    d = out / f"iter-{iteration:04d}"
    (d / "games").mkdir(parents=True, exist_ok=True)
    return d
