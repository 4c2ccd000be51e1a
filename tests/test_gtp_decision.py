"""The engine's move decision around the search: spent clocks, and never passing into a loss."""

from __future__ import annotations

from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.mcts import MCTSAgent
from dlgo.search import SearchBudget
from gtp_engine.decision import DecisionSettings, choose_move


def _lost_position_after_pass() -> GameState:
    """9x9: Black's living wall fills columns A-G, White holds only column J; Black has passed."""
    eyes = {(2, 2), (2, 5), (5, 2), (5, 5), (8, 2), (8, 5)}
    board = Board(9, 9)
    for row in range(1, 10):
        for col in range(1, 8):
            if (row, col) not in eyes:
                board.place_stone(Player.black, Point(row, col))
        board.place_stone(Player.white, Point(row, 8))
    state = GameState.from_position(board, Player.black, komi=7.5)
    return state.apply_move(Move.pass_turn())


def test_spent_clock_still_searches_instead_of_a_random_move() -> None:
    state = GameState.new_game(9)
    spent = SearchBudget(deadline=0.0)  # already in the past
    choice = choose_move(MCTSAgent(seed=1), state, spent, DecisionSettings(), 0, opponent_passed=False)
    assert choice.result is not None and choice.result.visits > 0
    assert "quick legal move" not in choice.reason


def test_never_passes_into_a_lost_count() -> None:
    state = _lost_position_after_pass()
    settings = DecisionSettings(resign_enabled=False, pass_playouts=200)
    choice = choose_move(MCTSAgent(seed=1), state, SearchBudget(max_visits=300), settings, 80, opponent_passed=True)
    assert choice.move.is_play, choice.reason


def test_resigns_rather_than_passing_a_lost_count() -> None:
    state = _lost_position_after_pass()
    settings = DecisionSettings(resign_enabled=True, resign_threshold=0.1, pass_playouts=200)
    # Move 5: too early for the ordinary resign rule, but a pass would end the game lost.
    choice = choose_move(MCTSAgent(seed=1), state, SearchBudget(max_visits=300), settings, 5, opponent_passed=True)
    assert choice.move.is_resign, choice.reason
    assert "no move helps" in choice.reason
