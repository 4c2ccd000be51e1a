"""The agent interface (book listing 3.16)."""

from __future__ import annotations

from typing import Any

from dlgo.goboard import GameState, Move

__all__ = ["Agent"]


class Agent:
    def select_move(self, game_state: GameState) -> Move:
        raise NotImplementedError

    def diagnostics(self) -> dict[str, Any]:
        return {}
