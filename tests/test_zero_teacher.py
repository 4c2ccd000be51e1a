"""A stronger player's games as training targets (``dlgo.zero.teacher``): match records become
replay rows (teacher moves one-hot, our own moves value-only, results per mover, the referee's
count with its dead stones), the conversion resumes, and the fine-tuning learns the teacher."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dlgo.encoders import get_encoder_by_name
from dlgo.goboard import Move
from dlgo.utils import point_from_coords
from dlgo.zero.experience import ReplayBuffer
from dlgo.zero.teacher import convert_matches, game_experience, read_match

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

# 5x5: Black (the teacher) walls off columns A-C, White (our engine) D-E; two passes end it
COUNTED = {
    "index": 0, "black": "teacher", "white": "us", "size": 5, "komi": 0.5, "handicap": 0,
    "moves": [["B", "C1"], ["W", "D1"], ["B", "C2"], ["W", "D2"], ["B", "C3"], ["W", "D3"],
              ["B", "C4"], ["W", "D4"], ["B", "C5"], ["W", "D5"], ["B", "A3"], ["W", "pass"],
              ["B", "B3"], ["W", "pass"], ["B", "pass"]],
    "winner": "B", "result": "B+4.5", "reason": "score", "fault": None,
    "scoring": {"dead_removed": []},
}  # fmt: skip
RESIGNED = {
    "index": 1, "black": "us", "white": "teacher", "size": 5, "komi": 0.5, "handicap": 0,
    "moves": [["B", "C3"], ["W", "C2"], ["B", "resign"]],
    "winner": "W", "result": "W+R", "reason": "resign", "fault": None, "scoring": {},
}  # fmt: skip
FAULTED = {**RESIGNED, "index": 2, "fault": "illegal move", "winner": "B", "result": "B+F"}


def _match(folder, *records):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


def test_teacher_moves_are_policy_targets_and_ours_teach_the_value_only(tmp_path):
    game = next(read_match(_match(tmp_path / "m", COUNTED)))
    exp = game_experience(game, ["teacher"])
    encoder = get_encoder_by_name("zero", 5)
    assert len(exp) == 15  # a position before every move, the passes included
    black_rows, white_rows = exp.policies[0::2], exp.policies[1::2]
    assert black_rows.sum(axis=1).tolist() == [1.0] * 8
    assert white_rows.sum() == 0  # our engine's moves are not imitated
    assert black_rows[0].argmax() == encoder.encode_move(Move.play(point_from_coords("C1")))
    assert black_rows[-1].argmax() == encoder.num_moves() - 1  # the teacher's closing pass
    # Black won: +1 for Black to move, -1 for White to move
    assert exp.rewards[0::2].tolist() == [1.0] * 8 and exp.rewards[1::2].tolist() == [-1.0] * 7
    assert np.isnan(exp.root_values).all()


def test_a_counted_game_gives_the_referees_count_with_its_dead_stones_removed(tmp_path):
    alive = game_experience(next(read_match(_match(tmp_path / "a", COUNTED))), ["teacher"])
    dead = {**COUNTED, "result": "B+24.5", "scoring": {"dead_removed": ["D1", "D2", "D3", "D4", "D5"]}}
    removed = game_experience(next(read_match(_match(tmp_path / "b", dead))), ["teacher"])
    assert alive.aux_mask.tolist() == [1.0] * 15
    # Black to move at row 0: Black has columns A-C (15 points), White D-E (10), komi 0.5
    assert alive.score[0] == pytest.approx(15 - 10 - 0.5)
    assert removed.score[0] == pytest.approx(25 - 0 - 0.5)
    encoder = get_encoder_by_name("zero", 5)
    d1 = encoder.encode_move(Move.play(point_from_coords("D1")))
    assert alive.ownership[0][d1] == -1 and removed.ownership[0][d1] == 1
    assert alive.ownership[1][d1] == 1  # White to move: its own point
    lost = {**dead, "winner": "W", "result": "W+R"}  # the record's winner, not a count of ours
    assert game_experience(next(read_match(_match(tmp_path / "c", lost))), ["teacher"]).rewards[0] == -1.0


def test_resigned_games_have_no_count_and_faulted_games_are_left_out(tmp_path):
    games = list(read_match(_match(tmp_path / "m", RESIGNED, FAULTED)))
    assert [g.index for g in games] == [1]
    exp = game_experience(games[0], ["teacher"])
    assert len(exp) == 2 and exp.aux_mask.sum() == 0
    assert exp.policies[0].sum() == 0 and exp.policies[1].sum() == 1  # only White's C2 is taught


def test_a_folder_without_results_is_named_and_a_torn_last_line_is_skipped(tmp_path):
    with pytest.raises(FileNotFoundError, match="results.jsonl"):
        list(read_match(tmp_path))
    # a match still being written (or killed mid-line): the whole games are read, the torn one not
    (tmp_path / "results.jsonl").write_text(json.dumps(COUNTED) + "\n" + json.dumps(RESIGNED)[:40])
    assert [g.index for g in read_match(tmp_path)] == [0]


def test_conversion_holds_out_every_kth_game_and_skips_what_it_has_done(tmp_path):
    records = [{**COUNTED, "index": i} for i in range(6)]
    folder = _match(tmp_path / "m", *records[:4])
    train, holdout = ReplayBuffer(tmp_path / "train"), ReplayBuffer(tmp_path / "holdout")
    first = convert_matches([folder], ["teacher"], train, holdout, holdout_every=3)
    assert (first.games, first.held_out, first.positions, first.teacher_moves) == (4, 2, 60, 32)
    assert [c.task for c in holdout.chunks()] == [0, 3] and [c.task for c in train.chunks()] == [1, 2]
    _match(folder, *records)  # the match went on
    again = convert_matches([folder], ["teacher"], train, holdout, holdout_every=3)
    assert (again.games, again.skipped) == (2, 4)
    assert [c.task for c in train.chunks()] == [1, 2, 4, 5]


def test_fine_tuning_learns_the_teachers_moves(tmp_path, capsys):
    keras = pytest.importorskip("keras")
    from dlgo.inference import save_model
    from dlgo.networks.zero import zero_model
    from dlgo.zero.teacher import main

    records = [{**COUNTED, "index": i} for i in range(8)]
    folder = _match(tmp_path / "m", *records)
    data, out = tmp_path / "data", tmp_path / "net"
    assert main(["convert", str(folder), "--learn-from", "teacher", "--out", str(data), "--holdout-every", "4"]) == 0
    init = tmp_path / "zero-9x9.keras"  # the kept round takes the init's name
    keras.utils.set_random_seed(0)
    save_model(zero_model(16, blocks=1, filters=16), init, "zero", [5])
    args = ["train", "--data", str(data), "--init", str(init), "--out", str(out), "--steps", "150", "--lr", "0.001"]
    assert main([*args, "--rounds", "1"]) == 0
    assert main([*args, "--rounds", "2"]) == 0  # goes on from round 1's checkpoint
    rounds = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    assert [r["round"] for r in rounds] == [0, 1, 2]
    # the held-out games are the same game: a network that learns the teacher predicts its moves
    # better (from the uniform ln 26 = 3.26 nats) and the result of every position
    assert rounds[0]["policy_xent"] > 3.0 and rounds[-1]["policy_xent"] < rounds[0]["policy_xent"] - 0.4
    assert rounds[0]["value_mse"] > 0.5 and rounds[-1]["value_mse"] < 0.1
    assert (out / "zero-9x9.keras").is_file() and (out / "zero-9x9.card.json").is_file()
    assert (out / "zero-9x9.int8.onnx").is_file()  # ready for the engine's default runtime
    card = json.loads((out / "zero-9x9.card.json").read_text())
    assert card["training"]["kind"].startswith("fine-tuned") and card["training"]["positions"] == 90
    best = min(rounds[1:], key=lambda r: r["policy_xent"] + r["value_mse"])  # the round shipped
    assert card["metrics"]["held_out"]["top1"] == best["top1"] and card["training"]["round"] == best["round"]
    assert card["metrics"]["held_out_before"]["policy_xent"] == rounds[0]["policy_xent"]
    assert main(["evaluate", str(init), str(out / "zero-9x9.keras"), "--data", str(data)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "]: top-1" in line]
    assert len(lines) == 4 and "[all]" in lines[0] and "[match 1]" in lines[1]  # per network: all, per folder


def test_value_only_rows_leave_the_policy_head_alone(tmp_path):
    """A row of zeros as policy target teaches nothing to the policy: Keras' fused softmax
    cross-entropy would take (softmax - 0) as its gradient and push every logit down for ever
    (the fine-tuning's policy loss climbed from 1.53 to 3.75 in 1,350 steps before the fix)."""
    keras = pytest.importorskip("keras")
    from dlgo.inference import load_model, save_model
    from dlgo.networks.zero import zero_model
    from dlgo.zero.experience import ZeroExperienceBuffer
    from dlgo.zero.trainer import TrainerSettings, train_candidate

    rng = np.random.default_rng(3)
    n = 64
    x = (rng.random((n, 5, 5, 16)) > 0.6).astype(np.float32)
    replay = ReplayBuffer(tmp_path / "replay")
    replay.add(ZeroExperienceBuffer(x, np.zeros((n, 26)), np.where(np.arange(n) % 2, 1.0, -1.0)), 0, 0)
    init = tmp_path / "init.keras"
    keras.utils.set_random_seed(0)
    save_model(zero_model(16, blocks=1, filters=16), init, "zero", [5])
    settings = TrainerSettings(batch_size=32, steps_per_iteration=60, lr=0.05, window_start=1000, bn_batches=0)
    train_candidate(replay, 0, tmp_path / "learner.keras", init, tmp_path / "cand.keras", settings, 1, progress=False)
    before, after = load_model(init).model, load_model(tmp_path / "cand.keras").model
    for name in ("policy_logits", "policy_pass"):
        old, new = (np.asarray(m.get_layer(name).bias) for m in (before, after))
        assert np.allclose(old, new), name  # no gradient reached the policy's biases
    assert not np.allclose(before.get_layer("value").get_weights()[0], after.get_layer("value").get_weights()[0])


def test_holdout_metrics_report_the_value_bias_from_blacks_side():
    """A network that calls every position even, on games Black won: it rates Black too low."""
    from dlgo.encoders.zero import PLANES
    from dlgo.zero.experience import ZeroExperienceBuffer
    from dlgo.zero.holdout import holdout_metrics

    states = np.zeros((4, 5, 5, len(PLANES)), dtype=np.float16)
    states[:2, :, :, PLANES.index("black_to_move")] = 1.0  # Black to move in the first two
    rewards = np.array([1.0, 1.0, -1.0, -1.0], dtype=np.float32)  # the mover's result: Black won all
    policies = np.zeros((4, 26), dtype=np.float32)
    policies[:, 0] = 1.0

    class Even:
        def predict_on_batch(self, x):
            return np.full((len(x), 26), 1 / 26, dtype=np.float32), np.zeros((len(x), 1), dtype=np.float32)

    data = ZeroExperienceBuffer(states, policies, rewards)
    metrics = holdout_metrics(Even(), data)
    assert metrics["value_bias_black"] == pytest.approx(-1.0) and metrics["value_mse"] == pytest.approx(1.0)

    class Right:
        def predict_on_batch(self, x):
            black = x[:, 0, 0, PLANES.index("black_to_move")] > 0.5
            return np.full((len(x), 26), 1 / 26, dtype=np.float32), np.where(black, 1.0, -1.0)[:, None]

    assert holdout_metrics(Right(), data)["value_bias_black"] == pytest.approx(0.0)


def test_one_network_learns_several_board_sizes(tmp_path, capsys):
    """A data folder of 5x5 and 7x7 positions (the strength issue's one network for every size):
    each batch holds one size, the held-out error is measured on each, the card names both."""
    keras = pytest.importorskip("keras")
    from dlgo.encoders.zero import PLANES
    from dlgo.inference import save_model
    from dlgo.networks.zero import zero_model
    from dlgo.zero.experience import ZeroExperienceBuffer
    from dlgo.zero.teacher import main

    rng = np.random.default_rng(5)
    black = PLANES.index("black_to_move")

    def positions(size: int, n: int) -> ZeroExperienceBuffer:
        # Black wins every game: the player to move wins when it is Black
        states = (rng.random((n, size, size, len(PLANES))) > 0.7).astype(np.float16)
        black_to_move = np.arange(n) % 2 == 0
        states[:, :, :, black] = black_to_move[:, None, None]
        policies = np.zeros((n, size * size + 1), dtype=np.float32)
        policies[:, (size // 2) * (size + 1)] = 1.0  # the teacher always plays the centre
        return ZeroExperienceBuffer(states, policies, np.where(black_to_move, 1.0, -1.0))

    data = tmp_path / "data"
    for part, n in (("train", 48), ("holdout", 16)):
        replay = ReplayBuffer(data / part)
        replay.add(positions(5, n), 0, 0)
        replay.add(positions(7, n), 100, 0)
    init = tmp_path / "zero-mixed.keras"
    keras.utils.set_random_seed(0)
    save_model(zero_model(16, blocks=1, filters=16), init, "zero", [5])
    out = tmp_path / "net"
    args = ["train", "--data", str(data), "--init", str(init), "--out", str(out), "--steps", "120", "--lr", "0.01"]
    assert main([*args, "--rounds", "2", "--batch-size", "16"]) == 0
    rounds = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    assert rounds[0]["positions"] == 32 and {"value_mse_5x5", "value_mse_7x7"} <= set(rounds[0])
    for size in ("5x5", "7x7"):
        assert rounds[-1][f"value_mse_{size}"] < min(0.3, rounds[0][f"value_mse_{size}"] - 0.5), size
        assert rounds[-1][f"top1_{size}"] > rounds[0][f"top1_{size}"], size
    assert rounds[-1]["policy_xent"] < rounds[0]["policy_xent"] - 0.3
    assert "5x5 value" in capsys.readouterr().out
    card = json.loads((out / "zero-mixed.card.json").read_text())
    assert card["board_sizes"] == [5, 7]
    assert card["metrics"]["held_out"]["value_mse_7x7"] < card["metrics"]["held_out_before"]["value_mse_7x7"]
