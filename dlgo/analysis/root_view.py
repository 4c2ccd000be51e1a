"""One search's view of the shared network: the root's priors as the analysis asks for them.

KataGo's analysis queries change the root of a search: ``rootPolicyTemperature`` (a wider
search: the root's policy raised to ``1 / T``), ``wideRootNoise`` (the same, gentler, in
KataGo's own settings) and ``avoidMoves``/``allowMoves`` (moves the search must not explore).
A PUCT tree takes its root's priors from the first answer of its evaluator in a search (a new
root every time: analysis searches never reuse a tree), so this wrapper changes that one answer
and passes every other through: the root's priors are tempered and the moves to avoid get none.
With the book's first-play value an unvisited move counts as a draw, so in a lost position a
move without prior may still be tried once; the analysis leaves it out of its report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dlgo.goboard import GameState
from dlgo.inference.evaluator import EncodedBatch
from dlgo.inference.shared import SharedEvaluator

__all__ = ["RootView", "temper"]


def temper(policy: np.ndarray, temperature: float, allowed: np.ndarray | None) -> np.ndarray:
    """``policy ** (1 / temperature)`` with the moves outside ``allowed`` (a mask in the same
    order) at 0, renormalised (unchanged when nothing would be left)."""
    p = np.asarray(policy, dtype=np.float64).copy()
    if allowed is not None:
        p[~allowed] = 0.0
    if temperature != 1.0:
        p = np.power(np.maximum(p, 0.0), 1.0 / temperature)
    total = p.sum()
    if not np.isfinite(total) or total <= 0:
        return np.asarray(policy, dtype=np.float32)
    return (p / total).astype(np.float32)


class RootView:
    """A search's evaluator: ``SharedEvaluator``'s interface; after ``arm`` the next answer (the
    root's) has its priors tempered and masked."""

    def __init__(self, shared: SharedEvaluator) -> None:
        self.shared = shared
        self._armed: tuple[float, np.ndarray | None] | None = None

    def arm(self, temperature: float = 1.0, allowed: np.ndarray | None = None) -> None:
        """Change the priors of the next answer: ``temperature`` and ``allowed`` as in
        ``temper`` (the mask over the network's moves, the zero encoder's order, pass last)."""
        self._armed = None if temperature == 1.0 and allowed is None else (temperature, allowed)

    def disarm(self) -> None:
        self._armed = None

    def _root(self, policy: np.ndarray) -> np.ndarray:
        if self._armed is None:
            return policy
        temperature, allowed = self._armed
        self._armed = None
        out = np.array(policy, dtype=np.float32, copy=True)
        out[0] = temper(out[0], temperature, allowed)
        return out

    # --- what a search reads -------------------------------------------------------------------
    @property
    def encoder_name(self) -> str:
        return self.shared.encoder_name

    @property
    def heads(self) -> list[str]:
        return self.shared.heads

    @property
    def has_aux(self) -> bool:
        return self.shared.has_aux

    @property
    def stats(self) -> dict[str, Any]:
        return self.shared.stats

    def encoder_for(self, board_size: int | tuple[int, int]) -> Any:
        return self.shared.encoder_for(board_size)

    def clear_cache(self) -> None:
        self.shared.clear_cache()

    def start_encoded(self, keys: Sequence[int], planes: np.ndarray) -> EncodedBatch:
        return self.shared.start_encoded(keys, planes)

    def forward(self, batch: EncodedBatch) -> dict[str, np.ndarray] | None:
        return self.shared.forward(batch)

    def finish_encoded(self, batch: EncodedBatch, raw: dict[str, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
        policy, value = self.shared.finish_encoded(batch, raw)
        return self._root(policy), value

    def encoded_aux(self, batch: EncodedBatch) -> tuple[np.ndarray, np.ndarray]:
        return self.shared.encoded_aux(batch)

    def evaluate_encoded(self, keys: Sequence[int], planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        batch = self.start_encoded(keys, planes)
        return self.finish_encoded(batch, self.forward(batch))

    def evaluate(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        policy, value = self.shared.evaluate(states)
        return self._root(policy), value

    def evaluate_full(self, states: Sequence[GameState]) -> dict[str, np.ndarray]:
        out = dict(self.shared.evaluate_full(states))
        out["policy"] = self._root(out["policy"])
        return out

    def policy(self, states: Sequence[GameState]) -> np.ndarray:
        return self.evaluate_full(states)["policy"]

    def value(self, states: Sequence[GameState]) -> np.ndarray:
        return self.shared.value(states)
