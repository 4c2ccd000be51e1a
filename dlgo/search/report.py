"""Reading a PUCT tree into a ``SearchResult``: the root's candidates with their principal
variations, and, when the network has KataGo's ownership and score heads (Wu 2019,
"Accelerating Self-Play Learning in Go"), the ownership map and score leads averaged over the
search tree as KataGo reports them: every evaluated node of a subtree counts once, so a move's
score lead is the mean of its subtree's scores, weighted by visits.
"""

from __future__ import annotations

import numpy as np

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.search.base import CandidateInfo, SearchResult, lower_confidence_bound, root_order
from dlgo.search.tree import ZeroTreeNode, index_move

__all__ = ["tree_result", "principal_variation", "ownership_grid"]


def tree_result(
    root: ZeroTreeNode | None, state: GameState | None, elapsed: float, select_by: str = "visits"
) -> SearchResult:
    """Every visited root move, best first (``dlgo.search.base.root_order``), for the player to
    move at ``state``."""
    if root is None or state is None:
        return SearchResult(candidates=[], visits=0, winrate=0.5, elapsed=elapsed)
    board = state.board
    num_cols, points = board.num_cols, board.num_rows * board.num_cols
    sign = 1.0 if state.next_player is Player.black else -1.0  # Black's view -> the mover's
    n = root.branch_visits()
    q = root.expected_values()
    priors = root.network_priors if root.network_priors is not None else root.priors
    order = root_order(n, q, select_by)
    candidates = []
    for i in order:
        visits = int(n[i])
        winrate = (float(q[i]) + 1.0) / 2.0
        child = root.children.get(i)
        aux = child.aux if child is not None else None
        candidates.append(
            CandidateInfo(
                move=index_move(int(root.moves[i]), num_cols, points),
                visits=visits,
                winrate=winrate,
                prior=float(priors[i]),
                lcb=lower_confidence_bound(winrate * visits, visits),
                pv=principal_variation(root, i, num_cols, points),
                score_lead=None if aux is None else sign * aux.mean()[1],
            )
        )
    result = SearchResult(
        candidates=candidates,
        visits=1 + int(root.total_visits),
        winrate=(root.mean_value() + 1.0) / 2.0,
        elapsed=elapsed,
    )
    if root.aux is not None:
        ownership, score = root.aux.mean()
        result.ownership = ownership_grid(ownership, board.num_rows, num_cols)
        result.score_lead = sign * score
    return result


def ownership_grid(ownership: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Flat ownership in the zero encoder's point order (row 1 first) -> rows from the top, as
    ``SearchResult.ownership`` and a printed board have them."""
    return np.asarray(ownership, dtype=np.float64).reshape(rows, cols)[::-1].copy()


def principal_variation(root: ZeroTreeNode, pos: int, num_cols: int, points: int, max_length: int = 30) -> list[Move]:
    """Root branch ``pos``'s move, then the most visited move at each node below."""
    pv = [index_move(int(root.moves[pos]), num_cols, points)]
    node = root.children.get(pos)
    while node is not None and node.visits is not None and len(pv) < max_length:
        best = int(np.argmax(node.visits))
        if node.visits[best] <= 0:
            break
        pv.append(index_move(int(node.moves[best]), num_cols, points))
        node = node.children.get(best)
    return pv
