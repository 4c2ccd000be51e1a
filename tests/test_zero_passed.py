"""Positions where the opponent has just passed (``dlgo.zero.passed``): the planes say what the
encoder says after a real pass, only late positions of counted games get a row, the rows teach
the value alone, and the data folder keeps the source's chunks beside them."""

from __future__ import annotations

import numpy as np
import pytest

from dlgo.encoders import get_encoder_by_name
from dlgo.encoders.zero import PLANES
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer
from dlgo.zero.passed import main, opponent_passed, passed_rows

LAST = [PLANES.index(f"last_move_{k}") for k in (1, 2, 3, 4)]
PASS = PLANES.index("last_move_pass")


def _game(moves: list[Move], size: int = 5) -> GameState:
    state = GameState.new_game(size)
    for move in moves:
        state = state.apply_move(move)
    return state


def _plays(*points: tuple[int, int]) -> list[Move]:
    return [Move.play(Point(r, c)) for r, c in points]


def test_the_planes_are_those_of_a_pass_with_the_board_unchanged():
    encoder = get_encoder_by_name("zero", 5)
    before = encoder.encode(_game(_plays((1, 1), (2, 2), (3, 3), (4, 4), (1, 5))))
    after = opponent_passed(before[None])[0]
    unchanged = [i for i in range(len(PLANES)) if i not in (*LAST, PASS)]
    assert np.array_equal(after[..., unchanged], before[..., unchanged])
    assert after[..., LAST[0]].sum() == 0 and np.array_equal(after[..., LAST[1:]], before[..., LAST[:-1]])
    # the encoder's own convention after a real pass: the pass plane set, no last-move point
    real = encoder.encode(_game([*_plays((1, 1), (2, 2), (3, 3), (4, 4)), Move.pass_turn()]))
    assert np.array_equal(after[..., PASS], real[..., PASS]) and real[..., PASS].all()
    assert real[..., LAST[0]].sum() == 0 and after[..., LAST[1]].sum() == 1


def _counted_game(stones_per_row: list[int], counted: bool = True) -> ZeroExperienceBuffer:
    n = len(stones_per_row)
    states = np.zeros((n, 5, 5, 16), dtype=np.float16)
    states[..., PLANES.index("on_board")] = 1
    for i, stones in enumerate(stones_per_row):
        flat = states[i, ..., PLANES.index("own_stones")].reshape(-1)
        flat[:stones] = 1
        states[i, ..., PLANES.index("own_stones")] = flat.reshape(5, 5)
    policies = np.zeros((n, 26), dtype=np.float32)
    policies[:, 3] = 1
    rewards = np.array([1.0, -1.0] * n)[:n]
    mask = np.full(n, 1.0 if counted else 0.0, dtype=np.float32)
    return ZeroExperienceBuffer(
        states, policies, rewards, ownership=np.zeros((n, 25)), score=np.full(n, 3.5), aux_mask=mask
    )


def test_only_late_counted_positions_give_rows_and_they_teach_the_value_alone():
    game = _counted_game([2, 8, 12, 20])  # 12 of 25 points is 48%
    rows = passed_rows(game, min_stones=0.45)
    assert rows is not None and len(rows) == 2
    assert np.array_equal(rows.rewards, game.rewards[2:]) and (rows.policies == 0).all()
    assert (rows.aux_mask == 1).all() and np.array_equal(rows.score, game.score[2:])
    assert np.isnan(rows.root_values).all() and rows.states[..., PASS].all()
    assert passed_rows(_counted_game([20, 20], counted=False), 0.45) is None  # resigned: no count
    assert passed_rows(game, min_stones=0.9) is None


def test_the_data_folder_keeps_its_chunks_and_holds_the_new_rows_apart(tmp_path, capsys):
    src = tmp_path / "src"
    for side, task in (("train", 1), ("train", 2), ("holdout", 8)):
        ReplayBuffer(src / side).add(_counted_game([5, 15, 20]), iteration=0, task=task)
    out = tmp_path / "out"
    assert main(["--data", str(src), "--out", str(out)]) == 0
    assert "train: 2 chunks, 4 opponent-passed rows" in capsys.readouterr().out
    train = ReplayBuffer(out / "train").chunks()
    assert sorted((c.iteration, c.task, c.positions) for c in train) == [(0, 1, 3), (0, 2, 3), (500, 1, 2), (500, 2, 2)]
    alone = ReplayBuffer(out / "holdout-passed").chunks()
    assert [(c.iteration, c.task, c.positions) for c in alone] == [(500, 8, 2)]
    assert main(["--data", str(out), "--out", str(tmp_path / "again")]) == 0  # new rows are never a source
    assert len(ReplayBuffer(tmp_path / "again" / "train").chunks()) == 4
    with pytest.raises(SystemExit, match="min-stones"):
        main(["--data", str(src), "--out", str(out), "--min-stones", "2"])
    with pytest.raises(SystemExit, match="no such folder"):
        main(["--data", str(tmp_path / "none"), "--out", str(out)])
