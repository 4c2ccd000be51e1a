"""PUCT tree search with batched network evaluation (book 14.2; Silver et al. 2017, Methods), any evaluator.

One **round** (the book's word) walks down from the root by the PUCT score until it meets a
branch without a child node, applies that move, and asks the evaluator for the new position's
priors and value; a finished game (two passes) is scored exactly instead. The value is backed
up along the path with its sign flipped at every ply.

Rounds are collected in batches: each descent adds a **virtual loss** to the branches it takes
(one more visit, worth ``-virtual_loss``), so the next descent of the batch prefers other
paths; the leaves of the batch (8-32) go to the evaluator in one call, then the virtual losses
are replaced by the real values. A leaf picked twice in one batch is dropped from it. The
first rounds of a search grow the batch gradually (a small tree is distorted most by virtual
losses; the thesis waits for 40 nodes).

The evaluator is anything with ``evaluate(states) -> (policy [n, N*N + 1], value [n])``, values
for the player to move: ``dlgo.inference.BatchEvaluator`` (Zero, with its position cache and random
symmetries) or ``dlgo.alphago.AlphaGoEvaluator`` (policy and value networks plus rollouts). One
whose ``has_aux`` is true (a network with ownership and score heads) is asked ``evaluate_full``
instead (except in self-play), and the tree keeps those answers for the result
(``dlgo.search.report``).

``PUCTSearch`` keeps the tree between searches: a search from a position that descends from
the previous root (our move and the opponent's answer, or a pondered position) starts from the
matching subtree with its statistics. Budgets count the root's visits, reused ones included
(as Leela Zero and KataGo count ``visits``), and a limited search stops as soon as the most
visited move can no longer be overtaken (unless its budget's time does not bank:
``SearchBudget.banks_time``).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.search.base import SearchBudget, SearchResult
from dlgo.search.batches import BatchedTreeSearch, InFlight
from dlgo.search.report import tree_result
from dlgo.search.settings import SearchSettings
from dlgo.search.settled import mover_komi, settled_values
from dlgo.search.tree import NodeAux, ZeroTreeNode, index_move, move_index

__all__ = [
    "Evaluator",
    "SearchStatistics",
    "PUCTSearch",
    "dirichlet_alpha",
    "visit_distribution",
]


class Evaluator(Protocol):
    def evaluate(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass
class SearchStatistics:
    """What one search leaves for training (book 14.3's collector).

    ``visit_counts``: root visits per move index (``N*N + 1``, pass last; the target is
    ``visit_counts / visit_counts.sum()``). ``root_value``: the root's mean value for the
    player to move, in [-1, 1]; ``best_value``: Q of the most visited move (the thesis' value
    for resignation); ``network_value``: the network's own value of the root.
    ``policy_target``: a root search's own target when it has one (Gumbel's improved policy).
    """

    visit_counts: np.ndarray
    root_value: float
    best_value: float
    network_value: float
    visits: int
    new_visits: int
    policy_target: np.ndarray | None = None

    def distribution(self, temperature: float = 1.0) -> np.ndarray:
        return visit_distribution(self.visit_counts, temperature)

    def training_target(self) -> np.ndarray:
        """The policy target: the root search's own, else the visit distribution."""
        return self.policy_target if self.policy_target is not None else self.distribution(1.0)


def dirichlet_alpha(num_moves: int) -> float:
    """The OLIVAW thesis' concentration for root noise: ``min(1, 10 / legal moves)`` (AlphaGo Zero: 0.03)."""
    return min(1.0, 10.0 / max(1, num_moves))


