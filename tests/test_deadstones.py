"""Dead-stone estimate and counting of finished games."""

from __future__ import annotations

from dlgo.deadstones import estimate_status, final_result
from dlgo.goboard import Board, GameState
from dlgo.gotypes import Player, Point
from dlgo.scoring import compute_game_result


def walls_position() -> GameState:
    board = Board(9, 9)
    for row in range(1, 10):
        board.place_stone(Player.black, Point(row, 5))
        board.place_stone(Player.white, Point(row, 6))
    board.place_stone(Player.white, Point(2, 2))
    board.place_stone(Player.black, Point(5, 8))
    return GameState.from_position(board, Player.black, komi=7.5)


def test_dead_stones_inside_territory_are_found():
    status = estimate_status(walls_position(), num_playouts=400, seed=1)
    assert sorted(status.dead) == [[Point(2, 2)], [Point(5, 8)]]
    assert len(status.alive) == 2 and status.seki == []


def test_final_result_removes_dead_stones():
    game = walls_position()
    # Naive count: both areas touch both colours, so only the walls count.
    assert str(compute_game_result(game)) == "W+7.5"
    assert str(final_result(game, seed=1)) == "B+1.5"


def test_seki_is_reported():
    # 5x5 corner seki: black and white strings share two liberties, neither can approach.
    rows = [
        ".XO.O",
        "XXOOO",
        "OOXXX",
        "OXX..",
        "OX...",
    ]
    board = Board(5, 5)
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            if ch != ".":
                board.place_stone(Player.black if ch == "X" else Player.white, Point(5 - r, c + 1))
    status = estimate_status(GameState.from_position(board, Player.black, komi=0.5), num_playouts=400, seed=1)
    assert all(isinstance(g, list) for g in status.alive + status.dead + status.seki)
    total = sum(len(g) for g in status.alive + status.dead + status.seki)
    assert total == sum(1 for _ in board.stones())
