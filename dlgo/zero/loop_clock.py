"""The Zero loop's phase clock: wall time charged to a phase so that no way of stopping loses it.

The loop's ``state.json`` counts the seconds of every phase (self-play, training, gating,
anchor games); a run stopped by Ctrl-C saves them, and one killed outright (``kill -9``, power
loss) leaves a mark and a heartbeat file from which the next run recovers them.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["HEARTBEAT", "HEARTBEAT_SECONDS", "PhaseClock", "atomic_write", "recover_clock"]

HEARTBEAT = "clock.json"  # the running phase's elapsed time, rewritten every HEARTBEAT_SECONDS
HEARTBEAT_SECONDS = 2.0


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class PhaseClock:
    """Wall time charged to ``state["seconds"][phase]`` so that no way of stopping loses it.

    Starting marks the state with the phase's total so far (``base``) and a segment id; every
    state save charges the time up to then, and a thread rewrites ``clock.json`` (this segment's
    elapsed seconds) every ``HEARTBEAT_SECONDS``. ``stop`` charges the rest and removes both.
    A run killed in between (``kill -9``, power loss) leaves the mark: the next load counts
    ``base`` + the last heartbeat of that segment, losing at most a heartbeat's interval and
    never counting a second twice.

    ``state`` is the loop's state (charged in place), ``out`` its folder (the heartbeat file),
    ``on_stop`` what the loop does once the clock has stopped (forget it, save the state).
    """

    def __init__(self, state: dict[str, Any], out: Path, phase: str, on_stop: Callable[[], None]) -> None:
        self.state = state
        self.heartbeat = out / HEARTBEAT
        self.phase = phase
        self.on_stop = on_stop
        self.base = float(state["seconds"].get(phase, 0.0))
        self.start = time.monotonic()
        self.segment = f"{os.getpid()}-{time.time_ns()}"
        state["clock"] = {"segment": self.segment, "phase": phase, "base": self.base}
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="zero-loop-clock", daemon=True)
        self._thread.start()

    def charge(self) -> None:
        self.state["seconds"][self.phase] = self.base + (time.monotonic() - self.start)

    def _beat(self) -> None:
        while not self._stopped.wait(HEARTBEAT_SECONDS):
            beat = {"segment": self.segment, "seconds": round(time.monotonic() - self.start, 3)}
            try:
                atomic_write(self.heartbeat, json.dumps(beat) + "\n")
            except OSError:
                pass  # the next beat tries again; the state saves still charge

    def stop(self) -> None:
        """Charge the time so far, then ``on_stop`` (once; later calls do nothing)."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        self._thread.join()
        self.charge()
        self.state.pop("clock", None)
        self.on_stop()  # the state is saved without the mark before the heartbeat goes
        self.heartbeat.unlink(missing_ok=True)


def recover_clock(state: dict[str, Any], out: Path) -> float:
    """Count the time of a phase a killed run was in (see ``PhaseClock``); the seconds added."""
    clock = state.pop("clock", None)
    if not clock:
        return 0.0
    elapsed = 0.0
    try:
        beat = json.loads((out / HEARTBEAT).read_text(encoding="utf-8"))
        if beat.get("segment") == clock["segment"]:
            elapsed = float(beat["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no beat yet: the saves charged what there is
    seconds = state["seconds"]
    before = float(seconds.get(clock["phase"], 0.0))
    seconds[clock["phase"]] = max(before, float(clock["base"]) + elapsed)
    return seconds[clock["phase"]] - before
