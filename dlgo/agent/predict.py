"""The book's ``DeepLearningAgent`` (8.1): play the policy network's moves, no search.

    agent = load_prediction_agent("weights/zero-19x19.keras")
    move = agent.select_move(game_state)

Move choice, as in the book: the network's probabilities over the board points are **cubed**
(sharpening toward its favourites), **clipped** to [1e-6, 1 - 1e-6] (every point keeps a
chance, none is certain) and renormalised; a full random order of the points is drawn **without
replacement** weighted by them, and the first point that is a valid play and not one of our own
eyes is played. When none is, the agent passes. It never resigns (the engine decides that).
A pass output of the network (Zero networks have one) is not sampled: like the book's agent this
one passes only when nothing else is sensible.

The network runs through ``dlgo.inference.BatchEvaluator`` (ONNX Runtime or a compiled function, with a
position cache), never ``model.predict`` per position. Models are ``.keras`` files with their
model card (``dlgo.inference.save_model``) instead of the book's HDF5 groups.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.agent.base import Agent
from dlgo.agent.helpers import is_point_an_eye
from dlgo.encoders import Encoder
from dlgo.goboard import GameState, Move

if TYPE_CHECKING:
    import keras

    from dlgo.inference import BatchEvaluator, LoadedModel

__all__ = ["DeepLearningAgent", "load_prediction_agent", "move_probabilities", "CLIP"]

CLIP = 1e-6


def move_probabilities(probs: np.ndarray) -> np.ndarray:
    """The book's sharpening: ``p ** 3``, clipped to [1e-6, 1 - 1e-6], renormalised to sum 1."""
    p = np.asarray(probs, dtype=np.float64) ** 3
    p = np.clip(p, CLIP, 1 - CLIP)
    return p / np.sum(p)


class DeepLearningAgent(Agent):
    """Plays from a policy network's move probabilities (book 8.1).

    ``model``: a ``LoadedModel``, a path to a ``.keras`` model with its card, or a Keras model
    together with ``encoder`` (name or ``Encoder``). ``evaluator``: an existing
    ``BatchEvaluator`` to share. ``seed``: the sampling's random seed. ``symmetry``: the
    evaluator's symmetry mode; "average" (the mean over the 8 board symmetries) predicts moves
    best and costs one batch of 8 per move.
    """

    def __init__(
        self,
        model: LoadedModel | keras.Model | str | os.PathLike | None = None,
        encoder: Encoder | str | None = None,
        *,
        evaluator: BatchEvaluator | None = None,
        backend: str = "auto",
        seed: int | None = None,
        threads: int | None = None,
        symmetry: str | int = "identity",
    ) -> None:
        if evaluator is None:
            if model is None:
                raise ValueError("give a model or an evaluator")
            from dlgo.inference import BatchEvaluator

            evaluator = BatchEvaluator(
                model, encoder, backend=backend, threads=threads, cache_size=4096, symmetry_mode=symmetry
            )
        if "policy" not in evaluator.heads:
            raise ValueError(f"the model has no policy head (it has {', '.join(evaluator.heads)})")
        self.evaluator = evaluator
        self._rng = np.random.default_rng(seed)
        self._last: dict[str, Any] = {}

    @classmethod
    def from_params(cls, params: Mapping[str, Any], board_size: int) -> DeepLearningAgent:
        """The ``predict`` agent kind (``dlgo.agent_registry``): its config table, every key
        given and the model file checked."""
        return load_prediction_agent(
            params["model"],
            board_size=board_size,
            seed=params["seed"],
            threads=int(params["threads"]) or None,
            symmetry=str(params["symmetry"]),
        )

    def encoder_for(self, game_state: GameState) -> Encoder:
        board = game_state.board
        return self.evaluator.encoder_for((board.num_rows, board.num_cols))

    def predict(self, game_state: GameState) -> np.ndarray:
        """The network's probabilities over the board points (``rows * cols``; a pass entry dropped)."""
        board = game_state.board
        policy = self.evaluator.policy([game_state])[0]
        return np.asarray(policy[: board.num_rows * board.num_cols], dtype=np.float64)

    def ranked_moves(self, probs: np.ndarray) -> np.ndarray:
        """All point indices in a random order drawn without replacement, weighted by ``probs``
        after ``move_probabilities``."""
        p = move_probabilities(probs)
        return self._rng.choice(len(p), size=len(p), replace=False, p=p)

    def select_move(self, game_state: GameState) -> Move:
        encoder = self.encoder_for(game_state)
        board = game_state.board
        player = game_state.next_player
        probs = self.predict(game_state)
        for rank, idx in enumerate(self.ranked_moves(probs)):
            point = encoder.decode_point_index(int(idx))
            if board.get(point) is not None or is_point_an_eye(board, point, player):
                continue
            move = Move.play(point)
            if game_state.is_valid_move(move):
                self._last = {"move_probability": float(probs[idx]), "rank_drawn": rank}
                return move
        self._last = {"move_probability": None, "rank_drawn": None}
        return Move.pass_turn()

    def diagnostics(self) -> dict[str, Any]:
        return dict(self._last) | {"runner": self.evaluator.runner.name}

    def serialize(self, path: str | os.PathLike, **card_fields: Any) -> None:
        """Save the network and its card (the book wrote an HDF5 file with the encoder)."""
        from dlgo.inference import save_model

        loaded = self.evaluator.loaded
        if loaded is not None:
            card = loaded.card
            save_model(loaded.model, path, card.encoder, card.board_sizes, card=card, **card_fields)
            return
        encoder = next(iter(self.evaluator.encoders), None)
        if encoder is None:
            raise ValueError("no encoder known yet: play a move first or save the model with dlgo.inference.save_model")
        save_model(self.evaluator.model, path, encoder, **card_fields)


def load_prediction_agent(
    path: str | os.PathLike,
    board_size: int | None = None,
    *,
    backend: str = "auto",
    seed: int | None = None,
    threads: int | None = None,
    symmetry: str | int = "identity",
) -> DeepLearningAgent:
    """A ``DeepLearningAgent`` from a model file; ``board_size`` is checked against the model
    (a size-independent network plays any size). ``dlgo.inference.ModelFileError`` says what is wrong."""
    from dlgo.inference import load_model

    loaded = load_model(path, board_size=board_size, heads=["policy"], lazy=True)
    return DeepLearningAgent(loaded, backend=backend, seed=seed, threads=threads, symmetry=symmetry)
