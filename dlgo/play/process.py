"""What every front end's process does first: logs to stderr, stdout kept for the protocol.

A front end (the GTP engine, the analysis engine) answers on stdout and nothing else may write
there: ``reserve_stdout`` moves file descriptor 1 aside for the answers and points fd 1 and
``sys.stdout`` at stderr, so that a library's print or a C extension's banner lands in the log.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Sequence
from typing import BinaryIO

from dlgo.play.config import Config, ConfigError, check_model_files, default_config_path, load_config

__all__ = ["load_checked_config", "setup_logging", "reserve_stdout", "exit_status"]


def load_checked_config(prog: str, path: str | None, overrides: Sequence[str]) -> Config | None:
    """The config at ``path`` (None: the shipped default) with ``overrides`` (``--set``), its
    model files checked before any input is read; None after one line on stderr naming the file
    or field (the front end then exits with status 2)."""
    try:
        config = load_config(path if path is not None else default_config_path(), overrides)
        check_model_files(config)
    except ConfigError as e:
        print(f"{prog}: config error: {e}", file=sys.stderr)
        return None
    return config


def setup_logging(level: str, path: str = "", filters: Sequence[logging.Filter] = ()) -> None:
    """Log at ``level`` to stderr, and to the file ``path`` too when given (``OSError`` when it
    cannot be opened); ``filters`` on every handler."""
    root = logging.getLogger()
    root.handlers.clear()
    root.setLevel(level.upper())
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if path:
        handlers.append(logging.FileHandler(path, encoding="utf-8"))
    for handler in handlers:
        handler.setFormatter(fmt)
        for log_filter in filters:
            handler.addFilter(log_filter)
        root.addHandler(handler)


def reserve_stdout() -> BinaryIO:
    """A private binary stream on the original stdout; fd 1 and ``sys.stdout`` then go to stderr."""
    sys.stdout.flush()
    fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(fd, "wb")


def exit_status(status: int) -> int:
    """``status``; or, while an agent is still being built in the background, an immediate exit
    with it (every answer is out by now): tearing the interpreter down under numba's compiler in
    that thread can abort inside LLVM (seen once at a ``quit`` soon after a start on a cold
    cache), and nothing of an unfinished build is worth waiting for."""
    from dlgo.play.agents import AGENT_BUILD_THREAD

    if any(t.name == AGENT_BUILD_THREAD and t.is_alive() for t in threading.enumerate()):
        logging.shutdown()
        sys.stderr.flush()
        os._exit(status)
    return status
