"""One turn's analysis on one searcher: the search, then KataGo's answer (``dlgo.analysis.report``).

A position after two passes is analysed as a game that goes on (KataGo does the same), with
the player to move as the record has it. The network's raw policy (``includePolicy``) is asked
for before the search, through the shared batches. Agents without the network's ownership get
their ownership map and score spread from random playouts (``analysis.ownership_playouts`` of
them when a map is asked for, a quarter of that for the spread alone).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from dlgo.analysis.options import TurnOptions
from dlgo.analysis.report import TurnExtras, answer
from dlgo.analysis.score import playout_estimate
from dlgo.analysis.searchers import Searcher
from dlgo.analysis.tree_stats import read_tree
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.play.game import position_for
from dlgo.search import SearchBudget, SearchResult

__all__ = ["analyse_turn", "kata_policy", "root_mask"]

Report = Callable[[dict[str, Any]], None]


def root_mask(state: GameState, options: TurnOptions) -> np.ndarray | None:
    """The root moves the search may explore, over the network's moves (the zero encoder's
    order: row 1 first, pass last); None when ``options`` restricts none."""
    player = state.next_player
    if not any(f.player is player for f in options.filters):
        return None
    rows, cols = state.board.num_rows, state.board.num_cols
    mask = np.ones(rows * cols + 1, dtype=bool)
    for row in range(1, rows + 1):
        for col in range(1, cols + 1):
            mask[(row - 1) * cols + col - 1] = options.keeps(player, Move.play(Point(row, col)))
    mask[rows * cols] = options.keeps(player, Move.pass_turn())
    return mask


def kata_policy(state: GameState, policy: np.ndarray | None) -> list[float | int]:
    """A policy over the network's moves (zero encoder's order) in KataGo's: row-major from the
    top-left, pass last, renormalised over the legal moves, -1 for the illegal ones. None: the
    uniform policy over the legal moves (an agent without a policy network)."""
    rows, cols = state.board.num_rows, state.board.num_cols
    legal = np.zeros(rows * cols + 1, dtype=bool)
    for move in state.legal_moves():
        legal[rows * cols if move.is_pass else (move.point.row - 1) * cols + move.point.col - 1] = True
    p = np.ones(rows * cols + 1) if policy is None else np.maximum(np.asarray(policy, dtype=np.float64), 0.0)
    p = np.where(legal, p, 0.0)
    total = p.sum()
    p = p / total if total > 0 else np.where(legal, 1.0 / max(1, legal.sum()), 0.0)
    p = np.where(legal, p, -1.0)
    board = p[: rows * cols].reshape(rows, cols)[::-1].ravel()  # row 1 is the bottom row
    return [-1 if v < 0 else round(float(v), 8) for v in (*board, p[-1])]  # KataGo writes -1, not -1.0


def _network_policy(searcher: Searcher, state: GameState) -> np.ndarray | None:
    evaluator = searcher.shared if searcher.shared is not None else getattr(searcher.agent, "evaluator", None)
    if evaluator is None or not hasattr(evaluator, "evaluate"):
        return None
    policy, _ = evaluator.evaluate([state])
    return policy[0]


def analyse_turn(
    searcher: Searcher,
    state: GameState,
    options: TurnOptions,
    turn: int,
    stop: threading.Event | None = None,
    on_partial: Report | None = None,
    ownership_playouts: int = 400,
) -> dict[str, Any]:
    """Search ``state`` within ``options``' budget (``stop`` ends it early) and return KataGo's
    answer for ``turn``; ``on_partial`` gets the reports during the search."""
    root = position_for(state, state.next_player)  # a game ended by two passes goes on
    agent = searcher.agent
    extras = TurnExtras(score_utility=searcher.score_utility, score_scale=searcher.score_scale)
    if options.include_policy:
        extras.policy = kata_policy(root, _network_policy(searcher, root))
    if not agent.network_ownership:
        maps = options.include_ownership or options.include_moves_ownership
        extras.playouts = playout_estimate(root, ownership_playouts if maps else max(10, ownership_playouts // 4))
    if searcher.view is not None:
        searcher.view.arm(options.root_temperature, root_mask(root, options))
    tree_wanted = options.include_pv_visits or options.include_moves_ownership

    def report(result: SearchResult, during: bool) -> dict[str, Any]:
        extras.ownership = result.ownership if result.ownership is not None else _playout_map(extras)
        if tree_wanted:
            extras.moves = read_tree(getattr(agent, "tree", None), options.include_moves_ownership)
        return answer(root, result, options, turn, extras, during)

    progress = None
    if on_partial is not None and options.report_every is not None:
        progress = lambda result: on_partial(report(result, True))  # noqa: E731
    budget = SearchBudget(max_visits=options.max_visits, max_seconds=options.max_time, stop=stop)
    result = agent.search(root, budget, on_progress=progress, progress_interval=options.report_every or 1.0)
    return report(result, False)


def _playout_map(extras: TurnExtras) -> np.ndarray | None:
    return extras.playouts.ownership if extras.playouts is not None else None
