"""Processes seen through Linux's /proc, for the tests that check children end with their parent."""

from __future__ import annotations

from pathlib import Path

__all__ = ["alive", "children", "descendants"]


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
