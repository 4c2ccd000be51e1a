"""SGF reading and writing (dlgo.sgf)."""

from __future__ import annotations

import os
import re
import tarfile
import threading
from pathlib import Path

import pytest

from dlgo.agent.naive import RandomBot
from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.handicap import fixed_handicap_points, handicap_game
from dlgo.sgf import MAX_FILE_BYTES, Setup, SgfError, SgfGame, play_as, read_game, save_game, write_game

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


def test_setup_after_a_move_is_applied_there(caplog):
    text = "(;GM[1]FF[4]SZ[9];B[cc];W[gg];AB[ee]AE[cc];AW[aa]PL[W];W[dd];B[ff])"
    with caplog.at_level("WARNING", logger="dlgo.sgf"):
        game = read_game(text, name="mid.sgf")
    assert game.moves == [(B, Move.play(Point(7, 3))), (W, Move.play(Point(3, 7))), (W, Move.play(Point(6, 4))),
                          (B, Move.play(Point(4, 6)))]  # fmt: skip
    # Both setup nodes after move 2 make one Setup: E5 black, A9 white, C7 emptied, White to move.
    assert game.setups == {2: Setup(black=(Point(5, 5),), white=(Point(9, 1),), empty=(Point(7, 3),), player=W)}
    states = game.states()
    assert dict(states[2].board.stones()) == {Point(3, 7): W, Point(5, 5): B, Point(9, 1): W}
    assert states[2].next_player is W and states[2].previous_state.board.get(Point(7, 3)) is B
    assert [r.kind for r in game.repairs] == ["setup", "setup"]
    assert "mid.sgf: setup stones after move 2" in caplog.text
    # The setup is written back where it was; the record reads back the same.
    again = read_game(write_game(game), log_repairs=False)
    assert_same_game(again, game)
    assert again.setups == game.setups and again.states()[2].board == states[2].board
    # Setup in the first move's own node belongs to the initial position: no repair.
    first = read_game("(;GM[1]FF[4]SZ[9];AB[ee]B[cc];W[gg])")
    assert first.repairs == [] and first.initial_state.board.get(Point(5, 5)) is B


def test_setup_without_liberties_after_a_move_stops_there():
    game = read_game("(;GM[1]FF[4]SZ[9];B[ab];W[ee];AW[aa]AB[ba];B[cc])")
    assert len(game.moves) == 2 and [r.kind for r in game.repairs] == ["stopped"]
    assert "setup stone at A9 has no liberty" in game.repairs[0].message


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
    ("moves", "read", "message"),
    [
        (";B[cc];W[cc];B[dd]", 1, r"move 2 \(W C7\) is on an occupied point"),
        (";B[za];W[ee]", 0, r"move 1 \(B .*\) is off the 9x9 board"),
        (";B[ee];W[ja]", 1, r"move 2 \(W K9\) is off the 9x9 board"),
        (";B[e]", 0, r"move 1 \(B \[e\]\) is not a point"),
        (";B[cc];W[dd];B[ee];W[A1];B[ff]", 3, r"move 4 \(W \[A1\]\) is not a point"),
        (";B[cc];W[aa][bb]", 1, r"move 2: 2 values for W"),
    ],
)
def test_a_move_that_cannot_be_played_ends_the_main_line(moves, read, message, tmp_path):
    """As in GNU Go's loadsgf: the game up to that move is read, the rest is left out (and said)."""
    path = tmp_path / "game.sgf"
    path.write_text(f"(;GM[1]FF[4]SZ[9]{moves})")
    game = read_game(path)
    assert len(game.moves) == read and len(game.states()) == read + 1
    assert [r.kind for r in game.repairs] == ["stopped"]
    assert re.match(message, game.repairs[0].message), game.repairs[0].message
    assert f"read up to move {read}" in game.repairs[0].message


