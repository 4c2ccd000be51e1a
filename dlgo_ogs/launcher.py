"""gtp2ogs as the stand-in's child: started in its own process group (its engines with it), its
output kept in a log file, and all of it stopped when the stand-in stops, Ctrl-C included."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
from pathlib import Path

__all__ = ["Gtp2ogs"]

STOP_GRACE = 5.0  # seconds between SIGTERM and SIGKILL
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: Linux sends it SIGKILL if the stand-in itself is killed."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class Gtp2ogs:
    """One gtp2ogs process; ``argv`` is its whole command line, ``--server`` and key included."""

    def __init__(self, argv: list[str], log_path: Path, cwd: Path | None = None, env: dict | None = None) -> None:
        self.argv = argv
        self.log_path = log_path
        self.cwd = cwd
        self.env = env
        self.proc: asyncio.subprocess.Process | None = None
        self.engines_killed: list[int] = []

    async def start(self) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps writing to it
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
                cwd=self.cwd,
                env=self.env,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        finally:
            log.close()

    @property
    def pid(self) -> int:
        return self.proc.pid if self.proc else -1

    async def wait(self) -> int:
        assert self.proc is not None
        return await self.proc.wait()

    def engine_pids(self) -> list[int]:
        """The processes gtp2ogs started (its engines), from /proc."""
        children = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = (entry / "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                if ppid == self.pid:
                    children.append(int(entry.name))
        return sorted(children)

    def kill_engines(self) -> list[int]:
        """SIGKILL every engine gtp2ogs runs, as a crash or the OOM killer would."""
        killed = []
        for pid in self.engine_pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        self.engines_killed += killed
        return killed

    async def stop(self) -> int | None:
        """Stop gtp2ogs and its engines (the whole process group); its exit status."""
        if self.proc is None:
            return None
        for sig, wait in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, STOP_GRACE)):
            if self.proc.returncode is not None:
                break
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, sig)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.proc.wait(), wait)
        # Engines that outlive gtp2ogs (their group is gtp2ogs's) go too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        return self.proc.returncode
