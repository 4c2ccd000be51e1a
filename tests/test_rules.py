"""The rules of Go as the book states them (chapters 2-3): captures, liberties, suicide, ko,
superko, ending the game, board sizes, the eye rule, area scoring and handicap placement."""

from __future__ import annotations

import pytest
from conftest import board_from, state_from

from dlgo.agent.helpers import is_point_an_eye
from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.handicap import fixed_handicap_points, free_handicap_points, handicap_game, max_fixed_handicap
from dlgo.scoring import compute_game_result, evaluate_territory
from dlgo.utils import coords_from_point, point_from_coords

B, W = Player.black, Player.white


# --- helpers ----------------------------------------------------------------------------------
def pt(text: str) -> Point:
    return point_from_coords(text)


def play(state: GameState, *moves: str) -> GameState:
    """Apply moves given as vertices ("C3") or "pass"/"resign", each of which must be valid."""
    for text in moves:
        if text == "pass":
            move = Move.pass_turn()
        elif text == "resign":
            move = Move.resign()
        else:
            move = Move.play(pt(text))
        assert state.is_valid_move(move), f"{text} should be valid for {state.next_player}"
        state = state.apply_move(move)
    return state


def valid(state: GameState, vertex: str) -> bool:
    return state.is_valid_move(Move.play(pt(vertex)))


def points(text: str) -> set[Point]:
    return {pt(v) for v in text.split()}


# --- captures and liberties (book 3.1-3.2) ----------------------------------------------------
def test_capture_single_stone():
    state = state_from(
        """
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
        """
    )
    assert state.board.get_go_string(pt("C3")).num_liberties == 1
    state = play(state, "D3")
    assert state.board.get(pt("C3")) is None
    assert state.board.get_go_string(pt("C3")) is None
    # The capturing stone and its neighbours got the liberty back.
    assert state.board.get_go_string(pt("D3")).liberties == points("C3 E3 D2 D4")
    assert state.board.get_go_string(pt("B3")).liberties == points("A3 C3 B2 B4")


def test_capture_multi_stone_string_restores_neighbour_liberties():
    state = state_from(
        """
        . X X X .
        X O O O X
        . X X . .
        . . . . .
        """
    )
    white = state.board.get_go_string(pt("B3"))
    assert white.stones == points("B3 C3 D3")
    assert white.liberties == {pt("D2")}
    state = play(state, "D2")
    for v in ("B3", "C3", "D3"):
        assert state.board.get(pt(v)) is None
    top = state.board.get_go_string(pt("B4"))
    assert top.stones == points("B4 C4 D4")
    assert top.liberties == points("A4 E4 B3 C3 D3")
    bottom = state.board.get_go_string(pt("B2"))
    assert bottom.stones == points("B2 C2 D2")
    assert bottom.liberties == points("A2 E2 B1 C1 D1 B3 C3 D3")
    assert state.board.get_go_string(pt("A3")).liberties == points("A4 A2 B3")


def test_liberties_after_merges():
    board = Board(9, 9)
    board.place_stone(B, pt("C3"))
    board.place_stone(B, pt("E3"))
    assert board.get_go_string(pt("C3")) != board.get_go_string(pt("E3"))
    board.place_stone(W, pt("D4"))
    assert board.get_go_string(pt("D4")).liberties == points("C4 E4 D5 D3")
    board.place_stone(B, pt("D3"))  # joins C3 and E3 and takes a liberty from D4
    chain = board.get_go_string(pt("C3"))
    assert chain == board.get_go_string(pt("D3")) == board.get_go_string(pt("E3"))
    assert chain.stones == points("C3 D3 E3")
    assert chain.liberties == points("B3 F3 C2 D2 E2 C4 E4")
    assert chain.num_liberties == 7
    assert board.get_go_string(pt("D4")).liberties == points("C4 E4 D5")
    # Merging with a shared liberty counts it once.
    board.place_stone(B, pt("C4"))
    chain = board.get_go_string(pt("C4"))
    assert chain.stones == points("C3 D3 E3 C4")
    assert chain.liberties == points("B3 F3 C2 D2 E2 E4 B4 C5")
    assert chain.num_liberties == 8
    assert board.get_go_string(pt("D4")).num_liberties == 2
    # Stones of the other colour never merge.
    assert board.get_go_string(pt("D4")).stones == {pt("D4")}
    assert board.get_go_string(pt("D4")).color is W