def visit_distribution(visit_counts: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """``pi(a) ~ N(a)^(1/T)``; ``T = 0`` puts everything on the most visited move."""
    counts = np.asarray(visit_counts, dtype=np.float64)
    if counts.sum() <= 0:
        return np.full(counts.shape, 1.0 / len(counts))
    if temperature <= 0:
        out = np.zeros_like(counts)
        out[int(np.argmax(counts))] = 1.0
        return out
    powered = counts ** (1.0 / temperature)
    return powered / powered.sum()


@dataclass
class _Descent:
    path: list[tuple[ZeroTreeNode, int]]
    parent: ZeroTreeNode
    pos: int
    state: GameState


@dataclass
class _Batch(InFlight):
    leaves: list[_Descent]
    future: Future | None = None  # the evaluation running in the worker thread
    answer: tuple | None = None  # policy, value[, ownership, score]

    @property
    def size(self) -> int:
        return len(self.leaves)

    def result(self) -> tuple:
        answer = super().result()
        assert answer is not None
        return answer


class PUCTSearch(BatchedTreeSearch):
    """The search and its tree; one per agent (not thread-safe: one search at a time)."""

    def __init__(
        self, evaluator: Evaluator, settings: SearchSettings | None = None, rng: np.random.Generator | None = None
    ) -> None:
        self.evaluator = evaluator
        self.settings = settings or SearchSettings()
        self.rng = rng or np.random.default_rng()
        self.root: ZeroTreeNode | None = None
        self.root_state: GameState | None = None
        self.evaluations = 0  # positions sent to the evaluator (cache hits included)
        self.evaluator_calls = 0
        self.last_statistics: SearchStatistics | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._evaluate_aux = _with_aux(evaluator) if getattr(evaluator, "has_aux", False) else None
        self._evaluate = evaluator.evaluate
        self._score_utility: tuple | None = None  # (factor, scale, center) of this search, ``_set_root``

    # --- the tree between searches -------------------------------------------------------------
    def clear(self) -> None:
        self.root, self.root_state = None, None

    def _reuse(self, state: GameState) -> ZeroTreeNode | None:
        """The subtree for ``state`` when it descends from the current root, else None."""
        root = self.root
        moves = self._moves_to(state, root is not None)
        if moves is None:
            return None
        board = state.board
        points = board.num_rows * board.num_cols
        node: ZeroTreeNode | None = root
        for move in moves:
            if node is None or node.terminal:
                return None
            node = node.child_for_move(move_index(move, board.num_cols, points))
        if node is None or node.terminal:
            return None
        node.state = state
        node.expand()
        return node

    # --- one search (``BatchedTreeSearch.search``) -----------------------------------------------
    def _begin(self, self_play: bool) -> None:
        # Ownership and score serve analysis and counting: self-play skips keeping them.
        aux = self._evaluate_aux is not None and not self_play
        self._evaluate = self._evaluate_aux if aux else self.evaluator.evaluate

    def _set_root(self, state: GameState, self_play: bool) -> None:
        root = self._reuse(state)
        if root is None:
            root = self._evaluate_root(state)
        self.root, self.root_state = root, state
        # score utility around the root's expected score, fixed for the search (KataGo)
        s = self.settings
        self._score_utility = None
        if s.score_utility > 0 and root.aux is not None and not self_play:
            self._score_utility = (s.score_utility, s.score_scale, root.aux.mean_score())
        if self_play and self.settings.noise_weight > 0:
            self._add_noise(root)
        elif root.network_priors is not None:
            root.priors, root.network_priors = root.network_priors, None

    def _visits(self) -> int:
        return 1 + int(self.root.total_visits)

    def _root_branch_visits(self) -> np.ndarray:
        return self.root.branch_visits()

    def _abandon(self, batch: _Batch) -> None:
        for d in batch.leaves:
            self._undo(d.path)

    def _evaluate_root(self, state: GameState) -> ZeroTreeNode:
        batch = _Batch([])
        self._start_evaluation(batch, [state])
        policy, value, *aux = batch.result()
        value = self._settled([state], value, aux)
        node = ZeroTreeNode.from_evaluation(state, policy[0], float(value[0]))
        if aux and not node.terminal:
            node.aux = NodeAux.for_mover(aux[0][0], aux[1][0], state.next_player is Player.black)
        return node

    def _settled(self, states: list[GameState], value: np.ndarray, aux: list) -> np.ndarray:
        """The leaves' values with those their ownership count settles made sure (``settled_count``)."""
        if not aux or self.settings.settled_count <= 0:
            return value
        white = np.array([st.next_player is Player.white for st in states])
        komi = mover_komi(states[0].komi, white)  # one game: one komi
        return settled_values(np.asarray(value), np.asarray(aux[0]), komi, self.settings.settled_count)

    def _start_evaluation(self, batch: _Batch, states: list[GameState] | None = None) -> None:
        """Evaluate ``states`` (default: the batch's leaves) for ``batch``: in the worker thread
        when pipelining (so the evaluator always runs on that one thread), else right here."""
        if states is None:
            states = [d.state for d in batch.leaves]
        self.evaluator_calls += 1
        self.evaluations += len(states)
        if self.settings.pipeline:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="dlgo-evaluate")
            batch.future = self._executor.submit(self._evaluate, states)
        else:
            batch.answer = self._evaluate(states)

    def _add_noise(self, root: ZeroTreeNode) -> None:
        """Mix Dirichlet noise into the root priors (clean priors kept for the next search)."""
        if root.num_branches < 2:
            return
        clean = root.network_priors if root.network_priors is not None else root.priors
        alpha = self.settings.dirichlet_alpha or dirichlet_alpha(root.num_branches)
        noise = self.rng.dirichlet(np.full(root.num_branches, alpha))
        eps = self.settings.noise_weight
        root.network_priors = clean
        root.priors = ((1 - eps) * clean + eps * noise).astype(np.float32)

    def _collect(self, budget: SearchBudget, unfinished: list[_Batch]) -> _Batch:
        """Descents (with virtual losses) to up to a batch of new leaves, none taken twice."""
        root = self.root
        limit = self._batch_limit(budget)
        batch = _Batch([])
        taken = {(id(d.parent), d.pos) for b in unfinished for d in b.leaves}
        other = 0  # descents that ended in a finished game or on a leaf already taken
        try:
            while len(batch.leaves) < limit and other <= 2 * limit:
                descent = self._descend(root)
                if descent is None:  # reached a finished game: backed up already
                    other += 1
                    if budget.exhausted(self._visits()):
                        break
                    continue
                key = (id(descent.parent), descent.pos)
                if key in taken:
                    self._undo(descent.path)
                    other += 1
                    continue
                taken.add(key)
                batch.leaves.append(descent)
        except BaseException:
            for d in batch.leaves:
                self._undo(d.path)
            raise
        return batch

    def _finish(self, batch: _Batch) -> None:
        """Attach the evaluated leaves and back their values up (virtual losses become real)."""
        policy, value, *aux = batch.result()
        leaves = batch.leaves
        value = self._settled([d.state for d in leaves], value, aux)
        for i, d in enumerate(leaves):
            child = ZeroTreeNode.leaf(policy[i], float(value[i]))  # its position is rebuilt on a return
            d.parent.children[d.pos] = child
            if aux:
                child.aux = NodeAux.for_mover(aux[0][i], aux[1][i], d.state.next_player is Player.black)
                child.aux.backup(d.path)
            self._backup(d.path, child.value)
            batch.leaves = leaves[i + 1 :]  # what an error would leave to undo

    def _descend(self, root: ZeroTreeNode) -> _Descent | None:
        """Walk down with virtual losses to a branch without a child (None: a finished game,
        already backed up)."""
        c = self.settings.exploration
        vl = self.settings.virtual_loss
        fpu = self.settings.fpu_reduction
        utility = self._score_utility
        node = root
        path: list[tuple[ZeroTreeNode, int]] = []
        board = root.state.board
        num_cols, points = board.num_cols, board.num_rows * board.num_cols
        while True:
            pos = node.select_and_visit(c, vl, fpu, utility)
            path.append((node, pos))
            child = node.children.get(pos)
            if child is None:
                move = index_move(int(node.moves[pos]), num_cols, points)
                state = node.state.apply_move(move)
                if state.is_over():
                    leaf = ZeroTreeNode.terminal_node(state)
                    node.children[pos] = leaf
                    self._backup(path, leaf.value)
                    return None
                return _Descent(path, node, pos, state)
            if child.terminal:
                self._backup(path, child.value)
                return None
            if child.state is None:
                child.state = node.state.apply_move(index_move(int(node.moves[pos]), num_cols, points))
            if child.moves is None:
                child.expand()
            node = child

    def _backup(self, path: list[tuple[ZeroTreeNode, int]], leaf_value: float) -> None:
        """Back up a leaf value (leaf's player to move), flipping the sign at every ply."""
        vl = self.settings.virtual_loss
        value = leaf_value
        for node, pos in reversed(path):
            value = -value
            node.record(pos, value, vl)

    def _undo(self, path: list[tuple[ZeroTreeNode, int]]) -> None:
        vl = self.settings.virtual_loss
        for node, pos in path:
            node.remove_virtual_visit(pos, vl)

    # --- reading the tree ---------------------------------------------------------------------
    def result(self, elapsed: float) -> SearchResult:
        return tree_result(self.root, self.root_state, elapsed, self.settings.select_by)

    def statistics(self, new_visits: int = 0) -> SearchStatistics | None:
        root, state = self.root, self.root_state
        if root is None or state is None:
            return None
        points = state.board.num_rows * state.board.num_cols
        counts = np.zeros(points + 1, dtype=np.float32)
        n = root.branch_visits()
        counts[root.moves.astype(np.int64)] = n
        q = root.expected_values()
        best_value = float(q[int(np.argmax(n))]) if len(n) and n.max() > 0 else root.value
        return SearchStatistics(
            visit_counts=counts,
            root_value=root.mean_value(),
            best_value=best_value,
            network_value=root.value,
            visits=self._visits(),
            new_visits=new_visits,
        )

    def most_visited(self) -> Move | None:
        root, state = self.root, self.root_state
        if root is None or state is None or root.num_branches == 0:
            return None
        n = root.branch_visits()
        q = root.expected_values()
        best = max(range(len(n)), key=lambda i: (n[i], q[i], root.priors[i]))
        board = state.board
        return index_move(int(root.moves[best]), board.num_cols, board.num_rows * board.num_cols)

    def sample_move(self, temperature: float = 1.0) -> Move | None:
        """A root move drawn with probability ``N^(1/T)`` (self-play's first moves)."""
        root, state = self.root, self.root_state
        if root is None or state is None or root.num_branches == 0:
            return None
        n = root.branch_visits()
        if n.sum() <= 0:
            return self.most_visited()
        i = int(self.rng.choice(len(n), p=visit_distribution(n, temperature)))
        board = state.board
        return index_move(int(root.moves[i]), board.num_cols, board.num_rows * board.num_cols)


def _with_aux(evaluator: Evaluator):
    """``evaluate`` answering (policy, value, ownership, score) from ``evaluate_full``."""

    def evaluate(states: Sequence[GameState]) -> tuple:
        out = evaluator.evaluate_full(states)
        return out["policy"], out["value"], out["ownership"], out["score"]

    return evaluate
