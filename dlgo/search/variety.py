"""Variety in play: over a game's first moves, a move drawn among the search's near-best moves.

A deterministic engine plays the same game again whenever the opponent repeats itself: one
engine process playing itself at fixed visits played the same 94-move game 100 times out of 100,
and a person who beats a bot once on a server can replay the win move for move. Leela Zero's
``--randomcnt`` and KataGo's ``chosenMoveTemperatureEarly`` answer this by drawing the move in
proportion to visits over the opening; here, as there, only among moves close to the best:

- only over the game's first ``opening_moves`` moves (both players' moves counted);
- only candidates whose win rate is within ``max_winrate_loss`` of the best move's and that
  have at least ``min_visits_fraction`` of its visits (a move the search barely looked at is no
  candidate, however good its few visits looked);
- drawn with probability proportional to ``visits ** (1 / temperature)``: the best move stays the
  likeliest, and a temperature near 0 always plays it.

Off (``opening_moves = 0``) for analysis, regression tests and seeded duels; the OGS config and
the web page turn it on.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dlgo.search.base import CandidateInfo, SearchResult

__all__ = ["VarietySettings", "draw_probabilities", "near_best_candidates", "vary_move"]


@dataclass(frozen=True)
class VarietySettings:
    opening_moves: int = 0
    temperature: float = 0.5
    max_winrate_loss: float = 0.02
    min_visits_fraction: float = 0.1
    seed: int = -1

    @classmethod
    def from_config(cls, table: Mapping[str, Any]) -> VarietySettings:
        return cls(**{k: table[k] for k in cls.__dataclass_fields__ if k in table})

    @property
    def enabled(self) -> bool:
        return self.opening_moves > 0 and self.temperature > 0

    def rng(self) -> random.Random:
        """A generator seeded by ``seed`` (-1: from the system)."""
        return random.Random(None if self.seed < 0 else self.seed)


def near_best_candidates(result: SearchResult, settings: VarietySettings) -> list[CandidateInfo]:
    """The candidates a varied move may be drawn from, the best first (passes never)."""
    if not result.candidates:
        return []
    best = result.candidates[0]
    floor = max(1.0, settings.min_visits_fraction * best.visits)
    return [best] + [
        c
        for c in result.candidates[1:]
        if not c.move.is_pass and c.visits >= floor and c.winrate >= best.winrate - settings.max_winrate_loss
    ]


def vary_move(
    result: SearchResult, settings: VarietySettings, move_number: int, rng: random.Random
) -> CandidateInfo | None:
    """The candidate to play as the game's move ``move_number`` (1 for its first), or None when
    variety does not apply (off, past the opening, a pass is best, no search)."""
    if not settings.enabled or move_number > settings.opening_moves or not result.candidates:
        return None
    if result.candidates[0].move.is_pass:
        return None
    pool = draw_probabilities(result, settings)
    if len(pool) == 1:
        return pool[0][0]
    return rng.choices([c for c, _ in pool], weights=[p for _, p in pool])[0]


def draw_probabilities(result: SearchResult, settings: VarietySettings) -> list[tuple[CandidateInfo, float]]:
    """The near-best candidates with the chance the draw picks each, the best first (summing
    to 1; empty without candidates)."""
    pool = near_best_candidates(result, settings)
    if not pool:
        return []
    top = max(c.visits for c in pool)
    weights = [(c.visits / top) ** (1.0 / settings.temperature) for c in pool]
    total = sum(weights)
    return [(c, w / total) for c, w in zip(pool, weights)]
