"""Set-up positions (AB/AW, a problem to solve) reach the network as a position of their own:
no history, no pass, the side to move as asked. The strength issue saw the engine answer
corner life-and-death problems with far-away opening points; this pins down that the encoder's
input is not the cause (the network's training data is: docs/strength.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dlgo.encoders import get_encoder_by_name
from dlgo.encoders.zero import PLANES
from dlgo.gotypes import Player
from dlgo.play.game import position_for
from dlgo.sgf import read_game

# White's group under Black's wall on the top edge: the eye space A9, C9, D9 decides it.
PROBLEM = "(;GM[1]FF[4]SZ[9]KM[7]{pl}AW[ba][bb][cb][db][eb][ea]AB[ab][ac][bc][cc][dc][ec][fc][fb][fa])"


def _state(tmp_path: Path, pl: str):
    path = tmp_path / f"problem{pl}.sgf"
    path.write_text(PROBLEM.format(pl=pl))
    return read_game(path).states()[0]


def _planes(state) -> dict[str, np.ndarray]:
    encoded = get_encoder_by_name("zero", 9).encode(state)
    return {name: encoded[..., i] for i, name in enumerate(PLANES)}


@pytest.mark.parametrize("player", [Player.black, Player.white])
def test_a_setup_problem_encodes_without_history_for_either_side(tmp_path, player):
    state = position_for(_state(tmp_path, ""), player)
    planes = _planes(state)
    for name in ("last_move_1", "last_move_2", "last_move_3", "last_move_4", "last_move_pass", "ko"):
        assert not planes[name].any(), name
    assert planes["black_to_move"].all() == (player is Player.black)
    assert planes["own_stones"].sum() == (9 if player is Player.black else 6)
    assert planes["opponent_stones"].sum() == (6 if player is Player.black else 9)
    assert planes["komi"].max() == pytest.approx((7 if player is Player.white else -7) / 15)


def test_asking_the_other_side_to_move_is_the_same_input_as_the_record_saying_so(tmp_path):
    """``genmove w`` on a problem with Black to move (no pass in between) equals PL[W]."""
    asked = position_for(_state(tmp_path, ""), Player.white)
    recorded = _state(tmp_path, "PL[W]")
    assert recorded.next_player is Player.white
    a, b = _planes(asked), _planes(recorded)
    for name in PLANES:
        assert np.array_equal(a[name], b[name]), name
