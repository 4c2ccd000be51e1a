"""``CompiledPUCTSearch``: ``PUCTSearch`` on the compiled tree of ``dlgo.search.arena`` (book 14.2).

Same search, same settings, same results as ``dlgo.search.puct.PUCTSearch`` (a test compares
their visit counts), for a Zero network's ``BatchEvaluator``: each batch's descents, board play,
superko, leaf encoding and backup are single compiled calls that release the GIL, so with
``pipeline`` the tree grows on one core while ONNX Runtime evaluates the previous batch on the
other, and Python runs once per batch instead of a dozen times per visit.

What it needs of the evaluator: ``BatchEvaluator``'s ``start_encoded``, ``forward`` and
``finish_encoded`` on the zero encoder's planes, and ``encoded_aux`` for a network with KataGo's
ownership and score heads (``has_aux``): outside self-play the tree then keeps every node's
ownership and score, and results carry the averaged ownership map and score leads as the Python
tree's do.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dlgo.encoders.features import zobrist_array
from dlgo.encoders.zero import PLANES
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.search import arena
from dlgo.search.base import CandidateInfo, SearchBudget, SearchResult, lower_confidence_bound, root_order
from dlgo.search.batches import BatchedTreeSearch, InFlight
from dlgo.search.puct import SearchStatistics, dirichlet_alpha, visit_distribution
from dlgo.search.report import ownership_grid
from dlgo.search.settings import SearchSettings
from dlgo.search.settled import mover_komi, settled_values

if TYPE_CHECKING:
    from dlgo.inference.evaluator import EncodedBatch

__all__ = ["CompiledPUCTSearch"]

_PV_LENGTH = 30
_BLACK_TO_MOVE = PLANES.index("black_to_move")


def _move_code(move: Move | None, width: int) -> int:
    """A move as the arena keeps it: padded index, 0 for pass, -1 for none."""
    if move is None:
        return arena.NO_MOVE
    if move.is_pass:
        return 0
    return move.point.row * width + move.point.col


class _Arena:
    """The tree's arrays (``dlgo.search.arena``), grown by doubling; ``aux``: with the arrays
    of a network's ownership and score (``af``, ``own``)."""

    def __init__(self, rows: int, cols: int, nodes: int = 1024, aux: bool = False) -> None:
        width = cols + 2
        padded = (rows + 2) * width
        self.g = np.array([width, rows, cols, padded, rows * cols], np.int64)
        self.ni = np.zeros((nodes, 7), np.int32)
        self.nf = np.zeros((nodes, 2), np.float64)
        self.bhash = np.zeros(nodes, np.uint64)
        self.boards = np.zeros((nodes, padded), np.int8)
        self.aux = aux
        self.af = np.zeros((nodes, 4), np.float64)
        self.own = np.zeros((nodes, rows * cols if aux else 0), np.float16)
        edges = nodes * 32
        self.prior = np.zeros(edges, np.float32)
        self.N = np.zeros(edges, np.float64)
        self.W = np.zeros(edges, np.float64)
        self.emove = np.zeros(edges, np.int32)
        self.child = np.zeros(edges, np.int32)
        self.used = np.zeros(2, np.int64)

    @property
    def arrays(self) -> tuple:
        return (
            self.ni,
            self.nf,
            self.bhash,
            self.boards,
            self.prior,
            self.N,
            self.W,
            self.emove,
            self.child,
            self.used,
        )

    def reserve(self, nodes: int, edges: int) -> None:
        """Room for ``nodes`` more nodes and ``edges`` more edges."""
        need = int(self.used[0]) + nodes
        if need > len(self.ni):
            size = max(need, 2 * len(self.ni))
            for name in _NODE_ARRAYS:
                setattr(self, name, _grown(getattr(self, name), size))
        need = int(self.used[1]) + edges
        if need > len(self.prior):
            size = max(need, 2 * len(self.prior))
            for name in ("prior", "N", "W", "emove", "child"):
                setattr(self, name, _grown(getattr(self, name), size))

    def empty_like(self) -> _Arena:
        out = _Arena.__new__(_Arena)
        out.g, out.aux = self.g, self.aux
        for name in (*_NODE_ARRAYS, "prior", "N", "W", "emove", "child", "used"):
            setattr(out, name, np.zeros_like(getattr(self, name)))
        return out

    def edges(self, node: int) -> slice:
        first = int(self.ni[node, arena.FIRST])
        return slice(first, first + int(self.ni[node, arena.COUNT]))

    def move(self, code: int) -> Move:
        if code == 0:
            return Move.pass_turn()
        row, col = divmod(int(code), int(self.g[0]))
        return Move.play(Point(row, col))

    def zero_index(self, code: int) -> int:
        width, _, cols, _, pass_index = self.g.tolist()
        return pass_index if code == 0 else (code // width - 1) * cols + (code % width - 1)


_NODE_ARRAYS = ("ni", "nf", "bhash", "boards", "af", "own")


def _grown(a: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros((size, *a.shape[1:]), a.dtype)
    out[: len(a)] = a
    return out


@dataclass
class _Context:
    """What the kernels need of the root's game: its earlier situations, last moves, komi."""

    root_set: np.ndarray  # sorted uint64: the root's earlier situations and its own
    root_hist: np.ndarray  # int32 [4]: the root's last moves, most recent first
    zob: np.ndarray
    wtm: np.uint64
    komi: float
    salt: np.uint64

    @classmethod
    def of(cls, state: GameState) -> _Context:
        board = state.board
        rows, cols = board.num_rows, board.num_cols
        width = cols + 2
        hist = np.full(4, arena.NO_MOVE, np.int32)
        s: GameState | None = state
        for k in range(4):
            if s is None or s.last_move is None:
                break
            hist[k] = _move_code(s.last_move, width)
            s = s.previous_state
        earlier = np.fromiter(state.previous_states | {state.situation_hash()}, np.uint64)
        zob, wtm = zobrist_array(rows, cols)
        salt = np.uint64(hash((rows, cols, float(state.komi))) & 0xFFFFFFFFFFFFFFFF)
        return cls(np.sort(earlier), hist, zob, np.uint64(wtm), float(state.komi), salt)


class _Slot:
    """One batch's buffers: planes, cache keys, leaves and their legal moves."""

    def __init__(self, arena_: _Arena, size: int) -> None:
        _, rows, cols, _, pass_index = arena_.g.tolist()
        self.planes = np.zeros((size, rows, cols, len(PLANES)), np.float32)
        self.keys = np.zeros(size, np.uint64)
        self.leaves = np.zeros(size, np.int32)
        self.moves = np.zeros((size, pass_index + 1), np.int32)
        self.counts = np.zeros(size, np.int32)


@dataclass
class _Batch(InFlight):
    slot: _Slot
    size: int
    encoded: EncodedBatch | None = None  # the cache's answers and the network's work
    future: Future | None = None  # the network running in the worker thread
    answer: dict | None = None  # the network's raw answers (None: all from the cache)


class CompiledPUCTSearch(BatchedTreeSearch):
    """The search and its compiled tree; one per agent (one search at a time)."""

    def __init__(self, evaluator, settings: SearchSettings | None = None, rng: np.random.Generator | None = None):
        self.evaluator = evaluator
        self.settings = settings or SearchSettings()
        self.rng = rng or np.random.default_rng()
        self.evaluations = 0
        self.evaluator_calls = 0
        self.last_statistics: SearchStatistics | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._arena: _Arena | None = None
        self._ctx: _Context | None = None
        self._slots: list[_Slot] = []
        self.root = 0
        self.root_state: GameState | None = None
        self._clean_priors: np.ndarray | None = None  # the root's priors while noise is mixed in
        self._aux = False  # this search keeps the network's ownership and score (analysis)
        # visits each root branch may reach, set by a root search of its own (``dlgo.search.gumbel``); empty: PUCT
        self.root_quota = np.zeros(0, np.float64)
        self._score_utility = np.zeros(3, np.float64)  # (factor, scale, center): ``_score_utility_now``

    # --- the tree between searches -------------------------------------------------------------
    def clear(self) -> None:
        self._arena, self.root_state, self._clean_priors = None, None, None

    def _reuse(self, state: GameState) -> bool:
        """Move the root to ``state`` when it descends from the current root (its subtree kept)."""
        tree = self._arena
        moves = self._moves_to(state, tree is not None)
        if moves is None:
            return False
        width = int(tree.g[0])
        node = self.root
        for move in moves:
            span = tree.edges(node)
            hits = np.flatnonzero(tree.emove[span] == _move_code(move, width))
            if not len(hits):
                return False
            node = int(tree.child[span.start + hits[0]])
            if node < 0 or tree.ni[node, arena.STATUS] != arena.EVALUATED:
                return False
        if node != self.root:
            out = tree.empty_like()
            order = arena.compact(tree.arrays, node, out.arrays)
            out.af[: len(order)] = tree.af[order]
            out.own[: len(order)] = tree.own[order]
            self._arena, self.root, self._clean_priors = out, 0, None
        self._ctx = _Context.of(state)
        return True

    def _new_root(self, state: GameState) -> None:
        self.root_state = None  # no reuse of a root whose evaluation did not come back
        board = state.board
        tree = _Arena(board.num_rows, board.num_cols, aux=self._aux)
        self._arena, self.root, self._clean_priors = tree, 0, None
        self._ctx = ctx = _Context.of(state)
        self._slots = [_Slot(tree, self.settings.batch_size) for _ in range(3)]
        width = board.num_cols + 2
        tree.ni[0] = (-1, -1, _move_code(state.last_move, width), state.next_player.value, arena.PENDING, 0, 0)
        tree.boards[0] = np.frombuffer(board.padded_colors, np.int8)
        tree.bhash[0] = np.uint64(board.zobrist_hash())
        tree.used[0] = 1
        slot = self._slots[0]
        recent = np.zeros(1, np.uint64)
        count, key = arena.encode_node(
            tree.ni, tree.bhash, tree.boards, 0, 0, tree.g, ctx.root_set, ctx.root_hist, ctx.zob, ctx.wtm,
            ctx.komi, ctx.salt, recent, slot.planes[0], slot.moves[0],
        )  # fmt: skip
        slot.counts[0], slot.keys[0], slot.leaves[0] = count, key, 0
        batch = _Batch(slot, 1)
        self._start_evaluation(batch)
        self._finish(batch)

    # --- one search (``BatchedTreeSearch.search``) -----------------------------------------------
    def _begin(self, self_play: bool) -> None:
        # Ownership and score serve analysis and counting: self-play skips keeping them.
        self._aux = bool(getattr(self.evaluator, "has_aux", False)) and not self_play
        if self._arena is not None and self._arena.aux != self._aux:
            self.clear()  # the tree of the other kind of search

    def _set_root(self, state: GameState, self_play: bool) -> None:
        if not self._reuse(state):
            self._new_root(state)
        self.root_state = state
        self._set_root_priors(self_play)
        self._score_utility = self._score_utility_now()

    def _score_utility_now(self) -> np.ndarray:
        """(factor, scale, center) for ``arena.collect``: the settings' score utility around the
        root's expected score now (Black's view), fixed for the search as KataGo does; factor 0
        where the tree keeps no scores (self-play)."""
        s, tree = self.settings, self._arena
        if s.score_utility <= 0 or not self._aux or tree.af[self.root, arena.HAS_AUX] <= 0:
            return np.zeros(3, np.float64)
        row = tree.af[self.root]
        center = (row[arena.SCORE] + row[arena.SCORE_BELOW]) / (1.0 + row[arena.COUNT_BELOW])
        return np.array([s.score_utility, s.score_scale, center], np.float64)

    def _root_branch_visits(self) -> np.ndarray:
        return self._arena.N[self.root_span]

    def _abandon(self, batch: _Batch) -> None:
        vl = self.settings.virtual_loss
        arena.abandon(self._arena.arrays, self.root, batch.slot.leaves, batch.size, vl)

    def _visits(self) -> int:
        return 1 + int(self._arena.nf[self.root, arena.TOTAL])

    @property
    def root_span(self) -> slice:
        """The root's branches: their range in the edge arrays of ``arena``."""
        return self._arena.edges(self.root)

    @property
    def arena(self) -> _Arena | None:
        """The tree's arrays (the layout of ``dlgo.search.arena``; None before a search), to read
        between searches or between batches (``run_until``); the search alone writes them."""
        return self._arena

    def _set_root_priors(self, self_play: bool) -> None:
        """Dirichlet noise into the root priors in self-play (clean ones kept), else the clean ones."""
        priors = self._arena.prior[self.root_span]
        if self._clean_priors is not None:
            priors[:] = self._clean_priors
            self._clean_priors = None
        if not self_play or self.settings.noise_weight <= 0 or len(priors) < 2:
            return
        clean = priors.copy()
        alpha = self.settings.dirichlet_alpha or dirichlet_alpha(len(priors))
        noise = self.rng.dirichlet(np.full(len(priors), alpha))
        eps = self.settings.noise_weight
        priors[:] = ((1 - eps) * clean + eps * noise).astype(np.float32)
        self._clean_priors = clean

    def _free_slot(self, unfinished: list[_Batch]) -> _Slot:
        busy = {id(b.slot) for b in unfinished}
        return next(s for s in self._slots if id(s) not in busy)

    def _collect(self, budget: SearchBudget, unfinished: list[_Batch]) -> _Batch:
        limit = self._batch_limit(budget)
        cap = -1 if budget.max_visits is None else budget.max_visits
        tree, ctx, s = self._arena, self._ctx, self.settings
        tree.reserve(3 * limit + 2, 0)
        slot = self._free_slot(unfinished)
        m = arena.collect(
            tree.arrays, self.root, limit, cap, s.exploration, s.virtual_loss, s.fpu_reduction, tree.g, ctx.root_set,
            ctx.root_hist, ctx.zob, ctx.wtm, ctx.komi, ctx.salt, slot.planes, slot.leaves, slot.keys, slot.moves,
            slot.counts, self.root_quota, tree.af, self._score_utility,
        )  # fmt: skip
        return _Batch(slot, int(m))

    def _start_evaluation(self, batch: _Batch) -> None:
        """Look the batch up in the cache here and run the network on the rest in the worker
        thread when pipelining (only ONNX Runtime there, which releases the GIL), else here."""
        self.evaluator_calls += 1
        self.evaluations += batch.size
        ev = self.evaluator
        batch.encoded = ev.start_encoded(batch.slot.keys[: batch.size].tolist(), batch.slot.planes[: batch.size])
        if self.settings.pipeline:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="dlgo-evaluate")
            batch.future = self._executor.submit(ev.forward, batch.encoded)
        else:
            batch.answer = ev.forward(batch.encoded)

    def _finish(self, batch: _Batch) -> None:
        """Attach the evaluated leaves and back their values up (virtual losses become real)."""
        policy, value = self.evaluator.finish_encoded(batch.encoded, batch.result())
        # float16 as the Python tree keeps a leaf's policy, so both searches choose alike
        policy = policy.astype(np.float16).astype(np.float32)
        slot, m = batch.slot, batch.size
        if self._aux:
            ownership, score = self.evaluator.encoded_aux(batch.encoded)
            white_to_move = slot.planes[:m, 0, 0, _BLACK_TO_MOVE] < 0.5
            value = settled_values(
                value, ownership, mover_komi(self._ctx.komi, white_to_move), self.settings.settled_count
            )
        self._arena.reserve(0, int(slot.counts[:m].sum()))
        arena.attach(
            self._arena.arrays, self.root, self._arena.g, slot.leaves, m, policy, value.astype(np.float64),
            slot.moves, slot.counts, self.settings.virtual_loss,
        )  # fmt: skip
        if self._aux:
            tree = self._arena
            signs = arena.attach_aux(tree.ni, tree.af, self.root, slot.leaves, m, score.astype(np.float64))
            tree.own[slot.leaves[:m]] = ownership * signs[:, None].astype(np.float32)

    # --- reading the tree ---------------------------------------------------------------------
    def _root_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Visits, Q and the priors shown (clean ones under noise) of the root's branches."""
        span = self.root_span
        n = self._arena.N[span]
        q = np.divide(self._arena.W[span], n, out=np.zeros_like(n), where=n > 0)
        priors = self._clean_priors if self._clean_priors is not None else self._arena.prior[span]
        return n, q, priors

    def _mean_value(self, node: int) -> float:
        tree = self._arena
        total = float(tree.W[tree.edges(node)].sum())
        return (float(tree.nf[node, arena.VALUE]) + total) / (1.0 + float(tree.nf[node, arena.TOTAL]))

    def principal_variation(self, edge: int) -> list[Move]:
        tree = self._arena
        pv = [tree.move(int(tree.emove[edge]))]
        node = int(tree.child[edge])
        while node >= 0 and tree.ni[node, arena.STATUS] == arena.EVALUATED and len(pv) < _PV_LENGTH:
            span = tree.edges(node)
            n = tree.N[span]
            best = int(np.argmax(n))
            if n[best] <= 0:
                break
            pv.append(tree.move(int(tree.emove[span.start + best])))
            node = int(tree.child[span.start + best])
        return pv

    def result(self, elapsed: float) -> SearchResult:
        if self._arena is None or self.root_state is None:
            return SearchResult(candidates=[], visits=0, winrate=0.5, elapsed=elapsed)
        tree, span = self._arena, self.root_span
        n, q, priors = self._root_arrays()
        order = root_order(n, q, self.settings.select_by)
        sign = 1.0 if self.root_state.next_player is Player.black else -1.0  # Black's view -> the mover's
        candidates = []
        for i in order:
            visits = int(n[i])
            winrate = (float(q[i]) + 1.0) / 2.0
            candidates.append(
                CandidateInfo(
                    move=tree.move(int(tree.emove[span.start + i])),
                    visits=visits,
                    winrate=winrate,
                    prior=float(priors[i]),
                    lcb=lower_confidence_bound(winrate * visits, visits),
                    pv=self.principal_variation(span.start + i),
                    score_lead=self._score_lead(int(tree.child[span.start + i]), sign),
                )
            )
        result = SearchResult(
            candidates=candidates,
            visits=self._visits(),
            winrate=(self._mean_value(self.root) + 1.0) / 2.0,
            elapsed=elapsed,
        )
        if tree.aux and tree.af[self.root, arena.HAS_AUX] > 0:
            kept = tree.af[: int(tree.used[0]), arena.HAS_AUX] > 0  # every one under the root
            mean = tree.own[: len(kept)][kept].mean(axis=0, dtype=np.float64)
            _, rows, cols, _, _ = tree.g.tolist()
            result.ownership = ownership_grid(mean, rows, cols)
            result.score_lead = self._score_lead(self.root, sign)
        return result

    def _score_lead(self, node: int, sign: float) -> float | None:
        """The mean score of ``node``'s subtree (KataGo's score lead) for the root's mover."""
        af = self._arena.af
        if node < 0 or af[node, arena.HAS_AUX] <= 0:
            return None
        return sign * (af[node, arena.SCORE] + af[node, arena.SCORE_BELOW]) / (1.0 + af[node, arena.COUNT_BELOW])

    def statistics(self, new_visits: int = 0) -> SearchStatistics | None:
        if self._arena is None or self.root_state is None:
            return None
        tree, span = self._arena, self.root_span
        counts = np.zeros(int(tree.g[4]) + 1, dtype=np.float32)
        n, q, _ = self._root_arrays()
        counts[[tree.zero_index(int(c)) for c in tree.emove[span]]] = n
        network_value = float(tree.nf[self.root, arena.VALUE])
        best_value = float(q[int(np.argmax(n))]) if len(n) and n.max() > 0 else network_value
        return SearchStatistics(
            visit_counts=counts,
            root_value=self._mean_value(self.root),
            best_value=best_value,
            network_value=network_value,
            visits=self._visits(),
            new_visits=new_visits,
        )

    def root_priors(self) -> np.ndarray | None:
        """The network's policy at the root by move index (``N*N + 1``, pass last); None before a search."""
        if self._arena is None or self.root_state is None:
            return None
        tree, span = self._arena, self.root_span
        priors = np.zeros(int(tree.g[4]) + 1, dtype=np.float32)
        priors[[tree.zero_index(int(c)) for c in tree.emove[span]]] = tree.prior[span]
        return priors

    def most_visited(self) -> Move | None:
        if self._arena is None or self.root_state is None:
            return None
        span = self.root_span
        if span.stop == span.start:
            return None
        n, q, _ = self._root_arrays()
        priors = self._arena.prior[span]
        best = max(range(len(n)), key=lambda i: (n[i], q[i], priors[i]))
        return self._arena.move(int(self._arena.emove[span.start + best]))

    def sample_move(self, temperature: float = 1.0) -> Move | None:
        """A root move drawn with probability ``N^(1/T)`` (self-play's first moves)."""
        if self._arena is None or self.root_state is None:
            return None
        span = self.root_span
        n = self._arena.N[span]
        if len(n) == 0:
            return None
        if n.sum() <= 0:
            return self.most_visited()
        i = int(self.rng.choice(len(n), p=visit_distribution(n, temperature)))
        return self._arena.move(int(self._arena.emove[span.start + i]))
