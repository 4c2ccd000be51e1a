"""What the agents of book chapters 9-12 share: a network, its encoder, a collector, and files.

Every agent plays through ``select_move`` (the book's interface) and, when a collector is
attached (``set_collector``), records each decision it commits to. ``serialize`` writes the
network as a ``.keras`` file with its model card (``dlgo.inference``); the card's field
``rl_agent`` ("pg", "q", "ac", "value") says which agent plays it, so ``load_rl_agent`` needs
only the path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.agent.base import Agent
from dlgo.agent.helpers import is_point_an_eye
from dlgo.encoders import Encoder
from dlgo.goboard import GameState, Move
from dlgo.rl.experience import ExperienceBuffer

if TYPE_CHECKING:
    import keras

    from dlgo.rl.experience import ExperienceCollector

__all__ = [
    "RLAgent",
    "as_buffers",
    "fit_chunks",
    "clip_probs",
    "acceptable_play",
    "one_hot_actions",
    "compile_sgd",
    "clipped_policy_loss",
]


def clip_probs(probs: np.ndarray, eps: float) -> np.ndarray:
    """Probabilities clipped to [eps, 1 - eps] and renormalised (book listing 9.6): every move
    keeps a chance of being explored, none is certain."""
    p = np.clip(np.asarray(probs, dtype=np.float64), eps, 1 - eps)
    return p / np.sum(p)


def acceptable_play(game_state: GameState, encoder: Encoder, index: int) -> Move | None:
    """The play at point ``index`` if it is valid and does not fill one of our own eyes, else None."""
    point = encoder.decode_point_index(int(index))
    board = game_state.board
    if board.get(point) is not None or is_point_an_eye(board, point, game_state.next_player):
        return None
    move = Move.play(point)
    return move if game_state.is_valid_move(move) else None


def one_hot_actions(actions: np.ndarray, num_points: int, values: np.ndarray | None = None) -> np.ndarray:
    """Rows of zeros with ``values`` (default 1) at each action: the book's target vectors."""
    out = np.zeros((len(actions), num_points), dtype=np.float32)
    out[np.arange(len(actions)), np.asarray(actions, dtype=np.int64)] = 1.0 if values is None else values
    return out


def clipped_policy_loss(floor: float) -> Any:
    """The policy-gradient loss ``-sum(target * log(max(p, floor)))`` (book 10.2, 12.3), with the
    target holding the reward (or advantage) at the move played.

    Keras computes categorical cross-entropy of a softmax layer from its logits, which has no
    floor: a lost game's move is pushed down without end (log p -> -inf), and a few hundred
    steps of that drove the loss to -150 and wrecked the policy in our runs (docs/book-differences.md,
    21). Below ``floor``
    (the agents' sampling clip) a move cannot get rarer in play, so the push stops there.
    """
    import keras
    from keras import ops

    @keras.saving.register_keras_serializable(package="dlgo.rl", name=f"clipped_policy_loss_{floor:g}")
    def loss(y_true: Any, y_pred: Any) -> Any:
        return -ops.sum(y_true * ops.log(ops.clip(y_pred, floor, 1.0)), axis=-1)

    return loss


def compile_sgd(model: keras.Model, lr: float, clipnorm: float | None, loss: Any, loss_weights: Any = None) -> None:
    """Plain SGD, as the book trains every chapter 10-12 agent (no momentum: each batch of fresh
    experience is seen once). ``clipnorm`` bounds the norm of the whole gradient: Keras'
    ``clipnorm`` clips each weight tensor on its own, which with every tensor over the limit
    moves each by the full learning rate whatever its size (docs/rl.md)."""
    import keras

    kw = {"global_clipnorm": clipnorm} if clipnorm else {}
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=lr, **kw), loss=loss, loss_weights=loss_weights)


def as_buffers(experience: ExperienceBuffer | Iterable[ExperienceBuffer]) -> Iterable[ExperienceBuffer]:
    """One buffer, or the chunks of ``dlgo.rl.experience.iter_experience``, as an iterable."""
    return [experience] if isinstance(experience, ExperienceBuffer) else experience


