"""The Zero loop's ``state.json``: where a run stands, read at start and rewritten between phases.

Its format (``STATE_FORMAT``) is what lets a restart go on where the last run stopped: the
iteration, the ``phase`` within it (``selfplay``, ``train``, ``gate``), the generation and its
network, the resign threshold, the anchored generations, the finished iterations' rows, and the
seconds each phase has taken. Only ``dlgo.zero.training_loop.ZeroLoop`` writes it.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from dlgo.zero.loop_clock import recover_clock
from dlgo.zero.loop_config import LoopConfig, LoopConfigError

__all__ = ["STATE", "STATE_FORMAT", "fresh_state", "read_state"]

STATE = "state.json"
STATE_FORMAT = 1


def fresh_state(config: LoopConfig) -> dict[str, Any]:
    """The state of a run that has not started."""
    return {
        "format": STATE_FORMAT,
        "board_size": config.selfplay.board_size,
        "iteration": 0,
        "phase": "selfplay",
        "generation": 0,
        "best": "generations/gen-0000.keras",
        "resign_threshold": config.selfplay.resign_threshold,
        "anchored": [],
        "history": [],
        "seconds": {"selfplay": 0.0, "train": 0.0, "gate": 0.0, "anchor": 0.0},
        "started": datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat(),
        "commands": [],
    }


def read_state(out: Path, board_size: int) -> tuple[dict[str, Any], float] | None:
    """The state stored in ``out`` (None: none yet) and the seconds recovered from a killed run's
    phase clock (``dlgo.zero.loop_clock``); a ``LoopConfigError`` if it is unreadable, of another
    format or of another board size."""
    path = out / STATE
    if not path.is_file():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise LoopConfigError(f"{path}: unreadable loop state ({e})") from None
    if state.get("format") != STATE_FORMAT:
        raise LoopConfigError(f"{path}: loop state format {state.get('format')} is not {STATE_FORMAT}")
    size = state.get("board_size")
    if size != board_size:
        raise LoopConfigError(f"{path}: this loop plays {size}x{size}, the config says {board_size}")
    return state, recover_clock(state, out)
