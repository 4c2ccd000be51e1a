"""A GTP engine as an asyncio child process: the opponent and the referee of each game."""

from __future__ import annotations

import asyncio
import contextlib

__all__ = ["GtpEngine", "GtpError"]


class GtpError(RuntimeError):
    """A ``?`` answer, or an engine that died."""


class GtpEngine:
    """One engine process; ``send`` writes a command and returns its answer text."""

    def __init__(self, proc: asyncio.subprocess.Process, label: str) -> None:
        self._proc = proc
        self._lock = asyncio.Lock()
        self.label = label

    @classmethod
    async def start(cls, argv: list[str], label: str) -> GtpEngine:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        return cls(proc, label)

    async def ask(self, command: str) -> tuple[bool, str]:
        """(success, text) of one command; raises GtpError only when the engine is gone."""
        async with self._lock:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            try:
                self._proc.stdin.write(f"{command}\n".encode())
                await self._proc.stdin.drain()
            except (BrokenPipeError, ConnectionResetError) as exc:
                raise GtpError(f"{self.label} is gone ({command})") from exc
            lines: list[str] = []
            while True:
                raw = await self._proc.stdout.readline()
                if not raw:
                    raise GtpError(f"{self.label} died answering {command!r}")
                line = raw.decode(errors="replace").rstrip("\r\n")
                if not lines and not line.strip():
                    continue  # blank lines before an answer
                if lines and not line.strip():
                    break
                lines.append(line)
        head = lines[0]
        text = "\n".join([head[1:].strip(), *lines[1:]]).strip()
        return head.startswith("="), text

    async def send(self, command: str) -> str:
        ok, text = await self.ask(command)
        if not ok:
            raise GtpError(f"{self.label}: {command} -> ? {text}")
        return text

    async def close(self) -> None:
        if self._proc.returncode is None:
            with contextlib.suppress(GtpError, asyncio.TimeoutError):
                await asyncio.wait_for(self.ask("quit"), 2.0)
        # Wait for the exit before any kill: a kill polls the process itself (Popen.send_signal)
        # and would reap it under asyncio's child watcher.
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._proc.wait(), 2.0)
        if self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._proc.wait(), 5.0)
