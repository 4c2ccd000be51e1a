"""The actor-critic agent (book 12): one network, a policy head (the actor) and a value head
(the critic).

Move choice (book listing 12.5): one forward pass gives the move probabilities and the value of
the position for the player to move; the probabilities are clipped to [1e-6, 1 - 1e-6] and
renormalised, points drawn in a random order by those weights, the first valid play that does
not fill our own eye is played (else pass), and the decision is recorded with the critic's
estimate, so that the collector can give it the advantage ``reward - value`` (book 12.1).

Training (book 12.3): the policy target is a zero vector holding the **advantage** at the move
played (categorical cross-entropy: the policy gradient weighted by how much better the game went
than the critic expected), the value target is the reward (mean squared error); loss weights
1.0 and 0.5; plain SGD, one pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.encoders import Encoder
from dlgo.goboard import GameState, Move
from dlgo.rl.base import RLAgent, acceptable_play, as_buffers, clip_probs, clipped_policy_loss, compile_sgd
from dlgo.rl.experience import ExperienceBuffer
from dlgo.rl.policy import policy_gradient_targets

if TYPE_CHECKING:
    import keras

__all__ = ["ACAgent", "AC_CLIP", "AC_LOSS_WEIGHTS"]

AC_CLIP = 1e-6
AC_LOSS_WEIGHTS = (1.0, 0.5)  # policy, value (book 12.3)


class ACAgent(RLAgent):
    """Samples moves from the actor and learns from advantages measured by the critic (book 12)."""

    kind = "ac"

    def __init__(self, model: keras.Model, encoder: Encoder, **kwargs: Any) -> None:
        super().__init__(model, encoder, **kwargs)

    def evaluate(self, game_state: GameState) -> tuple[np.ndarray, float]:
        """(move probabilities, value for the player to move)."""
        policy, value = self._predict(self.encoder.encode(game_state)[None])
        return policy[0], float(value.reshape(-1)[0])

    def select_move(self, game_state: GameState) -> Move:
        self._check_size(game_state)
        board_tensor = self.encoder.encode(game_state)
        policy, value = self._predict(board_tensor[None])
        estimated_value = float(value.reshape(-1)[0])
        num_points = self.encoder.num_points()
        if self.temperature > 0 and self._rng.random() < self.temperature:
            probs = np.full(num_points, 1.0 / num_points)
        else:
            probs = clip_probs(policy[0], AC_CLIP)
        for index in self._rng.choice(num_points, size=num_points, replace=False, p=probs):
            move = acceptable_play(game_state, self.encoder, index)
            if move is not None:
                if self.collector is not None:
                    self.collector.record_decision(board_tensor, int(index), estimated_value=estimated_value)
                self._last = {"value": estimated_value, "move_probability": float(probs[index])}
                return move
        self._last = {"value": estimated_value}
        return Move.pass_turn()

    def train(
        self,
        experience: ExperienceBuffer | Iterable[ExperienceBuffer],
        lr: float = 0.01,
        clipnorm: float | None = 1.0,
        batch_size: int = 1024,
    ) -> dict[str, float]:
        """One pass: advantage-weighted cross-entropy on the policy, MSE on the value (the book's
        command line ran lr 0.01, batch 1024)."""
        compile_sgd(
            self.model,
            lr,
            clipnorm,
            loss=[clipped_policy_loss(AC_CLIP), "mse"],
            loss_weights=list(AC_LOSS_WEIGHTS),
        )
        n = self.encoder.num_points()
        chunks = (
            (buf.states.astype(np.float32), (policy_gradient_targets(buf, n, use_advantage=True), buf.rewards))
            for buf in as_buffers(experience)
        )
        return self._fit(chunks, batch_size)
