"""The encoder interface and registry (book 6.1, listings 6.1-6.2), channels-last.

An encoder turns a ``GameState`` into a float32 array of shape ``(rows, cols, planes)``:
channels-last, unlike the book's channels-first ``(planes, rows, cols)``, because that is the
layout Keras and TensorFlow run fastest on CPU (and the default of every Keras backend). Array
row ``r - 1`` holds board row ``r`` (row 1 is the bottom line) and column ``c - 1`` column ``c``,
so flattening the first two axes gives the book's point index ``cols * (row - 1) + (col - 1)``,
the index of the move in a policy vector.

``get_encoder_by_name(name, board_size)`` imports ``dlgo.encoders.<name>`` and calls its
``create(board_size)``, as in the book; ``board_size`` is an int (square) or ``(rows, cols)``.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point

__all__ = ["Encoder", "get_encoder_by_name", "ENCODER_NAMES", "board_dims"]

ENCODER_NAMES = ("oneplane", "sevenplane", "simple", "alphago", "alphago_value", "zero")


def board_dims(board_size: int | tuple[int, int] | Sequence[int]) -> tuple[int, int]:
    """``(rows, cols)`` from an int (square board) or a pair."""
    if isinstance(board_size, int | np.integer):
        return int(board_size), int(board_size)
    rows, cols = board_size
    return int(rows), int(cols)


class Encoder(ABC):
    """Base class: the book's methods plus batch encoding.

    Subclasses set ``num_planes`` and implement ``name`` and ``_encode_into``. ``history_moves``
    says how many recent moves (besides the position and player to move) the planes depend on;
    inference caches use it to build their keys.
    """

    num_planes: int = 0
    history_moves: int = 0

    def __init__(self, board_size: int | tuple[int, int]) -> None:
        self.board_height, self.board_width = board_dims(board_size)
        self.num_rows, self.num_cols = self.board_height, self.board_width

    # --- the book's interface -------------------------------------------------------------
    @abstractmethod
    def name(self) -> str: ...

    def encode(self, game_state: GameState) -> np.ndarray:
        """Planes for ``game_state``, shape ``(rows, cols, planes)``, float32."""
        out = np.zeros(self.shape(), dtype=np.float32)
        self._check(game_state)
        self._encode_into(game_state, out)
        return out

    def encode_point(self, point: Point) -> int:
        """Index of ``point`` in a flattened board: ``cols * (row - 1) + (col - 1)``."""
        return self.board_width * (point.row - 1) + (point.col - 1)

    def decode_point_index(self, index: int) -> Point:
        row, col = divmod(int(index), self.board_width)
        return Point(row=row + 1, col=col + 1)

    def num_points(self) -> int:
        return self.board_width * self.board_height

    def shape(self) -> tuple[int, int, int]:
        """``(rows, cols, planes)``: channels-last."""
        return self.board_height, self.board_width, self.num_planes

    # --- additions --------------------------------------------------------------------------
    def encode_batch(self, game_states: Sequence[GameState]) -> np.ndarray:
        """Planes for many states, shape ``(n, rows, cols, planes)``."""
        out = np.zeros((len(game_states), *self.shape()), dtype=np.float32)
        for i, state in enumerate(game_states):
            self._check(state)
            self._encode_into(state, out[i])
        return out

    def encode_move(self, move: Move) -> int:
        """Index of a play in the policy vector (pass only for encoders that have it)."""
        if move.is_play:
            return self.encode_point(move.point)
        raise ValueError(f"{self.name()} encoder has no index for {move}")

    def decode_move_index(self, index: int) -> Move:
        return Move.play(self.decode_point_index(index))

    def num_moves(self) -> int:
        return self.num_points()

    @abstractmethod
    def _encode_into(self, game_state: GameState, out: np.ndarray) -> None:
        """Write the planes of ``game_state`` into the zeroed array ``out`` (rows, cols, planes)."""

    def _check(self, game_state: GameState) -> None:
        board = game_state.board
        if board.num_rows != self.board_height or board.num_cols != self.board_width:
            raise ValueError(
                f"{self.name()} encoder is for {self.board_height}x{self.board_width} boards, "
                f"got {board.num_rows}x{board.num_cols}"
            )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name()} {self.board_height}x{self.board_width}x{self.num_planes}>"


def get_encoder_by_name(name: str, board_size: int | tuple[int, int]) -> Encoder:
    """The book's registry: ``dlgo.encoders.<name>.create(board_size)``."""
    if name not in ENCODER_NAMES:
        raise ValueError(f"unknown encoder {name!r}; known: {', '.join(ENCODER_NAMES)}")
    module = importlib.import_module(f"dlgo.encoders.{name}")
    return module.create(board_size)
