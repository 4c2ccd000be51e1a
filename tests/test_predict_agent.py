"""The book's DeepLearningAgent (``dlgo.agent.predict``): cube/clip/renormalise, ranked sampling,
never an own eye, pass when nothing is left; a real model file; a full game through the GTP engine
with ``configs/engine/predict-19x19.toml``."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from dlgo.agent.helpers import is_point_an_eye
from dlgo.agent.predict import CLIP, DeepLearningAgent, load_prediction_agent, move_probabilities
from dlgo.encoders import get_encoder_by_name
from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point

ROOT = Path(__file__).resolve().parent.parent
WEIGHTS = ROOT / "weights" / "zero-19x19.keras"


class FixedPolicy:
    """A stand-in for ``BatchEvaluator`` answering a fixed distribution (no Keras)."""

    heads = ["policy"]
    runner = SimpleNamespace(name="fixed")

    def __init__(self, probs: np.ndarray) -> None:
        self.probs = np.asarray(probs, dtype=np.float32)
        self.calls = 0

    def policy(self, states):
        self.calls += 1
        return np.stack([self.probs for _ in states])

    def encoder_for(self, size):
        return get_encoder_by_name("zero", size)


def one_hot(size: int, point: Point, with_pass: bool = True) -> np.ndarray:
    p = np.zeros(size * size + int(with_pass), dtype=np.float32)
    p[size * (point.row - 1) + point.col - 1] = 1.0
    return p


def test_move_probabilities_cube_clip_and_renormalise() -> None:
    p = move_probabilities(np.array([0.6, 0.4, 0.0, 0.0]))
    expected = np.array([0.216, 0.064, CLIP, CLIP])
    assert np.allclose(p, expected / expected.sum()) and p.sum() == pytest.approx(1.0)
    certain = move_probabilities(np.array([1.0, 0.0, 0.0]))
    assert certain[1] > 0 and certain[1] == certain[2]  # clipped up to 1e-6 before renormalising
    assert certain[0] == pytest.approx((1 - CLIP) / (1 - CLIP + 2 * CLIP))


def test_ranked_sampling_is_a_weighted_permutation() -> None:
    probs = np.zeros(25)
    probs[0], probs[1] = 0.6, 0.4
    agent = DeepLearningAgent(evaluator=FixedPolicy(np.append(probs, 0.0)), seed=3)
    firsts = [int(agent.ranked_moves(probs)[0]) for _ in range(2000)]
    share = firsts.count(0) / len(firsts)
    assert share == pytest.approx(0.216 / 0.280, abs=0.04)  # cubed: 77%, not 60%
    assert set(firsts) <= {0, 1} or firsts.count(0) + firsts.count(1) > 1990
    ranked = agent.ranked_moves(probs)
    assert sorted(ranked.tolist()) == list(range(25))


def test_plays_the_network_move_when_valid() -> None:
    target = Point(3, 4)
    agent = DeepLearningAgent(evaluator=FixedPolicy(one_hot(9, target)), seed=1)
    state = GameState.new_game(9)
    assert agent.select_move(state) == Move.play(target)
    assert agent.diagnostics()["rank_drawn"] == 0


def eye_board() -> GameState:
    """5x5, Black everywhere but three one-point eyes (A1, C3, E5): Black to move."""
    board = Board(5, 5)
    eyes = {Point(1, 1), Point(3, 3), Point(5, 5)}
    for row in range(1, 6):
        for col in range(1, 6):
            if Point(row, col) not in eyes:
                board.place_stone(Player.black, Point(row, col))
    return GameState.from_position(board, Player.black, 7.5)


def test_never_fills_its_own_eye() -> None:
    board = Board(5, 5)
    for p in (Point(1, 2), Point(2, 1), Point(2, 2), Point(3, 1), Point(3, 2), Point(1, 3), Point(2, 3)):
        board.place_stone(Player.black, p)
    state = GameState.from_position(board, Player.black, 7.5)
    assert is_point_an_eye(state.board, Point(1, 1), Player.black)
    for seed in range(20):
        agent = DeepLearningAgent(evaluator=FixedPolicy(one_hot(5, Point(1, 1))), seed=seed)
        move = agent.select_move(state)
        assert move.is_play and move.point != Point(1, 1) and state.is_valid_move(move)


@pytest.mark.parametrize("player", [Player.black, Player.white])
def test_passes_when_no_valid_move_is_left(player) -> None:
    state = eye_board()
    state = GameState.from_position(state.board, player, 7.5)
    agent = DeepLearningAgent(evaluator=FixedPolicy(np.full(26, 1 / 26)), seed=0)
    # Black: every empty point is its own eye; White: every empty point is suicide.
    assert agent.select_move(state) == Move.pass_turn()
    assert agent.diagnostics()["rank_drawn"] is None


def test_never_resigns_and_ignores_the_pass_output() -> None:
    probs = np.zeros(82, dtype=np.float32)
    probs[81] = 1.0  # the network wants to pass
    agent = DeepLearningAgent(evaluator=FixedPolicy(probs), seed=0)
    move = agent.select_move(GameState.new_game(9))
    assert move.is_play


# --- with Keras ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("keras")
    from dlgo.inference import save_model
    from dlgo.networks.zero import zero_model

    folder = tmp_path_factory.mktemp("predict")
    path = folder / "tiny.keras"
    save_model(zero_model(16, blocks=1, filters=8), path, get_encoder_by_name("zero", 19), [19])
    return path


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_load_prediction_agent_plays_any_size(tiny_model) -> None:
    agent = load_prediction_agent(tiny_model, board_size=9, seed=1, backend="compiled")
    state = GameState.new_game(9)
    for _ in range(6):
        move = agent.select_move(state)
        assert move.is_play and state.is_valid_move(move)
        state = state.apply_move(move)
    probs = agent.predict(state)
    assert probs.shape == (81,) and 0.9 < probs.sum() <= 1.0 + 1e-5


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_size_specific_model_refuses_other_sizes(tmp_path) -> None:
    pytest.importorskip("keras")
    from dlgo.inference import ModelFileError, save_model
    from dlgo.networks.zero import zero_model

    path = tmp_path / "fixed.keras"
    save_model(zero_model(16, blocks=1, filters=4, board_size=9), path, get_encoder_by_name("zero", 9), [9])
    with pytest.raises(ModelFileError, match="plays 9x9 only"):
        load_prediction_agent(path, board_size=13)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_full_game_through_the_gtp_engine(tiny_model) -> None:
    from gtp_client import EngineProcess

    sets = [] if WEIGHTS.exists() else [f"predict.model={tiny_model}"]
    with EngineProcess(*sets, config="configs/engine/predict-19x19.toml") as engine:
        assert engine.ok("boardsize 7") == "" and engine.ok("clear_board") == ""
        passes = 0
        moves = []
        colour = "b"
        resigned = None
        while passes < 2 and len(moves) < 300:
            move = engine.ok(f"genmove {colour}", timeout=180 if not moves else 60).lower()
            if move == "resign":
                # The end-of-game rule: after the opponent's pass, a lost count that no move can
                # change is resigned.
                assert passes == 1, f"{colour} resigned at move {len(moves) + 1} without a pass before it"
                resigned = colour
                break
            moves.append(move)
            passes = passes + 1 if move == "pass" else 0
            colour = "w" if colour == "b" else "b"
        assert passes == 2 or resigned, f"no end after {len(moves)} moves"
        assert len([m for m in moves if m != "pass"]) >= 10
        score = engine.ok("final_score")
        assert score == "0" or score[:2] in ("B+", "W+")
        if resigned:
            winner = "W+" if resigned == "b" else "B+"
            assert score.startswith(winner), f"{resigned} resigned a count of {score}"
