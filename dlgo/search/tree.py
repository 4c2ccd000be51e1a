"""The search tree of AlphaGo Zero style PUCT search (book 14.2; Silver et al. 2017, Methods).

A ``ZeroTreeNode`` is a position the network has evaluated (or a finished game, scored
exactly). Its **branches** are the legal moves of that position, pass included, stored as
parallel arrays rather than one object each (book's ``Branch``: prior, visit count, total
value):

- ``moves``: move indices of the zero encoder (``cols * (row - 1) + (col - 1)``, pass last),
- ``priors``: the network's probabilities renormalised over the legal moves,
- ``visits`` / ``total_values``: n and W per branch,
- ``children``: branch position -> child node, for the branches visited so far.

Most nodes of a tree are leaves that are never walked through, so a new node keeps only the
network's policy vector (float16); its legal moves, and with them its branches, are computed
when a search first walks through it (``expand``). A leaf keeps no ``GameState`` either: the
search rebuilds it from its parent's when it comes back. Memory is then about 4 KB per visit on
9x9 and 10 KB on 19x19, mostly the positions of the inner nodes.

With a network that has KataGo's ownership and score heads, a node also keeps a ``NodeAux``:
the network's ownership (float16) and score of its position, and the sums of both over the
evaluated nodes below it, added when a leaf's evaluation is backed up (one array add per node
of the path), so the tree's averaged ownership and score lead are read in constant time. In
Black's view (+1 Black), so no sign flips per ply. Measured (tracemalloc, 4000 visits from the
empty board, a fake evaluator): 0.5 KB more per visit on 9x9 (1.9 -> 2.4 KB), 1.5 KB on 19x19
(6.5 -> 8.0 KB), and about 8 microseconds of tree work per visit; without those heads ``aux``
stays None.

Values are from the point of view of the player to move in the node's position; W of a
branch is from the point of view of the player making that move (the parent's mover), so
the backup flips the sign at every ply.

Selection is the book's PUCT score ``Q + c * P * sqrt(N) / (1 + n)`` with ``Q = W / n``
(0 when ``n = 0``, or Leela Zero's first-play urgency: ``first_play_value``) and ``N`` the
node's visits through its branches (1 while it has none, so
the priors decide the first visit, as in the thesis).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from dlgo.encoders.features import legal_move_mask
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.scoring import compute_game_result

__all__ = [
    "ZeroTreeNode",
    "NodeAux",
    "puct_scores",
    "select_branch",
    "first_play_value",
    "terminal_value",
    "move_index",
    "index_move",
]


def move_index(move: Move, num_cols: int, num_points: int) -> int:
    """The zero encoder's index of ``move`` (pass -> ``num_points``)."""
    if move.is_pass:
        return num_points
    if not move.is_play:
        raise ValueError("resignation is not a search move")
    return num_cols * (move.point.row - 1) + (move.point.col - 1)


def index_move(index: int, num_cols: int, num_points: int) -> Move:
    """Inverse of :func:`move_index`."""
    if index == num_points:
        return Move.pass_turn()
    row, col = divmod(int(index), num_cols)
    return Move.play(Point(row + 1, col + 1))


def terminal_value(state: GameState) -> float:
    """Exact value of a finished game for the player to move: +1 win, -1 loss, 0 jigo.

    Area count with komi, every stone alive (``compute_game_result``); a resignation is a win
    for the player to move (the resigner made the last move).
    """
    last = state.last_move
    if last is not None and last.is_resign:
        return 1.0
    winner = compute_game_result(state).winner
    if winner is None:
        return 0.0
    return 1.0 if winner is state.next_player else -1.0


def puct_scores(
    priors: np.ndarray, visits: np.ndarray, total_values: np.ndarray, c: float, parent_visits: float | None = None
) -> np.ndarray:
    """``Q + c * P * sqrt(N) / (1 + n)`` for every branch (book 14.2, table 14.2).

    ``parent_visits`` defaults to the sum of the branch visits; 0 counts as 1.
    """
    visits = np.asarray(visits, dtype=np.float64)
    total = float(visits.sum()) if parent_visits is None else float(parent_visits)
    q = np.divide(total_values, visits, out=np.zeros_like(visits), where=visits > 0)
    return q + c * priors * (math.sqrt(total) if total > 0 else 1.0) / (1.0 + visits)


@njit(cache=True, nogil=True)
def first_play_value(priors, visits, value, reduction):
    """Q of a branch not visited yet (first-play urgency): 0, a draw, as in the book and AlphaGo
    Zero, when ``reduction`` is negative; else Leela Zero's rule, the node's own network value
    less ``reduction * sqrt(prior mass of the visited branches)``, so a search that found good
    moves looks at new ones less (and a losing one at more)."""
    if reduction < 0:
        return 0.0
    mass = 0.0
    for i in range(priors.shape[0]):
        if visits[i] > 0:
            mass += priors[i]
    return value - reduction * np.sqrt(mass)


