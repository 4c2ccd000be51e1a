"""What a finished PUCT tree tells about each root move beyond ``SearchResult``: the visits along
its principal variation (KataGo's ``pvVisits``) and the ownership averaged over its subtree
(KataGo's per-move ``ownership``, ``includeMovesOwnership``).

``SearchResult`` carries the moves, their visits and their PVs; these two need the tree itself,
read here from either PUCT tree right after the search (before the tree is cleared): the compiled
tree's arrays (``dlgo.search.arena``: edges ``N`` and ``child``, nodes' ``own`` rows kept in
Black's view where ``af[node, HAS_AUX]`` is set) or the Python tree's nodes (``NodeAux``). The
walk is the one ``principal_variation`` of each tree takes (the most visited move at each node,
at most 30 moves), so the lists match the PVs. Other agents (MCTS) give None: the caller then
truncates what it cannot support.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dlgo.search import arena
from dlgo.search.compiled import CompiledPUCTSearch
from dlgo.search.puct import PUCTSearch
from dlgo.search.report import ownership_grid
from dlgo.search.tree import ZeroTreeNode, index_move

__all__ = ["MoveStats", "read_tree"]

_PV_LENGTH = 30


@dataclass
class MoveStats:
    """``pv_visits``: visits of each move of the PV; ``ownership``: the subtree's mean ownership,
    rows from the top, Black's view (None where the tree keeps none)."""

    pv_visits: list[int]
    ownership: np.ndarray | None


def _key(move) -> tuple[int, int] | None:
    return None if not move.is_play else (move.point.row, move.point.col)


def read_tree(search: object, ownership: bool) -> dict[tuple[int, int] | None, MoveStats] | None:
    """Per root move (keyed by (row, col), None for pass): its ``MoveStats``; None when ``search``
    is no PUCT tree or holds no root. ``ownership``: also average the subtrees' ownership."""
    if isinstance(search, CompiledPUCTSearch):
        return _read_compiled(search, ownership)
    if isinstance(search, PUCTSearch):
        return _read_python(search, ownership)
    return None


# --- the compiled tree ------------------------------------------------------------------------------
def _read_compiled(search: CompiledPUCTSearch, ownership: bool) -> dict | None:
    tree = search.arena  # read right after the search, in its thread
    if tree is None or search.root_state is None:
        return None
    root = search.root
    span = tree.edges(root)
    _, rows, cols, _, _ = tree.g.tolist()
    out = {}
    for e in range(span.start, span.stop):
        visits = int(tree.N[e])
        if visits <= 0:
            continue
        child = int(tree.child[e])
        grid = None
        if ownership and tree.aux and child >= 0:
            grid = _subtree_ownership(tree, child, rows, cols)
        out[_key(tree.move(int(tree.emove[e])))] = MoveStats(_compiled_pv_visits(tree, visits, child), grid)
    return out


def _compiled_pv_visits(tree, visits: int, node: int) -> list[int]:
    out = [visits]
    while node >= 0 and tree.ni[node, arena.STATUS] == arena.EVALUATED and len(out) < _PV_LENGTH:
        span = tree.edges(node)
        n = tree.N[span]
        if len(n) == 0:
            break
        best = int(np.argmax(n))
        if n[best] <= 0:
            break
        out.append(int(n[best]))
        node = int(tree.child[span.start + best])
    return out


def _subtree_ownership(tree, node: int, rows: int, cols: int) -> np.ndarray | None:
    """The mean ownership of the evaluated nodes of ``node``'s subtree (each counts once, as
    the root's map counts them: ``CompiledPUCTSearch.result``)."""
    nodes, frontier = [node], [node]
    while frontier:
        below = []
        for n in frontier:
            first, count = int(tree.ni[n, arena.FIRST]), int(tree.ni[n, arena.COUNT])
            if count:
                kids = tree.child[first : first + count]
                below.extend(int(k) for k in kids[kids >= 0])
        nodes.extend(below)
        frontier = below
    index = np.asarray(nodes, dtype=np.int64)
    index = index[tree.af[index, arena.HAS_AUX] > 0]
    if not len(index):
        return None
    mean = tree.own[index].mean(axis=0, dtype=np.float64)
    return ownership_grid(mean, rows, cols)


# --- the Python tree ----------------------------------------------------------------------------------
def _read_python(search: PUCTSearch, ownership: bool) -> dict | None:
    root = search.root
    state = search.root_state
    if root is None or state is None or root.visits is None:
        return None
    rows, cols = state.board.num_rows, state.board.num_cols
    out = {}
    for i, visits in enumerate(root.branch_visits()):
        if visits <= 0:
            continue
        child = root.children.get(i)
        grid = None
        if ownership and child is not None and child.aux is not None:
            grid = ownership_grid(child.aux.mean()[0], rows, cols)
        move = index_move(int(root.moves[i]), cols, rows * cols)
        out[_key(move)] = MoveStats(_python_pv_visits(int(visits), child), grid)
    return out


def _python_pv_visits(visits: int, node: ZeroTreeNode | None) -> list[int]:
    out = [visits]
    while node is not None and node.visits is not None and len(out) < _PV_LENGTH:
        best = int(np.argmax(node.visits))
        if node.visits[best] <= 0:
            break
        out.append(int(node.visits[best]))
        node = node.children.get(best)
    return out
