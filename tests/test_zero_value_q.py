"""The search's root Q as a second value target (``[train] value_q_weight``): self-play records
it per position, the replay keeps it (older chunks load as unknown), the learner blends it with
the game's result and learns what the blend says."""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from dlgo.gotypes import Player  # noqa: E402
from dlgo.inference import load_model, save_model  # noqa: E402
from dlgo.networks.zero import zero_model  # noqa: E402
from dlgo.search.zero_agent import ZeroAgent  # noqa: E402
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer, combine_experience, training_batch  # noqa: E402
from dlgo.zero.loop_config import LoopConfigError, load_loop_config  # noqa: E402
from dlgo.zero.selfplay import SelfPlaySettings, play_game  # noqa: E402
from dlgo.zero.trainer import TrainerSettings, blended_value_targets, train_candidate  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


class BlackAheadEvaluator:
    """Uniform priors (pass nearly never), every position worth ``black_value`` to Black."""

    def __init__(self, black_value: float) -> None:
        self.black_value = black_value

    def evaluate(self, states):
        points = states[0].board.num_rows * states[0].board.num_cols
        priors = np.append(np.full(points, 1.0 / points), 1e-6)
        black = np.array([s.next_player is Player.black for s in states])
        return np.tile(priors, (len(states), 1)), np.where(black, self.black_value, -self.black_value)


def test_self_play_records_the_root_q_for_the_player_to_move():
    agent = ZeroAgent(BlackAheadEvaluator(0.6), batch_size=4, self_play=True, seed=3, pipeline=False)
    settings = SelfPlaySettings(
        board_size=5, komi=0.5, full_visits=16, fast_visits=4, max_moves=8, full_search_fraction=0.5
    )
    game = play_game(agent, settings, np.random.default_rng(4), resign_allowed=False)
    exp = game.experience
    assert 0 < len(exp) < 8 and exp.root_values.shape == exp.rewards.shape
    black_to_move = exp.states[:, 0, 0, 13] == 1
    # every position is worth 0.6 to Black, so every search's mean is +0.6 for Black, -0.6 for White
    assert np.allclose(exp.root_values, np.where(black_to_move, 0.6, -0.6), atol=1e-4)


def test_root_values_survive_the_replay_and_old_chunks_load_as_unknown(tmp_path):
    old = tmp_path / "it0000-t00000-n3.npz"
    np.savez_compressed(
        old, states=np.zeros((3, 5, 5, 16), np.float16), policies=np.full((3, 26), 1 / 26), rewards=np.ones(3)
    )
    new = ZeroExperienceBuffer(
        np.zeros((2, 5, 5, 16)), np.full((2, 26), 1 / 26), -np.ones(2), root_values=np.array([0.25, -0.5])
    )
    replay = ReplayBuffer(tmp_path)
    replay.add(new, 0, 1)
    window = replay.window(100)
    assert np.isnan(window.root_values[:3]).all() and list(window.root_values[3:]) == [0.25, -0.5]
    assert np.isnan(combine_experience([new, ZeroExperienceBuffer.load(old)]).root_values[2:]).all()
    batch = training_batch(window, 64, np.random.default_rng(0))
    known = ~np.isnan(batch.root_values)
    assert known.any() and (~known).any() and set(batch.root_values[known]) <= {0.25, -0.5}
    with pytest.raises(ValueError, match="root_values"):
        ZeroExperienceBuffer(np.zeros((2, 5, 5, 16)), np.full((2, 26), 1 / 26), np.ones(2), root_values=np.zeros(3))


def test_the_blend_weighs_result_and_q_and_falls_back_to_the_result():
    rewards = np.array([1.0, -1.0, 1.0, 0.0])
    q = np.array([0.2, 0.4, np.nan, 3.0])  # a Q outside [-1, 1] is clipped
    assert blended_value_targets(rewards, q, 0.0).tolist() == rewards.tolist()
    assert np.allclose(blended_value_targets(rewards, q, 0.5), [0.6, -0.3, 1.0, 0.5])
    assert np.allclose(blended_value_targets(rewards, q, 1.0), [0.2, 0.4, 1.0, 1.0])


def _value_after_training(tmp_path, q_weight: float) -> float:
    rng = np.random.default_rng(7)
    n, size = 64, 5
    x = (rng.random((n, size, size, 16)) > 0.6).astype(np.float32)
    # every game won (+1) while the search thought it lost (-0.6): the weight decides the target
    buffer = ZeroExperienceBuffer(x, np.full((n, 26), 1 / 26), np.ones(n), root_values=np.full(n, -0.6))
    replay = ReplayBuffer(tmp_path / "replay")
    replay.add(buffer, 0, 0)
    init = tmp_path / "init.keras"
    keras.utils.set_random_seed(0)
    save_model(zero_model(16, blocks=1, filters=16), init, "zero", [size])
    settings = TrainerSettings(
        batch_size=32, steps_per_iteration=80, lr=0.05, window_start=1000, min_positions=1, value_q_weight=q_weight
    )
    train_candidate(
        replay, 0, tmp_path / "learner.keras", init, tmp_path / "cand.keras", settings, seed=1, progress=False
    )
    model = load_model(tmp_path / "cand.keras").model
    return float(np.mean(keras.ops.convert_to_numpy(model(x, training=False)[1])))


def test_the_learner_learns_the_blended_target(tmp_path):
    result_only = _value_after_training(tmp_path / "z", 0.0)
    q_only = _value_after_training(tmp_path / "q", 1.0)
    assert result_only > 0.5 and q_only < -0.3


def test_the_weight_is_checked(tmp_path):
    config = tmp_path / "loop.toml"
    config.write_text("[train]\nvalue_q_weight = 1.5\n")
    with pytest.raises(LoopConfigError, match="value_q_weight"):
        load_loop_config(config)
    config.write_text("[train]\nvalue_q_weight = 0.5\n")
    assert load_loop_config(config).train.value_q_weight == 0.5
