"""SGF reading and writing (dlgo.sgf)."""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

import pytest

from dlgo.agent.naive import RandomBot
from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.handicap import fixed_handicap_points, handicap_game
from dlgo.sgf import SgfError, SgfGame, play_as, read_game, save_game, write_game

B, W = Player.black, Player.white
KGS_ARCHIVE = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "kgs" / "KGS-2001-19-2298-.tar.gz"


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


# --- round trips -----------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "seed"), [(9, 1), (9, 2), (13, 3), ((7, 11), 4), ((11, 5), 5), (5, 6)])
def test_round_trip_random_games(size, seed):
    final = random_game(size, seed)
    moves = final.moves()
    comments = [f"t={i * 0.5:.1f}s" if i % 3 else None for i in range(len(moves))]
    text = write_game(final, black_name="Black bot", white_name="White bot", comments=comments, date="2024-05-06")
    game = read_game(text)
    rows, cols = (size, size) if isinstance(size, int) else size
    assert game.board_size == (rows, cols)
    assert game.komi == 7.5
    assert game.handicap == 0
    assert [m for _, m in game.moves] == moves
    assert [p for p, _ in game.moves] == [B if i % 2 == 0 else W for i in range(len(moves))]
    assert game.comments == comments
    assert game.final_state.board == final.board
    assert game.final_state.next_player == final.next_player
    assert (game.black_name, game.white_name, game.rules, game.date) == (
        "Black bot",
        "White bot",
        "Chinese",
        "2024-05-06",
    )
    states = game.states()
    assert len(states) == len(moves) + 1
    assert states[0] is game.initial_state and states[-1] is game.final_state
    # What is read writes back to the same thing.
    assert write_game(game) == text
    assert_same_game(read_game(write_game(game)), game)


def test_round_trip_move_list_and_initial_state():
    start = GameState.new_game(9, komi=5.5)
    moves = [(B, Move.play(Point(3, 3))), (W, Move.play(Point(7, 7))), (B, Move.pass_turn()), (W, Move.pass_turn())]
    text = write_game(moves, start, rules="Japanese", result="W+2.5")
    game = read_game(text)
    assert game.moves == moves
    assert game.komi == 5.5 and game.rules == "Japanese" and game.result == "W+2.5" and game.winner is W
    assert "B[]" in text and "W[]" in text and "tt" not in text
    with pytest.raises(ValueError):
        write_game(moves)


def test_two_passes_give_an_area_count_result():
    state = GameState.new_game(5, komi=0.5)
    state = state.apply_move(Move.play(Point(3, 3)))
    state = state.apply_move(Move.pass_turn()).apply_move(Move.pass_turn())
    game = read_game(write_game(state))
    assert game.result == "B+24.5" and game.winner is B


def test_resign_is_written_as_result_only():
    state = GameState.new_game(9).apply_move(Move.play(Point(5, 5))).apply_move(Move.resign())
    text = write_game(state)
    assert "RE[B+R]" in text
    game = read_game(text)
    assert game.result == "B+R" and game.winner is B
    assert game.moves == [(B, Move.play(Point(5, 5)))]
    with pytest.raises(ValueError, match="resignation"):
        write_game([(B, Move.resign()), (W, Move.pass_turn())], GameState.new_game(9))


def test_round_trip_handicap_game(tmp_path):
    start = handicap_game(19, fixed_handicap_points(19, 4), komi=0.5)
    final = random_game(19, 7, max_moves=40, start=start)
    path = tmp_path / "handicap.sgf"
    save_game(path, final, black_name="Kim", white_name="Lee")
    text = path.read_text(encoding="utf-8")
    assert "HA[4]" in text and "AB[" in text and "AW[" not in text and "PL[" not in text
    game = read_game(path)
    assert game.handicap == 4
    assert game.komi == 0.5
    assert game.initial_state.next_player is W
    assert game.moves[0][0] is W
    assert {p for p, _ in game.initial_state.board.stones()} == set(fixed_handicap_points(19, 4))
    assert game.final_state.board == final.board
    assert game.name == str(path)


def test_handicap_without_moves_has_white_to_move():
    game = read_game("(;GM[1]FF[4]SZ[9]HA[2]AB[cc][gg])")
    assert game.initial_state.next_player is W
    assert game.komi == 0.0  # KM missing in a handicap game
    assert read_game(write_game(game)).initial_state.next_player is W


