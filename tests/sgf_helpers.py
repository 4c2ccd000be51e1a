"""Shared by the SGF tests: random games and a field-by-field comparison of two records."""

from __future__ import annotations

from dlgo.agent.naive import RandomBot
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.sgf import SgfGame

B, W = Player.black, Player.white


def random_game(size: int | tuple[int, int], seed: int, max_moves: int = 120, start: GameState | None = None):
    """A random legal game; passes now and then so that records have them."""
    bot = RandomBot(seed=seed)
    state = start or GameState.new_game(size)
    for i in range(max_moves):
        if state.is_over():
            break
        move = Move.pass_turn() if i % 37 == 36 else bot.select_move(state)
        assert state.is_valid_move(move)
        state = state.apply_move(move)
    return state


def assert_same_game(a: SgfGame, b: SgfGame) -> None:
    assert a.board_size == b.board_size
    assert a.komi == b.komi
    assert a.handicap == b.handicap
    assert a.result == b.result
    assert a.winner == b.winner
    assert (a.black_name, a.white_name, a.rules, a.date) == (b.black_name, b.white_name, b.rules, b.date)
    assert a.initial_state.board == b.initial_state.board
    assert a.initial_state.next_player == b.initial_state.next_player
    assert a.moves == b.moves
    assert a.comments == b.comments
    assert a.final_state.board == b.final_state.board
