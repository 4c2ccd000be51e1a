"""What every search agent shares: a budget to stop on and one result type for analysis.

MCTS with rollouts, AlphaGo-style search and Zero search all return a ``SearchResult``, so the
GTP engine prints analysis (Leela Zero, KataGo, GoGui formats) for any of them.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dlgo.agent.base import Agent
from dlgo.goboard import GameState, Move

__all__ = [
    "TREES",
    "SearchBudget",
    "best_move_unsure",
    "CandidateInfo",
    "SearchResult",
    "SearchAgent",
    "ProgressCallback",
    "lower_confidence_bound",
    "SELECT_BY",
    "LCB_MIN_VISITS_FRACTION",
    "root_order",
]

# The PUCT search's trees: numba arrays (``dlgo.search.compiled``) or node objects (``dlgo.search.puct``).
TREES = ("compiled", "python")

# How the PUCT search picks the move it plays among the root's branches: the most visited (the
# book, AlphaGo Zero) or the highest lower confidence bound of the win rate among the branches
# with at least LCB_MIN_VISITS_FRACTION of the most visited one's visits (Leela Zero 0.17's
# 10%; KataGo's useLcbForSelection): a move found late, with a clearly better win rate than the
# most visited one but too few visits to overtake it yet, is played.
SELECT_BY = ("visits", "lcb")
LCB_MIN_VISITS_FRACTION = 0.1


@dataclass
class SearchBudget:
    """When a search stops: whichever of visits, seconds, deadline or the stop event comes first.

    Seconds count from the budget's creation, so a budget made when a command arrives includes
    everything done before the search starts. ``deadline`` is a ``time.monotonic()`` instant.
    ``None`` for visits, seconds and deadline means "until stopped" (analysis mode).
    ``banks_time``: time the search leaves unused is kept for later moves (main time of a clock);
    False under a fixed time per move or in a byo-yomi period, which comes back whole for every
    move: the search then never stops early, as what it adds under the chosen move is reused.
    ``unsure_deadline``: a later instant the search may run on to, past ``deadline``, while the
    best move is unsure (:func:`best_move_unsure` with ``unsure_visit_ratio``): main time spent
    where the choice is close, as Pachi extends its desired time towards its worst time.
    """

    max_visits: int | None = None
    max_seconds: float | None = None
    stop: threading.Event | None = None
    deadline: float | None = None
    banks_time: bool = True
    unsure_deadline: float | None = None
    unsure_visit_ratio: float = 2.0

    def __post_init__(self) -> None:
        self._start = time.monotonic()

    def restart(self) -> None:
        self._start = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self._start

    def exhausted(self, visits: int) -> bool:
        if self.max_visits is not None and visits >= self.max_visits:
            return True
        if self.stop is not None and self.stop.is_set():
            return True
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return True
        return self.max_seconds is not None and self.elapsed() >= self.max_seconds

    def may_run_on(self, visits: int) -> bool:
        """Only ``deadline`` has passed, and ``unsure_deadline`` has not: the search may go on
        while its best move is unsure."""
        if self.unsure_deadline is None or self.deadline is None:
            return False
        saved, self.deadline = self.deadline, self.unsure_deadline
        try:
            return not self.exhausted(visits)
        finally:
            self.deadline = saved


def best_move_unsure(branch_visits: np.ndarray, ratio: float) -> bool:
    """The most visited root move leads the second by less than ``ratio`` times its visits
    (Pachi's ``best2_ratio``): more visits may still change the move played."""
    if len(branch_visits) < 2:
        return False
    second, first = np.partition(branch_visits, len(branch_visits) - 2)[-2:]
    return bool(first < ratio * max(second, 1.0))  # a move alone with a visit or two is unsure too


@dataclass
class CandidateInfo:
    """One root move. ``winrate``/``lcb`` are for the player to move at the root, in [0, 1]."""

    move: Move
    visits: int
    winrate: float
    prior: float = 0.0
    lcb: float = 0.0
    pv: list[Move] = field(default_factory=list)
    score_lead: float | None = None


@dataclass
class SearchResult:
    candidates: list[CandidateInfo]  # best first
    visits: int  # root visits
    winrate: float  # value of the root for the player to move
    elapsed: float
    # Mean final owner per point, rows from the top, +1 black / -1 white (None if not computed).
    ownership: np.ndarray | None = None
    # Points the player to move leads by at the end (a network's score head; None without one).
    score_lead: float | None = None

    @property
    def best(self) -> CandidateInfo | None:
        return self.candidates[0] if self.candidates else None


ProgressCallback = Callable[[SearchResult], None]


def lower_confidence_bound(wins: float, visits: int, z: float = 1.96) -> float:
    """Wilson lower bound of a win rate: what ``lcb`` in analysis output means."""
    if visits == 0:
        return 0.0
    p = wins / visits
    denom = 1 + z * z / visits
    centre = p + z * z / (2 * visits)
    margin = z * math.sqrt(p * (1 - p) / visits + z * z / (4 * visits * visits))
    return max(0.0, (centre - margin) / denom)


def root_order(visits: np.ndarray, q: np.ndarray, select_by: str = "visits") -> list[int]:
    """The visited root branches, the one to play first: by visits then Q (``q`` in [-1, 1] for
    the player to move); ``select_by="lcb"`` puts the branches with at least
    ``LCB_MIN_VISITS_FRACTION`` of the top visits first, by the lower confidence bound of their
    win rate, and the rest after them by visits."""
    by_visits = sorted(np.flatnonzero(visits > 0).tolist(), key=lambda i: (visits[i], q[i]), reverse=True)
    if select_by != "lcb" or len(by_visits) < 2:
        return by_visits
    floor = LCB_MIN_VISITS_FRACTION * float(visits[by_visits[0]])
    eligible = [i for i in by_visits if visits[i] >= floor]

    def lcb(i: int) -> float:
        n = float(visits[i])
        return lower_confidence_bound((float(q[i]) + 1.0) / 2.0 * n, n)

    first = sorted(eligible, key=lcb, reverse=True)  # stable: equal bounds keep the visit order
    return first + [i for i in by_visits if visits[i] < floor]


class SearchAgent(Agent):
    """An agent that searches; ``search`` is what the engine calls for moves and analysis."""

    def search(
        self,
        game_state: GameState,
        budget: SearchBudget,
        on_progress: ProgressCallback | None = None,
        progress_interval: float = 0.5,
    ) -> SearchResult:
        raise NotImplementedError

    def default_budget(self) -> SearchBudget:
        raise NotImplementedError

    @property
    def network_ownership(self) -> bool:
        """Whether ``search`` results carry the network's ownership map and score leads (a
        network with KataGo's ownership and score heads)."""
        return False

    @property
    def keeps_tree(self) -> bool:
        """Whether a search from a later position of the game reuses this one's tree (what makes
        pondering worth it)."""
        return False

    @property
    def visit_limit(self) -> int | None:
        """The most visits one move's search makes (its configured rounds); None: no limit."""
        return self.default_budget().max_visits