def test_round_trip_general_setup_and_player_to_move():
    board = Board(9, 9)
    board.place_stone(B, Point(3, 3))
    board.place_stone(W, Point(3, 4))
    board.place_stone(B, Point(7, 7))
    start = GameState.from_position(board, W, komi=6.5)
    text = write_game(start)
    assert "AB[" in text and "AW[" in text and "PL[W]" in text and "HA[" not in text
    game = read_game(text)
    assert game.initial_state.board == board
    assert game.initial_state.next_player is W
    assert game.handicap == 0 and game.moves == []


def test_round_trip_names_with_special_characters():
    state = GameState.new_game(9).apply_move(Move.play(Point(1, 1)))
    text = write_game(state, black_name="Ärger ] \\ 囲碁", white_name="W:1", comments=["line one\nline two ]"])
    game = read_game(text)
    assert game.black_name == "Ärger ] \\ 囲碁"
    assert game.white_name == "W:1"
    assert game.comments == ["line one\nline two ]"]
    assert read_game(text.encode("utf-8")).black_name == "Ärger ] \\ 囲碁"


def test_same_colour_twice_is_applied():
    game = read_game("(;GM[1]FF[4]SZ[9];B[cc];B[gg];W[ee];W[])")
    assert [p for p, _ in game.moves] == [B, B, W, W]
    states = game.states()
    assert [s.next_player for s in states] == [B, W, W, B, B]
    assert states[2].board.get(Point(3, 7)) is B and states[2].previous_state is states[1]
    assert_same_game(read_game(write_game(game)), game)
    # play_as on the player to move is apply_move.
    s = GameState.new_game(9)
    assert play_as(s, B, Move.play(Point(1, 1))).board == s.apply_move(Move.play(Point(1, 1))).board


def test_white_first_without_pl_takes_the_first_move_colour():
    game = read_game("(;GM[1]FF[4]SZ[9]AB[cc]AW[gg];W[ee];B[dd])")
    assert game.initial_state.next_player is W
    assert [p for p, _ in game.moves] == [W, B]


# --- setup -----------------------------------------------------------------------------------


def test_setup_stones_ab_aw_ae():
    text = "(;GM[1]FF[4]SZ[9]AB[aa][bb:cc]AW[ii][hi]PL[W];AB[ee]AW[ff]AE[aa][bc];W[dd];B[gg])"
    game = read_game(text)
    stones = dict(game.initial_state.board.stones())
    # SGF bb:cc is columns b-c, rows 8-7 from the bottom; the next node
    # removes B7 and A9 with AE.
    assert stones == {
        Point(8, 2): B,
        Point(8, 3): B,
        Point(7, 3): B,
        Point(1, 9): W,
        Point(1, 8): W,
        Point(5, 5): B,
        Point(4, 6): W,
    }
    assert game.initial_state.next_player is W
    assert game.moves == [(W, Move.play(Point(6, 4))), (B, Move.play(Point(3, 7)))]
    assert_same_game(read_game(write_game(game)), game)


def test_setup_after_a_move_is_unsupported():
    with pytest.raises(SgfError, match="after move 2"):
        read_game("(;GM[1]FF[4]SZ[9];B[cc];W[gg];AB[ee];B[dd])", name="mid.sgf")


@pytest.mark.parametrize(
    "setup",
    ["AB[aa]AW[ab][ba]", "AB[cc]AW[cc]", "AB[zz]"],
)
def test_bad_setup_raises(setup):
    with pytest.raises(SgfError, match="setup.sgf"):
        read_game(f"(;GM[1]FF[4]SZ[9]{setup})", name="setup.sgf")


# --- sizes and passes ------------------------------------------------------------------------


def test_passes_empty_and_tt():
    game = read_game("(;GM[1]FF[4]SZ[19];B[dd];W[];B[tt];W[tt];B[aa])")
    assert [m for _, m in game.moves] == [
        Move.play(Point(16, 4)),
        Move.pass_turn(),
        Move.pass_turn(),
        Move.pass_turn(),
        Move.play(Point(19, 1)),
    ]
    assert read_game("(;GM[1]FF[4]SZ[13];B[tt])").moves == [(B, Move.pass_turn())]


def test_tt_is_a_point_above_19():
    game = read_game("(;GM[1]FF[4]SZ[21];B[tt])")
    assert game.moves == [(B, Move.play(Point(2, 20)))]


