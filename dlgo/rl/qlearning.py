"""The Q-learning agent (book 11.2): a network that values (position, move) pairs, epsilon-greedy.

The network takes two inputs (book listing 11.4): the encoded board and the move as a one-hot
vector over the points, and answers the move's expected reward in [-1, 1] (tanh). To choose,
the agent pairs the board with every legal play in one batch (book listing 11.5), ranks the
plays by value (with probability ``temperature``, the book's name for epsilon, by uniform
random numbers instead), and plays the first that does not fill its own eye; with no play
left it passes. Training (book 11.2.3): the target of each decision is the game's reward (+-1),
mean squared error, plain SGD, one pass.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.agent.helpers import is_point_an_eye
from dlgo.encoders import Encoder
from dlgo.goboard import GameState, Move
from dlgo.rl.base import RLAgent, compile_sgd, one_hot_actions, save_two_input_model
from dlgo.rl.experience import ExperienceBuffer
from dlgo.rl.policy import as_buffers, fit_chunks

if TYPE_CHECKING:
    import keras

__all__ = ["QAgent"]


class QAgent(RLAgent):
    """Chooses the play of highest estimated action value, exploring with epsilon (book 11.2)."""

    kind = "q"

    def __init__(self, model: keras.Model, encoder: Encoder, **kwargs: Any) -> None:
        super().__init__(model, encoder, **kwargs)
        self._call: Any = None

    def _predict(self, x: list[np.ndarray]) -> list[np.ndarray]:  # two inputs: no one-input runner
        if self._call is None:
            import keras

            if keras.backend.backend() == "tensorflow":
                import tensorflow as tf

                self._call = tf.function(lambda b, a: self.model([b, a], training=False), reduce_retracing=True)
            else:
                self._call = lambda b, a: self.model([b, a], training=False)
        import keras

        return [keras.ops.convert_to_numpy(self._call(*x))]

    def _trained(self) -> None:
        self._call = None

    def action_values(self, game_state: GameState, points: list[int]) -> np.ndarray:
        """The network's value of each play (point indices) in ``game_state``."""
        board_tensor = self.encoder.encode(game_state)
        boards = np.repeat(board_tensor[None], len(points), axis=0)
        actions = one_hot_actions(np.array(points), self.encoder.num_points())
        return self._predict([boards, actions])[0].reshape(len(points))

    def select_move(self, game_state: GameState) -> Move:
        self._check_size(game_state)
        moves = [m for m in game_state.legal_moves() if m.is_play]
        if not moves:
            return Move.pass_turn()
        points = [self.encoder.encode_point(m.point) for m in moves]
        board_tensor = self.encoder.encode(game_state)
        values = self.action_values(game_state, points)
        ranking = values
        if self.temperature > 0 and self._rng.random() < self.temperature:
            ranking = self._rng.random(len(points))  # explore: a random order (book listing 11.6)
        board, player = game_state.board, game_state.next_player
        for i in np.argsort(-ranking, kind="stable"):
            if is_point_an_eye(board, moves[i].point, player):
                continue
            if self.collector is not None:
                self.collector.record_decision(state=board_tensor, action=points[i])
            self._last = {"value": float(values[i])}
            return moves[i]
        self._last = {"value": None}
        return Move.pass_turn()

    def train(
        self,
        experience: ExperienceBuffer | Iterable[ExperienceBuffer],
        lr: float = 0.1,
        clipnorm: float | None = 1.0,
        batch_size: int = 128,
    ) -> dict[str, float]:
        """One pass of MSE between the action values and the game rewards (book lr 0.1, batch 128)."""
        compile_sgd(self.model, lr, clipnorm, loss="mse")
        n = self.encoder.num_points()
        chunks = (
            ([buf.states.astype(np.float32), one_hot_actions(buf.actions, n)], buf.rewards)
            for buf in as_buffers(experience)
        )
        try:
            return fit_chunks(self.model, chunks, batch_size)
        finally:
            self._trained()

    def serialize(self, path: str | os.PathLike, **card_fields: Any) -> Path:
        return save_two_input_model(self.model, Path(path), self.encoder, self.kind, **card_fields)
