"""The GTP client: one engine subprocess, with a timeout on every command.

The referee's players, the GNU Go count and the tests' engines and GNU Go referee all talk GTP
through :class:`GtpProcess`.

Every failure is a :class:`GtpClientError` whose ``kind`` tells the referee how the game ends:

- ``crash``: the process could not start, exited, or closed its pipes;
- ``timeout``: no complete answer within the time allowed (the process is then killed);
- ``protocol``: an answer that is not GTP (a first line not starting with ``=`` or ``?``);
- ``failure``: a well-formed ``?`` answer (only from :meth:`GtpProcess.send`).

The engine runs in its own session (process group), so a Ctrl-C meant for the controller does
not reach it; :meth:`GtpProcess.close` sends ``quit`` and kills the group if it lingers. When
the controller dies without closing it (``timeout``'s SIGTERM, ``kill -9``), the kernel sends the
engine SIGTERM (:func:`dlgo.parallel.die_with_parent`), busy in a ``genmove`` or not. The
engine's stderr goes to a log file (or nowhere), never into a pipe that could fill up.

:meth:`GtpProcess.write_raw` and :meth:`GtpProcess.read_line` give the bytes on the wire as they
are, for tests that check the engine's exact output format.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from dlgo.parallel import die_with_parent

__all__ = ["GtpClientError", "GtpProcess"]

_FIRST_LINE = re.compile(r"([=?])(\d*)(?:[ \t]+(.*))?$")
_EOF = None  # what the reader thread queues when stdout closes


class GtpClientError(RuntimeError):
    """A command that did not get a usable answer; ``kind`` is crash, timeout, protocol or failure."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class GtpProcess:
    """One GTP engine: ``start()``, then ``send``/``ask`` commands, then ``close()``.

    ``label`` names the engine in error messages; ``stderr_path`` receives its stderr
    (None: discarded). ``decode_errors`` is how its output is decoded: "replace" keeps a referee
    going through a stray byte, "strict" ends the output there (tests of the wire format).
    """

    def __init__(
        self,
        argv: Sequence[str],
        label: str = "engine",
        *,
        cwd: str | os.PathLike | None = None,
        env: dict[str, str] | None = None,
        stderr_path: str | os.PathLike | None = None,
        decode_errors: str = "replace",
    ) -> None:
        self.argv = [str(a) for a in argv]
        self.label = label
        self.cwd = cwd
        self.env = env
        self.stderr_path = Path(stderr_path) if stderr_path is not None else None
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader: threading.Thread | None = None
        self._stderr_file = None
        self._eof = False
        self._decode_errors = decode_errors

    # --- life cycle ------------------------------------------------------------------------
    def start(self) -> None:
        """Start the process; a missing executable is a ``crash``."""
        if self.stderr_path is not None:
            self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            self._stderr_file = open(self.stderr_path, "ab")  # noqa: SIM115 - closed in close()
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr_file if self._stderr_file is not None else subprocess.DEVNULL,
                cwd=self.cwd,
                env=self.env,
                start_new_session=True,
                preexec_fn=die_with_parent(),  # no orphan engine, however the controller ends
            )
        except OSError as e:
            self._close_stderr()
            raise GtpClientError("crash", f"{self.label}: cannot start {self.argv[0]!r}: {e.strerror or e}") from e
        self._reader = threading.Thread(target=self._read_stdout, name=f"gtp-{self.label}", daemon=True)
        self._reader.start()

    def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stream = self._proc.stdout
        try:
            for raw in iter(stream.readline, b""):
                self._lines.put(raw.decode("utf-8", errors=self._decode_errors))
        except (OSError, ValueError):
            pass
        self._lines.put(_EOF)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def process(self) -> subprocess.Popen | None:
        """The engine's process (None before ``start``), for its exit status."""
        return self._proc

    def close(self, grace: float = 3.0) -> None:
        """Send ``quit`` (when still alive), wait up to ``grace`` seconds, then kill the group."""
        proc = self._proc
        if proc is None:
            self._close_stderr()
            return
        if proc.poll() is None and not self._eof:
            try:
                self._write("quit")
                proc.wait(timeout=grace)
            except (GtpClientError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> None:
        """Kill the engine's process group at once (SIGTERM, then SIGKILL) and reap it."""
        proc = self._proc
        if proc is None:
            return
        for sig, wait in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 5.0)):
            if proc.poll() is not None:
                break
            try:
                os.killpg(proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                try:
                    proc.send_signal(sig)
                except ProcessLookupError:
                    pass
            try:
                proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
        # Children the engine left behind in its group.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        if self._reader is not None:
            self._reader.join(timeout=1.0)
        self._close_stderr()

    def _close_stderr(self) -> None:
        if self._stderr_file is not None:
            try:
                self._stderr_file.close()
            except OSError:
                pass
            self._stderr_file = None

    def __enter__(self) -> GtpProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- commands --------------------------------------------------------------------------
    def ask(self, command: str, timeout: float | None = 60.0) -> tuple[bool, str]:
        """Send ``command``; return ``(ok, text)``: ``ok`` False for a ``?`` answer.

        ``text`` is the answer without the ``=``/``?`` marker and id, lines joined by ``\\n``.
        Raises :class:`GtpClientError` (crash, timeout, protocol) when there is no usable answer;
        on a timeout the process is killed, since its next answer could not be trusted.
        """
        if self._proc is None:
            raise GtpClientError("crash", f"{self.label}: not started")
        self._write(command)
        deadline = None if timeout is None else time.monotonic() + timeout
        lines: list[str] = []
        while True:
            line = self._next_line(command, deadline, timeout)
            line = line.rstrip("\r\n")
            if line.strip() == "":
                if lines:
                    break
                continue  # blank lines before an answer
            if not lines and _FIRST_LINE.match(line) is None:
                raise GtpClientError("protocol", f"{self.label}: not a GTP answer to {command!r}: {line[:200]!r}")
            lines.append(line)
        match = _FIRST_LINE.match(lines[0])
        assert match is not None
        body = [match.group(3) or "", *lines[1:]]
        text = "\n".join(body).strip()
        return match.group(1) == "=", text

    def send(self, command: str, timeout: float | None = 60.0) -> str:
        """Like :meth:`ask`, but a ``?`` answer raises ``GtpClientError("failure", ...)``."""
        ok, text = self.ask(command, timeout)
        if not ok:
            raise GtpClientError("failure", f"{self.label}: {command!r} failed: ? {text}")
        return text

    def write_raw(self, text: str) -> None:
        """Write ``text`` exactly as given (line ends included); a closed pipe is a ``crash``."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise GtpClientError("crash", f"{self.label}: not started")
        try:
            proc.stdin.write(text.encode("utf-8"))
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as e:
            raise GtpClientError("crash", f"{self.label}: cannot write: {e}") from e

    def read_line(self, timeout: float | None = None) -> str | None:
        """The next output line as sent (``\\n`` included), None once the output is closed.

        Raises ``TimeoutError`` when no line arrives within ``timeout`` seconds; unlike a command,
        the engine is left running, since a raw reader decides itself what silence means.
        """
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"{self.label}: no output within {timeout} s") from None
        if line is _EOF:
            self._eof = True
            self._lines.put(_EOF)  # every later read sees the end too
        return line

    def _write(self, command: str) -> None:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            proc.stdin.write(command.strip().encode("utf-8") + b"\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as e:
            raise self._crash(f"cannot send {command!r}: {e}") from e

    def _next_line(self, command: str, deadline: float | None, timeout: float | None) -> str:
        if self._eof:
            raise self._crash(f"no answer to {command!r}: its output is closed")
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            line = self._lines.get(timeout=wait)
        except queue.Empty:
            self.kill()
            raise GtpClientError("timeout", f"{self.label}: no answer to {command!r} within {timeout:g} s") from None
        if line is _EOF:
            self._eof = True
            raise self._crash(f"no answer to {command!r}: it closed its output")
        return line

    def _crash(self, what: str) -> GtpClientError:
        proc = self._proc
        status = None
        if proc is not None:
            try:
                status = proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                status = None
        exit_text = "still running" if status is None else _describe_status(status)
        tail = self.stderr_tail()
        message = f"{self.label}: {what} ({exit_text})"
        if tail:
            message += f"; stderr ends: {tail}"
        return GtpClientError("crash", message)

    def stderr_tail(self, lines: int = 3, limit: int = 300) -> str:
        """The last lines of the engine's stderr log (empty without a log)."""
        if self.stderr_path is None or not self.stderr_path.exists():
            return ""
        if self._stderr_file is not None:
            try:
                self._stderr_file.flush()
            except OSError:
                pass
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - 4096))
                text = f.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
        return " | ".join(kept)[-limit:]


def _describe_status(status: int) -> str:
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"
