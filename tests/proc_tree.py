"""Processes seen through Linux's /proc, for the tests that check children end with their parent."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

__all__ = ["alive", "children", "descendants", "kill_all", "wait_gone"]

GONE_WITHIN = 60.0  # generous: the kernel signal ends them at once, the fallback within a second


def _stat_fields(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state first, then the parent)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children(pid: int) -> dict[int, str]:
    """{pid: command line} of the live children of ``pid``."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = _stat_fields(entry.name)
            if int(fields[1]) == pid and fields[0] != "Z":
                out[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
    return out


def descendants(pid: int) -> list[int]:
    """The live children of ``pid``, theirs, and so on."""
    todo, found = [pid], []
    while todo:
        kids = list(children(todo.pop()))
        found += kids
        todo += kids
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        return _stat_fields(pid)[0] != "Z"
    except (OSError, IndexError):
        return False


def wait_gone(pids: list[int], within: float = GONE_WITHIN) -> list[int]:
    """The pids of ``pids`` still running after up to ``within`` seconds (empty once all ended)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.2)
    return [p for p in pids if alive(p)]


def kill_all(pids: list[int]) -> None:
    """SIGKILL each of ``pids`` that still runs (only processes the test started)."""
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
