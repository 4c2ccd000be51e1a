"""SGF replay (dlgo.sgf.replay): the main line under the record's own rules, repairs reported."""

from __future__ import annotations

import re

import pytest
from sgf_helpers import B, W, assert_same_game

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.sgf import Setup, read_game, write_game


def test_same_colour_twice_is_applied():
    game = read_game("(;GM[1]FF[4]SZ[9];B[cc];B[gg];W[ee];W[])")
    assert [p for p, _ in game.moves] == [B, B, W, W]
    states = game.states()
    assert [s.next_player for s in states] == [B, W, W, B, B]
    assert states[2].board.get(Point(3, 7)) is B and states[2].previous_state is states[1]
    assert_same_game(read_game(write_game(game)), game)
    # GameState.play_as on the player to move is apply_move.
    s = GameState.new_game(9)
    assert s.play_as(B, Move.play(Point(1, 1))).board == s.apply_move(Move.play(Point(1, 1))).board


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
    assert state.play_as(W, Move.play(Point(9, 1))).board == game.states()[6].board


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
