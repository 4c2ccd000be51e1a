"""RandomBot: a uniformly random valid play that does not fill its own eye (book 3.4)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from dlgo.agent.base import Agent
from dlgo.agent.helpers import is_eye_at_index
from dlgo.goboard import EMPTY, GameState, Move

__all__ = ["RandomBot"]


class RandomBot(Agent):
    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    @classmethod
    def from_params(cls, params: Mapping[str, Any], board_size: int) -> RandomBot:
        """The ``random`` agent kind (``dlgo.agent_registry``): its config table, ``seed``."""
        return cls(seed=params["seed"])

    def select_move(self, game_state: GameState) -> Move:
        board = game_state.board
        geo = board.geometry
        colors = board.padded_colors
        color = game_state.next_player.value
        candidates = [idx for idx in geo.on_board if colors[idx] == EMPTY]
        randrange = self._rng.randrange
        remaining = len(candidates)
        while remaining:
            # Draw without replacement by swapping the drawn point out of the live range.
            i = randrange(remaining)
            idx = candidates[i]
            remaining -= 1
            candidates[i] = candidates[remaining]
            # Cheap tests first; the full validity test (superko) only for the survivor.
            if is_eye_at_index(colors, geo, idx, color) or board.is_suicide_at(color, idx):
                continue
            move = Move.play(geo.points[idx])
            if game_state.is_valid_move(move):
                return move
        return Move.pass_turn()
