"""Worker processes that never outlive their parent, for every long job that plays games in
parallel (the Zero loop, reinforcement-learning self-play and evaluation, the AlphaGo pipeline).

    with ProcessPool(workers=2) as pool:
        for result in pool.run(play_task, tasks): ...      # results in completion order

Workers are spawned (no inherited TensorFlow state), run one core each, and end when the process
that made the pool ends, however it ends (``kill -9`` included). A finished task's result is
the caller's to keep, so a stopped job loses only the tasks under way.

Child processes die with their parent: every GTP engine and other program the library starts
gets ``preexec_fn=die_with_parent()`` (``dlgo.match.gtp_client.GtpProcess`` for all engines).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

import numpy as np

__all__ = [
    "task_seed",
    "ProcessPool",
    "init_worker",
    "follow_parent",
    "die_with_parent",
    "on_worker_exit",
    "ORPHAN_POLL_SECONDS",
]

_EXIT_CLEANUPS: list[Callable[[], None]] = []


def on_worker_exit(cleanup: Callable[[], None]) -> None:
    """Run ``cleanup`` (remove a worker's temporary files) when a worker is stopped early."""
    _EXIT_CLEANUPS.append(cleanup)


def task_seed(*parts: int) -> int:
    """A task's seed from the loop's seed and the task's coordinates (iteration, number, ...)."""
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def init_worker(parent: int | None = None) -> None:
    """Set up a worker process; with ``parent`` (the pool owner's pid), end it when that process dies."""
    # One core per worker: the network runs single-threaded (ONNX threads=1 above) and
    # TensorFlow, loaded to read the model, should not start a thread per core either.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if parent is not None:
        follow_parent(parent)


ORPHAN_POLL_SECONDS = 1.0  # how often a worker checks that the loop is still there
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


_PRCTL: Any = None  # libc's prctl, looked up once (False: none here)


def _prctl() -> Any:
    """libc's ``prctl`` on Linux, else None. Looked up in the parent: a forked child about to
    exec should do no more than call it."""
    global _PRCTL
    if _PRCTL is None:
        _PRCTL = False
        if sys.platform.startswith("linux"):
            try:
                _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
            except (OSError, AttributeError):
                pass
    return _PRCTL or None


def die_with_parent(sig: int = signal.SIGTERM) -> Callable[[], None] | None:
    """A ``preexec_fn`` for ``subprocess.Popen``: the child gets ``sig`` when this process ends,
    however it ends (``timeout``'s SIGTERM, a hang-up, ``kill -9``). None where that cannot be had.

    Our engines run in their own session, so no signal meant for their parent's process group
    reaches them, and an engine notices its closed input only between commands: one busy in a
    ``genmove`` (or hung) when a duel was killed played on as an orphan. A signal handler in the
    parent is no answer: none runs on ``kill -9``, and a handler's clean-up can be cut short. So
    the kernel does it (``PR_SET_PDEATHSIG``, kept across exec). SIGTERM by default: GNU Go, our
    engine and most others end on it at once. Linux sends it when the *thread* that started the
    child ends, so only a child started from the main thread gets it (a worker thread's child
    would die with the thread); anywhere else the child is left to notice its closed input.
    """
    if threading.current_thread() is not threading.main_thread():
        return None
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def arm() -> None:  # in the child, between fork and exec
        prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return arm


def _exit_now(code: int) -> None:
    """Leave at once (a dying pool must not wait for this task), without our temporary files."""
    for cleanup in _EXIT_CLEANUPS:
        try:
            cleanup()
        except Exception:  # leaving is what matters now
            pass
    os._exit(code)


def follow_parent(parent: int, own_term_handler: bool = False) -> None:
    """A worker never outlives the loop, however the loop ends (``kill -9`` included).

    Nothing in multiprocessing does this: a worker blocked on its task queue waits forever
    for a parent that is gone, and keeps the resource tracker alive too (it exits once every
    process holding its pipe has). Linux: the kernel sends SIGTERM when the parent dies
    (``PR_SET_PDEATHSIG``; the workers are started from the loop's main thread, which lives as
    long as the process). Everywhere: a thread that notices the parent changing.
    ``own_term_handler``: keep the worker's SIGTERM handler (one that closes its engines) for
    the kernel's signal instead of leaving at once.
    """
    if not own_term_handler:
        signal.signal(signal.SIGTERM, lambda signum, frame: _exit_now(128 + signum))
    prctl = _prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)  # else the thread below still works
    if os.getppid() != parent:  # the parent died before the signal was armed
        _exit_now(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_POLL_SECONDS)
        _exit_now(1)

    threading.Thread(target=watch, name="dlgo-parent-watch", daemon=True).start()


class ProcessPool:
    """``workers`` processes on this machine (spawned: no inherited TensorFlow state). They end
    when this process ends, however it ends (``follow_parent``)."""

    def __init__(self, workers: int) -> None:
        import multiprocessing

        self.workers = max(1, workers)
        self._pool = ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=init_worker,
            initargs=(os.getpid(),),
        )

    def run(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[Any]:
        """Results in completion order; closing the iterator early cancels what has not started."""
        pending: set[Future] = set()
        queue = list(tasks)
        try:
            while queue or pending:
                while queue and len(pending) < 2 * self.workers:
                    pending.add(self._pool.submit(fn, queue.pop(0)))
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
        finally:
            for f in pending:
                f.cancel()

    def close(self, abort: bool = False) -> None:
        """Wait for the tasks under way, or with ``abort`` stop the workers at once (their
        unfinished tasks are simply played again by the next run)."""
        if abort:
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.terminate()  # no public way to stop a running task early
        self._pool.shutdown(wait=not abort, cancel_futures=True)

    def __enter__(self) -> ProcessPool:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(abort=exc_type is not None)
