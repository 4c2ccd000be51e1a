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

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.agent.helpers import is_point_an_eye
from dlgo.encoders import Encoder
from dlgo.goboard import GameState, Move
from dlgo.rl.base import RLAgent, as_buffers, compile_sgd, one_hot_actions
from dlgo.rl.experience import ExperienceBuffer

if TYPE_CHECKING:
    import keras

__all__ = ["QAgent"]


class QAgent(RLAgent):
    """Chooses the play of highest estimated action value, exploring with epsilon (book 11.2)."""

    kind = "q"

    def __init__(self, model: keras.Model, encoder: Encoder, **kwargs: Any) -> None:
        super().__init__(model, encoder, **kwargs)
        self._call: Any = None
        self._head: tuple[np.ndarray, ...] | None = None

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
        self._runner = None
        self._head = None

    def _factored(self) -> bool:
        """Set up the trunk runner and the head's weights, if the network is the book's
        (board trunk -> concatenate with the one-hot action -> dense relu -> dense tanh)."""
        if self._head is not None:
            return True
        concat = next((layer for layer in self.model.layers if type(layer).__name__ == "Concatenate"), None)
        if concat is None or len(self.model.layers) < 2:
            return False
        hidden, out = self.model.layers[-2:]
        if [type(hidden).__name__, type(out).__name__] != ["Dense", "Dense"] or hidden.input is not concat.output:
            return False
        action_input, features = concat.input
        if action_input is not self.model.inputs[1]:
            return False
        import keras

        from dlgo.inference import make_runner

        self._runner = make_runner(keras.Model(self.model.inputs[0], features), self.backend, threads=1)
        w1, b1 = (np.asarray(v, dtype=np.float32) for v in hidden.get_weights())
        w2, b2 = (np.asarray(v, dtype=np.float32) for v in out.get_weights())
        self._head = (w1, b1, w2, b2)
        return True

    def action_values(self, game_state: GameState, points: list[int]) -> np.ndarray:
        """The network's value of each play (point indices) in ``game_state``.

        The action enters the book's network only after the board's trunk, and as a one-hot
        vector, so the trunk runs once per position and each move adds its row of the first
        dense layer's weights (the same numbers as feeding every (board, move) pair, book
        listing 11.5, at a fraction of the cost)."""
        board_tensor = self.encoder.encode(game_state)
        if self._factored():
            w1, b1, w2, b2 = self._head
            features = self._runner(board_tensor[None])[0].reshape(-1)
            n = self.encoder.num_points()
            shared = features @ w1[n:] + b1
            hidden = np.maximum(w1[np.asarray(points)] + shared, 0.0)
            return np.tanh(hidden @ w2 + b2).reshape(len(points))
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
        return self._fit(chunks, batch_size)
