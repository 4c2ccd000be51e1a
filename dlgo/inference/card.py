"""Model cards: the JSON file beside every ``.keras`` model (``model.keras`` -> ``model.card.json``).

A card says what a network needs (encoder, board sizes, planes, heads) so loading can check it,
and what it is worth (training data, command, epochs, measured accuracy and strength) so people
can judge and reproduce it. Reading a card needs no Keras.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

__all__ = ["ModelCard", "card_path", "read_card", "write_card", "plays_size", "CARD_SUFFIX", "CARD_FORMAT"]

CARD_SUFFIX = ".card.json"
CARD_FORMAT = 1


def card_path(model_path: str | os.PathLike) -> Path:
    """``weights/zero.keras`` (or its export ``weights/zero.onnx``) -> ``weights/zero.card.json``."""
    p = Path(model_path)
    return p.with_name(p.stem + CARD_SUFFIX) if p.suffix in (".keras", ".onnx") else p.with_name(p.name + CARD_SUFFIX)


@dataclass
class ModelCard:
    """What a model file needs and what it is worth.

    ``board_sizes``: sizes it was trained for (a size-independent network plays others too).
    ``heads``: model outputs in order, each "policy", "value", "ownership" or "score"
    (``dlgo.inference.files.HEADS``). ``input_shape``: ``[rows, cols, planes]`` with ``null`` for
    an open size. ``training``: data, command, epochs, samples, ...
    ``metrics``: measured figures, e.g. ``{"top1": 0.47, "top5": 0.78, "positions": 100000}``.
    ``strength``: how it plays, e.g. ``{"vs": "gnugo level 10", "wins": 31, "games": 50}``.
    ``trained_komi``: the one komi of every game it learned from (None: several, or not known).
    Such a network cannot read its komi plane; ``dlgo.inference.komi`` evaluates it at this komi
    and moves its value and score to the real one.
    """

    encoder: str
    board_sizes: list[int]
    num_planes: int
    heads: list[str]
    input_shape: list[int | None] = field(default_factory=list)
    network: dict[str, Any] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    strength: dict[str, Any] = field(default_factory=dict)
    notes: str = ""
    created: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    format: int = CARD_FORMAT
    trained_komi: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        extra = d.pop("extra")
        d.update(extra)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelCard:
        names = {f.name for f in fields(cls)} - {"extra"}
        known = {k: v for k, v in data.items() if k in names}
        extra = {k: v for k, v in data.items() if k not in names}
        missing = [k for k in ("encoder", "board_sizes", "num_planes", "heads") if k not in known]
        if missing:
            raise ValueError(f"model card lacks {', '.join(missing)}")
        return cls(**known, extra=extra)

    @property
    def size_independent(self) -> bool:
        return len(self.input_shape) == 3 and self.input_shape[0] is None


def read_card(model_path: str | os.PathLike) -> ModelCard:
    """The card of ``model_path``; ``ValueError`` naming the file when missing or malformed."""
    path = card_path(model_path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: model card missing (models saved by dlgo.inference.save_model have one)") from None
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot read model card: {e}") from e
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a model card is a JSON object")
    try:
        return ModelCard.from_dict(data)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from e


def write_card(model_path: str | os.PathLike, card: ModelCard) -> Path:
    """Write the card beside ``model_path`` atomically (temporary file, then rename)."""
    path = card_path(model_path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(card.to_dict(), indent=2, sort_keys=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def plays_size(model_path: str | os.PathLike, size: int) -> bool:
    """Whether the network at ``model_path`` plays ``size``x``size``: a network with a fixed input
    (the book's chapters 7-13) plays only the sizes on its card, a fully convolutional one (no
    board size in its card's input shape) any. A card that cannot be read says yes: building the
    agent then names the file and what is wrong with it."""
    try:
        card = _card_of(str(model_path), card_path(model_path).stat().st_mtime_ns)
    except (OSError, ValueError):
        return True
    return card.size_independent or size in card.board_sizes


@functools.lru_cache(maxsize=64)
def _card_of(model_path: str, mtime_ns: int) -> ModelCard:
    del mtime_ns  # part of the cache key only: a rewritten card is read again
    return read_card(model_path)