def test_rectangular_board():
    # SZ is columns:rows; aa is the top left corner, the second letter counts rows from the top.
    game = read_game("(;GM[1]FF[4]SZ[19:13];B[aa];W[sm];B[tt])")
    assert game.board_size == (13, 19)
    assert game.moves == [(B, Move.play(Point(13, 1))), (W, Move.play(Point(1, 19))), (B, Move.pass_turn())]
    assert "SZ[19:13]" in write_game(game)
    assert_same_game(read_game(write_game(game)), game)


def test_missing_size_is_19_and_smallest_is_2():
    assert read_game("(;GM[1]FF[4];B[ss])").moves == [(B, Move.play(Point(1, 19)))]
    assert read_game("(;SZ[2];B[ab])").board_size == (2, 2)


# --- komi and results ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("km", "komi"),
    [
        ("6.5", 6.5),
        ("650", 6.5),
        ("7.500000", 7.5),
        ("0.50", 0.5),
        ("-5.5", -5.5),
        ("-650", -6.5),
        ("0", 0.0),
        ("6", 6.0),
        ("6,5", 6.5),
        (" 7.5 ", 7.5),
        ("150", 150.0),
    ],
)
def test_komi_spellings(km, komi):
    game = read_game(f"(;GM[1]FF[4]SZ[9]KM[{km}];B[cc])")
    assert game.komi == komi
    assert game.initial_state.komi == komi and game.final_state.komi == komi
    assert read_game(write_game(game)).komi == komi


def test_missing_komi_defaults():
    assert read_game("(;GM[1]FF[4]SZ[9])").komi == 7.5
    assert read_game("(;GM[1]FF[4]SZ[9]HA[3]AB[cc][gg][cg])").komi == 0.0


def test_bad_komi_raises():
    with pytest.raises(SgfError, match="komi"):
        read_game("(;GM[1]FF[4]SZ[9]KM[six])")


@pytest.mark.parametrize(
    ("re", "winner"),
    [
        ("W+Resign", W),
        ("B+0.5", B),
        ("Void", None),
        ("B+Time", B),
        ("W+R", W),
        ("b+12", B),
        ("0", None),
        ("Draw", None),
        ("?", None),
    ],
)
def test_results(re, winner):
    game = read_game(f"(;GM[1]FF[4]SZ[9]RE[{re}];B[cc])")
    assert game.result == re
    assert game.winner is winner
    assert read_game(write_game(game)).result == re


def test_no_result():
    game = read_game("(;GM[1]FF[4]SZ[9];B[cc])")
    assert game.result is None and game.winner is None
    assert "RE[" not in write_game(game)


# --- illegal moves ---------------------------------------------------------------------------

# A double ko on 9x9: Black can take at C7, White at C3 (the set-up position has no captures).
DOUBLE_KO = "(;GM[1]FF[4]SZ[9]AB[bb][ac][bd][cf][bg][ch][dg]AW[cb][bc][dc][cd][bf][ag][bh]PL[B]"


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        (";B[cc];W[cc]", r"move 2 \(W C7\) is illegal: point is occupied"),
        (";B[ab];W[dd];B[ba];W[ee];B[ff];W[aa]", r"move 6 \(W A9\) is illegal: suicide"),
        (";B[za]", r"move 1 \(B .*\) is illegal: off the 9x9 board"),
        (";B[ee];W[ja]", r"move 2 \(W K9\) is illegal: off the 9x9 board"),
        (";B[e]", r"move 1 \(B \[e\]\) is illegal: not a point"),
        (";B[cc];W[dd];B[ee];W[A1]", r"move 4 \(W \[A1\]\) is illegal: not a point"),
    ],
)
def test_illegal_moves(moves, message, tmp_path):
    path = tmp_path / "game.sgf"
    path.write_text(f"(;GM[1]FF[4]SZ[9]{moves})")
    with pytest.raises(SgfError, match=f"^{re.escape(str(path))}: {message}"):
        read_game(path)


def test_ko_and_superko():
    with pytest.raises(SgfError, match=r"move 2 \(W B7\) is illegal: ko$"):
        read_game(DOUBLE_KO + ";B[cc];W[bc])", name="ko.sgf")
    # Both kos taken, both retaken with a pass in between; then Black's first capture again
    # repeats the position after move 1 with White to move.
    with pytest.raises(SgfError, match=r"^superko.sgf: move 7 \(B C7\) is illegal: superko$"):
        read_game(DOUBLE_KO + ";B[cc];W[cg];B[];W[bc];B[bg];W[];B[cc])", name="superko.sgf")
    game = read_game(DOUBLE_KO + ";B[cc];W[cg];B[];W[bc];B[bg];W[])")
    assert len(game.moves) == 6