def test_suicide_is_played_and_reported_unless_the_rules_allow_it():
    moves = ";B[ab];W[dd];B[ba];W[ee];B[ff];W[aa];B[gg]"  # W A9 is a suicide
    game = read_game(f"(;GM[1]FF[4]SZ[9]{moves})")
    assert len(game.moves) == 7
    assert game.final_state.board.get(Point(9, 1)) is None  # taken off as it was played
    assert game.states()[6].next_player is B
    assert [r.kind for r in game.repairs] == ["rules"] and "move 6 (W A9) is a suicide" in game.repairs[0].message
    assert read_game(f"(;GM[1]FF[4]SZ[9]RU[Japanese]{moves})").repairs[0].message.count("RU[Japanese]") == 1
    nz = read_game(f"(;GM[1]FF[4]SZ[9]RU[NZ]{moves})")
    assert nz.repairs == [] and nz.final_state.board == game.final_state.board
    # play_as does the same for any colour.
    state = game.states()[5]
    assert play_as(state, W, Move.play(Point(9, 1))).board == game.states()[6].board


# A triple ko on 9x9 from a set-up position: Black can take at C7 and G7, White at C3 (each a
# single stone in atari next to an empty point). Six captures in turn bring back the first position.
TRIPLE_KO = (
    "(;GM[1]FF[4]SZ[9]{rules}AB[bb][ac][bd][cf][bg][ch][dg][hb][ic][hd]"
    "AW[cb][bc][dc][cd][bf][ag][bh][gb][hc][fc][gd]PL[B]"
)
CYCLE = ";B[cc];W[cg];B[gc];W[bc];B[bg];W[hc]"


def test_triple_ko_is_legal_under_the_records_simple_ko_rules(caplog):
    with caplog.at_level("INFO", logger="dlgo.sgf"):
        game = read_game(TRIPLE_KO.format(rules="RU[Japanese]") + CYCLE * 3 + ";B[cc])", name="ko3.sgf")
    assert len(game.moves) == 19 and game.repairs == []
    states = game.states()
    assert states[6].board == states[0].board and states[18].board == states[0].board
    assert game.final_state.board.get(Point(7, 3)) is B and game.final_state.board.get(Point(7, 2)) is None
    assert game.notes == [
        "14 moves (6, 7, 8, 9, 10, 11, 12, 13, 14, 15, ...) repeat an earlier position (a ko cycle such as"
        " triple ko): legal under simple ko (RU[Japanese])"
    ]
    assert "ko3.sgf: 14 moves" in caplog.text
    # No RU: only simple ko is assumed, as GNU Go and viewers do.
    assert read_game(TRIPLE_KO.format(rules="") + CYCLE + ")").repairs == []
    # Rules with superko forbid the cycle: still history, so it is played and reported.
    chinese = read_game(TRIPLE_KO.format(rules="RU[Chinese]") + CYCLE + ")")
    assert len(chinese.moves) == 6 and [r.kind for r in chinese.repairs] == ["rules"]
    assert "1 move (6) repeats an earlier position" in chinese.repairs[0].message
    assert "RU[Chinese] forbids (superko)" in chinese.repairs[0].message


def test_ko_taken_back_at_once_breaks_every_rule_but_is_played():
    game = read_game(DOUBLE_KO + "RU[Japanese];B[cc];W[bc];B[gg])", name="ko.sgf")
    assert len(game.moves) == 3
    assert [r.message for r in game.repairs] == [
        "move 2 (W B7) takes back a ko at once, which no rules allow: played as written"
    ]
    assert game.final_state.board.get(Point(7, 2)) is W and game.final_state.board.get(Point(7, 3)) is None
    # Both kos taken and retaken with a pass in between is fine under simple ko; the repetition
    # is a note.
    game = read_game(DOUBLE_KO + ";B[cc];W[cg];B[];W[bc];B[bg];W[];B[cc])")
    assert len(game.moves) == 7 and game.repairs == [] and "1 move (7) repeats" in game.notes[0]


def test_node_with_both_colours_is_two_moves_in_its_order():
    game = read_game("(;GM[1]FF[4]SZ[9];B[cc]W[gg]C[both];B[dd])")
    assert game.moves == [(B, Move.play(Point(7, 3))), (W, Move.play(Point(3, 7))), (B, Move.play(Point(6, 4)))]
    assert game.comments == ["both", None, None]
    assert [r.message for r in game.repairs] == ["move 1: the node has both B and W: played as two moves, B then W"]
    game = read_game("(;GM[1]FF[4]SZ[9];W[gg]B[cc])")
    assert [p for p, _ in game.moves] == [W, B] and game.initial_state.next_player is W
    assert_same_game(read_game(write_game(game)), game)


def test_moves_after_two_passes_are_read():
    game = read_game("(;GM[1]FF[4]SZ[9];B[cc];W[];B[];W[gg];B[ee])")
    assert len(game.moves) == 5 and game.final_state.board.get(Point(5, 5)) is B


