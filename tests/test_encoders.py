"""Encoders (book 6.1, 7.4, 13.1.2, 14.1): every plane's meaning on hand-made positions, index
round trips, exact legality, ladders, and the 8 board symmetries. No TensorFlow here."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest
from conftest import state_from

from dlgo.encoders import ENCODER_NAMES, get_encoder_by_name, symmetry
from dlgo.encoders.alphago import FEATURE_OFFSETS as AG
from dlgo.encoders.features import ladder_captured, legal_move_mask
from dlgo.encoders.zero import KOMI_SCALE, PLANES
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point

B, W = Player.black, Player.white
ZP = {name: i for i, name in enumerate(PLANES)}


# --- helpers ----------------------------------------------------------------------------------
def at(planes: np.ndarray, row: int, col: int) -> np.ndarray:
    return planes[row - 1, col - 1]


def random_game(size: int, moves: int, seed: int) -> list[GameState]:
    rng = random.Random(seed)
    states = [GameState.new_game(size)]
    for _ in range(moves):
        s = states[-1]
        if s.is_over():
            break
        legal = s.legal_moves()
        move = rng.choice(legal) if rng.random() > 0.03 else Move.pass_turn()
        states.append(s.apply_move(move))
    return states


EMPTY9 = "\n".join(["........."] * 9)

# A ladder: white D4 (4,4) with two liberties; black's atari at E4 (4,5) drives it to the
# lower-left edge, where it dies. A white stone at B2 (2,2) breaks it.
LADDER = """
.........
.........
.........
.........
...X.....
..XO.....
....X....
.........
.........
"""
BREAKER = LADDER.strip().splitlines()
BREAKER[7] = ".O......."
BREAKER = "\n".join(BREAKER)
# The same white stone already in atari (black at E4), white to move: D3 is its only escape.
IN_ATARI = LADDER.replace("..XO.....", "..XOX....")
IN_ATARI_BROKEN = BREAKER.replace("..XO.....", "..XOX....")


def ko_state() -> GameState:
    """Black has just taken a ko at F5 (5,6); white may not retake at E5 (5,5) at once."""
    s = state_from(
        """
        .........
        .........
        .........
        ....XO...
        ...XO.O..
        ....XO...
        .........
        .........
        .........
        """
    )
    s = s.apply_move(Move.play(Point(5, 6)))
    assert not s.is_valid_move(Move.play(Point(5, 5)))
    return s


# --- interface ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,planes",
    [("oneplane", 1), ("sevenplane", 7), ("simple", 11), ("alphago", 48), ("alphago_value", 49), ("zero", 16)],
)
def test_registry_shapes_channels_last(name, planes):
    enc = get_encoder_by_name(name, 9)
    assert enc.name() == name
    assert enc.shape() == (9, 9, planes)
    assert enc.num_points() == 81
    out = enc.encode(GameState.new_game(9))
    assert out.shape == (9, 9, planes) and out.dtype == np.float32
    assert enc.encode_batch([GameState.new_game(9)] * 3).shape == (3, 9, 9, planes)


def test_registry_rejects_unknown_and_wrong_size():
    with pytest.raises(ValueError, match="unknown encoder"):
        get_encoder_by_name("nope", 9)
    with pytest.raises(ValueError, match="9x9"):
        get_encoder_by_name("zero", 9).encode(GameState.new_game(19))
    assert set(ENCODER_NAMES) >= {"oneplane", "sevenplane", "simple", "alphago", "zero"}


@pytest.mark.parametrize("size", [9, 19, (5, 7)])
def test_point_index_round_trip(size):
    enc = get_encoder_by_name("zero", size)
    rows, cols = (size, size) if isinstance(size, int) else size
    seen = set()
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            i = enc.encode_point(Point(r, c))
            assert i == cols * (r - 1) + (c - 1)
            assert enc.decode_point_index(i) == Point(r, c)
            seen.add(i)
    assert seen == set(range(rows * cols))


def test_zero_move_indices_include_pass():
    enc = get_encoder_by_name("zero", 9)
    assert enc.num_moves() == 82
    assert enc.encode_move(Move.pass_turn()) == 81
    assert enc.decode_move_index(81) == Move.pass_turn()
    for i in range(81):
        assert enc.encode_move(enc.decode_move_index(i)) == i
    with pytest.raises(ValueError):
        enc.encode_move(Move.resign())
    with pytest.raises(ValueError):
        enc.decode_move_index(82)
    book = get_encoder_by_name("sevenplane", 9)
    assert book.num_moves() == 81
    with pytest.raises(ValueError):
        book.encode_move(Move.pass_turn())


def test_row_one_is_array_row_zero():
    s = GameState.new_game(9).apply_move(Move.play(Point(1, 3)))  # black C1
    planes = get_encoder_by_name("zero", 9).encode(s)
    assert at(planes, 1, 3)[ZP["opponent_stones"]] == 1  # white to move now
    assert planes[:, :, ZP["opponent_stones"]].sum() == 1


# --- book encoders --------------------------------------------------------------------------
def test_oneplane_relative_to_player_to_move():
    s = state_from(".X.\nO..\n...", to_move=B)
    p = get_encoder_by_name("oneplane", 3).encode(s)[:, :, 0]
    assert at(p, 3, 2) == 1 and at(p, 2, 1) == -1 and p.sum() == 0
    p = get_encoder_by_name("oneplane", 3).encode(GameState.from_position(s.board, W))[:, :, 0]
    assert at(p, 3, 2) == -1 and at(p, 2, 1) == 1


LIBS = """
X.O..
OX...
.....
..X..
.....
"""


def test_sevenplane_liberties_and_ko():
    enc = get_encoder_by_name("sevenplane", 5)
    p = enc.encode(state_from(LIBS, to_move=B))
    assert at(p, 5, 1)[0] == 1  # own A5: 1 liberty (B5)
    assert at(p, 4, 2)[2] == 1  # own B4: 3 liberties
    assert at(p, 2, 3)[2] == 1  # own C2: 4 liberties -> ">= 3"
    assert at(p, 4, 1)[3] == 1  # opponent A4: 1 liberty (A3)
    assert at(p, 5, 3)[5] == 1  # opponent C5: 3 liberties
    assert p[:, :, :6].sum() == 5
    p = get_encoder_by_name("sevenplane", 9).encode(ko_state())
    assert at(p, 5, 5)[6] == 1 and p[:, :, 6].sum() == 1
    assert at(p, 5, 6)[3] == 1  # black's ko stone: opponent with 1 liberty (white to move)


def test_simple_absolute_colours():
    enc = get_encoder_by_name("simple", 5)
    p = enc.encode(state_from(LIBS, to_move=W))
    assert at(p, 5, 1)[0] == 1  # black, 1 liberty
    assert at(p, 4, 2)[2] == 1  # black, 3 liberties
    assert at(p, 2, 3)[3] == 1  # black, 4 liberties
    assert at(p, 4, 1)[4] == 1  # white, 1 liberty
    assert at(p, 5, 3)[6] == 1  # white, 3 liberties
    assert p[:, :, 9].all() and not p[:, :, 8].any()
    p = enc.encode(state_from(LIBS, to_move=B))
    assert p[:, :, 8].all() and not p[:, :, 9].any()
    p = get_encoder_by_name("simple", 9).encode(ko_state())
    assert at(p, 5, 5)[10] == 1 and p[:, :, 10].sum() == 1


# --- AlphaGo encoder ---------------------------------------------------------------------------
def test_alphago_constant_colour_and_player_planes():
    s = state_from(LIBS, to_move=W)
    p = get_encoder_by_name("alphago", 5).encode(s)
    assert p[:, :, AG["ones"]].all() and not p[:, :, AG["zeros"]].any()
    assert at(p, 4, 1)[0] == 1 and at(p, 5, 1)[1] == 1 and at(p, 1, 1)[2] == 1
    assert (p[:, :, 0:3].sum(axis=2) == 1).all()
    v = get_encoder_by_name("alphago_value", 5)
    assert not v.encode(s)[:, :, 48].any()
    assert v.encode(GameState.from_position(s.board, B))[:, :, 48].all()


def test_alphago_turns_since():
    s = state_from(EMPTY9.replace(".........", "X........", 1))  # set-up stone A9
    moves = [(3, 3), (7, 7), (3, 7), (7, 3), (5, 5), (5, 3), (5, 7), (3, 5), (7, 5)]
    for r, c in moves:
        s = s.apply_move(Move.play(Point(r, c)))
    p = get_encoder_by_name("alphago", 9).encode(s)
    off = AG["turns_since"]
    for ago, (r, c) in enumerate(reversed(moves), start=1):
        assert at(p, r, c)[off + min(ago, 8) - 1] == 1, (ago, r, c)
    assert at(p, 9, 1)[off + 7] == 1  # never played: ">= 8"
    assert p[:, :, off : off + 8].sum() == len(moves) + 1


def test_alphago_liberty_capture_and_self_atari_planes():
    s = state_from(
        """
        .........
        .........
        .........
        .........
        ....X....
        .........
        .........
        XX.......
        OO.......
        """
    )
    p = get_encoder_by_name("alphago", 9).encode(s)
    libs, after, capture, atari = AG["liberties"], AG["liberties_after"], AG["capture_size"], AG["self_atari_size"]
    assert at(p, 5, 5)[libs + 3] == 1  # lone stone: 4 liberties
    assert at(p, 1, 1)[libs + 0] == 1 and at(p, 1, 2)[libs + 0] == 1  # white A1-B1: 1 liberty (C1)
    assert at(p, 2, 1)[libs + 2] == 1  # black A2-B2: A3, B3, C2
    assert at(p, 7, 7)[after + 3] == 1  # open point: 4 liberties
    assert at(p, 9, 9)[after + 1] == 1  # corner: 2
    assert at(p, 5, 6)[after + 5] == 1  # beside the lone stone: a string of 2 with 6 liberties
    assert at(p, 1, 3)[capture + 1] == 1  # C1 captures 2 stones
    assert p[:, :, capture : capture + 8].sum() == 1
    assert at(p, 1, 3)[after + 2] == 1  # ... and then has B1, D1, C2
    assert not p[:, :, atari : atari + 8].any()
    s2 = state_from(".......\n.......\n.......\n.......\n.......\n.O.....\nX.O....")
    p2 = get_encoder_by_name("alphago", 7).encode(s2)
    assert at(p2, 1, 2)[atari + 1] == 1  # B1 joins A1: 2 stones left with one liberty (A2)
    assert p2[:, :, atari : atari + 8].sum() == 1


def test_alphago_sensibleness():
    s = state_from(
        """
        .X.....
        XX.....
        .......
        .......
        .......
        .....OO
        .....O.
        """
    )
    p = get_encoder_by_name("alphago", 7).encode(s)
    sens = AG["sensibleness"]
    assert at(p, 7, 1)[sens] == 0  # own eye
    assert at(p, 1, 7)[sens] == 0  # suicide
    assert at(p, 1, 7)[AG["liberties_after"] : AG["liberties_after"] + 8].sum() == 0
    assert at(p, 4, 4)[sens] == 1
    assert p[:, :, sens].sum() == 49 - 6 - 2
    ko = get_encoder_by_name("alphago", 9).encode(ko_state())
    assert at(ko, 5, 5)[sens] == 0  # ko: illegal


def test_alphago_ladder_capture_plane():
    enc = get_encoder_by_name("alphago", 9)
    p = enc.encode(state_from(LADDER, to_move=B))
    assert at(p, 4, 5)[AG["ladder_capture"]] == 1  # E4 drives it to the edge
    assert at(p, 7, 7)[AG["ladder_capture"]] == 0
    p = enc.encode(state_from(BREAKER, to_move=B))
    assert at(p, 4, 5)[AG["ladder_capture"]] == 0  # B2 breaks it


def test_alphago_ladder_escape_plane():
    enc = get_encoder_by_name("alphago", 9)
    p = enc.encode(state_from(IN_ATARI, to_move=W))
    assert at(p, 3, 4)[AG["ladder_escape"]] == 0  # running does not help: the ladder works
    assert p[:, :, AG["ladder_escape"]].sum() == 0
    p = enc.encode(state_from(IN_ATARI_BROKEN, to_move=W))
    assert at(p, 3, 4)[AG["ladder_escape"]] == 1
    assert p[:, :, AG["ladder_escape"]].sum() == 1


def test_ladder_reader_directly():
    assert ladder_captured(state_from(IN_ATARI, W), Point(4, 4), attacker_to_move=False)
    assert not ladder_captured(state_from(IN_ATARI_BROKEN, W), Point(4, 4), attacker_to_move=False)
    assert ladder_captured(state_from(LADDER, B), Point(4, 4), attacker_to_move=True)
    # A stone with two liberties in the open is no ladder.
    lines = EMPTY9.splitlines()
    lines[3], lines[4] = "....X....", "...XO...."
    open_stone = "\n".join(lines)
    assert not ladder_captured(state_from(open_stone, B), Point(5, 5), attacker_to_move=True)


# --- Zero encoder ------------------------------------------------------------------------------
def test_zero_planes():
    s = state_from(LIBS, to_move=B, komi=7.5)
    p = get_encoder_by_name("zero", 5).encode(s)
    assert p[:, :, ZP["on_board"]].all()
    assert at(p, 5, 1)[ZP["own_stones"]] == 1 and at(p, 4, 1)[ZP["opponent_stones"]] == 1
    assert at(p, 5, 1)[ZP["liberties_1"]] == 1 and at(p, 4, 1)[ZP["liberties_1"]] == 1
    assert at(p, 4, 2)[ZP["liberties_3"]] == 1 and at(p, 5, 3)[ZP["liberties_3"]] == 1
    assert p[:, :, ZP["liberties_2"]].sum() == 0
    assert at(p, 2, 3)[3:6].sum() == 0  # 4 liberties: no liberty plane
    assert p[:, :, ZP["black_to_move"]].all()
    assert np.allclose(p[:, :, ZP["komi"]], -7.5 / KOMI_SCALE)  # black pays komi
    p = get_encoder_by_name("zero", 5).encode(GameState.from_position(s.board, W, komi=7.5))
    assert not p[:, :, ZP["black_to_move"]].any()
    assert np.allclose(p[:, :, ZP["komi"]], 7.5 / KOMI_SCALE)


def test_zero_history_and_pass_planes():
    s = GameState.new_game(9)
    for move in [Move.play(Point(1, 1)), Move.play(Point(2, 2)), Move.pass_turn(), Move.play(Point(3, 3))]:
        s = s.apply_move(move)
    enc = get_encoder_by_name("zero", 9)
    p = enc.encode(s)
    assert at(p, 3, 3)[ZP["last_move_1"]] == 1
    assert p[:, :, ZP["last_move_2"]].sum() == 0  # a pass
    assert at(p, 2, 2)[ZP["last_move_3"]] == 1
    assert at(p, 1, 1)[ZP["last_move_4"]] == 1
    assert not p[:, :, ZP["last_move_pass"]].any()
    p = enc.encode(s.apply_move(Move.pass_turn()))
    assert p[:, :, ZP["last_move_pass"]].all()
    assert at(p, 3, 3)[ZP["last_move_2"]] == 1


def test_zero_ko_and_ladder_planes():
    enc = get_encoder_by_name("zero", 9)
    p = enc.encode(ko_state())
    assert at(p, 5, 5)[ZP["ko"]] == 1 and p[:, :, ZP["ko"]].sum() == 1
    p = enc.encode(state_from(IN_ATARI, to_move=W))
    assert at(p, 4, 4)[ZP["laddered_stones"]] == 1
    p = enc.encode(state_from(IN_ATARI_BROKEN, to_move=W))
    assert at(p, 4, 4)[ZP["laddered_stones"]] == 0
    p = enc.encode(state_from(LADDER, to_move=B))
    assert at(p, 4, 5)[ZP["ladder_capture_moves"]] == 1
    p = enc.encode(state_from(BREAKER, to_move=B))
    assert at(p, 4, 5)[ZP["ladder_capture_moves"]] == 0


# --- legality ----------------------------------------------------------------------------------
@pytest.mark.parametrize("size,seed", [(5, 1), (5, 2), (9, 3)])
def test_legal_move_mask_matches_rules(size, seed):
    enc = get_encoder_by_name("zero", size)
    for s in random_game(size, 3 * size * size, seed)[::2]:
        mask = legal_move_mask(s)
        if s.is_over():
            assert not mask.any()
            continue
        expected = [s.is_valid_move(enc.decode_move_index(i)) for i in range(enc.num_moves())]
        assert mask.tolist() == expected


# --- symmetries --------------------------------------------------------------------------------
def test_eight_distinct_symmetries_and_inverses():
    perms = {tuple(symmetry.permutation(9, k)) for k in range(8)}
    assert len(perms) == 8
    x = np.random.default_rng(0).random((9, 9, 3)).astype(np.float32)
    for k in range(8):
        y = symmetry.apply_to_planes(x, k)
        assert np.array_equal(symmetry.apply_to_planes(y, symmetry.inverse(k)), x)
    assert symmetry.allowed((5, 7)) == (0, 2, 4, 6)
    with pytest.raises(ValueError):
        symmetry.permutation((5, 7), 1)


def test_policy_symmetry_matches_planes_and_keeps_pass():
    rng = np.random.default_rng(1)
    for k in range(8):
        point = Point(int(rng.integers(1, 10)), int(rng.integers(1, 10)))
        planes = np.zeros((9, 9, 1), np.float32)
        planes[point.row - 1, point.col - 1, 0] = 1
        policy = np.zeros(82, np.float32)
        policy[9 * (point.row - 1) + point.col - 1] = 1
        policy[81] = 0.25
        tp = symmetry.apply_to_planes(planes, k)
        pol = symmetry.apply_to_policy(policy, k, 9)
        assert np.array_equal(tp[:, :, 0].ravel(), pol[:81])
        assert pol[81] == 0.25
        moved = symmetry.apply_to_point(point, k, 9)
        assert tp[moved.row - 1, moved.col - 1, 0] == 1
        assert np.array_equal(symmetry.invert_policy(pol, k, 9), policy)
    batch = rng.random((4, 362)).astype(np.float32)
    out = symmetry.invert_policy(symmetry.apply_to_policy(batch, 3, 19), 3, 19)
    assert np.array_equal(out, batch)


@pytest.mark.parametrize("dims", [(9, 9), (19, 19), (5, 7)])
def test_batch_symmetries_equal_one_position_at_a_time(dims):
    """The evaluator's one-gather symmetries (a symmetry per position) give what
    ``apply_to_planes`` / ``invert_policy`` give position by position."""
    rng = np.random.default_rng(2)
    rows, cols = dims
    ks = rng.choice(symmetry.allowed(dims), size=12)
    x = rng.random((12, rows, cols, 3)).astype(np.float32)
    policy = rng.random((12, rows * cols + 1)).astype(np.float32)
    planes = symmetry.apply_each_to_planes(x, ks)
    inverted = symmetry.invert_each_policy(policy, ks, dims)
    for i, k in enumerate(ks):
        assert np.array_equal(planes[i], symmetry.apply_to_planes(x[i], int(k)))
        assert np.array_equal(inverted[i], symmetry.invert_policy(policy[i], int(k), dims))
    assert inverted[:, -1].tolist() == policy[:, -1].tolist()  # pass stays


@pytest.mark.parametrize("name", ["sevenplane", "alphago", "zero"])
def test_encoders_commute_with_symmetries(name):
    """Encoding a rotated game equals rotating the encoding (every feature is geometric)."""
    enc = get_encoder_by_name(name, 9)
    for seed in (4, 5):
        game = random_game(9, 60, seed)
        for k in (1, 4, 7):
            s_k = GameState.new_game(9)
            for s in game[1:]:
                m = s.last_move
                s_k = s_k.apply_move(Move.play(symmetry.apply_to_point(m.point, k, 9)) if m.is_play else m)
            assert np.array_equal(symmetry.apply_to_planes(enc.encode(game[-1]), k), enc.encode(s_k))


# --- imports -----------------------------------------------------------------------------------
def test_rules_search_and_encoders_do_not_import_keras():
    code = (
        "import sys, dlgo.goboard, dlgo.mcts, dlgo.encoders, dlgo.encoders.symmetry\n"
        "from dlgo.encoders import get_encoder_by_name\n"
        "from dlgo.goboard import GameState\n"
        "for n in ('oneplane', 'sevenplane', 'simple', 'alphago', 'zero'):\n"
        "    get_encoder_by_name(n, 9).encode(GameState.new_game(9))\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'keras', 'jax', 'torch')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
