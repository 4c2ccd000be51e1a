"""What the page shows of a search and a count, as JSON: win rate, candidates, PV, ownership.

Vertices are GTP text (``D4``, ``pass``); win rates are for the bot, in [0, 1]; ownership is
one row per board row, top row first, +1 Black / -1 White (``dlgo.deadstones.ownership_values``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dlgo.deadstones import Count, ownership_values
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.search import SearchResult
from dlgo.sgf.record import move_text, vertex_text

__all__ = ["search_json", "ownership_json", "count_json", "points_json", "MAX_CANDIDATES"]

MAX_CANDIDATES = 8  # rows of the candidates table; more is noise to a player


def points_json(points: list[Point]) -> list[str]:
    return [vertex_text(p) for p in points]


def search_json(result: SearchResult | None, limit: int = MAX_CANDIDATES) -> dict[str, Any] | None:
    """The search behind a move: root visits, win rate, best candidates with visits and PV."""
    if result is None:
        return None
    return {
        "visits": int(result.visits),
        "winrate": round(float(result.winrate), 4),
        "seconds": round(float(result.elapsed), 2),
        "candidates": [
            {
                "move": move_text(c.move),
                "visits": int(c.visits),
                "winrate": round(float(c.winrate), 4),
                "prior": round(float(c.prior), 4),
                "pv": [move_text(m) for m in _pv_of(c.move, c.pv)],
            }
            for c in result.candidates[:limit]
        ],
    }


def _pv_of(first: Move, pv: list[Move]) -> list[Move]:
    """The candidate's line starting with the candidate itself (searches differ on including it)."""
    return pv if pv and pv[0] == first else [first, *pv]


def ownership_json(state: GameState, playouts: int) -> list[list[float]]:
    """Who owns each point at the end of random playouts from ``state`` (book 4.5's rollouts)."""
    padded = np.asarray(ownership_values(state, playouts), dtype=float)
    geo = state.board.geometry
    return [
        [round(float(padded[geo.index(Point(row, col))]), 2) for col in range(1, geo.num_cols + 1)]
        for row in range(geo.num_rows, 0, -1)
    ]


def count_json(counted: Count) -> dict[str, Any]:
    """The count at the end: result text, points each side and the stones taken off as dead."""
    result = counted.result
    return {
        "result": str(result),
        "winner": None if result.winner is None else result.winner.name,
        "black": float(result.b),
        "white": float(result.w + result.komi),
        "komi": float(result.komi),
        "dead": points_json(counted.dead_stones()),
    }
