"""Full-tree minimax: solve a small game exactly (book 4.3).

The book calls the three outcomes ``GameResult``; here it is ``MinimaxResult`` so it is not
mistaken for ``dlgo.scoring.GameResult``, the counted result of a Go game.
"""

from __future__ import annotations

import enum
import random

from dlgo.agent.base import Agent
from dlgo.minimax.scores import GameTreeState, SearchStats

__all__ = ["MinimaxResult", "reverse_game_result", "best_result", "MinimaxAgent"]


class MinimaxResult(enum.Enum):
    """The outcome of a game for one player, ordered so a larger value is better."""

    loss = 1
    draw = 2
    win = 3


def reverse_game_result(result: MinimaxResult) -> MinimaxResult:
    """The same outcome seen by the opponent."""
    if result is MinimaxResult.loss:
        return MinimaxResult.win
    if result is MinimaxResult.win:
        return MinimaxResult.loss
    return MinimaxResult.draw


def best_result(
    game_state: GameTreeState,
    memo: dict | None = None,
    stats: SearchStats | None = None,
) -> MinimaxResult:
    """The best outcome the player to move can force, searching to the end of the game (book 4.3).

    ``memo`` maps positions already solved to their result. The same tic-tac-toe position is
    reached by many move orders: the full tree has 549,946 nodes, but with the memo (and
    stopping at a found win) solving the empty board visits under 5,000 positions. It needs
    states that compare equal by position, as ``dlgo.ttt.GameState`` does.
    """
    if memo is not None:
        known = memo.get(game_state)
        if known is not None:
            return known
    if stats is not None:
        stats.nodes += 1
    if game_state.is_over():
        winner = game_state.winner()
        if winner is None:
            result = MinimaxResult.draw
        elif winner == game_state.next_player:
            result = MinimaxResult.win
        else:
            result = MinimaxResult.loss
    else:
        result = MinimaxResult.loss
        for move in game_state.legal_moves():
            ours = reverse_game_result(best_result(game_state.apply_move(move), memo, stats))
            if ours.value > result.value:
                result = ours
                if result is MinimaxResult.win:
                    break  # nothing beats a win, so the other moves cannot change the result
    if memo is not None:
        memo[game_state] = result
    return result


class MinimaxAgent(Agent):
    """Plays a winning move if there is one, else a drawing one (book 4.3).

    Ties are broken at random with ``random.Random(seed)``. Solved positions are remembered
    across moves and games (``memoize``), so only the first move of the first game is slow.
    """

    def __init__(self, seed: int | None = None, memoize: bool = True) -> None:
        self._rng = random.Random(seed)
        self._memo: dict | None = {} if memoize else None
        self.nodes = 0  # positions searched by the last select_move (memo hits not counted)
        self.last_result: MinimaxResult | None = None

    def select_move(self, game_state: GameTreeState):
        moves = game_state.legal_moves()
        if not moves:
            raise ValueError("the game is over: there is no move to select")
        stats = SearchStats()
        by_result: dict[MinimaxResult, list] = {result: [] for result in MinimaxResult}
        for move in moves:
            opponent = best_result(game_state.apply_move(move), self._memo, stats)
            by_result[reverse_game_result(opponent)].append(move)
        self.nodes = stats.nodes
        for result in (MinimaxResult.win, MinimaxResult.draw, MinimaxResult.loss):
            if by_result[result]:
                self.last_result = result
                return self._rng.choice(by_result[result])
        raise AssertionError("unreachable: every move has a result")

    def diagnostics(self) -> dict:
        result = self.last_result.name if self.last_result else None
        return {"nodes": self.nodes, "result": result}
