"""Board encoders (book chapters 6, 7, 13, 14): ``GameState`` -> float32 planes, channels-last.

``get_encoder_by_name(name, board_size)`` with ``name`` one of ``oneplane`` (1 plane),
``sevenplane`` (7), ``simple`` (11), ``alphago`` (48), ``alphago_value`` (49: plus the player
plane) and ``zero`` (16 planes, moves include pass). ``dlgo.encoders.symmetry`` has the 8 board
symmetries for planes and policy vectors. This package imports numpy and numba, never Keras.
"""

from __future__ import annotations

from dlgo.encoders.base import ENCODER_NAMES, Encoder, board_dims, get_encoder_by_name

__all__ = ["Encoder", "get_encoder_by_name", "ENCODER_NAMES", "board_dims"]