def test_capture_makes_zero_liberty_placement_legal():
    """Book fig 3.4: a stone with no liberties of its own is legal when it captures."""
    state = state_from(
        """
        X . . .
        O X . .
        . O X .
        """
    )
    move = Move.play(pt("A1"))
    assert not state.is_move_self_capture(B, move)
    assert state.is_valid_move(move)
    assert move in state.legal_moves()
    state = state.apply_move(move)
    assert state.board.get(pt("A2")) is None and state.board.get(pt("B1")) is None
    assert state.board.get_go_string(pt("A1")).liberties == points("A2 B1")
    assert state.ko_point == 0  # two stones captured: not a ko


def test_single_stone_suicide_rejected():
    state = state_from(
        """
        . . . .
        O . . .
        . O . .
        """
    )
    move = Move.play(pt("A1"))
    assert state.is_move_self_capture(B, move)
    assert not state.is_valid_move(move)
    assert move not in state.legal_moves()
    # For White the same point is merely filling its own eye.
    assert not state.is_move_self_capture(W, move)


def test_multi_stone_suicide_rejected():
    state = state_from(
        """
        . . . .
        O O . .
        . X O .
        """
    )
    move = Move.play(pt("A1"))
    assert state.is_move_self_capture(B, move)
    assert not state.is_valid_move(move)
    assert move not in state.legal_moves()
    # Once the black stone has a second liberty, the same point is fine.
    roomy = state_from(
        """
        . . . .
        O O . .
        . X . .
        """
    )
    assert roomy.is_valid_move(move)


def test_snapback_is_legal():
    state = state_from(
        """
        . . . . . .
        . X X X X .
        X O O O O X
        X O . . O X
        """
    )
    assert state.board.get_go_string(pt("B1")).liberties == points("C1 D1")
    state = play(state, "C1")  # throw-in: self-atari, not suicide
    assert state.board.get_go_string(pt("C1")).liberties == {pt("D1")}
    state = play(state, "D1")  # white takes one stone...
    assert state.board.get(pt("C1")) is None
    white = state.board.get_go_string(pt("D1"))
    assert white.stones == points("B1 B2 C2 D2 E2 E1 D1")
    assert white.liberties == {pt("C1")}
    assert valid(state, "C1")  # ...and black takes back seven: not a ko
    state = play(state, "C1")
    assert {p for p, c in state.board.stones() if c is W} == set()
    assert state.ko_point == 0


KO = """
. . . . . .
. . . . . .
. O X . . .
O . O X . .
. O X . . .
. . . . . .
"""


def test_simple_ko_rejected_then_legal_after_ko_threat():
    state = state_from(KO)  # black to capture the white stone at C3 by playing B3
    state = play(state, "B3")
    assert state.board.get(pt("C3")) is None
    assert state.ko_point == state.board.geometry.index(pt("C3"))
    assert not valid(state, "C3"), "immediate ko recapture must be illegal"
    assert Move.play(pt("C3")) not in state.legal_moves()
    state = play(state, "F6", "F5")  # ko threat and answer elsewhere
    assert state.ko_point == 0
    assert valid(state, "C3")
    state = play(state, "C3")
    assert state.board.get(pt("B3")) is None
    assert not valid(state, "B3")  # and now Black faces the same ko


def test_ko_capture_becomes_legal_after_pass():
    state = play(state_from(KO), "B3")
    state = play(state, "pass", "F6")  # white passes, black plays elsewhere
    assert valid(state, "C3")


