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
visited move can no longer be overtaken.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.search.base import ProgressCallback, SearchBudget, SearchResult
from dlgo.search.batches import InFlight, run_batches
from dlgo.search.report import tree_result
from dlgo.search.tree import NodeAux, ZeroTreeNode, index_move, move_index

__all__ = [
    "Evaluator",
    "SearchSettings",
    "SearchStatistics",
    "PUCTSearch",
    "dirichlet_alpha",
    "visit_distribution",
]


class Evaluator(Protocol):
    def evaluate(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class SearchSettings:
    """How the tree is searched.

    ``c_puct``: exploration constant (book 2.0; AlphaGo's c_u 5). ``batch_size``: leaves per
    evaluator call. ``virtual_loss``: value a pending descent counts as (1 = a loss).
    ``noise_weight``/``dirichlet_alpha``: root noise, self-play only (alpha None: the thesis'
    ``min(1, 10 / legal moves)``). ``reuse_tree``: keep the subtree between searches.
    ``early_stop``: stop a limited search when the best move cannot be overtaken.
    ``pipeline``: evaluate one batch in a worker thread while the next one is collected (the
    network runs without the GIL, so tree work and network overlap; two batches of virtual
    losses are then in the tree). ``fpu_reduction``: the value of a move not visited yet;
    negative: 0, a draw (the book, AlphaGo Zero); else the node's network value less this times
    the square root of the visited moves' prior mass (Leela Zero's first-play urgency).
    """

    c_puct: float = 2.0
    batch_size: int = 16
    virtual_loss: float = 1.0
    noise_weight: float = 0.25
    dirichlet_alpha: float | None = None
    reuse_tree: bool = True
    early_stop: bool = True
    pipeline: bool = True
    fpu_reduction: float = -1.0

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if self.c_puct < 0 or self.virtual_loss < 0 or not 0 <= self.noise_weight <= 1:
            raise ValueError("c_puct and virtual_loss must be >= 0, noise_weight in [0, 1]")


@dataclass
class SearchStatistics:
    """What one search leaves for training (book 14.3's collector).

    ``visit_counts``: root visits per move index (``N*N + 1``, pass last; the target is
    ``visit_counts / visit_counts.sum()``). ``root_value``: the root's mean value for the
    player to move, in [-1, 1]; ``best_value``: Q of the most visited move (the thesis' value
    for resignation); ``network_value``: the network's own value of the root.
    """

    visit_counts: np.ndarray
    root_value: float
    best_value: float
    network_value: float
    visits: int
    new_visits: int

    def distribution(self, temperature: float = 1.0) -> np.ndarray:
        return visit_distribution(self.visit_counts, temperature)


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


class PUCTSearch:
    """The search and its tree; one per agent (not thread-safe: one search at a time)."""

    def __init__(
        self, evaluator: Evaluator, settings: SearchSettings | None = None, rng: np.random.Generator | None = None
    ) -> None:
        self.evaluator = evaluator
        self.settings = settings or SearchSettings()
        self.rng = rng or np.random.default_rng()
        self.root: ZeroTreeNode | None = None
        self.root_state: GameState | None = None
        self._root_komi = 0.0
        self.evaluations = 0  # positions sent to the evaluator (cache hits included)
        self.evaluator_calls = 0
        self.last_statistics: SearchStatistics | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._evaluate_aux = _with_aux(evaluator) if getattr(evaluator, "has_aux", False) else None
        self._evaluate = evaluator.evaluate

    # --- the tree between searches -------------------------------------------------------------
    def clear(self) -> None:
        self.root, self.root_state = None, None

    def _reuse(self, state: GameState) -> ZeroTreeNode | None:
        """The subtree for ``state`` when it descends from the current root, else None."""
        root, old = self.root, self.root_state
        if root is None or old is None or not self.settings.reuse_tree or state.komi != self._root_komi:
            return None
        moves = self.moves_since(old, state)
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

    @staticmethod
    def moves_since(old: GameState, state: GameState) -> list[Move] | None:
        """The moves from ``old`` to ``state``, oldest first, when ``state`` descends from ``old``
        by moves (None otherwise: another game, or a turn handed over without a move)."""
        moves: list[Move] = []
        s: GameState | None = state
        while s is not None and s.move_number >= old.move_number:
            if s is old or _same_situation(s, old):
                moves.reverse()
                return moves
            if s.last_move is None or s.last_move.is_resign:
                return None
            moves.append(s.last_move)
            s = s.previous_state
        return None

    # --- one search -----------------------------------------------------------------------------
    def search(
        self,
        state: GameState,
        budget: SearchBudget,
        on_progress: ProgressCallback | None = None,
        progress_interval: float = 0.5,
        self_play: bool = False,
    ) -> SearchResult:
        """Search ``state`` until the budget says stop; the result lists every visited root move."""
        started = time.monotonic()
        # Ownership and score serve analysis and counting: self-play skips keeping them.
        aux = self._evaluate_aux is not None and not self_play
        self._evaluate = self._evaluate_aux if aux else self.evaluator.evaluate
        if state.is_over():
            self.clear()
            return SearchResult(candidates=[], visits=0, winrate=0.5, elapsed=budget.elapsed())
        root = self._reuse(state)
        if root is None:
            root = self._evaluate_root(state)
        self.root, self.root_state, self._root_komi = root, state, state.komi
        if self_play and self.settings.noise_weight > 0:
            self._add_noise(root)
        elif root.network_priors is not None:
            root.priors, root.network_priors = root.network_priors, None
        start_visits = self._visits(root)
        run_batches(
            lambda: self._should_stop(root, budget, start_visits, started, self_play),
            lambda unfinished: self._collect(root, budget, unfinished),
            lambda batch: self._start_evaluation(batch, [d.state for d in batch.leaves]),
            self._finish,
            lambda batch: [self._undo(d.path) for d in batch.leaves],
            self.settings.pipeline,
            budget,
            (lambda: on_progress(self.result(budget.elapsed()))) if on_progress is not None else None,
            progress_interval,
        )
        result = self.result(budget.elapsed())
        self.last_statistics = self.statistics(new_visits=self._visits(root) - start_visits)
        return result

    @staticmethod
    def _visits(node: ZeroTreeNode) -> int:
        return 1 + int(node.total_visits)

    def _evaluate_root(self, state: GameState) -> ZeroTreeNode:
        batch = _Batch([])
        self._start_evaluation(batch, [state])
        policy, value, *aux = batch.result()
        node = ZeroTreeNode.from_evaluation(state, policy[0], float(value[0]))
        if aux and not node.terminal:
            node.aux = NodeAux.for_mover(aux[0][0], aux[1][0], state.next_player is Player.black)
        return node

    def _start_evaluation(self, batch: _Batch, states: list[GameState]) -> None:
        """Evaluate ``states`` for ``batch``: in the worker thread when pipelining (so the
        evaluator always runs on that one thread), else right here."""
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

    def _batch_limit(self, root: ZeroTreeNode, budget: SearchBudget) -> int:
        visits = self._visits(root)
        limit = min(self.settings.batch_size, max(1, visits // 4))
        if budget.max_visits is not None:
            limit = min(limit, budget.max_visits - visits)
        return max(1, limit)

    def _should_stop(
        self, root: ZeroTreeNode, budget: SearchBudget, start_visits: int, started: float, self_play: bool
    ) -> bool:
        visits = self._visits(root)
        if root.num_branches == 0 or budget.exhausted(visits):
            return True
        if self_play or not self.settings.early_stop or root.visits is None:
            return False
        remaining = self._remaining_visits(budget, visits, visits - start_visits, time.monotonic() - started)
        if remaining is None:
            return False
        n = root.visits
        if len(n) == 1:
            return n[0] > 0
        top2 = np.partition(n, len(n) - 2)[-2:]
        return float(top2[1] - top2[0]) > remaining

    @staticmethod
    def _remaining_visits(budget: SearchBudget, visits: int, done: int, seconds: float) -> float | None:
        """Visits the budget still allows at most (None: no limit known)."""
        bounds = []
        if budget.max_visits is not None:
            bounds.append(float(budget.max_visits - visits))
        left = []
        if budget.deadline is not None:
            left.append(budget.deadline - time.monotonic())
        if budget.max_seconds is not None:
            left.append(budget.max_seconds - budget.elapsed())
        if left and done >= 32 and seconds > 0:
            bounds.append(done / seconds * max(0.0, min(left)) * 1.2)
        return min(bounds) if bounds else None

    def _collect(self, root: ZeroTreeNode, budget: SearchBudget, unfinished: list[_Batch]) -> _Batch:
        """Descents (with virtual losses) to up to a batch of new leaves, none taken twice."""
        limit = self._batch_limit(root, budget)
        batch = _Batch([])
        taken = {(id(d.parent), d.pos) for b in unfinished for d in b.leaves}
        other = 0  # descents that ended in a finished game or on a leaf already taken
        try:
            while len(batch.leaves) < limit and other <= 2 * limit:
                descent = self._descend(root)
                if descent is None:  # reached a finished game: backed up already
                    other += 1
                    if budget.exhausted(self._visits(root)):
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
        c = self.settings.c_puct
        vl = self.settings.virtual_loss
        fpu = self.settings.fpu_reduction
        node = root
        path: list[tuple[ZeroTreeNode, int]] = []
        board = root.state.board
        num_cols, points = board.num_cols, board.num_rows * board.num_cols
        while True:
            pos = node.select_and_visit(c, vl, fpu)
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
        return tree_result(self.root, self.root_state, elapsed)

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
            visits=self._visits(root),
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


def _same_situation(a: GameState, b: GameState) -> bool:
    return (
        a.move_number == b.move_number
        and a.board.num_rows == b.board.num_rows
        and a.board.num_cols == b.board.num_cols
        and a.situation_hash() == b.situation_hash()
        and a.komi == b.komi
        and a.previous_states == b.previous_states
    )
