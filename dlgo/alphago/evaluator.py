"""Leaf evaluation of AlphaGo-style search (book 13.4): priors, value network and rollouts.

For a batch of leaf positions, one call of the strong policy network gives the priors and one
call of the value network the values; every leaf also gets a fast rollout from its own position.
The leaf value, for the player to move at the leaf (the book took the rollout's perspective at
its end: docs/book-differences.md, 8), is

    V(leaf) = lambda * value_net(leaf) + (1 - lambda) * rollout(leaf)       (book: lambda 0.5)

The AlphaGo policy network has no pass output; pass gets the prior of an average move,
``1 / (empty points + 1)``, and the search renormalises priors over the legal moves, so every
prior stays aligned with its move (the book dropped pass from the probabilities but not from the
move list).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from dlgo.alphago.rollout import POLICIES, rollout_value
from dlgo.alphago.trained_rollout import trained_rollout_value
from dlgo.goboard import GameState

__all__ = ["AlphaGoEvaluator", "PolicySource", "ValueSource"]


class PolicySource(Protocol):
    def policy(self, states: Sequence[GameState]) -> np.ndarray: ...


class ValueSource(Protocol):
    def value(self, states: Sequence[GameState]) -> np.ndarray: ...


class AlphaGoEvaluator:
    """``evaluate(states) -> (priors [n, N*N + 1], values [n])`` for ``PUCTSearch``.

    ``policy``/``value``: ``dlgo.inference.BatchEvaluator`` objects (or anything with ``policy`` /
    ``value``); ``value=None`` or ``lambda_value=0`` means rollouts only, ``lambda_value=1`` no
    rollouts. ``rollout_limit``: moves per rollout before it counts as undecided (None: to the end).
    ``rollout_policy`` "trained" plays rollouts by a trained fast policy (book 13.2): pass its
    pattern weights as ``rollout_weights`` (``dlgo.alphago.trained_rollout.load_rollout_weights``).
    """

    def __init__(
        self,
        policy: PolicySource,
        value: ValueSource | None = None,
        lambda_value: float = 0.5,
        rollouts: int = 1,
        rollout_policy: str = "fast",
        rollout_limit: int | None = None,
        rollout_weights: np.ndarray | None = None,
    ) -> None:
        if not 0.0 <= lambda_value <= 1.0:
            raise ValueError("lambda_value must be in [0, 1]")
        if rollout_policy not in (*POLICIES, "trained"):
            raise ValueError(f"rollout_policy must be one of {', '.join(POLICIES)}, trained")
        if rollout_policy == "trained" and rollout_weights is None:
            raise ValueError("rollout_policy 'trained' needs the rollout network's weights")
        if value is None and lambda_value > 0:
            lambda_value = 0.0
        if lambda_value < 1.0 and rollouts < 1:
            raise ValueError("rollouts must be at least 1 when rollouts count (lambda_value < 1)")
        self.policy_source = policy
        self.value_source = value
        self.lambda_value = lambda_value
        self.rollouts = rollouts
        self.rollout_policy = rollout_policy
        self.rollout_limit = rollout_limit
        self.rollout_weights = rollout_weights
        self.rollouts_played = 0

    def evaluate(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        priors = self.priors(states)
        values = np.zeros(len(states), dtype=np.float64)
        lam = self.lambda_value
        if lam > 0:
            values += lam * np.asarray(self.value_source.value(states), dtype=np.float64)
        if lam < 1:
            values += (1 - lam) * np.array([self.rollout(s) for s in states])
        return priors, values

    def priors(self, states: Sequence[GameState]) -> np.ndarray:
        """Policy over ``N*N + 1`` moves (pass last) for each state."""
        p = np.asarray(self.policy_source.policy(states), dtype=np.float32)
        board = states[0].board
        points = board.num_rows * board.num_cols
        if p.shape[1] == points + 1:
            return p
        empties = np.array([s.board.padded_colors.count(0) for s in states], dtype=np.float32)
        return np.concatenate([p, (1.0 / (empties + 1.0))[:, None]], axis=1)

    def rollout(self, state: GameState) -> float:
        self.rollouts_played += self.rollouts
        if self.rollout_policy == "trained":
            return trained_rollout_value(state, self.rollout_weights, self.rollout_limit, self.rollouts)
        return rollout_value(state, self.rollout_limit, self.rollout_policy, self.rollouts)

    @property
    def stats(self) -> dict:
        out: dict = {"rollouts": self.rollouts_played}
        for name, source in (("policy", self.policy_source), ("value", self.value_source)):
            stats = getattr(source, "stats", None)
            if isinstance(stats, dict):
                out[name] = stats
        return out
