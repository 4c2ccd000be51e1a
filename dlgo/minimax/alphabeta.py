"""Alpha-beta pruning: the depth-limited minimax value with fewer positions visited (book 4.4.2).

While a move is searched, the best result each side is already sure of elsewhere is carried
down (``best_black``, ``best_white``). As soon as a reply is found that makes the move no
better for its player than that, the remaining replies cannot make the move the choice, so
they are skipped. The value of the root is the same as ``depth_pruned_result`` gives.

The book's code skips only on strictly worse; skipping on equal too (standard alpha-beta)
prunes far more with ``capture_diff``, where most positions tie. The agent keeps the ties at
the root exact by setting its bound just below the best value found.
"""

from __future__ import annotations

import math

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.minimax.depthprune import DepthLimitedAgent
from dlgo.minimax.scores import MIN_SCORE, EvalFn, SearchStats, leaf_value

__all__ = ["alpha_beta_result", "AlphaBetaAgent"]


def alpha_beta_result(
    game_state: GameState,
    max_depth: int,
    best_black: float,
    best_white: float,
    eval_fn: EvalFn,
    stats: SearchStats | None = None,
) -> float:
    """The minimax value for the player to move, ``max_depth`` moves deep (book 4.4.2).

    ``best_black`` / ``best_white``: the best value each player can already force, each from
    its own point of view; pass ``MIN_SCORE`` for both to search a position on its own.
    A value strictly between the bounds (``best_black`` < v < -``best_white`` with black to
    move) is exact; outside them it is only a bound, which is enough for the parent to
    reject the move.
    """
    leaf = leaf_value(game_state, max_depth, eval_fn, stats)
    if leaf is not None:
        return leaf
    best_so_far = MIN_SCORE
    white_to_move = game_state.next_player == Player.white
    for move in game_state.legal_moves():
        ours = -alpha_beta_result(game_state.apply_move(move), max_depth - 1, best_black, best_white, eval_fn, stats)
        if ours > best_so_far:
            best_so_far = ours
        if white_to_move:
            best_white = max(best_white, best_so_far)
            if -best_so_far <= best_black:
                return best_so_far  # black already has as good as this elsewhere
        else:
            best_black = max(best_black, best_so_far)
            if -best_so_far <= best_white:
                return best_so_far  # white already has as good as this elsewhere
    return best_so_far


class AlphaBetaAgent(DepthLimitedAgent):
    """Plays a move of best depth-limited value, found with alpha-beta pruning (book 4.4.2).

    It chooses among the same moves as ``DepthPrunedAgent`` with the same ``max_depth`` (moves
    counted from the current position, this agent's own included): at the root it prunes only
    moves strictly worse than the best so far, so equal moves keep their exact value and stay
    in the draw. Ties are broken at random with ``random.Random(seed)``.
    """

    def best_moves(self, game_state: GameState) -> tuple[list[Move], float | None]:
        """Every legal move of the best value, in ``legal_moves`` order, and that value."""
        stats = SearchStats(nodes=1)  # the root
        best: list[Move] = []
        best_score: float | None = None
        best_black = best_white = MIN_SCORE
        black_to_move = game_state.next_player == Player.black
        for move in game_state.legal_moves():
            ours = -alpha_beta_result(
                game_state.apply_move(move), self.max_depth - 1, best_black, best_white, self.eval_fn, stats
            )
            if best_score is None or ours > best_score:
                best, best_score = [move], ours
                # Just below the best, so a move that ties it is not pruned and keeps its value.
                bound = math.nextafter(best_score, -math.inf)
                if black_to_move:
                    best_black = bound
                else:
                    best_white = bound
            elif ours == best_score:
                best.append(move)
        self.nodes = stats.nodes
        return best, best_score