# --- malformed records -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x00\xff\xfe garbage \x89PNG\r\n", "malformed SGF"),
        (b"", "malformed SGF"),
        (b"(;GM[1]FF[4]SZ[30];B[dd])", "board size"),
        (b"(;GM[1]FF[4]SZ[1])", "board size"),
        (b"(;GM[1]FF[4]SZ[nineteen])", "board size"),
        (b"(;GM[1]FF[4]SZ[19]HA[lots])", "handicap"),
        (b"(;GM[1]FF[4]SZ[19]PL[X];B[aa])", "colour"),
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


@pytest.mark.parametrize(
    ("text", "moves", "how"),
    [
        ("(;GM[1]FF[4]SZ[9];B[cc];W[gg]", 2, "missing its closing ')'"),
        ("(;GM[1]FF[4]SZ[9];B[cc];W[gg]\n\n", 2, "missing its closing ')'"),
        ("(;GM[1]FF[4]SZ[9];B[cc];W[g", 1, "unreadable or cut off after byte 24 of 27"),
        ("(;GM[1]FF[4]SZ[9];B[cc];W", 1, "unreadable or cut off after byte 24 of 25"),
        ("(;GM[1]FF[4]SZ[9];B[cc];W[gg]C[a comment cut sh", 2, "unreadable or cut off after byte 29 of 47"),
        ("(;GM[1]FF[4]SZ[9];B[cc](;W[gg];B[ee])(;W[dd]", 3, "missing its closing ')'"),
        ("(;GM[1]FF[4]SZ[9];B[cc](", 1, "unreadable or cut off"),
        ("(;GM[1]FF[4]SZ[9];B[cc];W[gg] %%% ;B[ee])", 2, "unreadable or cut off after byte 29"),
    ],
)
def test_truncated_records_read_what_is_there(text, moves, how, caplog):
    with caplog.at_level("WARNING", logger="dlgo.sgf"):
        game = read_game(text.encode(), name="cut.sgf")
    assert len(game.moves) == moves
    assert [r.kind for r in game.repairs] == ["truncated"] and how in game.repairs[0].message
    assert f"cut.sgf: the SGF text is {how}" in caplog.text
    assert_same_game(read_game(write_game(game)), game)


def test_missing_file(tmp_path):
    with pytest.raises(SgfError, match="nothing.sgf: cannot read"):
        read_game(tmp_path / "nothing.sgf")
    with pytest.raises(SgfError, match="nothing.sgf: cannot read"):
        read_game(str(tmp_path / "nothing.sgf"))


def _read_in_thread(path: Path, fifo: bool = False) -> BaseException | None:
    """read_game(path) in a thread: the error it raised; fails when it does not return soon."""
    box: list[BaseException | None] = []

    def run() -> None:
        try:
            read_game(path)
            box.append(None)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            box.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(30)  # answers at once; 30 s only so that a loaded machine cannot fail it
    if thread.is_alive() and fifo:
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # let a reader blocked in open() go
    assert not thread.is_alive(), f"read_game({path}) blocked"
    return box[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_only_regular_files_are_read(tmp_path):
    fifo = tmp_path / "pipe.sgf"
    os.mkfifo(fifo)
    error = _read_in_thread(fifo, fifo=True)
    assert isinstance(error, SgfError) and error.reason == "not a regular file (a FIFO or pipe)"
    error = _read_in_thread(tmp_path)
    assert isinstance(error, SgfError) and error.reason == "not a regular file (a directory)"
    if Path("/dev/zero").exists():
        error = _read_in_thread(Path("/dev/zero"))
        assert isinstance(error, SgfError) and error.reason == "not a regular file (a character device)"


def test_files_above_the_size_cap_are_refused_unread(tmp_path):
    big = tmp_path / "big.sgf"
    with open(big, "wb") as f:
        f.write(b"(;GM[1]FF[4]SZ[9];B[cc])")
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(SgfError, match=r"big.sgf: too large \(8388609 bytes; the limit is 8388608\)"):
        read_game(big)
    with open(big, "r+b") as f:
        f.truncate(MAX_FILE_BYTES)
    assert len(read_game(big).moves) == 1  # at the cap: read (the NULs after the game are ignored)


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
