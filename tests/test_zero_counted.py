"""Counted human games as ownership and score targets (``dlgo.zero.counted``, ``dlgo.data.counted``):
a game is kept only where our count agrees with its recorded result, its positions learn our
count's owners and score, the conversion resumes without counting again, and fine-tuning the
grafted ownership and score heads leaves the trunk, policy and value as they were."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dlgo.data.counted import iter_counted, recorded_score
from dlgo.zero.counted import LOG_NAME, convert_counted
from dlgo.zero.experience import ReplayBuffer

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

# 5x5: Black walls off columns A-C, White D-E; Black's area 15, White's 10, komi 0.5: B+4.5
WALLS = ["C1", "D1", "C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5", "A3", "E3"]
POSITIONS = len(WALLS) + 2  # and the two closing passes


def _sgf_move(vertex: str, size: int = 5) -> str:
    col = "abcdefghjklmnopqrst".index(vertex[0].lower())
    return "abcdefghijklmnopqrs"[col] + "abcdefghijklmnopqrs"[size - int(vertex[1:])]


def _write(folder, name: str, result: str, handicap: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    moves = "".join(f";{'BW'[i % 2]}[{_sgf_move(v)}]" for i, v in enumerate(WALLS))
    ha = f"HA[{handicap}]" if handicap else ""
    (folder / name).write_text(f"(;GM[1]FF[4]SZ[5]KM[0.5]{ha}RE[{result}]{moves};B[];W[])")


def test_recorded_scores_and_what_is_not_one():
    assert recorded_score("B+4.5") == ("B", 4.5) and recorded_score("w+0,5") == ("W", 0.5)
    assert recorded_score("B+R") is None and recorded_score("W+T") is None and recorded_score("0") is None


def test_only_counted_games_without_handicap_are_read(tmp_path):
    _write(tmp_path, "a.sgf", "B+4.5")
    _write(tmp_path, "b.sgf", "B+R")
    _write(tmp_path, "c.sgf", "B+4.5", handicap=2)
    found = list(iter_counted([tmp_path]))
    assert [r.game_id for r in found] == ["a.sgf"] and found[0].black_lead == 4.5


def test_kept_games_learn_our_count_and_disputed_ones_nothing(tmp_path):
    games = tmp_path / "games"
    _write(games, "a.sgf", "B+4.5")
    _write(games, "b.sgf", "W+30.5")  # our count says B+4.5: the dead stones are in doubt
    _write(games, "c.sgf", "B+6.5")  # a territory count may differ by a point or two
    out = tmp_path / "data"
    seen = []
    report = convert_counted([games], out, 10, holdout_every=0, every=1, min_moves=0, on_game=seen.append)
    assert report.examined == 3 and report.kept == 2 and len(seen) == 3
    assert [(c.recorded, c.ours, c.kept) for c in seen] == [(4.5, 4.5, True), (-30.5, 4.5, False), (6.5, 4.5, True)]
    chunks = ReplayBuffer(out / "train").chunks()
    assert [c.task for c in chunks] == [0, 2]
    exp = ReplayBuffer(out / "train").window(10**6)
    assert len(exp) == 2 * POSITIONS  # every position before a move, the closing passes included
    black_to_move = np.arange(len(exp)) % POSITIONS % 2 == 0
    assert (exp.aux_mask == 1).all()
    assert exp.score.tolist() == [4.5 if b else -4.5 for b in black_to_move]
    owner = np.where(black_to_move, 1, -1)[:, None] * exp.ownership  # back to Black's view
    grid = owner[0].reshape(5, 5)
    assert (grid[:, :3] == 1).all() and (grid[:, 3:] == -1).all()
    assert exp.rewards.tolist() == [1.0 if b else -1.0 for b in black_to_move]
    # a second run resumes: nothing is counted again, and more games are examined after
    _write(games, "d.sgf", "B+4.5")
    again = convert_counted([games], out, 10, holdout_every=0, every=1, min_moves=0)
    assert again.resumed == 3 and again.examined == 1 and again.kept == 1
    assert len((out / LOG_NAME).read_text().splitlines()) == 4


def test_every_kth_position_from_a_random_offset_and_held_out_games(tmp_path):
    games = tmp_path / "games"
    for name in "abcd":
        _write(games, f"{name}.sgf", "B+4.5")
    out = tmp_path / "data"
    convert_counted([games], out, 10, holdout_every=2, every=4, min_moves=0)
    assert [c.task for c in ReplayBuffer(out / "holdout").chunks()] == [0, 2]
    assert [c.task for c in ReplayBuffer(out / "train").chunks()] == [1, 3]
    # 14 positions, every 4th from an offset of 0 to 3
    assert all(c.positions in (3, 4) for c in ReplayBuffer(out / "train").chunks())


def test_grafted_heads_learn_ownership_and_score_alone(tmp_path, capsys):
    keras = pytest.importorskip("keras")
    from dlgo.inference import save_model
    from dlgo.networks.zero import zero_model
    from dlgo.zero.holdout import held_out_loss
    from dlgo.zero.teacher import main

    games = tmp_path / "games"
    for i in range(8):
        _write(games, f"g{i}.sgf", "B+4.5")
    data, out = tmp_path / "data", tmp_path / "net"
    assert main(["counted", "--sources", str(games), "--out", str(data), "--every", "1", "--min-moves", "0",
                 "--holdout-every", "4"]) == 0  # fmt: skip
    init = tmp_path / "zero-5x5.keras"
    keras.utils.set_random_seed(0)
    save_model(zero_model(16, blocks=1, filters=16), init, "zero", [5])
    before = keras.saving.load_model(init, compile=False)
    args = ["train", "--data", str(data), "--init", str(init), "--out", str(out), "--steps", "150", "--lr", "0.01"]
    assert main([*args, "--rounds", "2", "--aux-heads", "--heads", "ownership", "score"]) == 0
    rounds = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    assert "score_mae" not in rounds[0]  # the network had no such heads
    # heads on a frozen random trunk: better than a coin (50%) and than a score of 0 (4.5 points off)
    assert rounds[-1]["ownership_accuracy"] > 0.6 and rounds[-1]["score_mae"] < 2.5
    assert "ownership" in capsys.readouterr().out
    after = keras.saving.load_model(out / "zero-5x5.keras", compile=False)
    assert list(after.output_names) == ["policy", "value", "ownership", "score"]
    for layer in before.layers:  # the trunk, the policy and the value head are untouched
        for w0, w1 in zip(layer.get_weights(), after.get_layer(layer.name).get_weights()):
            np.testing.assert_array_equal(w0, w1)
    card = json.loads((out / "zero-5x5.card.json").read_text())
    assert card["network"]["aux_heads"] is True
    best = min(rounds[1:], key=lambda r: held_out_loss(r, ["ownership", "score"]))
    assert card["metrics"]["held_out"]["score_mae"] == best["score_mae"] and card["training"]["round"] == best["round"]
