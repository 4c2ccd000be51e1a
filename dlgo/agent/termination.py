"""Pass and resign strategies wrapped around any agent (book 8.5).

The book's version passes whenever the opponent passes and resigns on a large naive margin.
Passing into a lost count is a real mistake, so ``PassWhenOpponentPasses`` here passes only when
the count with dead stones removed (Monte Carlo estimate) is a win; and the margin for resigning
is counted the same way.
"""

from __future__ import annotations

from dlgo.agent.base import Agent
from dlgo.deadstones import final_result
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player

__all__ = ["TerminationStrategy", "PassWhenOpponentPasses", "ResignLargeMargin", "TerminationAgent", "get"]


class TerminationStrategy:
    def should_pass(self, game_state: GameState) -> bool:
        return False

    def should_resign(self, game_state: GameState) -> bool:
        return False


class PassWhenOpponentPasses(TerminationStrategy):
    def __init__(self, only_when_winning: bool = True, num_playouts: int = 400) -> None:
        self.only_when_winning = only_when_winning
        self.num_playouts = num_playouts

    def should_pass(self, game_state: GameState) -> bool:
        last = game_state.last_move
        if last is None or not last.is_pass:
            return False
        if not self.only_when_winning:
            return True
        return final_result(game_state, self.num_playouts).winner == game_state.next_player


class ResignLargeMargin(TerminationStrategy):
    """Resign after ``cut_off_move`` when behind by more than ``margin`` points."""

    def __init__(self, own_color: Player, cut_off_move: int, margin: float, num_playouts: int = 200) -> None:
        self.own_color = own_color
        self.cut_off_move = cut_off_move
        self.margin = margin
        self.num_playouts = num_playouts

    def should_resign(self, game_state: GameState) -> bool:
        if game_state.move_number < self.cut_off_move:
            return False
        result = final_result(game_state, self.num_playouts)
        return result.winner not in (None, self.own_color) and result.winning_margin > self.margin


class _Combined(TerminationStrategy):
    def __init__(self, *strategies: TerminationStrategy) -> None:
        self.strategies = strategies

    def should_pass(self, game_state: GameState) -> bool:
        return any(s.should_pass(game_state) for s in self.strategies)

    def should_resign(self, game_state: GameState) -> bool:
        return any(s.should_resign(game_state) for s in self.strategies)


class TerminationAgent(Agent):
    def __init__(self, agent: Agent, strategy: TerminationStrategy | None = None) -> None:
        self.agent = agent
        self.strategy = strategy if strategy is not None else PassWhenOpponentPasses()

    def select_move(self, game_state: GameState) -> Move:
        if self.strategy.should_pass(game_state):
            return Move.pass_turn()
        if self.strategy.should_resign(game_state):
            return Move.resign()
        return self.agent.select_move(game_state)


def get(name: str, own_color: Player | None = None, **kwargs) -> TerminationStrategy:
    """By name: ``opponent_passes``, ``resign_large_margin`` or ``both``."""
    if name == "opponent_passes":
        return PassWhenOpponentPasses(**kwargs)
    if own_color is None:
        raise ValueError(f"termination strategy {name!r} needs own_color")
    if name == "resign_large_margin":
        return ResignLargeMargin(own_color, **kwargs)
    if name == "both":
        return _Combined(PassWhenOpponentPasses(), ResignLargeMargin(own_color, **kwargs))
    raise ValueError(f"unknown termination strategy {name!r}")
