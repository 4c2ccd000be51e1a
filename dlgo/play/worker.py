"""A session's search thread: its searches run there one at a time, in the order asked.

KataGo's ``AsyncBot`` keeps one search thread per bot; so does a ``PlaySession``. Each job is a
function and the event that stops it early; ``submit`` returns its ``Future`` at once. The
thread starts with the first job and ends when none is left, so an idle session (a web game
nobody plays) holds no thread.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["SearchWorker"]

T = TypeVar("T")


@dataclass
class _Job:
    run: Callable[[], Any]
    stop: threading.Event
    future: Future[Any]


class SearchWorker:
    """Runs a session's searches one at a time in a thread of its own (``name``)."""

    def __init__(self, name: str = "search") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._jobs: deque[_Job] = deque()
        self._running: _Job | None = None
        self._thread: threading.Thread | None = None

    def submit(self, run: Callable[[], T], stop: threading.Event, future: Future[T] | None = None) -> Future[T]:
        """Queue ``run`` (``stop`` ends it early); its future (``future`` if given) resolves to
        what it returns or raises, unless ``run`` resolved it itself."""
        job = _Job(run, stop, future if future is not None else Future())
        with self._lock:
            self._jobs.append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()
        return job.future

    def stop(self) -> None:
        """Every job running or queued ends as soon as it can (a search: with what it found)."""
        with self._lock:
            jobs = [*([self._running] if self._running else []), *self._jobs]
        for job in jobs:
            job.stop.set()

    @property
    def busy(self) -> bool:
        """Whether a job runs or waits."""
        with self._lock:
            return self._running is not None or bool(self._jobs)

    def _loop(self) -> None:
        while True:
            with self._lock:
                if not self._jobs:
                    self._running = self._thread = None
                    return
                job = self._running = self._jobs.popleft()
            if not job.future.set_running_or_notify_cancel():
                continue  # cancelled while it waited
            try:
                value = job.run()
            except BaseException as e:  # noqa: BLE001 - handed to whoever holds the future
                if not job.future.done():
                    job.future.set_exception(e)
            else:
                if not job.future.done():
                    job.future.set_result(value)
            finally:
                with self._lock:
                    self._running = None
