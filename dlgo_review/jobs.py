"""Which records a run reviews and where each review goes; written whole or not at all.

A file argument is one job (its output the ``-o`` path, or a file of the same name in ``-o``
when that is a folder). A folder argument is one job per ``*.sgf`` under it, searched
recursively (case-insensitive suffix, hidden files and folders left out, and the output folder
too when it lies inside), each written to the same relative path under the output folder.

Resuming: a review is written to a temporary file beside its target and renamed over it when
complete (``os.replace`` is atomic), so an output file that exists is a finished review; in a
folder run one that is at least as new as its record is skipped (``--force`` reviews it again).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Job", "find_jobs", "is_done", "write_atomically", "writes_over_its_record"]


@dataclass(frozen=True)
class Job:
    source: Path
    target: Path


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def find_jobs(source: Path, output: Path) -> list[Job]:
    """The records under ``source`` (a file or a folder), in path order, with their outputs."""
    if source.is_file():
        target = output / source.name if output.is_dir() else output
        return [Job(source, target)]
    records = sorted(
        path
        for path in source.rglob("*")
        if path.suffix.lower() == ".sgf"
        and path.is_file()
        and not _hidden(path, source)
        and not _inside(path, output)  # earlier reviews in an output folder inside the input
    )
    return [Job(path, output / path.relative_to(source)) for path in records]


def writes_over_its_record(job: Job) -> bool:
    """Would the review replace its own record (the same file, by any path or link)?"""
    try:
        return job.target.exists() and os.path.samefile(job.source, job.target)
    except OSError:
        return False


def is_done(job: Job) -> bool:
    """The review exists (whole: see the module's docstring) and is not older than its record."""
    try:
        return job.target.stat().st_mtime >= job.source.stat().st_mtime
    except OSError:
        return False


def write_atomically(path: Path, text: str) -> None:
    """``text`` (UTF-8) at ``path``, which holds either its old content or all of ``text``: a
    temporary file beside it, renamed over it (Ctrl-C or a crash leaves no half file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(text.encode("utf-8"))
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
