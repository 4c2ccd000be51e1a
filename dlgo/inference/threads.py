"""ONNX Runtime on all cores or on one, whichever answers faster now: ``SessionChooser``.

A session's intra-op threads meet at a barrier after every operator, so a batch takes as long as
its slowest thread. On an idle machine all cores win (19x19 int8, 2 cores: 333 positions/s
against 200 on one thread). On a machine shared with other busy processes a descheduled thread
holds up every operator: with a second engine and two GNU Go processes on the same 2 cores a
19x19 batch of 16 took up to 1.2 s instead of 0.1 s, the search got 57 visits/s against 93 on
one thread, and its moves ran seconds past their time because the clock is read between batches
(docs/performance.md, "Busy machines"). Niced work alone is enough to make one thread the faster.

So the engine keeps two sessions on the same model file and measures both as it plays: each
batch runs on the session that was faster per position on recent batches, and the other is
tried again after 64 batches, then 128, ... up to 512 while it keeps losing (a machine that
stays busy pays for a slow batch rarely, one that becomes idle again is noticed within a minute
or so), or at once when the session in use becomes a quarter slower than the other's last cost
(the load changed). Batches under half the largest seen are not measured: they cost more per
position on any session.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["SessionChooser"]

log = logging.getLogger(__name__)

FIRST_RETRY = 64  # batches before the losing session is tried again
MAX_RETRY = 512
SLOWER = 1.25  # the current session this much slower than the other's last cost: try the other now
SMOOTHING = 0.25  # weight of the newest batch in a session's running cost


class SessionChooser:
    """Runs batches on ``sessions[0]`` (all cores) or ``sessions[1]`` (one thread), whichever
    costs fewer seconds per position lately; ``clock`` is injectable for tests."""

    def __init__(self, sessions: Sequence[Any], clock: Callable[[], float] = time.perf_counter) -> None:
        self.sessions = tuple(sessions)
        self.clock = clock
        self.cost: list[float | None] = [None] * len(self.sessions)  # seconds per position
        self.current = 0
        self.largest = 0
        self.retry_after = FIRST_RETRY // 2  # doubled when the first trial loses
        self.countdown = 1  # the other session's first trial: right after the first measure

    @property
    def choice(self) -> int:
        """The session batches run on now (0: all cores, 1: one thread)."""
        return self.current

    def run(self, feed: dict[str, Any], positions: int) -> list[Any]:
        """``session.run(None, feed)`` on the chosen session (or on the other one, as a trial)."""
        self.largest = max(self.largest, positions)
        measured = 2 * positions >= self.largest
        index, trial = self.current, False
        if measured and self.cost[self.current] is not None:
            self.countdown -= 1
            if self.countdown <= 0:
                index, trial = 1 - self.current, True
        started = self.clock()
        out = self.sessions[index].run(None, feed)
        if measured:
            per_position = (self.clock() - started) / positions
            self._record(index, per_position, trial)
        return out

    def _record(self, index: int, per_position: float, trial: bool) -> None:
        old = self.cost[index]
        # A trial's one batch stands for the session now; its older costs are from another load.
        if trial or old is None:
            self.cost[index] = per_position
        else:
            self.cost[index] = (1 - SMOOTHING) * old + SMOOTHING * per_position
        if not trial:
            other = self.cost[1 - index]
            if other is not None and self.cost[index] > SLOWER * other:
                self.countdown = 0  # the load changed: try the other session on the next batch
            return
        current = self.cost[self.current]
        if current is not None and per_position < current:
            log.info(
                "ONNX Runtime on %s now: %.2f ms a position against %.2f",
                "one thread" if index else "all cores",
                1000 * per_position,
                1000 * current,
            )
            self.current = index
            self.retry_after = FIRST_RETRY
        else:
            self.retry_after = min(2 * self.retry_after, MAX_RETRY)
        self.countdown = self.retry_after