def fit_chunks(model: keras.Model, chunks: Iterable[tuple[Any, Any]], batch_size: int) -> dict[str, float]:
    """One epoch over the chunks (each ``(inputs, targets)``); the mean losses, weighted by size."""
    totals: dict[str, float] = {}
    seen = 0
    for x, y in chunks:
        n = len(x[0]) if isinstance(x, list) else len(x)
        if n == 0:
            continue
        history = model.fit(x, y, batch_size=batch_size, epochs=1, verbose=0, shuffle=True)
        for key, values in history.history.items():
            totals[key] = totals.get(key, 0.0) + float(values[-1]) * n
        seen += n
    if not seen:
        raise ValueError("no experience to train on")
    return {key: total / seen for key, total in totals.items()} | {"decisions": seen}


class RLAgent(Agent):
    """A network agent that learns from its own games. Subclasses set ``kind`` and implement
    ``select_move`` and ``train``."""

    kind = ""

    def __init__(self, model: keras.Model, encoder: Encoder, *, seed: int | None = None, backend: str = "auto") -> None:
        self.model = model
        self.encoder = encoder
        self.collector: ExperienceCollector | None = None
        self.temperature = 0.0
        self.backend = backend
        self._rng = np.random.default_rng(seed)
        self._runner: Any = None
        self._last: dict[str, Any] = {}

    def set_collector(self, collector: ExperienceCollector | None) -> None:
        self.collector = collector

    def set_temperature(self, temperature: float) -> None:
        """Exploration: the chance of a uniformly random move (policy agents, book 10.3), or the
        epsilon of epsilon-greedy (value agents, book 11.1)."""
        if not 0.0 <= temperature <= 1.0:
            raise ValueError(f"temperature {temperature} outside [0, 1]")
        self.temperature = float(temperature)

    def seed(self, seed: int | None) -> None:
        self._rng = np.random.default_rng(seed)

    def diagnostics(self) -> dict[str, Any]:
        return dict(self._last)

    def _check_size(self, game_state: GameState) -> None:
        board = game_state.board
        if (board.num_rows, board.num_cols) != (self.encoder.board_height, self.encoder.board_width):
            raise ValueError(
                f"this {self.kind} agent plays {self.encoder.board_height}x{self.encoder.board_width}, "
                f"not {board.num_rows}x{board.num_cols}"
            )

    def network_outputs(self, x: np.ndarray | list[np.ndarray]) -> list[np.ndarray]:
        """The network's outputs, one array per head in the model's order, on the batch ``x`` of
        encoded positions (a Q agent's: positions and actions)."""
        return self._predict(x)

    def _predict(self, x: np.ndarray) -> list[np.ndarray]:
        """The network on a batch of planes (a fresh runner after training). One thread: these
        agents evaluate one position at a time, and self-play runs a process per core."""
        if self._runner is None:
            from dlgo.inference import make_runner

            self._runner = make_runner(self.model, self.backend, threads=1)
        return self._runner(x)

    def _trained(self) -> None:
        self._runner = None  # an ONNX export holds the old weights

    def _fit(self, chunks: Iterable[tuple[Any, Any]], batch_size: int) -> dict[str, float]:
        """One training pass over ``chunks`` (``fit_chunks``); the runner is remade afterwards."""
        try:
            return fit_chunks(self.model, chunks, batch_size)
        finally:
            self._trained()

    def train(self, experience: Any, **settings: Any) -> dict[str, float]:
        raise NotImplementedError

    def serialize(self, path: str | os.PathLike, **card_fields: Any) -> Path:
        """Save the network and its card (the book wrote an HDF5 file with the encoder)."""
        from dlgo.inference import save_model

        path = Path(path)
        save_model(self.model, path, self.encoder, rl_agent=self.kind, **card_fields)
        return path