# Two independent kos at the bottom edge of a 9x9 board. In each, a stone sits in atari on the
# first line: ko 1 is (B1 white | C1 black), ko 2 is (G1 white | H1 black).
TWO_KOS = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
X X O O . X X O O
X {k1} O . X {k2} O
"""


def _two_kos(k1: str, k2: str, to_move: Player) -> GameState:
    """k1/k2: 'w' (white stone in atari, black may capture) or 'b' (black stone in atari)."""
    cells = {"w": "O .", "b": ". X"}
    return state_from(TWO_KOS.format(k1=cells[k1], k2=cells[k2]), to_move)


def test_superko_cycle_rejected_but_other_player_to_move_allowed():
    # Ko 1 holds a black stone, ko 2 a white one; White to move.
    state = _two_kos("b", "w", W)
    start_board = state.board.copy()
    state = play(state, "B1")  # W takes ko 1            (w, w) Black to move
    state = play(state, "H1")  # B takes ko 2            (w, b) White to move
    state = play(state, "pass")  # W passes              (w, b) Black to move
    state = play(state, "C1")  # B retakes ko 1          (b, b) White to move
    # White retaking ko 2 recreates the starting board, but with Black to move, whereas at the
    # start White was to move: situational superko allows it (positional superko would not).
    assert valid(state, "G1")
    state = play(state, "G1")  # (b, w) Black to move
    assert state.board == start_board
    assert state.situation_hash() != state.root().situation_hash()
    state = play(state, "pass")  # (b, w) White to move: the starting situation again (a pass)
    assert state.situation_hash() == state.root().situation_hash()
    # Now White taking ko 1 would repeat (w, w) with Black to move from move 1. This is no
    # simple ko (the last move was a pass), only superko forbids it.
    assert state.ko_point == 0
    assert not state.is_move_self_capture(W, Move.play(pt("B1")))
    assert state.does_move_violate_ko(W, Move.play(pt("B1")))
    assert not valid(state, "B1")
    assert Move.play(pt("B1")) not in state.legal_moves()


# Three kos on a 9x9 board: bottom left (B1 | C1), bottom right (G1 | H1), top left (B9 | C9).
THREE_KOS = """
X {k3} O . . . . .
X X O O . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
X X O O . X X O O
X {k1} O . X {k2} O
"""


def test_triple_ko_cycle_rejected():
    cells = {"w": "O .", "b": ". X"}
    state = state_from(THREE_KOS.format(k1=cells["b"], k2=cells["w"], k3=cells["w"]), B)
    start = state.situation_hash()
    # Each capture is in a different ko than the one just taken, so simple ko never applies.
    state = play(state, "H1")  # B takes ko 2
    state = play(state, "B1")  # W takes ko 1
    state = play(state, "C9")  # B takes ko 3
    state = play(state, "G1")  # W takes ko 2
    state = play(state, "C1")  # B takes ko 1
    assert state.ko_point != state.board.geometry.index(pt("B9"))
    # White taking ko 3 would restore the starting position with Black to move.
    assert not valid(state, "B9")
    assert state.does_move_violate_ko(W, Move.play(pt("B9")))
    assert state.apply_move(Move.play(pt("B9"))).situation_hash() == start
    assert valid(state, "J5")  # other moves remain possible


# --- ending the game --------------------------------------------------------------------------
def test_two_passes_end_the_game():
    state = GameState.new_game(5)
    state = play(state, "C3", "pass")
    assert not state.is_over()
    state = play(state, "pass")
    assert state.is_over()
    assert state.legal_moves() == []
    assert not state.is_valid_move(Move.pass_turn())
    assert not state.is_valid_move(Move.play(pt("D4")))
    # 25 points, black has them all (one stone, no white stone): B+25-7.5.
    assert state.winner() is B
    assert str(compute_game_result(state)) == "B+17.5"


@pytest.mark.parametrize("resigner", [B, W])
def test_resign_ends_the_game_and_the_other_player_wins(resigner):
    state = GameState.new_game(9)
    if resigner is W:
        state = play(state, "E5")
    assert state.next_player is resigner
    state = play(state, "resign")
    assert state.is_over()
    assert state.winner() is resigner.other
    assert not state.is_valid_move(Move.play(pt("A1")))
    assert not state.is_valid_move(Move.pass_turn())
    assert not state.is_valid_move(Move.resign())
    assert state.legal_moves() == []


def test_winner_is_none_before_the_end():
    state = play(GameState.new_game(9), "E5", "pass")
    assert state.winner() is None


def test_legal_moves_contain_pass_not_resign_unless_asked():
    state = GameState.new_game(3)
    moves = state.legal_moves()
    assert Move.pass_turn() in moves
    assert Move.resign() not in moves
    assert len(moves) == 9 + 1
    with_resign = state.legal_moves(include_resign=True)
    assert Move.resign() in with_resign and Move.pass_turn() in with_resign
    assert len(with_resign) == 9 + 2
    state = play(state, "B2")
    assert Move.play(pt("B2")) not in state.legal_moves()
    assert len(state.legal_moves()) == 8 + 1


def test_move_kinds():
    assert Move.play(pt("C3")).is_play and not Move.play(pt("C3")).is_pass
    assert Move.pass_turn().is_pass and not Move.pass_turn().is_play
    assert Move.resign().is_resign and not Move.resign().is_play
    assert Move.play(pt("C3")) == Move.play(Point(3, 3))
    assert Move.play(pt("C3")) != Move.play(pt("D3"))
    assert Move.pass_turn() != Move.resign()


def test_apply_move_leaves_the_old_state_alone():
    state = GameState.new_game(9)
    after = play(state, "E5")
    assert state.board.get(pt("E5")) is None
    assert after.board.get(pt("E5")) is B
    assert after.previous_state is state
    assert after.next_player is W
    assert after.moves() == [Move.play(pt("E5"))]


# --- board sizes ------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [2, 3, 4, 5, 9, 13, 19, 25])
def test_square_board_sizes(size):
    state = GameState.new_game(size)
    assert len(state.legal_moves()) == size * size + 1
    corner, far = Point(1, 1), Point(size, size)
    assert state.board.is_on_grid(corner) and state.board.is_on_grid(far)
    assert not state.board.is_on_grid(Point(size + 1, 1))
    assert not state.board.is_on_grid(Point(0, 1))
    state = state.apply_move(Move.play(corner)).apply_move(Move.play(far))
    assert state.board.get(corner) is B and state.board.get(far) is W
    assert state.board.get_go_string(corner).num_liberties == 2
    assert coords_from_point(far) == "ABCDEFGHJKLMNOPQRSTUVWXYZ"[size - 1] + str(size)


def test_2x2_board_plays_out():
    state = play(GameState.new_game(2), "A1", "B2")
    assert state.board.get_go_string(pt("A1")).liberties == points("A2 B1")
    state = play(state, "A2")  # B: A1-A2, W: B2, both with the one liberty B1
    assert state.board.get_go_string(pt("B2")).liberties == {pt("B1")}
    assert state.board.get_go_string(pt("A2")).liberties == {pt("B1")}
    assert not state.is_move_self_capture(W, Move.play(pt("B1")))  # it captures first
    state = play(state, "B1")
    assert state.board.get(pt("A1")) is None and state.board.get(pt("A2")) is None
    assert state.board.get_go_string(pt("B1")).liberties == points("A1 A2")
    assert state.ko_point == 0
    result = compute_game_result(state)
    assert (result.b, result.w) == (0, 4)


def test_rectangular_board():
    state = GameState.new_game((5, 9))
    board = state.board
    assert (board.num_rows, board.num_cols) == (5, 9)
    assert len(state.legal_moves()) == 45 + 1
    assert board.is_on_grid(Point(5, 9)) and not board.is_on_grid(Point(9, 5))
    assert not state.is_valid_move(Move.play(Point(9, 5)))
    state = play(state, "J5", "A1", "H5", "B1", "J4")
    assert state.board.get_go_string(pt("J5")).stones == points("J5 H5 J4")
    assert state.board.get_go_string(pt("J5")).liberties == points("G5 H4 J3")
    result = compute_game_result(state)
    assert result.b + result.w <= 45


@pytest.mark.parametrize("size", [(1, 1), (26, 26), (1, 9), (9, 26), (0, 5)])
def test_bad_board_sizes_raise(size):
    with pytest.raises(ValueError):
        Board(*size)
    with pytest.raises(ValueError):
        GameState.new_game(size)


def test_point_helpers_skip_i():
    assert coords_from_point(Point(1, 8)) == "H1"
    assert coords_from_point(Point(1, 9)) == "J1"
    assert point_from_coords("j10") == Point(10, 9)
    with pytest.raises(ValueError):
        point_from_coords("I5")


# --- eyes (book listing 3.15) -----------------------------------------------------------------
def test_eye_interior_needs_three_of_four_diagonals():
    three = board_from(
        """
        . . . . .
        . X X . .
        . X . X .
        . X X X .
        . . . . .
        """
    )
    assert is_point_an_eye(three, pt("C3"), B)
    assert not is_point_an_eye(three, pt("C3"), W)
    two = board_from(
        """
        . . . . .
        . X X O .
        . X . X .
        . O X X .
        . . . . .
        """
    )
    assert not is_point_an_eye(two, pt("C3"), B)
    open_side = board_from(
        """
        . . . . .
        . X X X .
        . X . . .
        . X X X .
        . . . . .
        """
    )
    assert not is_point_an_eye(open_side, pt("C3"), B)
    assert not is_point_an_eye(three, pt("B2"), B)  # occupied


def test_eye_on_edge_and_corner_needs_all_diagonals():
    edge = board_from(
        """
        . . . . .
        . . . . .
        . . . . .
        . X X X .
        . X . X .
        """
    )
    assert is_point_an_eye(edge, pt("C1"), B)
    edge_broken = board_from(
        """
        . . . . .
        . . . . .
        . . . . .
        . O X X .
        . X . X .
        """
    )
    assert not is_point_an_eye(edge_broken, pt("C1"), B)
    corner = board_from(
        """
        . . . .
        X . . .
        . X . .
        """
    )
    assert not is_point_an_eye(corner, pt("A1"), B)
    corner_full = board_from(
        """
        . . . .
        X X . .
        . X . .
        """
    )
    assert is_point_an_eye(corner_full, pt("A1"), B)
    corner_white_diag = board_from(
        """
        . . . .
        X O . .
        . X . .
        """
    )
    assert not is_point_an_eye(corner_white_diag, pt("A1"), B)


# --- scoring (book 2.2.3) ---------------------------------------------------------------------
def test_area_count_with_komi():
    state = state_from(
        """
        . X O . .
        . X O . .
        X X O . .
        . X O O O
        . X O . .
        """,
        komi=0.5,
    )
    # Black: 6 stones + 4 territory (A1 A2 A4 A5) = 10; White: 7 stones + 8 territory = 15.
    t = evaluate_territory(state.board)
    assert (t.num_black_stones, t.num_black_territory) == (6, 4)
    assert (t.num_white_stones, t.num_white_territory) == (7, 8)
    assert t.num_dame == 0
    result = compute_game_result(state)
    assert (result.b, result.w, result.komi) == (10, 15, 0.5)
    assert result.winner is W
    assert result.winning_margin == 5.5
    assert str(result) == "W+5.5"


def test_dame_is_nobodys():
    state = state_from(
        """
        X . O
        X . O
        X . O
        """,
        komi=0,
    )
    t = evaluate_territory(state.board)
    assert t.num_dame == 3 and set(t.dame_points) == points("B1 B2 B3")
    result = compute_game_result(state)
    assert (result.b, result.w) == (3, 3)


def test_jigo_with_integer_komi():
    state = state_from(
        """
        . X O .
        X X O O
        . X O .
        . X O .
        """,
        komi=0,
    )
    result = compute_game_result(state)
    assert (result.b, result.w) == (8, 8)
    assert result.winner is None
    assert result.winning_margin == 0
    assert str(result) == "0"
    ended = play(state, "pass", "pass")
    assert ended.is_over() and ended.winner() is None
    assert str(compute_game_result(state_from("X X\n. .", komi=4))) == "0"


def test_result_strings():
    black_wins = state_from(". X O\n. X O\n. X O", komi=0.5)  # B 6, W 3
    assert str(compute_game_result(black_wins)) == "B+2.5"
    assert compute_game_result(black_wins).winner is B
    white_wins = state_from(". X O\n. X O\n. X O", komi=3.5)
    assert str(compute_game_result(white_wins)) == "W+0.5"
    assert compute_game_result(white_wins).winner is W
    assert str(compute_game_result(state_from(". X O\n. X O\n. X O", komi=-2))) == "B+5"


# A finished 9x9 game (Black's area on the left, White's on the right) with one dead white
# stone (C7) inside Black's area and one dead black stone (H8) inside White's.
FINISHED_9X9 = """
. . . . X O . . .
. . . . X O . X .
. . O . X O . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
"""


def test_book_scoring_example_with_dead_stones():
    state = state_from(FINISHED_9X9, komi=7.5)
    dead = [pt("C7"), pt("H8")]
    # By hand, dead stones off: Black's area is columns A-D on rows 1-6 (24) plus A-E on rows
    # 7-9 (15): 9 stones + 30 points = 39. White's is the other 81 - 39 = 42: 9 stones + 33.
    # 39 against 42 + 7.5 komi: W+10.5.
    t = evaluate_territory(state.board, dead)
    assert (t.num_black_stones, t.num_black_territory) == (9, 30)
    assert (t.num_white_stones, t.num_white_territory) == (9, 33)
    assert t.num_dame == 0
    result = compute_game_result(state, dead_stones=dead)
    assert (result.b, result.w) == (39, 42)
    assert result.winner is W
    assert result.winning_margin == 10.5
    assert str(result) == "W+10.5"
    # Counted strictly (Tromp-Taylor: every stone alive) both areas touch an enemy stone, so all
    # empty points are dame and only the 10 + 10 stones count: W+7.5.
    strict = compute_game_result(state)
    assert (strict.b, strict.w) == (10, 10)
    assert str(strict) == "W+7.5"
    # Dead stones may be given in any iterable, and the board is left alone.
    assert compute_game_result(state, dead_stones=iter(dead)) == result
    assert state.board.get(pt("C7")) is W


# --- handicap ---------------------------------------------------------------------------------
GNUGO_FIXED_HANDICAP = {
    9: {
        2: "G7 C3",
        3: "C7 G7 C3",
        4: "C7 G7 C3 G3",
        5: "C7 G7 E5 C3 G3",
        6: "C7 G7 C5 G5 C3 G3",
        7: "C7 G7 C5 E5 G5 C3 G3",
        8: "C7 E7 G7 C5 G5 C3 E3 G3",
        9: "C7 E7 G7 C5 E5 G5 C3 E3 G3",
    },
    13: {
        2: "K10 D4",
        3: "D10 K10 D4",
        4: "D10 K10 D4 K4",
        5: "D10 K10 G7 D4 K4",
        6: "D10 K10 D7 K7 D4 K4",
        7: "D10 K10 D7 G7 K7 D4 K4",
        8: "D10 G10 K10 D7 K7 D4 G4 K4",
        9: "D10 G10 K10 D7 G7 K7 D4 G4 K4",
    },
    19: {
        2: "Q16 D4",
        3: "D16 Q16 D4",
        4: "D16 Q16 D4 Q4",
        5: "D16 Q16 K10 D4 Q4",
        6: "D16 Q16 D10 Q10 D4 Q4",
        7: "D16 Q16 D10 K10 Q10 D4 Q4",
        8: "D16 K16 Q16 D10 Q10 D4 K4 Q4",
        9: "D16 K16 Q16 D10 K10 Q10 D4 K4 Q4",
    },
    7: {2: "E5 C3", 4: "C5 E5 C3 E3"},
    8: {2: "F6 C3"},
    10: {2: "H8 C3"},
}


@pytest.mark.parametrize(
    "size,stones,expected",
    [(size, n, text) for size, table in GNUGO_FIXED_HANDICAP.items() for n, text in table.items()],
)
def test_fixed_handicap_table(size, stones, expected):
    assert [coords_from_point(p) for p in fixed_handicap_points(size, stones)] == expected.split()


@pytest.mark.parametrize("size,stones", [(8, 5), (6, 2), (6, 4), (7, 5), (19, 10), (19, 1), (19, 0), (5, 2)])
def test_fixed_handicap_invalid_counts_raise(size, stones):
    with pytest.raises(ValueError):
        fixed_handicap_points(size, stones)


@pytest.mark.gnugo
def test_fixed_handicap_matches_gnugo(gnugo):
    checked = 0
    for size in range(7, 20):
        gnugo.send(f"boardsize {size}")
        for stones in range(0, 12):
            gnugo.send("clear_board")
            ok, answer = gnugo.ask(f"fixed_handicap {stones}")
            if ok:
                ours = [coords_from_point(p) for p in fixed_handicap_points(size, stones)]
                assert ours == answer.split(), f"{size}x{size}, {stones} stones"
                assert max_fixed_handicap(size) >= stones
                checked += 1
            else:
                with pytest.raises(ValueError):
                    fixed_handicap_points(size, stones)
    assert checked == 6 * 8 + 7 * 3  # 9, 11, .., 19 take 2-9; 7, 8, 10, .., 18 take 2-4


def test_handicap_game_black_stones_white_to_move():
    pts = fixed_handicap_points(19, 4)
    state = handicap_game(19, pts)
    assert state.next_player is W
    assert {p for p, _ in state.board.stones()} == set(pts)
    assert all(c is B for _, c in state.board.stones())
    assert state.komi == 0.5
    assert state.move_number == 0
    assert not state.is_valid_move(Move.play(pts[0]))
    assert state.is_valid_move(Move.play(pt("K10")))
    with pytest.raises(ValueError):
        handicap_game(9, [pt("E5"), pt("E5")])
    with pytest.raises(ValueError):
        handicap_game(9, [pt("K10")])


@pytest.mark.parametrize("size", [9, 13, 19])
def test_free_handicap_points(size):
    for n in range(2, 21):
        pts = free_handicap_points(size, n)
        assert len(pts) == n
        assert len(set(pts)) == n, f"duplicates for {n} on {size}x{size}"
        assert all(1 <= p.row <= size and 1 <= p.col <= size for p in pts)
        if n <= max_fixed_handicap(size):
            assert set(pts) == set(fixed_handicap_points(size, n))
    with pytest.raises(ValueError):
        free_handicap_points(size, 1)
    with pytest.raises(ValueError):
        free_handicap_points(size, size * size)


# --- playing for either colour, why a move is illegal, komi ----------------------------------
def test_illegal_reason_names_each_rule():
    state = play(state_from(KO), "B3")  # White may not retake at C3 at once
    assert state.illegal_reason(W, Move.play(pt("C3"))) == "ko (retakes at once)"
    assert state.illegal_reason(W, Move.play(pt("B3"))) == "the point is occupied"
    assert state.illegal_reason(W, Move.play(Point(7, 1))) == "off the 6x6 board"
    assert state.illegal_reason(W, Move.play(pt("F6"))) is None
    assert state.illegal_reason(W, Move.pass_turn()) is None
    suicide = state_from(". X\nX .", to_move=W)
    assert suicide.illegal_reason(W, Move.play(pt("A2"))) == "suicide"
    assert suicide.illegal_reason(B, Move.play(pt("A2"))) is None  # whoever is to move


def test_play_as_for_the_player_to_move_is_apply_move():
    state = state_from(KO)
    move = Move.play(pt("B3"))
    a, b = state.play_as(B, move), state.apply_move(move)
    assert a.board == b.board and a.next_player == b.next_player and a.ko_point == b.ko_point


def test_play_as_the_other_colour_keeps_one_history():
    state = state_from(KO)  # Black to move; White plays twice
    after = state.play_as(W, Move.play(pt("F6")))
    assert after.board.get(pt("F6")) is W and after.next_player is B
    assert after.previous_state is state and after.move_number == state.move_number + 1
    assert state.situation_hash() in after.previous_states


def test_with_komi_returns_new_states_and_leaves_the_old_ones():
    start = GameState.new_game(5, komi=7.5)
    state = play(start, "C3", "D4")
    renewed = state.with_komi(0.5)
    assert state.komi == 7.5 and start.komi == 7.5, "the old states are unchanged"
    s: GameState | None = renewed
    while s is not None:
        assert s.komi == 0.5
        s = s.previous_state
    assert renewed.board == state.board and renewed.moves() == state.moves()
    assert renewed.situation_hash() == state.situation_hash()
    assert renewed.previous_states == state.previous_states
    assert state.with_komi(7.5) is state
