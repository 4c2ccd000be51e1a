"""Game-tree search of book chapter 4: full minimax, depth pruning and alpha-beta pruning.

``build_agent`` makes the Go agents from engine config values ("minimax" is depth-limited
minimax, since the full Go tree cannot be searched; ``agent_from_params`` from their config
table, for ``dlgo.agent_registry``); both use the book's ``capture_diff``.
They visit about (legal moves)^depth positions per move, so they are meant for small boards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dlgo.agent.base import Agent
from dlgo.minimax.alphabeta import AlphaBetaAgent, alpha_beta_result
from dlgo.minimax.depthprune import DepthPrunedAgent, capture_diff, depth_pruned_result
from dlgo.minimax.minimax import MinimaxAgent, MinimaxResult, best_result
from dlgo.minimax.scores import MAX_SCORE, MIN_SCORE, SearchStats

__all__ = [
    "AGENT_NAMES",
    "MAX_BOARD_SIZE",
    "MAX_DEPTH",
    "AlphaBetaAgent",
    "DepthPrunedAgent",
    "MinimaxAgent",
    "MinimaxResult",
    "SearchStats",
    "MAX_SCORE",
    "MIN_SCORE",
    "agent_from_params",
    "alpha_beta_result",
    "best_result",
    "build_agent",
    "capture_diff",
    "depth_pruned_result",
    "supports_size",
]

AGENT_NAMES = ("minimax", "alphabeta")
MAX_DEPTH = 4
# Plain minimax visits about (legal moves)^depth positions, 20,000 to 30,000 a second in Python:
# depth 3 is about 4 s a move on 7x7 and some 20 s on 9x9, so larger boards are not offered.
MAX_BOARD_SIZE = 7


def build_agent(name: str, depth: int = 2, seed: int | None = None) -> Agent:
    """The Go agent ``name`` ("minimax" or "alphabeta") searching ``depth`` moves ahead."""
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 1..{MAX_DEPTH}, not {depth}")
    if name == "minimax":
        return DepthPrunedAgent(depth, capture_diff, seed=seed)
    if name == "alphabeta":
        return AlphaBetaAgent(depth, capture_diff, seed=seed)
    raise ValueError(f"unknown game-tree search agent {name!r}: choose one of {', '.join(AGENT_NAMES)}")


def agent_from_params(params: Mapping[str, Any], board_size: int, *, kind: str) -> Agent:
    """The ``minimax`` or ``alphabeta`` agent kind (``kind``; ``dlgo.agent_registry``): its
    config table, ``depth`` and ``seed``."""
    return build_agent(kind, int(params["depth"]), params["seed"])


def supports_size(size: int) -> bool:
    """Whether a board of ``size`` x ``size`` is small enough for these searches."""
    return size <= MAX_BOARD_SIZE