@njit(cache=True, nogil=True)
def select_branch(priors, visits, total_values, total_visits, c, unvisited_q):
    """The branch with the highest PUCT score ``Q + c * P * sqrt(N) / (1 + n)`` (the first one on
    ties), ``Q = W / n``, or ``unvisited_q`` where ``n = 0``; ``N`` counts as 1 while it is 0.
    The one place of the rule: both trees (``ZeroTreeNode``, ``dlgo.search.arena``) call it."""
    scale = c * (np.sqrt(total_visits) if total_visits > 0 else 1.0)
    best = 0
    best_score = -np.inf
    for i in range(priors.shape[0]):
        n = visits[i]
        q = total_values[i] / n if n > 0 else unvisited_q
        score = q + scale * priors[i] / (1.0 + n)
        if score > best_score:
            best = i
            best_score = score
    return best


@njit(cache=True, nogil=True)
def score_utility(score, center, factor, scale):
    """KataGo's score utility: ``factor * 2/pi * atan((score - center) / scale)``, added to a
    branch's Q (a win rate in [-1, 1]) so that among moves of about the same win rate the search
    prefers the one that leads by more points; ``center`` is the root's expected score, so the
    bonus measures points gained or lost by the move, and saturates at ``factor``. The one place
    of the rule."""
    return factor * (2.0 / np.pi) * np.arctan((score - center) / scale)


@njit(cache=True, nogil=True)
def _select_and_visit(priors, visits, total_values, total_visits, c, virtual_loss, value, fpu_reduction):
    """``select_branch`` plus the virtual visit of the chosen branch: one compiled call per node
    of a descent instead of several numpy scalar updates."""
    fpu = first_play_value(priors, visits, value, fpu_reduction)
    best = select_branch(priors, visits, total_values, total_visits, c, fpu)
    visits[best] += 1.0
    total_values[best] -= virtual_loss
    return best


class NodeAux:
    """A node's ownership and score from the network's auxiliary heads, in Black's view, with
    their sums over the evaluated nodes of its subtree below it (KataGo averages these)."""

    __slots__ = ("ownership", "score", "ownership_below", "score_below", "count_below")

    def __init__(self, ownership: np.ndarray, score: float) -> None:
        self.ownership = ownership  # float16 [rows * cols], the zero encoder's point order, +1 Black
        self.score = score  # Black's final lead in points, komi included
        self.ownership_below: np.ndarray | None = None  # float32 sum, made at the first node below
        self.score_below = 0.0
        self.count_below = 0

    @classmethod
    def for_mover(cls, ownership: np.ndarray, score: float, black_to_move: bool) -> NodeAux:
        """From the network's answer, which is in the view of the player to move."""
        if black_to_move:
            return cls(ownership.astype(np.float16), float(score))
        return cls((-ownership).astype(np.float16), -float(score))

    def add_below(self, other: NodeAux) -> None:
        if self.ownership_below is None:
            self.ownership_below = other.ownership.astype(np.float32)
        else:
            self.ownership_below += other.ownership
        self.score_below += other.score
        self.count_below += 1

    def mean_score(self) -> float:
        """The score averaged over this node and every evaluated node below (Black's view)."""
        return (self.score + self.score_below) / (1 + self.count_below)

    def mean(self) -> tuple[np.ndarray, float]:
        """Ownership (float32) and score averaged over this node and every evaluated node below."""
        n = 1 + self.count_below
        own = self.ownership.astype(np.float32)
        if self.ownership_below is not None:
            own += self.ownership_below
        return own / n, (self.score + self.score_below) / n

    def backup(self, path: list[tuple[ZeroTreeNode, int]]) -> None:
        """Add this (new leaf's) evaluation to every node of the path down to it."""
        for node, _ in path:
            if node.aux is not None:
                node.aux.add_below(self)


