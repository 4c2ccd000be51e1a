"""The engine's two streams: a reader thread that queues input lines, and a locked writer.

The reader thread never interprets anything: it timestamps each raw line (a ``time_left``
report counts from its arrival; lines sent before the engine was up arrived at its start) and
queues it; ``None`` marks end of input. While a
search runs in the background the main thread watches the queue: any line ends an analysis,
``# interrupt`` or ``gogui-interrupt`` ends a ``genmove`` early, and other lines wait their turn.
"""

from __future__ import annotations

import logging
import os
import queue
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, BinaryIO

from gtp_engine.protocol import is_interrupt_line, parse_command, preprocess

__all__ = ["Line", "Channel", "OutputClosed"]

log = logging.getLogger(__name__)


class OutputClosed(Exception):
    """The controller closed our stdout."""


class Line:
    """One raw input line and when it arrived (``time.monotonic``); ``text`` None is end of input."""

    __slots__ = ("text", "arrived")

    def __init__(self, text: str | None, arrived: float) -> None:
        self.text = text
        self.arrived = arrived


class Channel:
    """``backlog_since``: when the process started; lines already waiting when the reader starts
    are dated then (the controller sent them while the engine was starting: its clock ran)."""

    def __init__(self, infile: BinaryIO, outfile: BinaryIO, backlog_since: float | None = None) -> None:
        self._in = infile
        self._out = outfile
        self._backlog_since = backlog_since
        self._queue: queue.Queue[Line] = queue.Queue()
        self._pending: deque[Line] = deque()
        self._write_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read_loop, name="gtp-reader", daemon=True)
        self._reader.start()

    # --- input -----------------------------------------------------------------------------
    def _raw_lines(self):
        """Input lines as bytes. Reads the file descriptor directly where there is one: a thread
        blocked inside a buffered ``readline`` would abort the interpreter at exit."""
        try:
            fd = self._in.fileno()
        except (AttributeError, OSError, ValueError):
            yield from iter(self._in.readline, b"")
            return
        parts: list[bytes] = []  # the unfinished line
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                if end < 0:
                    parts.append(chunk[start:])
                    break
                parts.append(chunk[start : end + 1])
                yield b"".join(parts)
                parts = []
                start = end + 1
        if parts and any(parts):
            yield b"".join(parts)

    def _waiting(self) -> bool:
        """Whether input is already there to read (lines sent before the engine was up)."""
        try:
            return bool(select.select([self._in.fileno()], [], [], 0)[0])
        except (AttributeError, OSError, ValueError):
            return False

    def _read_loop(self) -> None:
        since = self._backlog_since
        backlog_until = time.monotonic() + 0.05 if since is not None and self._waiting() else 0.0
        try:
            for raw in self._raw_lines():
                now = time.monotonic()
                if since is not None and now < backlog_until:  # the first chunk, read at once
                    now = since
                self._queue.put(Line(raw.decode("utf-8", errors="replace"), now))
        except (OSError, ValueError) as e:
            log.warning("input closed: %s", e)
        self._queue.put(Line(None, time.monotonic()))

    def next_line(self) -> Line:
        """The next input line (waiting for it); ``Line(None)`` at end of input, again and again."""
        if self._pending:
            line = self._pending.popleft()
        else:
            line = self._queue.get()
        if line.text is None:
            self._pending.appendleft(line)  # stay at end of input
        return line

    def push_front(self, line: Line) -> None:
        self._pending.appendleft(line)

    def _poll(self, timeout: float) -> Line | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def wait_for_input(self, worker: threading.Thread | None = None) -> Line | None:
        """Block until any input line arrives (returned, not consumed: it is handled next).

        With ``worker``, also return None when that thread ends on its own first. Lines that
        preprocess to nothing (blank lines, comments) count as input too.
        """
        if self._pending:
            return self._pending[0]
        while True:
            line = self._poll(0.05)
            if line is not None:
                self._pending.append(line)
                return line
            if worker is not None and not worker.is_alive():
                return None

    def watch(self, search: Future[Any], on_interrupt: Callable[[], None]) -> None:
        """Wait for ``search`` to end; ``# interrupt`` and ``gogui-interrupt`` call ``on_interrupt``.

        ``# interrupt`` lines are consumed; every other line (``gogui-interrupt`` included, so it
        gets its own answer) is kept in order for after the current command.
        """
        ended = Line(None, 0.0)  # queued when the search ends, so that the wait wakes at once
        search.add_done_callback(lambda _: self._queue.put(ended))
        while True:
            line = self._queue.get()
            if line is ended:
                return
            if line.text is not None and is_interrupt_line(line.text):
                on_interrupt()
                continue
            if line.text is not None:
                cleaned = preprocess(line.text)
                if cleaned and parse_command(cleaned).name == "gogui-interrupt":
                    on_interrupt()
            self._pending.append(line)

    # --- output ----------------------------------------------------------------------------
    def write(self, text: str) -> None:
        """Write and flush at once (responses and analysis lines)."""
        with self._write_lock:
            try:
                self._out.write(text.encode("utf-8"))
                self._out.flush()
            except (BrokenPipeError, ValueError, OSError) as e:
                raise OutputClosed(str(e)) from e
