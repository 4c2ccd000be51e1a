"""Depth-limited minimax with a board evaluation: the book's depth pruning (book 4.4.1).

Go's tree is far too big to search to the end, so the search stops ``max_depth`` moves ahead
and scores the position there with an evaluation function; the book's is ``capture_diff``.
"""

from __future__ import annotations

import random

from dlgo.agent.base import Agent
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.minimax.scores import MIN_SCORE, EvalFn, GameTreeState, SearchStats, leaf_value

__all__ = ["capture_diff", "depth_pruned_result", "DepthLimitedAgent", "DepthPrunedAgent"]


def capture_diff(game_state: GameState) -> int:
    """Black stones minus white stones on the board, seen by the player to move (book 4.4.1).

    With the same number of moves played, the difference is the captures each side made.
    """
    # Counted in C: this is called at every leaf of the search.
    black, white = game_state.board.stone_counts()
    diff = black - white
    return diff if game_state.next_player == Player.black else -diff


def depth_pruned_result(
    game_state: GameTreeState,
    max_depth: int,
    eval_fn: EvalFn,
    stats: SearchStats | None = None,
) -> float:
    """The minimax value for the player to move, ``max_depth`` moves deep (book 4.4.1).

    The book calls this ``best_result``; the name here tells it from full-tree minimax.
    """
    leaf = leaf_value(game_state, max_depth, eval_fn, stats)
    if leaf is not None:
        return leaf
    best_so_far = MIN_SCORE
    for move in game_state.legal_moves():
        ours = -depth_pruned_result(game_state.apply_move(move), max_depth - 1, eval_fn, stats)
        if ours > best_so_far:
            best_so_far = ours
    return best_so_far


class DepthLimitedAgent(Agent):
    """What the depth-limited searches share: depth, evaluation, seeded tie-breaking, node count.

    Subclasses give ``best_moves(game_state) -> (moves of the best value, that value)``.
    """

    def __init__(self, max_depth: int, eval_fn: EvalFn = capture_diff, seed: int | None = None) -> None:
        if max_depth < 1:
            raise ValueError(f"max_depth must be at least 1, not {max_depth}")
        self.max_depth = max_depth
        self.eval_fn = eval_fn
        self._rng = random.Random(seed)
        self.nodes = 0  # positions visited by the last select_move
        self.last_value: float | None = None

    def best_moves(self, game_state: GameState) -> tuple[list[Move], float | None]:
        raise NotImplementedError

    def select_move(self, game_state: GameState) -> Move:
        best, self.last_value = self.best_moves(game_state)
        return self._rng.choice(best) if best else Move.pass_turn()

    def diagnostics(self) -> dict:
        return {"nodes": self.nodes, "value": self.last_value}


class DepthPrunedAgent(DepthLimitedAgent):
    """Plays a move of best depth-limited minimax value (book 4.4.1).

    ``max_depth`` counts moves from the current position, this agent's own move included:
    depth 1 looks at the positions right after each move. (The book's agent passed
    ``max_depth`` on to the replies, looking one move further than its name says.)
    Ties are broken at random with ``random.Random(seed)``.
    """

    def best_moves(self, game_state: GameState) -> tuple[list[Move], float | None]:
        """Every legal move of the best value, in ``legal_moves`` order, and that value."""
        stats = SearchStats(nodes=1)  # the root
        best: list[Move] = []
        best_score: float | None = None
        for move in game_state.legal_moves():
            ours = -depth_pruned_result(game_state.apply_move(move), self.max_depth - 1, self.eval_fn, stats)
            if best_score is None or ours > best_score:
                best, best_score = [move], ours
            elif ours == best_score:
                best.append(move)
        self.nodes = stats.nodes
        return best, best_score
