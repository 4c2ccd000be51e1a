"""What each move of a reviewed game cost its player: points lost, win rate lost, its class.

Points lost follow KaTrain (``katrain/core/game_node.py``, ``GameNode.points_lost``): the
mover's score lead in the position before the move less the mover's score lead in the position
after it, both the searches' root leads. The searches are noisy, so a move can come out ahead
(a negative loss: the move was better than the search of the position before it thought); it
counts as 0 for classes and averages, as in KaTrain's game report (``katrain/core/ai.py``,
``game_report``: ``max(0, points_lost)``). Win rate lost is the same difference of win rates.

Classes: a move is an inaccuracy, a mistake or a blunder by the points it lost or by the win
rate it lost, whichever gives the higher class. By points (KaTrain's way), on 19x19: from 1, 3
and 8 points; smaller boards have smaller margins, so these shrink in proportion to the board's
side (``sqrt(rows * cols) / 19``), rounded to half points, at least half a point: 9x9 0.5 / 1.5 /
4, 13x13 0.5 / 2 / 5.5. By win rate (the way of reviews before score heads, GoReviewPartner
and Lizzie): from 10, 20 and 40 percentage points. Both, because the shipped 9x9 network's score
head is compressed: filling an eye of a living 7-stone group (tests/test_review.py) costs 60% of
the game but 3 of its points. The search's own first choice is never classed (what it seems to
lose is the noise between two searches).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dlgo.goboard import Move
from dlgo.gotypes import Player
from dlgo.review.analysis import TurnAnalysis

__all__ = ["CLASSES", "Thresholds", "MoveReview", "PlayerSummary", "judge_moves", "summarize"]

CLASSES = ("inaccuracy", "mistake", "blunder")  # mildest first
_POINTS_19 = (1.0, 3.0, 8.0)
WINRATE_THRESHOLDS = (0.10, 0.20, 0.40)


@dataclass(frozen=True)
class Thresholds:
    """Points lost, and win rate lost, from which a move is of each class of ``CLASSES``."""

    points: tuple[float, float, float]
    winrate: tuple[float, float, float] = WINRATE_THRESHOLDS

    @classmethod
    def for_board(cls, rows: int, cols: int) -> Thresholds:
        side = math.sqrt(rows * cols)
        points = tuple(max(0.5, round(2.0 * t * side / 19.0) / 2.0) for t in _POINTS_19)
        return cls(points)  # type: ignore[arg-type]

    def classify(self, points_lost: float, winrate_lost: float = 0.0) -> str | None:
        """The move's class (one of ``CLASSES``), None below an inaccuracy."""
        for name, points, winrate in reversed(list(zip(CLASSES, self.points, self.winrate, strict=True))):
            if points_lost >= points or winrate_lost >= winrate:
                return name
        return None

    def describe(self) -> str:
        lines = (
            f"{name} >= {points:g} points or {100 * winrate:g}% win rate"
            for name, points, winrate in zip(CLASSES, self.points, self.winrate, strict=True)
        )
        return "; ".join(lines) + " lost"


@dataclass(frozen=True)
class MoveReview:
    """Move ``number`` (from 1) of the record, judged from the searches around it."""

    number: int
    player: Player
    move: Move
    before: TurnAnalysis  # the position the move was played in
    after: TurnAnalysis  # the position it made
    lost: float  # points lost, raw (negative: better than the search before it thought)
    winrate_lost: float  # raw, in [-1, 1]
    category: str | None  # one of CLASSES, or None

    @property
    def points_lost(self) -> float:
        """Points lost for display, classes and averages: never below 0."""
        return max(0.0, self.lost)

    @property
    def severity(self) -> tuple[int, float]:
        """Sorts the worst first: by class, then by points lost."""
        rank = CLASSES.index(self.category) + 1 if self.category is not None else 0
        return (rank, self.points_lost)

    @property
    def is_best(self) -> bool:
        """The move the search of the position before it liked best."""
        return self.before.best_move == self.move


def judge_moves(
    moves: Sequence[tuple[Player, Move]], analyses: Sequence[TurnAnalysis], thresholds: Thresholds
) -> list[MoveReview]:
    """One ``MoveReview`` per move; ``analyses[i]`` is the position before ``moves[i]`` and
    ``analyses[len(moves)]`` the final one (``analyze_game`` on ``review_positions``)."""
    if len(analyses) != len(moves) + 1:
        raise ValueError(f"{len(moves)} moves need {len(moves) + 1} analyses, got {len(analyses)}")
    out = []
    for i, (player, move) in enumerate(moves):
        before, after = analyses[i], analyses[i + 1]
        lost = before.score_lead_for(player) - after.score_lead_for(player)
        winrate_lost = before.winrate_for(player) - after.winrate_for(player)
        # The search's own first choice is never classed: what it lost is the searches' noise.
        category = None if analyses[i].best_move == move else thresholds.classify(lost, winrate_lost)
        out.append(MoveReview(i + 1, player, move, before, after, lost, winrate_lost, category))
    return out


@dataclass(frozen=True)
class PlayerSummary:
    """One player's moves in a review."""

    player: Player
    moves: int
    average_points_lost: float
    counts: dict[str, int]  # per class of CLASSES
    best_moves: int  # moves that were the search's first choice


def summarize(reviews: Sequence[MoveReview], player: Player) -> PlayerSummary:
    mine = [r for r in reviews if r.player is player]
    average = sum(r.points_lost for r in mine) / len(mine) if mine else 0.0
    counts = {name: sum(1 for r in mine if r.category == name) for name in CLASSES}
    return PlayerSummary(player, len(mine), average, counts, sum(1 for r in mine if r.is_best))
