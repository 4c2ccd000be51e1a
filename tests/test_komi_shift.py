"""A network trained at one komi is evaluated there and moved to the real komi
(``dlgo.inference.komi``): the shipped 9x9 network learned from komi-7 games only."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from dlgo.encoders import get_encoder_by_name
from dlgo.encoders.zero import KOMI_SCALE
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.inference.card import read_card
from dlgo.inference.evaluator import BatchEvaluator
from dlgo.inference.komi import KOMI_PLANE, KomiShift, komi_of_planes, score_scale, trained_komi_after

ROOT = Path(__file__).resolve().parents[1]
NET_9 = ROOT / "weights" / "zero-9x9.keras"


def _planes(komi: float, black_to_move: bool = True) -> np.ndarray:
    state = GameState.new_game(9)
    state.komi = komi
    if not black_to_move:
        state = state.apply_move(Move.play(Point(5, 5)))
    return get_encoder_by_name("zero", 9).encode_batch([state])


def test_prepare_sets_the_trained_komi_and_counts_the_points_gained() -> None:
    shift = KomiShift(7.0)
    x = _planes(9.0)  # Black to move: 2 points more komi than trained is 2 points less for Black
    prepared, gain = shift.prepare(x)
    assert gain.tolist() == pytest.approx([-2.0])
    assert prepared[0, 3, 3, KOMI_PLANE] == pytest.approx(-7.0 / KOMI_SCALE)
    assert x[0, 3, 3, KOMI_PLANE] == pytest.approx(-9.0 / KOMI_SCALE)  # the caller's planes untouched
    _, gain_white = shift.prepare(_planes(9.0, black_to_move=False))
    assert gain_white.tolist() == pytest.approx([2.0])  # White gains what Black loses
    trained = _planes(7.0)
    same, none = shift.prepare(trained)
    assert not np.any(none) and same is trained  # at the trained komi the planes go as they are


def test_apply_moves_score_by_the_points_and_value_along_the_logistic() -> None:
    raw = {"value": np.array([0.0, 0.5], np.float32), "score": np.array([[0.1], [0.2]], np.float32)}
    moved = KomiShift.apply(raw, np.array([1.4, 0.0]), (9, 9), score_points=10.0)
    assert moved["score"][:, 0] == pytest.approx([0.1 + 0.14, 0.2])
    # 1.4 points on 9x9 is one unit of log-odds (score_scale): 50% becomes 1 / (1 + e^-1)
    assert score_scale(9, 9) == pytest.approx(1.395)
    win = 1 / (1 + np.exp(-1.4 / score_scale(9, 9)))
    assert (moved["value"][0] + 1) / 2 == pytest.approx(win, abs=1e-6)
    assert moved["value"][1] == pytest.approx(0.5)
    assert KomiShift.apply(raw, np.zeros(2), (9, 9), 10.0) is raw


@pytest.mark.parametrize("runtime", ["fp32", "int8"])
def test_the_shipped_9x9_network_answers_each_komi(runtime: str) -> None:
    assert read_card(NET_9).trained_komi == 7.0
    evaluator = BatchEvaluator(NET_9, cache_size=0, runtime=runtime)
    assert evaluator.komi_shift is not None

    def black(komi: float) -> tuple[float, float]:
        state = GameState.new_game(9)
        state.komi = komi
        heads = evaluator.evaluate_full([state])
        return float(heads["value"][0]), float(heads["score"][0])

    v7, s7 = black(7.0)
    v0, s0 = black(0.0)
    v14, s14 = black(14.0)
    assert s0 - s7 == pytest.approx(7.0, abs=0.01) and s7 - s14 == pytest.approx(7.0, abs=0.01)
    assert v0 > 0.9 and v14 < -0.9 and v14 < v7 < v0  # komi 0 wins for Black, komi 14 loses
    # komi 7.5 against 7: half a point less for Black, where the int8 network alone saw no change
    v75, s75 = black(7.5)
    assert s75 == pytest.approx(s7 - 0.5, abs=0.01) and v75 < v7


def test_a_network_of_several_komi_is_left_as_it_is(tmp_path) -> None:
    for suffix in (".keras", ".card.json", ".onnx", ".int8.onnx"):
        shutil.copy(NET_9.with_name("zero-9x9" + suffix), tmp_path / ("net" + suffix))
    card = json.loads((tmp_path / "net.card.json").read_text())
    card.pop("trained_komi")
    (tmp_path / "net.card.json").write_text(json.dumps(card))
    assert BatchEvaluator(tmp_path / "net.keras", cache_size=0).komi_shift is None


def test_komi_of_planes_reads_float16_planes_of_either_player() -> None:
    planes = np.concatenate([_planes(7.0), _planes(7.0, black_to_move=False), _planes(5.5)]).astype(np.float16)
    assert komi_of_planes(planes).tolist() == [7.0, 7.0, 5.5]


def test_a_candidate_keeps_its_init_networks_komi_only_while_the_games_have_it() -> None:
    seven = np.concatenate([_planes(7.0), _planes(7.0, black_to_move=False)]).astype(np.float16)
    assert trained_komi_after(7.0, seven) == 7.0
    assert trained_komi_after(7.0, np.concatenate([seven, _planes(5.0).astype(np.float16)])) is None
    assert trained_komi_after(None, seven) is None  # an init of several komi stays so
