"""What the searches of book chapter 4 share: the game interface, scores and a node counter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["GameTreeState", "EvalFn", "SearchStats", "MAX_SCORE", "MIN_SCORE", "terminal_score", "leaf_value"]

# A won (lost) game is worth more (less) than any board evaluation (book 4.4).
MAX_SCORE = 999999
MIN_SCORE = -999999


class GameTreeState(Protocol):
    """The part of a game state the searches use; Go's and tic-tac-toe's GameState both have it."""

    next_player: Any

    def legal_moves(self) -> Sequence[Any]: ...

    def apply_move(self, move: Any) -> GameTreeState: ...

    def is_over(self) -> bool: ...

    def winner(self) -> Any: ...


# A position's value for the player to move, higher is better (book 4.4).
EvalFn = Callable[[Any], float]


@dataclass
class SearchStats:
    """Positions a search visited, counted so the searches can be compared (book 4.4.2)."""

    nodes: int = 0


def terminal_score(game_state: GameTreeState) -> int:
    """A finished game's value for the player to move: win, draw (0) or loss."""
    winner = game_state.winner()
    if winner is None:
        return 0
    return MAX_SCORE if winner == game_state.next_player else MIN_SCORE


def leaf_value(game_state: GameTreeState, max_depth: int, eval_fn: EvalFn, stats: SearchStats | None) -> float | None:
    """Count the visit; the value of a finished game or of the depth limit, else None (search on).

    What a leaf is, for depth-limited minimax and alpha-beta alike (book 4.4)."""
    if stats is not None:
        stats.nodes += 1
    if game_state.is_over():
        return terminal_score(game_state)
    if max_depth == 0:
        return eval_fn(game_state)
    return None