def test_moves_after_two_passes_are_read():
    game = read_game("(;GM[1]FF[4]SZ[9];B[cc];W[];B[];W[gg];B[ee])")
    assert len(game.moves) == 5 and game.final_state.board.get(Point(5, 5)) is B


# --- malformed records -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"(;GM[1]FF[4]SZ[19];B[dd];W[pp", "malformed SGF"),
        (b"\x00\xff\xfe garbage \x89PNG\r\n", "malformed SGF"),
        (b"", "malformed SGF"),
        (b"(;GM[1]FF[4]SZ[30];B[dd])", "board size"),
        (b"(;GM[1]FF[4]SZ[1])", "board size"),
        (b"(;GM[1]FF[4]SZ[nineteen])", "board size"),
        (b"(;GM[1]FF[4]SZ[19]HA[lots])", "handicap"),
        (b"(;GM[1]FF[4]SZ[19]PL[X];B[aa])", "colour"),
        (b"(;GM[1]FF[4]SZ[19];B[aa]W[bb])", "both B and W"),
        (b"(;GM[1]FF[4]SZ[19];B[aa][bb])", "2 values"),
        (b"(;GM[2]FF[4]SZ[19])", "not a game of Go"),
    ],
)
def test_malformed_files(content, message, tmp_path):
    path = tmp_path / "broken.sgf"
    path.write_bytes(content)
    with pytest.raises(SgfError, match=message) as info:
        read_game(path)
    assert str(info.value).startswith(f"{path}: ")
    with pytest.raises(SgfError, match=message):
        read_game(content, name="bytes.sgf")


def test_missing_file(tmp_path):
    with pytest.raises(SgfError, match="nothing.sgf: cannot read"):
        read_game(tmp_path / "nothing.sgf")
    with pytest.raises(SgfError, match="nothing.sgf: cannot read"):
        read_game(str(tmp_path / "nothing.sgf"))


def test_sources_and_encodings(tmp_path):
    path = tmp_path / "latin.sgf"
    path.write_bytes("(;GM[1]FF[4]SZ[9]PB[Jos\xe9];B[cc])".encode("latin-1"))  # no CA: Latin-1
    assert read_game(path).black_name == "Jos\xe9"
    assert read_game(str(path)).black_name == "Jos\xe9"
    path.write_bytes("(;GM[1]FF[4]CA[UTF-8]SZ[9]PB[Jos\xe9];B[cc])".encode())
    assert read_game(path).black_name == "Jos\xe9"
    assert read_game(path.read_bytes()).black_name == "Jos\xe9"
    assert read_game("  (;GM[1]FF[4]SZ[9]PB[Jos\xe9];B[cc])").black_name == "Jos\xe9"
    assert read_game("\ufeff(;GM[1]FF[4]SZ[9]PB[Jos\xe9];B[cc])").black_name == "Jos\xe9"
    assert read_game("\ufeff(;GM[1]FF[4]SZ[9]PB[Jos\xe9];B[cc])".encode()).black_name == "Jos\xe9"


def test_variations_follow_the_main_line():
    game = read_game("(;GM[1]FF[4]SZ[9];B[cc](;W[gg];B[ee])(;W[dd]))")
    assert [m.point for _, m in game.moves] == [Point(7, 3), Point(3, 7), Point(5, 5)]


# --- real games ------------------------------------------------------------------------------


def test_kgs_archive():
    if not KGS_ARCHIVE.is_file():
        pytest.skip(f"KGS archive not found at {KGS_ARCHIVE}")
    parsed = failed = 0
    with tarfile.open(KGS_ARCHIVE) as tar:
        for member in tar:
            if not (member.isfile() and member.name.endswith(".sgf")):
                continue
            data = tar.extractfile(member).read()
            try:
                game = read_game(data, name=member.name)
            except SgfError as e:
                assert member.name in str(e)
                failed += 1
            else:
                parsed += 1
                assert game.board_size == (19, 19)
                assert len(game.states()) == len(game.moves) + 1
                assert_same_game(read_game(write_game(game)), game)
            if parsed + failed == 20:
                break
    assert parsed + failed == 20
    assert parsed >= 18
