"""What a Zero loop hands on to its next run, on this machine or another one.

``runs/`` stays behind when the work moves to a new machine; the committed weights travel. So
``--export weights/zero-9x9.keras`` writes, beside the network and its card:

- ``zero-9x9.loop.json``: the run's place in the whole training so far (generations and
  iterations, compute hours, games and positions, the calibrated resign threshold, the exported
  network's anchor result with the anchor's settings) and the SHA-256 of the network it belongs to;
- ``zero-9x9.learner.keras``: the learner's checkpoint, trained on every iteration's data even
  where its candidates lost their gate (with its optimizer state).

A loop that starts afresh from that network (``init_model``) takes them up when ``loop.carry_over``
is on (the default) and the network is the one the file names: it counts on from the carried
generation and iteration (the learning-rate drops too), starts self-play at the carried resign
threshold, trains on from the carried learner, and skips the anchor games of generation 0 when
the carried ones were played with the same anchor settings. The replay window refills by
self-play. A carry file of another network is ignored with a warning (the network was changed by
hand or retrained elsewhere); a damaged one is a ``LoopConfigError`` naming it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dlgo.zero.loop_clock import atomic_write
from dlgo.zero.loop_config import LoopConfigError

__all__ = ["Carry", "carry_paths", "read_carry", "write_carry", "file_sha256", "CARRY_FORMAT"]

CARRY_FORMAT = 1


def carry_paths(model: str | os.PathLike) -> tuple[Path, Path]:
    """(the carry file, the learner checkpoint) beside an exported network ``X.keras``."""
    model = Path(model)
    return model.with_name(model.stem + ".loop.json"), model.with_name(model.stem + ".learner.keras")


def file_sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class Carry:
    """The training so far, as of the exported network ``model_sha256``."""

    board_size: int
    model_sha256: str
    generation: int = 0  # generations accepted since the first run began
    iteration: int = 0  # iterations finished since then (learning-rate drops count from these)
    resign_threshold: float | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # compute by phase, all runs
    games: int = 0
    positions: int = 0
    anchor: dict[str, Any] | None = None  # the exported network's elo.csv row
    anchor_settings: dict[str, Any] | None = None  # the anchor config that row was played with
    learner: str | None = None  # the learner checkpoint's file name, beside this file
    format: int = CARRY_FORMAT

    def learner_path(self, model: str | os.PathLike) -> Path | None:
        if not self.learner:
            return None
        path = Path(model).with_name(self.learner)
        return path if path.is_file() else None


def read_carry(model: str | os.PathLike, board_size: int) -> Carry | None:
    """The carry file beside ``model`` when it belongs to that very network; None when there is
    none or it names another network (warned); ``LoopConfigError`` naming it when damaged."""
    path, _ = carry_paths(model)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != CARRY_FORMAT:
            raise ValueError(f"format {data.get('format')} is not {CARRY_FORMAT}")
        carry = Carry(**data)
        if int(carry.board_size) != board_size:
            raise ValueError(f"it carries a {carry.board_size}x{carry.board_size} loop, this one plays {board_size}")
    except (OSError, ValueError, TypeError) as e:
        raise LoopConfigError(f"{path}: unusable loop carry file ({e})") from None
    if carry.model_sha256 != file_sha256(model):
        print(f"zero-loop: {path} belongs to another version of {Path(model).name}: nothing carried", file=sys.stderr)
        return None
    return carry


def write_carry(model: str | os.PathLike, carry: Carry, learner: Path | None) -> Path:
    """The carry file (and the learner checkpoint, when there is one) beside exported ``model``."""
    path, learner_target = carry_paths(model)
    carry.model_sha256 = file_sha256(model)
    carry.learner = None
    if learner is not None and learner.is_file():
        tmp = learner_target.with_name(learner_target.stem + ".tmp.keras")
        shutil.copyfile(learner, tmp)
        os.replace(tmp, learner_target)
        carry.learner = learner_target.name
    atomic_write(path, json.dumps(asdict(carry), indent=2) + "\n")
    return path
