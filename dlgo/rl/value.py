"""The value agent: a network that judges positions, playing the move that leaves the opponent
worst off (the book's repository ``ValueAgent``; its network is AlphaGo's value net, book 13.3).

The network answers the expected result for the **player to move** in [-1, 1] (tanh). To choose,
the agent plays every legal move on a copy, evaluates the resulting positions in one batch (the
opponent is to move there, so our value is the negation), ranks the moves by it (epsilon-greedy
with ``temperature``) and plays the first that does not fill our own eye; with no play left it
passes. It records the position it moved from and the move, so training on the game's reward
(+1 win, -1 loss for the player to move, mean squared error) teaches exactly the value it reads.
The book's repository trained this agent on {0, 1} targets against a tanh-ending network; the
targets here are the rewards themselves.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.agent.helpers import is_point_an_eye
from dlgo.encoders import Encoder
from dlgo.goboard import GameState, Move
from dlgo.rl.base import RLAgent, as_buffers, compile_sgd
from dlgo.rl.experience import ExperienceBuffer

if TYPE_CHECKING:
    import keras

__all__ = ["ValueAgent", "value_targets"]


def value_targets(experience: ExperienceBuffer) -> np.ndarray:
    """+1 for a decision of a won game, -1 of a lost one (a drawn game: 0)."""
    return np.sign(experience.rewards).astype(np.float32)


class ValueAgent(RLAgent):
    """Plays the move after which the opponent's position is worst (one-ply lookahead)."""

    kind = "value"

    def __init__(self, model: keras.Model, encoder: Encoder, **kwargs: Any) -> None:
        super().__init__(model, encoder, **kwargs)

    def evaluate(self, game_states: list[GameState]) -> np.ndarray:
        """The value of each state for its player to move."""
        return self._predict(self.encoder.encode_batch(game_states))[0].reshape(len(game_states))

    def select_move(self, game_state: GameState) -> Move:
        self._check_size(game_state)
        board, player = game_state.board, game_state.next_player
        moves = [m for m in game_state.legal_moves() if m.is_play and not is_point_an_eye(board, m.point, player)]
        if not moves:
            return Move.pass_turn()
        values = -self.evaluate([game_state.apply_move(m) for m in moves])  # the opponent moves next there
        ranking = values
        if self.temperature > 0 and self._rng.random() < self.temperature:
            ranking = self._rng.random(len(moves))
        best = int(np.argmax(ranking))
        if self.collector is not None:
            self.collector.record_decision(
                self.encoder.encode(game_state), self.encoder.encode_point(moves[best].point)
            )
        self._last = {"value": float(values[best])}
        return moves[best]

    def train(
        self,
        experience: ExperienceBuffer | Iterable[ExperienceBuffer],
        lr: float = 0.05,
        clipnorm: float | None = 1.0,
        batch_size: int = 256,
    ) -> dict[str, float]:
        """One pass of MSE between the values of the recorded positions and +-1 results."""
        compile_sgd(self.model, lr, clipnorm, loss="mse")
        chunks = ((buf.states.astype(np.float32), value_targets(buf)) for buf in as_buffers(experience))
        return self._fit(chunks, batch_size)
