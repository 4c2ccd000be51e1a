"""Tic-tac-toe (book 4.2): the board, the rules of three in a row, and the game state API."""

from __future__ import annotations

import pytest

from dlgo.ttt import Board, GameState, Move, Player, Point
from dlgo.ttt.tttboard import ALL_POINTS, LINES

PX, PO = Player.x, Player.o


def play(*cells: tuple[int, int]) -> GameState:
    """The state after x and o take turns on ``cells``, x first."""
    state = GameState.new_game()
    for row, col in cells:
        move = Move(Point(row, col))
        assert state.is_valid_move(move), f"{move} is not valid"
        state = state.apply_move(move)
    return state


def test_players_alternate_and_x_moves_first():
    assert PX.other is PO and PO.other is PX
    state = GameState.new_game()
    assert state.next_player is PX and state.last_move is None
    state = state.apply_move(Move(Point(2, 2)))
    assert state.next_player is PO and state.last_move == Move(Point(2, 2))
    assert state.board.get(Point(2, 2)) is PX


def test_new_game_has_nine_legal_moves_in_row_major_order():
    state = GameState.new_game()
    assert [m.point for m in state.legal_moves()] == list(ALL_POINTS)
    assert not state.is_over() and state.winner() is None


def test_apply_move_leaves_the_old_state_alone():
    start = GameState.new_game()
    after = start.apply_move(Move(Point(1, 1)))
    assert start.board.get(Point(1, 1)) is None
    assert after.board.get(Point(1, 1)) is PX
    assert len(after.legal_moves()) == 8


def test_occupied_and_off_board_cells_are_not_valid():
    state = play((1, 1))
    assert not state.is_valid_move(Move(Point(1, 1)))
    assert not state.is_valid_move(Move(Point(0, 1)))
    assert not state.is_valid_move(Move(Point(3, 4)))
    assert state.is_valid_move(Move(Point(3, 3)))
    with pytest.raises(AssertionError):
        state.board.place(PO, Point(1, 1))


def test_there_are_eight_lines():
    assert len(LINES) == 8 and len(set(LINES)) == 8
    assert all(len(line) == 3 for line in LINES)


@pytest.mark.parametrize("line", LINES, ids=lambda line: "-".join(f"{p.row}{p.col}" for p in line))
def test_three_in_a_row_on_every_line_wins(line):
    board = Board()
    for point in line:
        board.place(PO, point)
    state = GameState(board, PX, None)
    assert state.is_over() and state.winner() is PO
    assert state.legal_moves() == []
    assert not state.is_valid_move(Move(next(p for p in ALL_POINTS if p not in line)))


def test_a_game_x_wins_on_the_diagonal():
    state = play((1, 1), (1, 2), (2, 2), (1, 3))
    assert not state.is_over()
    state = state.apply_move(Move(Point(3, 3)))
    assert state.is_over() and state.winner() is PX


def test_a_full_board_without_three_in_a_row_is_a_draw():
    # x o x / x o o / o x x
    state = play((3, 1), (3, 2), (3, 3), (2, 2), (2, 1), (2, 3), (1, 2), (1, 1), (1, 3))
    assert state.is_over() and state.winner() is None and state.legal_moves() == []


def test_states_compare_by_position_and_player_to_move():
    a = play((1, 1), (2, 2), (3, 3))
    b = play((3, 3), (2, 2), (1, 1))
    assert a == b and hash(a) == hash(b)
    assert a.next_player is PO and a != GameState(a.board, PX, None)
    assert len({a, b}) == 1


def test_board_prints_row_one_at_the_bottom():
    assert str(play((1, 1), (3, 3)).board) == "..o\n...\nx.."
