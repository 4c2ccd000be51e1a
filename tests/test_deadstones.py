"""Dead-stone estimate and counting of finished games."""

from __future__ import annotations

from conftest import CAPTURING_RACE, state_from

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


def test_a_capturing_race_the_defender_wins_leaves_it_alive():
    # The last position of a 9x9 game against Pachi (2026-12-05): White's bottom strings share two
    # liberties, E3 and F4, and Black's C1-E2 inside has only E3. Black F4 is answered by White E3,
    # which takes the four Black stones, so White lives and wins (GNU Go: W+2 with C1 D1 E1 E2
    # dead). Random playouts let White fail to answer and called 16 White stones dead (B+40).
    state = state_from(CAPTURING_RACE, Player.black, komi=7.0)
    status = estimate_status(state, num_playouts=400, seed=1)
    assert sorted(status.dead_stones()) == [Point(1, 3), Point(1, 4), Point(1, 5), Point(2, 5)]
    assert compute_game_result(state, status.dead_stones()).winner is Player.white
    # The pure random policy is the one that got it wrong.
    random = estimate_status(state, num_playouts=400, seed=1, policy="random")
    assert sum(state.board.get(p) is Player.white for p in random.dead_stones()) == 16