class ZeroTreeNode:
    """One evaluated position of the tree (see the module docstring for the fields)."""

    __slots__ = (
        "state",
        "value",
        "terminal",
        "policy",
        "moves",
        "priors",
        "network_priors",
        "visits",
        "total_values",
        "total_visits",
        "children",
        "aux",
    )

    def __init__(
        self,
        state: GameState | None,
        value: float,
        moves: np.ndarray | None,
        priors: np.ndarray | None,
        terminal: bool,
        policy: np.ndarray | None = None,
    ):
        self.state = state
        self.value = float(value)
        self.terminal = terminal
        self.policy = policy  # the network's full policy until ``expand`` (float16: leaves are many)
        self.moves = moves
        self.priors = priors
        self.network_priors: np.ndarray | None = None  # the clean priors while noise is mixed in
        self.visits: np.ndarray | None = None
        self.total_values: np.ndarray | None = None
        self.total_visits = 0.0  # sum of ``visits`` (virtual visits included while a batch runs)
        self.children: dict[int, ZeroTreeNode] = {}
        self.aux: NodeAux | None = None  # ownership and score, for a network with those heads

    # --- construction -----------------------------------------------------------------------
    @classmethod
    def terminal_node(cls, state: GameState) -> ZeroTreeNode:
        return cls(None, terminal_value(state), _NO_MOVES, _NO_PRIORS, True)

    @classmethod
    def from_evaluation(cls, state: GameState, policy: np.ndarray, value: float, expand: bool = True) -> ZeroTreeNode:
        """A node for ``state`` from the network's policy (``N*N + 1``, pass last) and value;
        ``expand=False`` leaves the branches for later (a leaf)."""
        if state.is_over():
            return cls.terminal_node(state)
        node = cls(state, float(value), None, None, False, np.asarray(policy, dtype=np.float16))
        if expand:
            node.expand()
        return node

    @classmethod
    def leaf(cls, policy: np.ndarray, value: float) -> ZeroTreeNode:
        """A new leaf of an unfinished game (the search checked): its policy, no position kept."""
        return cls(None, value, None, None, False, policy.astype(np.float16))

    @property
    def expanded(self) -> bool:
        return self.moves is not None

    def expand(self) -> None:
        """Branches for the legal moves (pass included): the policy renormalised over them
        (uniform when the network puts no mass on any legal move). Needs ``state``."""
        if self.moves is not None:
            return
        legal = np.flatnonzero(legal_move_mask(self.state))
        priors = self.policy[legal].astype(np.float32)
        total = float(priors.sum())
        if total > 0 and math.isfinite(total):
            priors = priors / np.float32(total)
        else:
            priors = np.full(len(legal), 1.0 / len(legal), dtype=np.float32)
        self.moves = legal.astype(np.int16)
        self.priors = priors.astype(np.float32)
        self.policy = None

    # --- statistics ---------------------------------------------------------------------------
    @property
    def num_branches(self) -> int:
        return 0 if self.moves is None else len(self.moves)

    def ensure_stats(self) -> None:
        if self.visits is None:
            self.visits = np.zeros(len(self.moves), dtype=np.float64)
            self.total_values = np.zeros(len(self.moves), dtype=np.float64)

    def branch_visits(self) -> np.ndarray:
        return self.visits if self.visits is not None else np.zeros(self.num_branches, dtype=np.float64)

    def expected_values(self) -> np.ndarray:
        """Q per branch (0 where unvisited), from the point of view of the player to move here."""
        n = self.branch_visits()
        if self.total_values is None:
            return np.zeros_like(n)
        return np.divide(self.total_values, n, out=np.zeros_like(n), where=n > 0)

    def mean_value(self) -> float:
        """The node's value estimate for its player to move: its own evaluation averaged with
        everything backed up through it."""
        if self.total_values is None:
            return self.value
        return (self.value + float(self.total_values.sum())) / (1.0 + self.total_visits)

    def select_branch(self, c: float, fpu_reduction: float = -1.0) -> int:
        """Branch position with the highest PUCT score (the first one on ties)."""
        self.ensure_stats()
        fpu = first_play_value(self.priors, self.visits, self.value, fpu_reduction)
        return select_branch(self.priors, self.visits, self.total_values, self.total_visits, c, fpu)

    def select_and_visit(
        self, c: float, virtual_loss: float, fpu_reduction: float = -1.0, utility: tuple | None = None
    ) -> int:
        """``select_branch`` and ``add_virtual_visit`` of its answer in one step (the descent's hot
        path). ``utility``: (factor, scale, the root's score in Black's view) of the score
        utility: each visited branch with a score gains ``score_utility`` of its subtree's mean
        score (the compiled tree's rule, ``dlgo.search.arena``)."""
        if self.visits is None:
            self.ensure_stats()
        values = self.total_values
        if utility is not None and utility[0] > 0:
            factor, scale, center = utility
            values = values.copy()
            sign = 1.0 if self.state.next_player == Player.black else -1.0
            for pos, child in self.children.items():
                if child.aux is not None:
                    mean = child.aux.mean_score()
                    values[pos] += self.visits[pos] * score_utility(sign * mean, sign * center, factor, scale)
        pos = _select_and_visit(
            self.priors, self.visits, values, self.total_visits, c, virtual_loss, self.value, fpu_reduction
        )
        if values is not self.total_values:
            self.total_values[pos] -= virtual_loss
        self.total_visits += 1.0
        return pos

    def branch_of(self, index: int) -> int | None:
        """Branch position of move index ``index``, or None when it is not a legal move here."""
        hits = np.flatnonzero(self.moves == index)
        return int(hits[0]) if len(hits) else None

    def child_for_move(self, index: int) -> ZeroTreeNode | None:
        if self.moves is None:
            return None
        pos = self.branch_of(index)
        return None if pos is None else self.children.get(pos)

    # --- updates --------------------------------------------------------------------------------
    def add_virtual_visit(self, pos: int, virtual_loss: float) -> None:
        self.ensure_stats()
        self.visits[pos] += 1.0
        self.total_values[pos] -= virtual_loss
        self.total_visits += 1.0

    def remove_virtual_visit(self, pos: int, virtual_loss: float) -> None:
        self.visits[pos] -= 1.0
        self.total_values[pos] += virtual_loss
        self.total_visits -= 1.0

    def record(self, pos: int, value: float, virtual_loss: float) -> None:
        """Turn a virtual visit of branch ``pos`` into a real one worth ``value`` (mover's view)."""
        self.total_values[pos] += value + virtual_loss


_NO_MOVES = np.zeros(0, dtype=np.int16)
_NO_PRIORS = np.zeros(0, dtype=np.float32)
