"""The policy-gradient agent (book 9.3, 10.2): sample moves from a policy network, learn by REINFORCE.

    agent = PolicyAgent(policy_network(encoder), encoder)
    agent.set_collector(collector)          # record the decisions of self-play games
    agent.train(buffer, lr=0.02, clipnorm=1.0, batch_size=512)

Move choice (book listing 9.6 and 10.2): the network's probabilities over the points, clipped
to [1e-5, 1 - 1e-5] and renormalised (no cubing, unlike the supervised agent of book 8.1); a
random order of every point drawn without replacement by those weights; the first that is a
valid play and does not fill our own eye is played, else the agent passes. With probability
``temperature`` a move draws from the uniform policy instead (book 10.3's off-policy moves).

Training (book 10.2): the target of each decision is a zero vector holding the game's reward
(+1 or -1) at the move played; categorical cross-entropy against it is the policy gradient
(the sign of the reward flips the step: a move of a won game gets likelier, of a lost game
less likely). Plain SGD with ``clipnorm``, exactly one pass over the fresh experience.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.encoders import Encoder
from dlgo.goboard import GameState, Move
from dlgo.rl.base import (
    RLAgent,
    acceptable_play,
    as_buffers,
    clip_probs,
    clipped_policy_loss,
    compile_sgd,
    one_hot_actions,
)
from dlgo.rl.experience import ExperienceBuffer

if TYPE_CHECKING:
    import keras

__all__ = ["PolicyAgent", "POLICY_CLIP", "policy_gradient_targets"]

POLICY_CLIP = 1e-5


def policy_gradient_targets(experience: ExperienceBuffer, num_points: int, use_advantage: bool = False) -> np.ndarray:
    """Zero vectors with the reward (or the advantage) at the action: the REINFORCE target."""
    weights = experience.advantages if use_advantage else experience.rewards
    return one_hot_actions(experience.actions, num_points, weights)


class PolicyAgent(RLAgent):
    """Plays moves sampled from its policy network and learns by policy gradient (book 10)."""

    kind = "pg"

    def __init__(self, model: keras.Model, encoder: Encoder, **kwargs: Any) -> None:
        super().__init__(model, encoder, **kwargs)

    def predict(self, game_state: GameState) -> np.ndarray:
        """The network's move probabilities for ``game_state`` (one per point)."""
        return self._predict(self.encoder.encode(game_state)[None])[0][0]

    def select_move(self, game_state: GameState) -> Move:
        self._check_size(game_state)
        board_tensor = self.encoder.encode(game_state)
        num_points = self.encoder.num_points()
        if self.temperature > 0 and self._rng.random() < self.temperature:
            probs = np.full(num_points, 1.0 / num_points)  # an off-policy exploration move
        else:
            probs = clip_probs(self._predict(board_tensor[None])[0][0], POLICY_CLIP)
        ranked = self._rng.choice(num_points, size=num_points, replace=False, p=probs)
        for index in ranked:
            move = acceptable_play(game_state, self.encoder, index)
            if move is not None:
                if self.collector is not None:
                    self.collector.record_decision(state=board_tensor, action=int(index))
                self._last = {"move_probability": float(probs[index])}
                return move
        self._last = {"move_probability": None}
        return Move.pass_turn()

    def train(
        self,
        experience: ExperienceBuffer | Iterable[ExperienceBuffer],
        lr: float = 0.02,
        clipnorm: float | None = 1.0,
        batch_size: int = 512,
        use_advantage: bool = False,
    ) -> dict[str, float]:
        """One REINFORCE pass over ``experience`` (a buffer or chunks of one); the mean loss.

        The book's 19x19 network used lr 1e-7; the small 9x9 networks here learn with 0.02.
        ``use_advantage``: weight each move by its advantage (reward - baseline value) instead of
        the reward (the AlphaGo pipeline's RL stage with a value network as baseline).
        """
        compile_sgd(self.model, lr, clipnorm, loss=clipped_policy_loss(POLICY_CLIP))
        num_points = self.encoder.num_points()
        chunks = (
            (buf.states.astype(np.float32), policy_gradient_targets(buf, num_points, use_advantage))
            for buf in as_buffers(experience)
        )
        return self._fit(chunks, batch_size)
