"""KataGo's auxiliary targets and global pooling for the Zero network (book chapter 14; Wu 2019):
the ownership and score heads, grafting them onto a shipped network, their targets from
self-play, augmentation, masked training, old replay chunks, and inference on such a model."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from dlgo.encoders import get_encoder_by_name  # noqa: E402
from dlgo.goboard import GameState, Move  # noqa: E402
from dlgo.gotypes import Point  # noqa: E402
from dlgo.inference import BatchEvaluator, load_model, save_model  # noqa: E402
from dlgo.networks.grow import conform_network, graft_heads, model_has_heads  # noqa: E402
from dlgo.networks.zero import zero_model  # noqa: E402
from dlgo.search.zero_agent import ZeroAgent  # noqa: E402
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer, training_batch  # noqa: E402
from dlgo.zero.selfplay import SelfPlaySettings, final_targets, play_game  # noqa: E402
from dlgo.zero.trainer import TrainerSettings, train_candidate  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

ROOT = Path(__file__).resolve().parent.parent
HAS_ORT = importlib.util.find_spec("onnxruntime") is not None and importlib.util.find_spec("tf2onnx") is not None


def _outputs(model, x):
    return [np.array(keras.ops.convert_to_numpy(o)) for o in model(x, training=False)]


def _planes(rng, n, size):
    return (rng.random((n, size, size, 16)) > 0.6).astype(np.float32)


# --- the network -------------------------------------------------------------------------------


def test_aux_heads_and_pooling_play_every_size_with_the_same_weights():
    model = zero_model(16, blocks=3, filters=16, ownership=True, score=True, global_pooling=True)
    assert model.output_names == ["policy", "value", "ownership", "score"]
    assert any(layer.name == "res2_gpool_dense" for layer in model.layers)
    rng = np.random.default_rng(0)
    for size in (9, 13):
        policy, value, ownership, score = _outputs(model, _planes(rng, 2, size))
        assert policy.shape == (2, size * size + 1) and value.shape == (2, 1)
        assert ownership.shape == (2, size * size) and np.all(np.abs(ownership) <= 1.0)
        assert score.shape == (2, 1)
    assert model_has_heads(model) == {"ownership": True, "score": True}


@pytest.mark.parametrize(
    "name, aux, blocks, filters",
    [
        ("zero-19x19.keras", False, 10, 128),
        ("zero-19x19-4x48.keras", False, 4, 48),
        ("zero-9x9.keras", True, 4, 48),
    ],
    ids=["two-heads", "two-heads-4x48", "aux-heads"],
)
def test_the_networks_are_unchanged_and_the_shipped_weights_load_into_them(name, aux, blocks, filters):
    """The default network builds the shipped 19x19 ones layer for layer (the 10x128 trained
    under mixed precision included); with both heads and global pooling, the shipped 9x9 one."""
    shipped = keras.saving.load_model(ROOT / "weights" / name, compile=False)
    fresh = zero_model(16, blocks=blocks, filters=filters, ownership=aux, score=aux, global_pooling=aux)
    assert [layer.name for layer in fresh.layers] == [layer.name for layer in shipped.layers]
    fresh.set_weights(shipped.get_weights())  # same shapes in the same order
    x = _planes(np.random.default_rng(1), 3, 9)
    for a, b in zip(_outputs(fresh, x), _outputs(shipped, x)):
        assert np.allclose(a, b, atol=1e-5)


def test_graft_keeps_policy_and_value_and_adds_fresh_heads():
    source = keras.saving.load_model(ROOT / "weights" / "zero-9x9.keras", compile=False)
    x = _planes(np.random.default_rng(2), 4, 9)
    before = _outputs(source, x)
    grafted = graft_heads(source, ownership=True, score=True)
    assert grafted.output_names == ["policy", "value", "ownership", "score"]
    after = _outputs(grafted, x)
    assert np.allclose(after[0], before[0], atol=1e-6) and np.allclose(after[1], before[1], atol=1e-6)
    # pooling added with a zero last layer: still the same answers, and trainable from there
    pooled = conform_network(source, aux_heads=True, global_pooling=True)
    assert any("_gpool_" in layer.name for layer in pooled.layers)
    out = _outputs(pooled, x)
    assert np.allclose(out[0], before[0], atol=1e-5) and np.allclose(out[1], before[1], atol=1e-5)
    stripped = graft_heads(pooled, ownership=False, score=False)
    assert stripped.output_names == ["policy", "value"]
    assert conform_network(stripped, aux_heads=False) is stripped
    with pytest.raises(ValueError, match="cannot be taken out"):
        graft_heads(pooled, global_pooling=False)


# --- targets from self-play ----------------------------------------------------------------------


def _vertex_moves(moves):
    state = GameState.new_game(5, komi=0.5)
    for m in moves:
        state = state.apply_move(Move.pass_turn() if m is None else Move.play(Point(*m)))
    return state


def test_final_targets_are_the_area_count_of_the_final_position():
    # Black walls column 2, White column 4, a black stone at (3, 5) splits White's side into dame.
    moves = []
    for row in range(1, 6):
        moves += [(row, 2), (row, 4)]
    state = _vertex_moves([*moves, (3, 5), None, None])
    assert state.is_over()
    grid, score = final_targets(state)
    expected = np.zeros((5, 5), dtype=np.int8)
    expected[:, 0:2] = 1  # black stones and the territory they alone border
    expected[:, 3] = -1  # white stones
    expected[2, 4] = 1  # the lone black stone; (1,5), (2,5), (4,5), (5,5) and column 3 are dame
    assert np.array_equal(grid.reshape(5, 5), expected)
    assert score == pytest.approx(11 - 5 - 0.5)


class ConstantEvaluator:
    """Uniform priors, ``pass_prior`` for pass, ``black_value`` for Black to move (White gets the
    opposite), as in tests/test_zero_loop.py."""

    def __init__(self, black_value: float = 0.0, pass_prior: float = 1e-6) -> None:
        self.black_value = black_value
        self.pass_prior = pass_prior

    def evaluate(self, states):
        n = states[0].board.num_rows * states[0].board.num_cols + 1
        p = np.full((len(states), n), (1.0 - self.pass_prior) / (n - 1))
        p[:, -1] = self.pass_prior
        v = [self.black_value if s.next_player.value == 1 else -self.black_value for s in states]
        return p, np.array(v)


def _replay(game) -> GameState:
    state = GameState.new_game(5, komi=0.5)
    cols = "ABCDEFGHJ"
    for v in game.moves:
        move = Move.pass_turn() if v == "pass" else Move.play(Point(int(v[1:]), cols.index(v[0]) + 1))
        state = state.apply_move(move)
    return state


def test_self_play_stores_ownership_and_score_for_the_player_to_move():
    # a pass prior that ends the game by two passes with both colours on the board
    agent = ZeroAgent(ConstantEvaluator(0.0, pass_prior=0.03), batch_size=4, self_play=True, seed=5, pipeline=False)
    settings = SelfPlaySettings(
        board_size=5, komi=0.5, full_visits=12, fast_visits=3, full_search_fraction=1.0, temperature_moves=6
    )
    game = play_game(agent, settings, np.random.default_rng(1), resign_allowed=False)
    final = _replay(game)
    exp = game.experience
    assert final.is_over() and len(exp) == len(game.moves)
    assert len({int(s) for s in exp.states[:, 0, 0, 13]}) == 2  # both colours were to move
    grid, score = final_targets(final)
    assert {1, -1} <= set(grid.tolist())
    black_to_move = exp.states[:, 0, 0, 13] == 1
    sign = np.where(black_to_move, 1, -1)
    assert np.all(exp.aux_mask == 1)
    assert np.array_equal(exp.ownership, sign[:, None] * grid[None, :])
    assert np.allclose(exp.score, sign * score)
    assert np.array_equal(np.sign(exp.score), exp.rewards)  # komi 0.5: the score decides the game


def test_resigned_and_capped_games_have_mask_zero():
    settings = SelfPlaySettings(
        board_size=5, komi=0.5, full_visits=8, fast_visits=4, resign_threshold=-0.5, resign_consecutive=2,
        resign_min_move=4, full_search_fraction=1.0,
    )  # fmt: skip
    lost = ZeroAgent(ConstantEvaluator(-0.9), batch_size=4, self_play=True, seed=1, pipeline=False)
    game = play_game(lost, settings, np.random.default_rng(2))
    assert game.resigned and len(game.experience) > 0
    assert np.all(game.experience.aux_mask == 0) and not game.experience.ownership.any()
    capped = SelfPlaySettings(
        board_size=5, komi=0.5, full_visits=6, fast_visits=3, max_moves=6, full_search_fraction=1.0
    )
    agent = ZeroAgent(ConstantEvaluator(0.0), batch_size=4, self_play=True, seed=1, pipeline=False)
    game = play_game(agent, capped, np.random.default_rng(3), resign_allowed=False)
    assert len(game.moves) == 6 and np.all(game.experience.aux_mask == 0)


def test_a_game_without_recorded_positions_gives_an_empty_buffer():
    # Every move a fast search (playout cap randomization): nothing to learn from, no crash.
    settings = SelfPlaySettings(
        board_size=5, komi=0.5, full_visits=6, fast_visits=3, max_moves=4, full_search_fraction=1e-9
    )
    agent = ZeroAgent(ConstantEvaluator(0.0), batch_size=4, self_play=True, seed=1, pipeline=False)
    game = play_game(agent, settings, np.random.default_rng(3), resign_allowed=False)
    assert len(game.experience) == 0 and game.experience.ownership.shape == (0, 25)
    empty = ZeroExperienceBuffer(
        np.zeros((0, 5, 5, 17)), np.zeros((0, 26)), np.zeros(0),
        ownership=np.zeros((0, 25)), score=np.zeros(0), aux_mask=np.zeros(0),
    )  # fmt: skip
    assert empty.ownership.shape == (0, 25)


# --- replay and augmentation ---------------------------------------------------------------------


def test_augmentation_moves_ownership_with_the_stones():
    size, n = 5, 32
    rng = np.random.default_rng(4)
    states = np.zeros((n, size, size, 16), dtype=np.float16)
    ownership = -np.ones((n, size * size), dtype=np.int8)
    for i in range(n):
        r, c = rng.integers(0, size, 2)
        states[i, r, c, 0] = 1
        ownership[i, r * size + c] = 1
    buffer = ZeroExperienceBuffer(
        states, np.full((n, 26), 1 / 26), np.zeros(n), ownership=ownership, score=np.zeros(n), aux_mask=np.ones(n)
    )
    batch = training_batch(buffer, 300, rng)
    stones = batch.x[:, :, :, 0].reshape(300, -1)
    assert np.array_equal(np.argmax(stones, axis=1), np.argmax(batch.ownership, axis=1))
    assert (batch.ownership == 1).sum() == 300
    moved = {int(np.argmax(s)) for s in stones}
    assert len(moved) > 5  # the symmetries were drawn


def test_old_chunk_without_aux_arrays_loads_with_mask_zero(tmp_path):
    n = 4
    path = tmp_path / "it0000-t00000-n4.npz"
    np.savez_compressed(
        path, states=np.zeros((n, 5, 5, 16), np.float16), policies=np.full((n, 26), 1 / 26), rewards=np.ones(n)
    )
    old = ZeroExperienceBuffer.load(path)
    assert old.ownership.shape == (n, 25) and not old.aux_mask.any()
    new = ZeroExperienceBuffer(
        np.zeros((2, 5, 5, 16)), np.full((2, 26), 1 / 26), np.ones(2),
        ownership=np.ones((2, 25)), score=np.array([3.0, -3.0]), aux_mask=np.ones(2),
    )  # fmt: skip
    replay = ReplayBuffer(tmp_path)
    replay.add(new, 0, 1)
    window = replay.window(100)
    assert list(window.aux_mask) == [0, 0, 0, 0, 1, 1] and list(window.score[-2:]) == [3.0, -3.0]


# --- training ------------------------------------------------------------------------------------


INIT_SEED = 0


def test_training_lowers_the_masked_ownership_loss(tmp_path):
    rng = np.random.default_rng(5)
    n, size = 96, 5
    x = _planes(rng, n, size)
    ownership = np.where(x[..., 0].reshape(n, -1) > 0, 1, -1).astype(np.int8)  # a local rule to learn
    mask = (np.arange(n) % 4 != 0).astype(np.float32)  # a quarter of the games resigned
    ownership[mask == 0] = 0
    buffer = ZeroExperienceBuffer(
        x, np.full((n, 26), 1 / 26), np.zeros(n), ownership=ownership, score=ownership.sum(1), aux_mask=mask
    )
    replay = ReplayBuffer(tmp_path / "replay")
    replay.add(buffer, 0, 0)
    init = tmp_path / "init.keras"
    keras.utils.set_random_seed(INIT_SEED)  # the network's start, whatever tests ran before (CI failed on one)
    save_model(zero_model(16, blocks=1, filters=16), init, "zero", [size])
    settings = TrainerSettings(batch_size=32, steps_per_iteration=60, lr=0.05, window_start=1000, min_positions=1)
    metrics = train_candidate(
        replay, 0, tmp_path / "learner.keras", init, tmp_path / "cand.keras", settings, seed=1, progress=False,
        aux_heads=True,
    )  # fmt: skip
    assert {"ownership_loss", "score_loss"} <= set(metrics) and metrics["aux_positions"] == pytest.approx(0.75)
    assert metrics["bn_batches"] == settings.bn_batches == 32  # the candidate's statistics recomputed
    loaded = load_model(tmp_path / "cand.keras")
    assert loaded.card.heads == ["policy", "value", "ownership", "score"]
    # The candidate is an inference file: no optimizer state (the learner's checkpoint keeps it).
    assert getattr(keras.saving.load_model(tmp_path / "cand.keras"), "optimizer", None) is None
    assert keras.saving.load_model(tmp_path / "learner.keras").optimizer is not None
    assert (tmp_path / "cand.keras").stat().st_size < (tmp_path / "learner.keras").stat().st_size
    keep = mask == 1

    def ownership_mse(model):
        return float(np.mean((_outputs(model, x[keep])[2] - ownership[keep]) ** 2))

    fresh = graft_heads(keras.saving.load_model(init, compile=False))
    assert ownership_mse(loaded.model) < 0.7 * ownership_mse(fresh)
    # the next iteration resumes the learner checkpoint (heads and optimizer state kept)
    again = train_candidate(
        replay, 1, tmp_path / "learner.keras", init, tmp_path / "cand1.keras", settings, seed=2, progress=False,
        aux_heads=True,
    )  # fmt: skip
    assert again["ownership_loss"] < metrics["ownership_loss"]


# --- inference --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "backend", ["compiled", pytest.param("onnx", marks=pytest.mark.skipif(not HAS_ORT, reason="no onnxruntime"))]
)
def test_evaluator_ignores_the_aux_heads_by_name(tmp_path, backend):
    encoder = get_encoder_by_name("zero", 9)
    model = zero_model(16, blocks=1, filters=8, ownership=True, score=True, global_pooling=True)
    path = tmp_path / "aux.keras"
    save_model(model, path, encoder, [9])
    loaded = load_model(path, heads=["policy", "value"])
    assert loaded.card.heads == ["policy", "value", "ownership", "score"]
    states = [GameState.new_game(9, komi=7.0)]
    for m in [(3, 3), (7, 7), (5, 5), (3, 7)]:
        states.append(states[-1].apply_move(Move.play(Point(*m))))
    evaluator = BatchEvaluator(loaded, backend=backend, cache_size=0)
    policy, value = evaluator.evaluate(states)
    ref = _outputs(loaded.model, encoder.encode_batch(states))
    assert np.allclose(policy, ref[0], atol=1e-4) and np.allclose(value, ref[1][:, 0], atol=1e-4)


# --- the loop ------------------------------------------------------------------------------------


def test_loop_switches_the_aux_heads_on_for_a_running_learner(tmp_path):
    import csv

    from dlgo.zero.loop_config import LoopConfigError, load_loop_config
    from dlgo.zero.training_loop import ZeroLoop

    def config(**loop):
        return load_loop_config(
            None,
            {
                "loop": {"out": str(tmp_path / "run"), "blocks": 1, "filters": 8, "workers": 1, **loop},
                "selfplay": {
                    "board_size": 5, "komi": 3.0, "games_per_iteration": 4, "games_per_task": 2,
                    "full_visits": 8, "fast_visits": 4, "no_resign_fraction": 1.0,
                    "max_moves": 200,  # games end by two passes (capped ones have no ownership target)
                },
                "train": {"batch_size": 8, "steps_per_iteration": 3, "min_positions": 1},
                "gating": {"games": 2, "visits": 4},
                "anchor": {"games": 0},
            },
        )  # fmt: skip

    ZeroLoop(config(), progress=False).run(iterations=1)
    assert keras.saving.load_model(tmp_path / "run" / "learner.keras").output_names == ["policy", "value"]
    ZeroLoop(config(aux_heads=True, global_pooling=True), progress=False).run(iterations=2)
    learner = keras.saving.load_model(tmp_path / "run" / "learner.keras")
    assert learner.output_names == ["policy", "value", "ownership", "score"]
    assert any("_gpool_" in layer.name for layer in learner.layers)
    assert load_model(tmp_path / "run" / "iter-0001" / "candidate.keras").card.heads[2:] == ["ownership", "score"]
    with open(tmp_path / "run" / "iterations.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["ownership_loss"] == "" and float(rows[1]["ownership_loss"]) > 0
    with pytest.raises(LoopConfigError, match="train.score_weight"):
        load_loop_config(None, {"train": {"score_weight": -1.0}})
