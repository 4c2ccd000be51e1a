"""Supervised training (``python -m dlgo.train supervised``): one epoch on tiny data, checkpoint,
resume at epoch 2 without redoing epoch 1, warm start, schedules; and the evaluate command
(``python -m dlgo.evaluate policy``): JSON format and figures on a hand-made model and games."""

from __future__ import annotations

import csv
import io
import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pytest

keras = pytest.importorskip("keras")
h5py = pytest.importorskip("h5py")

from test_data import SPECIAL, make_archive, random_game_sgf  # noqa: E402

from dlgo.data import Split  # noqa: E402
from dlgo.encoders import get_encoder_by_name  # noqa: E402
from dlgo.evaluate.__main__ import main as evaluate_main  # noqa: E402
from dlgo.evaluate.policy import evaluate_policy, score_batch  # noqa: E402
from dlgo.inference import load_model, read_card, save_model  # noqa: E402
from dlgo.train.__main__ import main as train_main  # noqa: E402
from dlgo.train.schedule import WarmupSchedule, lr_at  # noqa: E402
from dlgo.train.supervised import SupervisedConfig, TrainingError, _warm_start  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


@pytest.fixture(scope="module")
def archives(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("kgs")
    make_archive(folder / "KGS-2001-19-30-.tar.gz", {f"g{i:03d}.sgf": random_game_sgf(i, moves=20) for i in range(30)})
    return folder


def base_args(out: Path, archives: Path) -> list[str]:
    return [
        "supervised",
        "--out",
        str(out),
        "--sources",
        str(archives),
        "--size",
        "9",
        "--games",
        "24",
        "--test-games",
        "6",
        "--test-fraction",
        "0.2",
        "--blocks",
        "1",
        "--filters",
        "8",
        "--steps-per-epoch",
        "3",
        "--batch-size",
        "16",
        "--val-positions",
        "32",
        "--warmup-steps",
        "2",
        "-j",
        "1",
    ]


def log_rows(out: Path) -> list[dict[str, str]]:
    with open(out / "log.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def one_epoch(archives, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "tiny"
    assert train_main([*base_args(out, archives), "--epochs", "1"]) == 0
    return out


def test_one_epoch_writes_checkpoint_state_log_plot_and_model(one_epoch) -> None:
    out = one_epoch
    state = json.loads((out / "state.json").read_text())
    assert state["epochs_done"] == 1 and state["checkpoint"] == "checkpoint-001.keras"
    assert (out / "checkpoint-001.keras").exists() and (out / "curves.png").exists()
    assert state["positions_seen"] == 3 * 16
    rows = log_rows(out)
    assert [r["epoch"] for r in rows] == ["1"]
    assert float(rows[0]["val_top1"]) >= 0 and float(rows[0]["val_value_loss"]) > 0
    loaded = load_model(out / "model.keras", encoder="zero", board_size=19)  # size-independent
    assert loaded.heads == ["policy", "value"] and loaded.card.input_shape == [None, None, 16]
    training = loaded.card.training
    assert training["epochs"] == 1 and training["data"]["train_games"] == 24 and training["data"]["test_games"] == 6
    assert training["command"].startswith("python -m dlgo.train supervised --out")
    # Held-out games only: the data's test chunks come from the test part of the split.
    manifest = json.loads((out / "data" / "manifest.json").read_text())
    assert manifest["split"] == {"seed": 1337, "test_fraction": 0.2}


def test_the_exported_model_carries_no_optimizer_state(one_epoch) -> None:
    # the checkpoint keeps the optimizer for resuming; the network the engine loads does not
    # (Keras' clone of a compiled model would save Adam's two moments: three times the file)
    with zipfile.ZipFile(one_epoch / "model.keras") as z:
        names = z.namelist()
        weights = h5py.File(io.BytesIO(z.read("model.weights.h5")), "r")
    assert "model.weights.h5" in names and "optimizer" not in weights
    with zipfile.ZipFile(one_epoch / "checkpoint-001.keras") as z:
        assert "optimizer" in h5py.File(io.BytesIO(z.read("model.weights.h5")), "r")


def test_resume_continues_at_epoch_two(one_epoch, capsys, tmp_path) -> None:
    out = tmp_path / "resumed"
    import shutil

    shutil.copytree(one_epoch, out)
    before = log_rows(out)[0]
    capsys.readouterr()
    assert train_main(["supervised", "--out", str(out), "--resume", "--epochs", "2"]) == 0
    printed = capsys.readouterr().out
    assert "Epoch 2/2" in printed and "Epoch 1/2" not in printed
    state = json.loads((out / "state.json").read_text())
    assert state["epochs_done"] == 2 and state["positions_seen"] == 2 * 3 * 16
    assert sorted(p.name for p in out.glob("checkpoint-*.keras")) == ["checkpoint-002.keras"]
    rows = log_rows(out)
    assert [r["epoch"] for r in rows] == ["1", "2"] and rows[0] == before
    ckpt = keras.saving.load_model(out / "checkpoint-002.keras", compile=True)
    assert int(ckpt.optimizer.iterations.numpy()) == 6  # 3 steps per epoch, optimizer state kept
    card = read_card(out / "model.keras")
    assert card.training["epochs"] == 2 and card.training["resumed"][0].endswith("--resume --epochs 2")
    # Nothing left to do: says so and succeeds.
    assert train_main(["supervised", "--out", str(out), "--resume", "--epochs", "2"]) == 0


def test_refuses_to_overwrite_or_resume_nothing(one_epoch, archives, tmp_path, capsys) -> None:
    assert train_main([*base_args(one_epoch, archives), "--epochs", "1"]) == 2
    assert "use --resume" in capsys.readouterr().err
    assert train_main(["supervised", "--out", str(tmp_path / "none"), "--resume"]) == 2
    assert "nothing to resume" in capsys.readouterr().err


def test_warm_start_copies_weights_and_checks_the_network(one_epoch) -> None:
    from dlgo.networks.zero import zero_model

    model = zero_model(16, blocks=1, filters=8)
    _warm_start(model, str(one_epoch / "model.keras"), "zero")
    source = load_model(one_epoch / "model.keras").model
    assert all(np.array_equal(a, b) for a, b in zip(model.get_weights(), source.get_weights()))
    with pytest.raises(TrainingError, match="differs"):
        _warm_start(zero_model(16, blocks=1, filters=4), str(one_epoch / "model.keras"), "zero")


def test_fit_to_time_records_one_epoch_when_the_first_takes_all_the_minutes(archives, tmp_path, capsys) -> None:
    # a loaded machine: epoch 1 outlasts --max-minutes, so the fitted schedule is that one epoch,
    # and the state file says so (a resume must not go on with the 1000 epochs asked for)
    out = tmp_path / "slow"
    args = [*base_args(out, archives), "--epochs", "1000", "--max-minutes", "0.001", "--fit-to-time"]
    assert train_main(args) == 0
    assert "fit-to-time:" in capsys.readouterr().err
    state = json.loads((out / "state.json").read_text())
    assert state["config"]["epochs"] == 1 and state["epochs_done"] == 1


def test_fit_to_time_ends_the_rate_curve_with_the_minutes(archives, tmp_path, capsys) -> None:
    out = tmp_path / "timed"
    args = [*base_args(out, archives), "--epochs", "1000", "--max-minutes", "0.6", "--fit-to-time"]
    assert train_main([*args, "--lr-min", "1e-6"]) == 0
    assert "fit-to-time:" in capsys.readouterr().err
    state = json.loads((out / "state.json").read_text())
    fitted = state["config"]["epochs"]
    assert 2 <= fitted < 1000 and 2 <= state["epochs_done"] <= fitted
    rates = [float(r["lr"]) for r in log_rows(out)]
    assert rates == sorted(rates, reverse=True)
    # The fit comes from epoch 1's speed. On a machine that other work slows after it, the
    # minutes end the run before the curve does; otherwise the rate ends annealed (peak 1e-3).
    if state["epochs_done"] >= fitted - 1:
        assert rates[-1] < 0.5e-3
    again = ["supervised", "--out", str(tmp_path / "untimed"), "--sources", str(archives), "--fit-to-time"]
    assert train_main(again) == 2
    assert "needs --max-minutes" in capsys.readouterr().err


def test_mixed_precision_trains_in_bfloat16_and_exports_float32(archives, tmp_path) -> None:
    out = tmp_path / "mixed"
    assert train_main([*base_args(out, archives), "--epochs", "1", "--mixed-precision"]) == 0
    assert keras.config.dtype_policy().name == "float32"  # the global policy is put back
    checkpoint = keras.saving.load_model(out / "checkpoint-001.keras", compile=False)
    assert checkpoint.get_layer("stem_conv").dtype_policy.name == "mixed_bfloat16"
    assert checkpoint.get_layer("policy").dtype_policy.name == "float32"  # softmax outside bfloat16
    loaded = load_model(out / "model.keras")
    assert {layer.dtype_policy.name for layer in loaded.model.layers} == {"float32"}
    assert all(np.array_equal(a, b) for a, b in zip(loaded.model.get_weights(), checkpoint.get_weights()))
    assert loaded.card.training["precision"] == "mixed_bfloat16"


@pytest.mark.parametrize("kind", ["cosine", "step", "constant"])
def test_schedule_matches_its_python_twin(kind) -> None:
    schedule = WarmupSchedule(kind, 0.1, total_steps=100, warmup_steps=10, lr_min=0.001)
    for step in (0, 5, 9, 10, 30, 50, 60, 75, 99, 150):
        got = float(keras.ops.convert_to_numpy(schedule(step)))
        assert got == pytest.approx(lr_at(step, kind, 0.1, 0.001, 100, 10), rel=1e-5)
    assert WarmupSchedule.from_config(schedule.get_config()).get_config() == schedule.get_config()


def test_config_round_trips_through_state() -> None:
    config = SupervisedConfig(out="x", games=5, sources=["a"])
    assert SupervisedConfig.from_dict({**config.__dict__, "unknown": 1}) == config


# --- evaluate -------------------------------------------------------------------------------------------


def test_score_batch_ranks_ties_against_the_model() -> None:
    policy = np.array([[0.5, 0.3, 0.2, 0.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25, 0, 0, 0]])
    top1, top5, loss = score_batch(policy, np.array([0, 3]))
    assert (top1, top5) == (1, 2) and loss == pytest.approx(-math.log(0.5) - math.log(0.25))
    top1, top5, _ = score_batch(np.full((1, 10), 0.1), np.array([4]))
    assert (top1, top5) == (0, 0)  # a flat policy predicts nothing


GAME_1 = "(;GM[1]FF[4]SZ[9]KM[7.5]RE[B+R];B[ai];W[bi];B[ee];W[ci];B[di])"  # A1 B1 E5 C1 D1
GAME_2 = "(;GM[1]FF[4]SZ[9]KM[7.5]RE[W+Time];B[ei];W[fi])"  # E1 F1, value masked


@pytest.fixture(scope="module")
def handmade(tmp_path_factory):
    """A 9x9 model with a fixed policy (point 0 best, then 1, 2, ...) and a constant value."""
    from keras import initializers, layers

    folder = tmp_path_factory.mktemp("handmade")
    bias = -0.5 * np.arange(82, dtype=np.float32)
    bias[81] = -100.0
    inputs = keras.Input((9, 9, 16), name="planes")
    flat = layers.Flatten()(inputs)
    logits = layers.Dense(82, kernel_initializer="zeros", bias_initializer=initializers.Constant(bias))(flat)
    policy = layers.Softmax(name="policy")(logits)
    value = layers.Dense(
        1, activation="tanh", kernel_initializer="zeros", bias_initializer=initializers.Constant(0.3), name="value"
    )(flat)
    path = folder / "fixed.keras"
    save_model(keras.Model(inputs, [policy, value]), path, get_encoder_by_name("zero", 9), [9])
    games = folder / "games"
    games.mkdir()
    (games / "one.sgf").write_text(GAME_1)
    (games / "two.sgf").write_text(GAME_2)
    (games / "bad.sgf").write_text(SPECIAL["occupied.sgf"])
    (games / "big.sgf").write_text(SPECIAL["big.sgf"])
    p = np.exp(bias - bias.max())
    return path, games, p / p.sum()


def test_evaluate_figures_on_a_handmade_case(handmade) -> None:
    path, games, p = handmade
    result = evaluate_policy(path, [games], backend="compiled")
    labels = np.array([0, 1, 40, 2, 3, 4, 5])
    assert result["games"] == 2 and result["positions"] == 7
    assert result["top1"] == round(1 / 7, 4) and result["top5"] == round(5 / 7, 4)
    assert result["policy_loss"] == pytest.approx(float(np.mean(-np.log(p[labels]))), abs=1e-4)
    c = math.tanh(0.3)
    targets = np.array([1, -1, 1, -1, 1])  # Black won game 1; game 2 (time) has no value target
    assert result["value_positions"] == 5
    assert result["value_mse"] == pytest.approx(float(np.mean((c - targets) ** 2)), abs=1e-4)
    assert result["skipped_games"] == {"board_size": 1, "malformed": 1}


def test_evaluate_cli_json_split_and_record(handmade, capsys) -> None:
    path, games, _ = handmade
    args = ["policy", "--model", str(path), "--sgf", str(games), "--backend", "compiled"]
    assert evaluate_main([*args, "--split", "test", "--test-fraction", "0.5", "--record"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("games", "positions", "top1", "top5", "policy_loss", "split", "runner", "positions_per_second"):
        assert key in result
    split = Split(1337, 0.5)
    held_out = [n for n in ("one.sgf", "two.sgf") if split.is_test(n)]
    assert result["games"] == len(held_out) and result["split"] == "test"
    card = read_card(path)
    assert card.metrics["evaluate"]["positions"] == result["positions"]
    assert "--split test" in card.metrics["evaluate"]["command"]
    assert evaluate_main([*args, "--max-games", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 1
    assert evaluate_main(["policy", "--model", str(games / "none.keras"), "--sgf", str(games)]) == 2
    assert "not found" in capsys.readouterr().err


def test_evaluate_a_trained_run_on_archives(one_epoch, archives) -> None:
    result = evaluate_policy(one_epoch / "model.keras", [archives], split="test", max_games=3)
    # The split's seed and fraction come from the model card: only held-out games are scored.
    assert result["test_fraction"] == 0.2 and result["games"] == 3
    assert 0 <= result["top1"] <= result["top5"] <= 1 and result["value_positions"] > 0


def test_symmetry_average_maps_every_answer_back() -> None:
    from dlgo.encoders import symmetry
    from dlgo.inference.evaluator import symmetry_average as averaged_outputs

    rng = np.random.default_rng(3)
    x = rng.random((5, 9, 9, 16)).astype(np.float32)

    def equivariant(batch):  # policy read off plane 0: rotating the input rotates the answer
        logits = np.concatenate([batch[..., 0].reshape(len(batch), -1), np.zeros((len(batch), 1))], axis=1)
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        return [p, batch[..., 1].mean(axis=(1, 2))[:, None]]

    single = averaged_outputs(equivariant, ("policy", "value"), x, (9, 9), 1, 2)
    every = averaged_outputs(equivariant, ("policy", "value"), x, (9, 9), 8, 2)
    np.testing.assert_allclose(every["policy"], single["policy"], atol=1e-7)
    np.testing.assert_allclose(every["value"], single["value"], atol=1e-6)

    fixed = np.arange(82, dtype=np.float64)[::-1] / np.arange(82).sum()

    def oriented(batch):  # the same answer whatever the board: averaging makes it symmetric
        return [np.tile(fixed, (len(batch), 1)), np.full((len(batch), 1), 0.3)]

    averaged = averaged_outputs(oriented, ("policy", "value"), x, (9, 9), 8, 4)["policy"]
    for k in range(8):
        np.testing.assert_allclose(symmetry.apply_to_policy(averaged, k, 9), averaged, atol=1e-7)
    np.testing.assert_allclose(averaged.sum(axis=1), 1.0, rtol=1e-6)
    assert averaged[0, 81] == pytest.approx(fixed[81])  # pass untouched
    corners = [0, 8, 72, 80]
    assert averaged[0, corners] == pytest.approx([np.mean(fixed[corners])] * 4)


def test_evaluate_with_symmetries_records_beside_the_single_pass(handmade, capsys) -> None:
    from dlgo.encoders import symmetry

    path, games, p = handmade
    args = ["policy", "--model", str(path), "--sgf", str(games), "--backend", "compiled", "--record"]
    assert evaluate_main([*args, "--symmetries", "8"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["symmetries"] == 8 and result["positions"] == 7
    # The fixed policy's mass spreads over its 8 images, and the figures are those of the average.
    expected = np.mean([symmetry.invert_policy(p[None], k, 9)[0] for k in range(8)], axis=0)
    labels = np.array([0, 1, 40, 2, 3, 4, 5])
    top1, top5, loss = score_batch(np.tile(expected, (7, 1)), labels)
    assert (result["top1"], result["top5"]) == (round(top1 / 7, 4), round(top5 / 7, 4))
    assert result["policy_loss"] == pytest.approx(loss / 7, abs=1e-4)
    metrics = read_card(path).metrics
    assert metrics["evaluate_8_symmetries"]["symmetries"] == 8
    assert evaluate_main([*args[:-1], "--symmetries", "9"]) == 2
