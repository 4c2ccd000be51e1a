"""SGF writing (dlgo.sgf.writer): what is written reads back as the same game."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from sgf_helpers import B, W, assert_same_game, random_game

from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Point
from dlgo.handicap import fixed_handicap_points, handicap_game
from dlgo.sgf import SgfError, read_game, save_game, write_game


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


KGS_ARCHIVE = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "kgs" / "KGS-2001-19-2298-.tar.gz"


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


def test_node_and_root_properties_are_written_and_read_back():
    start = GameState.new_game(9)
    moves = [(B, Move.play(Point(3, 3))), (W, Move.play(Point(7, 7))), (B, Move.play(Point(5, 5)))]
    text = write_game(
        moves,
        start,
        comments=["first", None, None],
        node_properties=[{"TE": ["1"]}, {"BM": ["2"], "TR": ["cc", "gg"]}, None],
        root_comment="summary ] with \\ escapes",
        root_properties={"SBKV": ["52.5"], "GN": ["review"]},
        date="",
    )
    game = read_game(text)
    assert game.moves == moves
    assert game.comments == ["first", None, None]  # what the reader knew before still reads the same
    from sgfmill import sgf

    nodes = sgf.Sgf_game.from_string(text).get_main_sequence()
    root = nodes[0]
    assert root.get("C") == "summary ] with \\ escapes"
    assert root.get("SBKV") == "52.5" and root.get("GN") == "review"
    assert nodes[1].get("TE") == 1 and nodes[1].get("C") == "first"
    assert nodes[2].get("BM") == 2 and nodes[2].get_raw_list("TR") == [b"cc", b"gg"]
    assert not nodes[3].has_property("BM") and not nodes[3].has_property("C")


def test_extra_properties_keep_the_writers_own_and_refuse_bad_ones():
    start = GameState.new_game(9, komi=6.5)
    moves = [(B, Move.play(Point(3, 3)))]
    text = write_game(
        moves,
        start,
        comments=["mine"],
        node_properties=[{"B": ["aa"], "C": ["theirs"]}],
        root_properties={"KM": ["0"], "SZ": ["19"]},
    )
    game = read_game(text)
    assert game.moves == moves and game.comments == ["mine"]
    assert game.komi == 6.5 and game.board_size == (9, 9)
    for bad in ({"bm": ["1"]}, {"BM": []}, {"BM": "1"}):
        with pytest.raises(ValueError, match="node_properties\\[0\\]"):
            write_game(moves, start, node_properties=[bad])
    with pytest.raises(ValueError, match="root_properties"):
        write_game(moves, start, root_properties={"C1": ["x"]})


def test_without_annotations_the_text_is_unchanged():
    final = random_game(9, 3, max_moves=30)
    plain = write_game(final, date="2024-01-01")
    assert write_game(final, date="2024-01-01", node_properties=None, root_properties=None) == plain
    assert write_game(final, date="2024-01-01", node_properties=[None] * 30, root_properties={}) == plain
