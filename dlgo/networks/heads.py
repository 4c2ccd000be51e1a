"""Which layers of a zero network belong to which output head, and training some heads only.

A zero network (``dlgo.networks.zero``) is a residual trunk with up to four heads, each made of
layers named after it: ``policy_*``, ``value_*``, ``ownership_*``, ``score_*`` (and the output
layer named as the head). Fine-tuning only the value head on another board size's self-play games
(the strength issue's step 3) keeps the trunk and the policy exactly as trained, so the search's
prior stays the strong human one while its value learns the new games' results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["HEAD_NAMES", "head_of", "train_only_heads"]

HEAD_NAMES = ("policy", "value", "ownership", "score")


def head_of(layer_name: str) -> str | None:
    """The head a layer belongs to by its name (None: the trunk)."""
    for head in HEAD_NAMES:
        if layer_name == head or layer_name.startswith(f"{head}_"):
            return head
    return None


def train_only_heads(model: Any, heads: Sequence[str]) -> list[str]:
    """Make only the layers of ``heads`` trainable (every layer when ``heads`` is empty) and
    return the names of the trainable layers that hold weights. Frozen batch-norm layers run in
    inference mode, so the trunk's statistics stay as they were too. ``ValueError`` for a head the
    model does not have."""
    outputs = list(model.output_names)
    unknown = [h for h in heads if h not in outputs]
    if unknown:
        raise ValueError(f"no head {', '.join(unknown)} in {model.name} (its outputs: {', '.join(outputs)})")
    wanted = set(heads)
    trained = []
    for layer in model.layers:
        layer.trainable = not wanted or head_of(layer.name) in wanted
        if layer.trainable and layer.weights:
            trained.append(layer.name)
    return trained
