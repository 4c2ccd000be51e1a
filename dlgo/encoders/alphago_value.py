"""``alphago_value``: the AlphaGo encoder with the 49th plane (player to move) for the value net."""

from __future__ import annotations

from dlgo.encoders.alphago import AlphaGoEncoder

__all__ = ["create"]


def create(board_size: int | tuple[int, int]) -> AlphaGoEncoder:
    return AlphaGoEncoder(board_size, use_player_plane=True)
