"""SGF reading (dlgo.sgf.reader): files, parsing, root properties and setup."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from sgf_helpers import B, W, assert_same_game

from dlgo.goboard import Move
from dlgo.gotypes import Point
from dlgo.sgf import MAX_FILE_BYTES, SgfError, read_game, write_game


def test_white_first_without_pl_takes_the_first_move_colour():
    game = read_game("(;GM[1]FF[4]SZ[9]AB[cc]AW[gg];W[ee];B[dd])")
    assert game.initial_state.next_player is W
    assert [p for p, _ in game.moves] == [W, B]


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


@pytest.mark.parametrize(
    "setup",
    ["AB[aa]AW[ab][ba]", "AB[cc]AW[cc]", "AB[zz]"],
)
def test_bad_setup_raises(setup):
    with pytest.raises(SgfError, match="setup.sgf"):
        read_game(f"(;GM[1]FF[4]SZ[9]{setup})", name="setup.sgf")


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
