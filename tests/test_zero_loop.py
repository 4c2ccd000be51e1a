"""The AlphaGo Zero training loop (dlgo.zero: experience, selfplay, trainer, loop): replay chunks,
augmentation, self-play targets and resignation, resign calibration, gating arithmetic, and
whole loops on 5x5 with a tiny network: worker processes, resume after a stop, Ray local mode,
GNU Go as the anchor, export with a model card."""

from __future__ import annotations

import csv
import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dlgo.encoders import symmetry
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.play.config import load_config
from dlgo.search.zero_agent import ZeroAgent
from dlgo.zero.experience import (
    ReplayBuffer,
    ZeroExperienceBuffer,
    augmented_batch,
    mixed_training_batch,
    training_batch,
    window_size,
)
from dlgo.zero.loop_config import LoopConfigError, load_loop_config
from dlgo.zero.matches import gate_verdict
from dlgo.zero.selfplay import SelfPlaySettings, calibrate_resign_threshold, play_game, winner_low_value
from dlgo.zero.training_loop import ZeroLoop

ROOT = Path(__file__).resolve().parent.parent


class ConstantEvaluator:
    """Uniform priors over every move but pass; ``black_value`` for Black to move (White gets
    the opposite): every position is as good for Black as ``black_value`` says."""

    def __init__(self, black_value: float = 0.0) -> None:
        self.black_value = black_value

    def evaluate(self, states):
        n = states[0].board.num_rows * states[0].board.num_cols + 1
        p = np.full((len(states), n), 1.0 / (n - 1))
        p[:, -1] = 1e-6
        v = [self.black_value if s.next_player is Player.black else -self.black_value for s in states]
        return p, np.array(v)


def _buffer(n: int, size: int = 5, fill: float = 0.0) -> ZeroExperienceBuffer:
    states = np.full((n, size, size, 16), fill, dtype=np.float16)
    policies = np.full((n, size * size + 1), 1.0 / (size * size + 1), dtype=np.float32)
    return ZeroExperienceBuffer(states, policies, np.ones(n, dtype=np.float32))


# --- experience and replay -------------------------------------------------------------------------


def test_chunk_round_trip_and_no_temporary_file_left(tmp_path):
    b = _buffer(7, fill=1.0)
    b.rewards[:] = [1, -1, 0, 1, -1, 1, 1]
    path = b.save(tmp_path / "c.npz")
    back = ZeroExperienceBuffer.load(path)
    assert np.array_equal(back.states, b.states) and back.states.dtype == np.float16
    assert np.array_equal(back.rewards, b.rewards)
    assert [p.name for p in tmp_path.iterdir()] == ["c.npz"]
    (tmp_path / "bad.npz").write_bytes(b"not a chunk")
    with pytest.raises(ValueError, match="bad.npz"):
        ZeroExperienceBuffer.load(tmp_path / "bad.npz")


def test_replay_buffer_tasks_and_window_take_the_newest_positions(tmp_path):
    replay = ReplayBuffer(tmp_path)
    for it in range(3):
        for task in range(2):
            replay.add(_buffer(10, fill=float(it * 2 + task)), it, task)
    (tmp_path / "it0003-t00000-n5.npz.tmp").write_bytes(b"half written")  # a crash mid-write
    assert sorted(replay.done_tasks(1)) == [0, 1]
    assert replay.positions() == 60 and replay.positions(0) == 20
    assert not list(tmp_path.glob("*.tmp"))
    with pytest.raises(ValueError, match="stored already"):
        replay.add(_buffer(3), 1, 0)
    window = replay.window(25)
    assert len(window) == 25
    fills = window.states[:, 0, 0, 0].astype(float)
    assert fills[0] == 3.0 and set(fills[5:15]) == {4.0} and set(fills[15:]) == {5.0}
    early = replay.window(100, up_to_iteration=0)
    assert set(early.states[:, 0, 0, 0].astype(float)) == {0.0, 1.0}
    assert window_size(0, 100, 50, 180) == 100 and window_size(5, 100, 50, 180) == 180


def test_a_window_of_several_board_sizes_comes_one_buffer_a_size(tmp_path):
    replay = ReplayBuffer(tmp_path)
    replay.add(_buffer(10, size=5, fill=1.0), 0, 0)
    replay.add(_buffer(30, size=7, fill=2.0), 0, 1)
    replay.add(_buffer(20, size=5, fill=3.0), 1, 0)
    with pytest.raises(ValueError, match="5x5, 7x7"):
        replay.window(100)
    windows = replay.windows(45)  # the newest 45: 20 of 5x5, 25 of the 7x7 chunk (cut), none older
    assert sorted(windows) == [5, 7] and len(windows[5]) == 20 and len(windows[7]) == 25
    assert set(windows[5].states[:, 0, 0, 0].astype(float)) == {3.0}
    assert len(replay.windows(10**6)[5]) == 30
    assert list(replay.windows(10, up_to_iteration=1)) == [5]
    rng = np.random.default_rng(0)
    drawn = [mixed_training_batch(windows, 4, rng).x.shape[1] for _ in range(400)]
    assert set(drawn) == {5, 7} and 0.3 < drawn.count(5) / 400 < 0.6  # 20 of 45 positions are 5x5
    one = {5: windows[5]}  # one size: the same batches as training_batch from the same seed
    a = mixed_training_batch(one, 8, np.random.default_rng(1))
    b = training_batch(windows[5], 8, np.random.default_rng(1))
    assert np.array_equal(a.x, b.x) and np.array_equal(a.policy, b.policy)


def test_a_chunk_from_elsewhere_is_linked_once_and_copied_where_links_fail(tmp_path, monkeypatch):
    source = ReplayBuffer(tmp_path / "src").add(_buffer(4, fill=1.0), 0, 7)
    target = ReplayBuffer(tmp_path / "dst")
    linked = target.link(source, 100, 7, 4)
    assert linked.name == "it0100-t00007-n4.npz" and linked.stat().st_ino == source.stat().st_ino
    assert [c.iteration for c in target.chunks()] == [100]
    before = linked.stat().st_mtime_ns
    assert target.link(tmp_path / "nowhere.npz", 100, 7, 4) == linked and linked.stat().st_mtime_ns == before

    def refuse(*_):
        raise OSError("cross-device link")

    monkeypatch.setattr("os.link", refuse)
    copied = target.link(source, 101, 7, 4)
    assert copied.stat().st_ino != source.stat().st_ino
    assert np.array_equal(ZeroExperienceBuffer.load(copied).states, ZeroExperienceBuffer.load(source).states)


def test_augmentation_moves_planes_and_policy_together_and_keeps_pass():
    size = 5
    n = 64
    states = np.zeros((n, size, size, 16), dtype=np.float16)
    policies = np.zeros((n, size * size + 1), dtype=np.float32)
    rng = np.random.default_rng(3)
    for i in range(n):
        r, c = rng.integers(0, size, 2)
        states[i, r, c, 1] = 1
        policies[i, r * size + c] = 0.75
        policies[i, -1] = 0.25
    batch_x, batch_p, batch_z = augmented_batch(ZeroExperienceBuffer(states, policies, np.zeros(n)), 200, rng)
    moved = 0
    for x, p in zip(batch_x, batch_p):
        stone = int(np.flatnonzero(x[:, :, 1].reshape(-1))[0])
        assert int(np.argmax(p[:-1])) == stone  # the target follows the stone
        assert p[-1] == pytest.approx(0.25)
        moved += 1
    assert moved == 200 and batch_x.dtype == np.float32
    # all 8 symmetries were drawn: the same position lands on different points
    one = ZeroExperienceBuffer(states[:1], policies[:1], np.zeros(1))
    x, _, _ = augmented_batch(one, 400, np.random.default_rng(0))
    corner_or_not = {int(np.flatnonzero(v[:, :, 1].reshape(-1))[0]) for v in x}
    expected = {
        symmetry.apply_to_point(Point(int(r) + 1, int(c) + 1), k, size)
        for k in range(8)
        for r, c in [np.argwhere(states[0, :, :, 1])[0]]
    }
    assert corner_or_not == {size * (p.row - 1) + p.col - 1 for p in expected}


# --- self-play ----------------------------------------------------------------------------------


def test_self_play_records_full_searches_with_results_for_the_player_to_move():
    agent = ZeroAgent(ConstantEvaluator(0.0), batch_size=4, self_play=True, seed=5, pipeline=False)
    settings = SelfPlaySettings(board_size=5, komi=0.5, full_visits=12, fast_visits=3, full_search_fraction=0.5)
    game = play_game(agent, settings, np.random.default_rng(1))
    exp = game.experience
    assert len(exp) == game.full_searches > 0
    assert exp.states.shape == (len(exp), 5, 5, 16) and exp.policies.shape == (len(exp), 26)
    assert np.allclose(exp.policies.sum(axis=1), 1.0)
    assert game.winner in (1, -1)  # komi 0.5: no jigo
    # rewards: +1 for positions where the winner was to move (plane 13: black to move)
    black_to_move = exp.states[:, 0, 0, 13] == 1
    expected = np.where(black_to_move, game.winner, -game.winner)
    assert np.array_equal(exp.rewards, expected)
    assert not game.resigned and game.result[0] == ("B" if game.winner == 1 else "W")
    assert "SZ[5]" in game.sgf and len(game.moves) <= settings.move_limit()


def test_self_play_resigns_after_consecutive_lost_moves_unless_played_out():
    settings = SelfPlaySettings(
        board_size=5, komi=0.5, full_visits=8, fast_visits=4, resign_threshold=-0.5, resign_consecutive=2,
        resign_min_move=4,
    )  # fmt: skip
    lost = ZeroAgent(ConstantEvaluator(-0.9), batch_size=4, self_play=True, seed=1, pipeline=False)
    game = play_game(lost, settings, np.random.default_rng(2))
    # Black moves 0, 2, 4, 6: below the threshold from move 4 on; its second such move is move 6
    assert game.resigned and len(game.moves) == 6 and game.result == "W+R" and game.winner == -1
    out = play_game(lost, settings, np.random.default_rng(2), resign_allowed=False)
    assert not out.resigned and out.would_resign and len(out.moves) > 6


def test_resign_calibration_is_the_fifth_percentile_of_winners_lowest_values():
    values = [0.5, 0.1, -0.2, -0.8, 0.3, -0.95, -0.9, 0.4]
    movers = [1, -1, 1, -1, 1, -1, 1, -1]
    # Black's values from move 2: -0.2, 0.3, -0.9; highest of each two in a row: 0.3, 0.3
    assert winner_low_value(values, movers, 1, start=2, consecutive=2) == pytest.approx(0.3)
    assert winner_low_value(values, movers, 1, start=2, consecutive=1) == pytest.approx(-0.9)
    assert winner_low_value(values, movers, 0, start=0, consecutive=1) is None
    lows = list(np.linspace(-1.0, 0.0, 101))
    assert calibrate_resign_threshold(lows) == pytest.approx(-0.95)
    with pytest.raises(ValueError):
        calibrate_resign_threshold([])


# --- config and gating arithmetic ----------------------------------------------------------------


def test_shipped_training_config_loads_and_bad_keys_name_the_file(tmp_path):
    config = load_loop_config(ROOT / "configs" / "train" / "zero-train-9x9.toml")
    assert config.selfplay.board_size == 9 and config.gating.games == 40 and config.anchor.level == 10
    assert config.resolve(config.loop.init_model).is_file()
    # The continuation config differs only where a new machine's run starts from what is committed.
    cont = load_loop_config(ROOT / "configs" / "train" / "zero-train-9x9-continue.toml")
    assert cont.resolve(cont.loop.init_model) == (ROOT / "weights" / "zero-9x9.keras").resolve()
    assert cont.resolve(cont.loop.out) != config.resolve(config.loop.out)
    assert cont.selfplay.resign_threshold > config.selfplay.resign_threshold
    assert (cont.train, cont.gating, cont.anchor) == (config.train, config.gating, config.anchor)
    bad = tmp_path / "bad.toml"
    bad.write_text("[selfplay]\nfull_visit = 3\n")
    with pytest.raises(LoopConfigError, match=r"bad\.toml.*selfplay\.full_visit"):
        load_loop_config(bad)
    bad.write_text('[train]\nlr = "fast"\n')
    with pytest.raises(LoopConfigError, match=r"bad\.toml.*train\.lr"):
        load_loop_config(bad)
    bad.write_text("[gatin]\ngames = 3\n")
    with pytest.raises(LoopConfigError, match="gatin"):
        load_loop_config(bad)


def test_13x13_config_starts_from_the_fully_convolutional_19x19_network():
    from dlgo.inference.files import card_of

    config = load_loop_config(ROOT / "configs" / "train" / "zero-train-13x13.toml")
    assert config.selfplay.board_size == 13 and config.selfplay.komi == 7.5
    card = card_of(config.resolve(config.loop.init_model))
    # The 19x19 network reads any board: no fixed spatial input, so no layer is rebuilt for 13x13 ...
    assert card.size_independent
    # ... and the learner keeps its size (no growth), gaining only the auxiliary heads.
    assert (config.loop.blocks, config.loop.filters) == (card.network["blocks"], card.network["filters"])
    assert config.loop.aux_heads and not config.loop.global_pooling
    assert config.resolve(config.loop.out) != load_loop_config(ROOT / "configs" / "train" / "zero-train-9x9.toml").out


def test_gate_stops_as_soon_as_the_verdict_is_certain(tmp_path):
    config = load_loop_config(None, {"loop": {"out": str(tmp_path)}, "gating": {"games": 10, "accept": 0.55}})

    def games(wins, losses, draws=0):
        rows = [1] * wins + [-1] * losses + [0] * draws
        return {i: {"winner": w} for i, w in enumerate(rows)}

    assert gate_verdict(games(6, 0), config.gating) is True  # 6 of at most 10 decisive: > 55%
    assert gate_verdict(games(5, 0), config.gating) is None
    assert gate_verdict(games(1, 5), config.gating) is False  # 5 of 10 at best
    assert gate_verdict(games(5, 4, 1), config.gating) is True  # 5 of 9 decisive games: 55.6%
    assert gate_verdict(games(5, 5), config.gating) is False  # 50%
    assert gate_verdict(games(0, 0, 10), config.gating) is False


# --- whole loops on 5x5 --------------------------------------------------------------------------

TINY = {
    "loop": {"blocks": 1, "filters": 8, "iterations": 2, "workers": 1, "calibration_min_games": 1},
    "selfplay": {
        "board_size": 5, "komi": 3.0, "games_per_iteration": 6, "games_per_task": 2, "full_visits": 12,
        "fast_visits": 4, "full_search_fraction": 0.5, "no_resign_fraction": 0.5,
    },
    "train": {"batch_size": 16, "steps_per_iteration": 3, "min_positions": 1},
    "gating": {"games": 4, "visits": 8},
    "anchor": {"games": 0, "level": 1, "visits": 8, "komi": 3.0},
}  # fmt: skip


def _tiny(tmp_path: Path, **changes) -> object:
    overrides = {k: dict(v) for k, v in TINY.items()}
    overrides["loop"]["out"] = str(tmp_path / "run")
    for key, value in changes.items():
        table, name = key.split("__")
        overrides[table][name] = value
    return load_loop_config(None, overrides)


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_loop_runs_iterations_and_resumes_without_replaying_tasks(tmp_path):
    config = _tiny(tmp_path)
    loop = ZeroLoop(config, progress=False)
    # the time is up once the first task is stored: the loop stops with the iteration unfinished
    loop.time_up = lambda: bool(loop.replay.done_tasks(0))
    state = loop.run(iterations=2)
    assert state["iteration"] == 0 and state["phase"] == "selfplay"
    first = loop.replay.done_tasks(0)
    assert len(first) == 1
    stamps = {t: c.path.stat().st_mtime_ns for t, c in first.items()}

    loop = ZeroLoop(_tiny(tmp_path), progress=False)  # a new process would do the same
    state = loop.run(iterations=2)
    out = tmp_path / "run"
    assert state["iteration"] == 2 and state["phase"] == "selfplay"
    done = loop.replay.done_tasks(0)
    assert sorted(done) == [0, 1, 2]
    assert all(done[t].path.stat().st_mtime_ns == stamps[t] for t in stamps)  # never replayed
    summaries = [json.loads(line) for line in (out / "iter-0000" / "selfplay.jsonl").read_text().splitlines()]
    assert len(summaries) == 6 and len({(s["task"], s["game"]) for s in summaries}) == 6
    assert len(list((out / "iter-0000" / "games").glob("t*.sgf"))) == 6
    rows = _rows(out / "iterations.csv")
    assert [int(r["iteration"]) for r in rows] == [0, 1]
    assert sum(int(r["games"]) for r in rows) == 12
    assert all(r["policy_loss"] and float(r["policy_loss"]) > 0 for r in rows)
    white = sum(s["winner"] == "W" for s in summaries) / len(summaries)
    assert float(rows[0]["white_won"]) == pytest.approx(white, abs=1e-4)
    gated = [r for r in rows if r["gate_wins"]]
    assert gated and all(int(r["gate_wins"]) + int(r["gate_losses"]) + int(r["gate_draws"]) <= 4 for r in gated)
    assert (out / "learner.keras").is_file() and (out / "iter-0001" / "candidate.keras").is_file()
    generation = state["generation"]
    assert (out / "generations" / f"gen-{generation:04d}.keras").is_file()
    assert generation == sum(int(r["accepted"]) for r in gated)
    assert (out / "curves.png").stat().st_size > 0

    # more iterations later: goes on from the saved state and learner
    state = ZeroLoop(_tiny(tmp_path), progress=False).run(iterations=3)
    assert state["iteration"] == 3 and len(_rows(out / "iterations.csv")) == 3

    exported = ZeroLoop(_tiny(tmp_path), progress=False).export(tmp_path / "w" / "zero-5x5.keras")
    card = json.loads((tmp_path / "w" / "zero-5x5.card.json").read_text())
    assert exported.is_file() and card["training"]["run_games"] == 18 and card["training"]["run_iterations"] == 3
    if state["generation"] > 0:  # what the exported generation itself was trained on
        assert card["training"]["games"] <= 18 and card["training"]["iteration"] < 3
    assert card["training"]["generation"] == state["generation"]
    assert -1.0 <= card["strength"]["resign_threshold_value"] <= -0.6  # config's resign_max


def _fake_anchor(loop) -> None:
    """An anchor 'match' without GNU Go: one row per generation, as ``play_anchor`` writes it."""
    from dlgo.zero.report import ELO_COLUMNS, read_csv, write_csv

    gen = loop.state["generation"]
    row = {c: "" for c in ELO_COLUMNS} | {"generation": gen, "iteration": loop.state["iteration"]}
    row |= {"anchor": "gnugo-l1", "games": 2, "wins": 1, "losses": 1, "draws": 0, "win_rate": 0.5, "elo": 0.0}
    write_csv(loop.out / "elo.csv", ELO_COLUMNS, [*read_csv(loop.out / "elo.csv"), row])
    loop.state["anchored"].append(gen)


def test_export_carries_the_run_over_to_a_fresh_loop_elsewhere(tmp_path, monkeypatch):
    """``--export`` leaves beside the network what a fresh loop on another machine (no runs/)
    needs to go on: the learner, the counts, the resign threshold and the anchor result."""
    from dlgo.zero.carry import carry_paths, file_sha256, read_carry

    anchored: list[int] = []
    monkeypatch.setattr(
        ZeroLoop, "_anchor", lambda self: (anchored.append(self.state["generation"]), _fake_anchor(self))
    )
    first = ZeroLoop(_tiny(tmp_path / "a", anchor__games=2), progress=False)
    state = first.run(iterations=2)
    weights = tmp_path / "weights" / "zero-5x5.keras"
    first.export(weights)
    carry_file, learner = carry_paths(weights)
    carry = read_carry(weights, 5)
    assert carry is not None and learner.is_file() and carry.learner == learner.name
    assert learner.read_bytes() == (tmp_path / "a" / "run" / "learner.keras").read_bytes()
    assert carry.model_sha256 == file_sha256(weights)
    assert (carry.generation, carry.iteration, carry.games) == (state["generation"], 2, 12)
    assert carry.resign_threshold == state["resign_threshold"] and carry.anchor["anchor"] == "gnugo-l1"
    assert carry.seconds["selfplay"] > 0
    first_card = json.loads(weights.with_name("zero-5x5.card.json").read_text())
    assert first_card["strength"]["anchor"]["generation"] == str(state["generation"])  # its own row

    # A fresh loop from the exported network (a new machine: another out folder) goes on.
    anchored.clear()
    rates: list[int] = []
    import dlgo.zero.trainer as trainer

    keep_rate = trainer.learning_rate
    monkeypatch.setattr(trainer, "learning_rate", lambda settings, it: (rates.append(it), keep_rate(settings, it))[1])
    config = _tiny(tmp_path / "b", anchor__games=2, loop__init_model=str(weights))
    second = ZeroLoop(config, progress=False)
    out = tmp_path / "b" / "run"
    assert (out / "learner.keras").read_bytes() == learner.read_bytes()  # trains on from the carried learner
    assert second.state["resign_threshold"] == carry.resign_threshold
    assert second.state["carried"]["iteration"] == 2
    state = second.run(iterations=1)
    assert 0 not in anchored  # generation 0's anchor result came with it
    rows = _rows(out / "elo.csv")
    assert rows[0]["generation"] == "0" and rows[0]["anchor"] == "gnugo-l1"
    assert rates == [2]  # the learning-rate schedule counts the carried iterations
    second.export(weights)
    again = read_carry(weights, 5)
    assert again.iteration == 3 and again.games == 18
    assert again.generation == carry.generation + state["generation"]
    card = json.loads(weights.with_name("zero-5x5.card.json").read_text())
    assert card["training"]["generation"] == again.generation and card["training"]["carried"]["iteration"] == 2
    if state["generation"] > 0:  # a new generation's card keeps what trained the one before
        assert card["training"]["earlier"]["kind"] == "zero self-play"

    # Other anchor settings: generation 0 is anchored again. A carry file of another network:
    # ignored. A damaged one: an error naming it.
    anchored.clear()
    monkeypatch.setattr(
        ZeroLoop, "_anchor", lambda self: (anchored.append(self.state["generation"]), _fake_anchor(self))
    )
    ZeroLoop(
        _tiny(tmp_path / "c", anchor__games=2, anchor__visits=9, loop__init_model=str(weights)), progress=False
    ).run(iterations=0)
    assert anchored == [0]
    other = tmp_path / "weights" / "other.keras"
    shutil.copyfile(tmp_path / "a" / "run" / "generations" / "gen-0000.keras", other)
    shutil.copyfile(weights.with_name("zero-5x5.card.json"), other.with_name("other.card.json"))
    shutil.copyfile(carry_file, carry_paths(other)[0])
    if file_sha256(other) != file_sha256(weights):
        assert read_carry(other, 5) is None
    carry_file.write_text("{not json", encoding="utf-8")
    with pytest.raises(LoopConfigError, match="zero-5x5.loop.json"):
        ZeroLoop(_tiny(tmp_path / "d", loop__init_model=str(weights)), progress=False)
    assert ZeroLoop(_tiny(tmp_path / "e", loop__init_model=str(weights), loop__carry_over=False), progress=False)


def test_self_play_and_gating_on_the_int8_runtime(tmp_path):
    """``selfplay.runtime = "int8"``: the loop quantizes generation 0 and each candidate once,
    the models travel to the workers with their int8 files, and the workers' agents run them."""
    from dlgo.zero import workers

    config = _tiny(tmp_path, selfplay__runtime="int8", selfplay__games_per_iteration=2, gating__games=2)
    state = ZeroLoop(config, progress=False).run(iterations=1)
    out = tmp_path / "run"
    assert state["iteration"] == 1
    assert (out / "generations" / "gen-0000.int8.onnx").is_file()
    assert (out / "iter-0000" / "candidate.int8.onnx").is_file()
    if state["generation"] == 1:
        assert (out / "generations" / "gen-0001.int8.onnx").is_file()
    blob = workers.ModelBlob.from_file(out / "generations" / "gen-0000.keras")
    assert blob.int8 is not None
    task = workers.SelfPlayTask(0, 0, 1, 5, blob, config.selfplay, (True,))
    _, games = workers.play_selfplay_task(task)
    assert len(games) == 1
    agent = workers._AGENTS[(blob.name, "selfplay")]
    assert agent.evaluator.runner.name == "onnxruntime-int8"
    with pytest.raises(LoopConfigError, match="runtime"):
        _tiny(tmp_path, selfplay__runtime="int4")


def test_no_gate_makes_every_candidate_the_next_generation(tmp_path):
    config = _tiny(tmp_path, gating__games=0)
    loop = ZeroLoop(config, progress=False)
    state = loop.run(iterations=2)
    assert "last gate off (candidate accepted)" in loop.status_line()
    assert (tmp_path / "run" / "curves.png").stat().st_size > 0
    out = tmp_path / "run"
    assert state["generation"] == 2 and state["best"] == "generations/gen-0002.keras"
    assert not any(out.glob("iter-*/gating.jsonl"))  # no gating game played
    rows = _rows(out / "iterations.csv")
    assert [r["accepted"] for r in rows] == ["1", "1"]
    assert all(int(r["gate_wins"]) + int(r["gate_losses"]) == 0 for r in rows)
    with pytest.raises(LoopConfigError, match="gating.games"):
        _tiny(tmp_path, gating__games=-1)


def test_zero_training_steps_make_a_self_play_only_loop(tmp_path):
    """``train.steps_per_iteration = 0``: every iteration's games are generation 0's, no learner."""
    config = _tiny(tmp_path, train__steps_per_iteration=0, gating__games=0)
    state = ZeroLoop(config, progress=False).run(iterations=2)
    out = tmp_path / "run"
    assert state["iteration"] == 2 and state["generation"] == 0
    assert not (out / "learner.keras").exists() and not any(out.glob("iter-*/candidate.keras"))
    assert ReplayBuffer(out / "replay").positions(1) > 0
    assert sorted(p.name for p in (out / "generations").glob("*.keras")) == ["gen-0000.keras"]
    with pytest.raises(LoopConfigError, match=r"train\] steps_per_iteration"):
        _tiny(tmp_path, train__steps_per_iteration=-1)


def test_19x19_self_play_config_plays_the_network_the_engine_plays_19x19_with():
    config = load_loop_config(ROOT / "configs" / "train" / "zero-selfplay-19x19.toml")
    assert config.selfplay.board_size == 19 and config.train.steps_per_iteration == 0
    engine = load_config(str(ROOT / "configs" / "engine" / "default.toml"))
    played = engine.resolve_path(engine.agent_for_size(19)[1]["model"])
    assert config.resolve(config.loop.init_model) == Path(played).resolve()


def test_9x9_self_play_config_plays_the_10x128_network_on_9x9():
    config = load_loop_config(ROOT / "configs" / "train" / "zero-selfplay-9x9-10x128.toml")
    assert config.selfplay.board_size == 9 and config.selfplay.komi == 7.0 and config.train.steps_per_iteration == 0
    assert (config.loop.blocks, config.loop.filters) == (10, 128)
    assert config.resolve(config.loop.init_model) == (ROOT / "weights" / "zero-13x13-v1" / "zero-13x13.keras").resolve()


def test_anchor_every_few_generations(tmp_path):
    loop = ZeroLoop(_tiny(tmp_path, anchor__games=2, anchor__every=2), progress=False)
    needs = []
    for generation in range(5):
        loop.state["generation"] = generation
        needs.append(loop._needs_anchor())
    assert needs == [True, False, True, False, True]
    loop.state["anchored"] = [0, 2]
    loop.state["generation"] = 2
    assert not loop._needs_anchor()


def test_loop_anchor_games_against_gnu_go_give_an_elo_row(tmp_path, gnugo):
    config = _tiny(tmp_path, anchor__games=2, selfplay__games_per_iteration=2)
    state = ZeroLoop(config, progress=False).run(iterations=1)
    rows = _rows(tmp_path / "run" / "elo.csv")
    assert rows[0]["generation"] == "0" and rows[0]["anchor"] == "gnugo-l1" and int(rows[0]["games"]) == 2
    assert -800 <= float(rows[0]["elo"]) <= 800
    assert 0 in state["anchored"]
    games = list((tmp_path / "run" / "anchor" / "gen-0000" / "games").glob("*.sgf"))
    assert len(games) == 2


def test_loop_on_ray_local_mode(tmp_path):
    pytest.importorskip("ray")
    config = _tiny(tmp_path, selfplay__games_per_iteration=4, gating__games=2)
    loop = ZeroLoop(config, ray_address="local", progress=False)
    try:
        state = loop.run(iterations=1)
    finally:
        import ray

        ray.shutdown()
    assert state["iteration"] == 1
    assert sorted(loop.replay.done_tasks(0)) == [0, 1]
    assert int(_rows(tmp_path / "run" / "iterations.csv")[0]["games"]) == 4


def test_loop_command_line_reports_bad_config_and_status(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[loop]\nworkers = 0\n")
    r = subprocess.run(
        [sys.executable, "-m", "dlgo.zero.loop", "--config", str(bad)], capture_output=True, text=True, cwd=ROOT
    )
    assert r.returncode == 2 and "bad.toml" in r.stderr and r.stdout == ""
    good = tmp_path / "good.toml"
    shutil.copy(ROOT / "configs" / "train" / "zero-train-9x9.toml", good)
    text = good.read_text().replace('init_model = "../../weights/zero-19x19-4x48.keras"', 'init_model = ""')
    good.write_text(text.replace('out = "../../runs/zero-9x9"', f'out = "{tmp_path / "run"}"'))
    r = subprocess.run(
        [sys.executable, "-m", "dlgo.zero.loop", "--config", str(good), "--status"],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert r.returncode == 0 and "iteration 0" in r.stdout and "generation 0" in r.stdout


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["int", "term"])
def test_loop_started_in_the_background_stops_cleanly_on_a_signal(tmp_path, signum):
    """`cmd &` starts the loop with SIGINT ignored; `kill -INT` and `kill` still stop it with its
    state saved and the message that the same command resumes."""
    good = tmp_path / "good.toml"
    text = (ROOT / "configs" / "train" / "zero-train-9x9.toml").read_text()
    text = text.replace('init_model = "../../weights/zero-19x19-4x48.keras"', 'init_model = ""')
    good.write_text(text.replace('out = "../../runs/zero-9x9"', f'out = "{tmp_path / "run"}"'))
    proc = subprocess.Popen(
        [sys.executable, "-m", "dlgo.zero.loop", "--config", str(good), "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "iteration 0 (selfplay)" in line:
                break
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=120)  # a loop that ignores the signal fails here
        assert proc.returncode == 130 and "interrupted; the same command resumes" in err
    finally:
        proc.kill()
    assert (tmp_path / "run").is_dir()


def test_zero_agent_plays_a_move_from_the_trained_candidate_kind_of_file(tmp_path):
    """A generation file is an ordinary model file: the GTP engine's zero agent loads it."""
    config = _tiny(tmp_path, selfplay__games_per_iteration=2, gating__games=2)
    ZeroLoop(config, progress=False).run(iterations=1)
    agent = ZeroAgent.from_model(tmp_path / "run" / "generations" / "gen-0000.keras", board_size=5, threads=1)
    agent.rounds_per_move = 8
    move = agent.select_move(GameState.new_game(5, komi=3.0))
    assert isinstance(move, Move) and not move.is_resign


def test_training_hours_count_the_iterations_before_a_generation():
    from dlgo.zero.report import training_hours

    rows = [
        {"iteration": "0", "selfplay_seconds": "3000", "train_seconds": "300", "gate_seconds": "300"},
        {"iteration": "1", "selfplay_seconds": "1800", "train_seconds": "", "gate_seconds": "0"},
    ]
    assert training_hours(rows, 0) == 0.0
    assert training_hours(rows, 1) == pytest.approx(1.0)
    assert training_hours(rows, 2) == pytest.approx(1.5)


class PassingEvaluator(ConstantEvaluator):
    """Uniform priors for the first ``moves`` moves, then nearly all on pass: games that end
    with a few scattered stones on the board, some of them dead."""

    def __init__(self, moves: int) -> None:
        super().__init__(0.0)
        self.moves = moves

    def evaluate(self, states):
        p, v = super().evaluate(states)
        for i, s in enumerate(states):
            if s.move_number >= self.moves:
                p[i, :-1], p[i, -1] = 0.1 / (p.shape[1] - 1), 0.9
        return p, v


def _ended_with_dead_stones(cleanup_playouts: int, seeds: range) -> list[bool]:
    from dlgo.deadstones import count
    from dlgo.sgf import read_game

    out = []
    for seed in seeds:
        agent = ZeroAgent(PassingEvaluator(8), batch_size=4, self_play=True, seed=seed, pipeline=False)
        settings = SelfPlaySettings(
            board_size=7, komi=0.5, full_visits=16, fast_visits=8, temperature_moves=8,
            cleanup_playouts=cleanup_playouts,
        )  # fmt: skip
        game = play_game(agent, settings, np.random.default_rng(seed), resign_allowed=False)
        final = read_game(game.sgf).final_state
        assert final.is_over() and (game.cleanup_moves > 0) <= (cleanup_playouts > 0)
        assert game.summary()["cleanup_moves"] == game.cleanup_moves
        # each pass, as its player saw the board: were the opponent's dead stones left on it?
        passes = (final.previous_state, final.previous_state.previous_state)
        out.append(any(count(s, 400).dead_of(s.next_player.other, s) for s in passes))
    return out


def test_self_play_captures_dead_stones_before_the_game_ends_by_passes():
    # Tromp-Taylor alone: dead stones stay on the board and count as alive in the targets.
    assert any(_ended_with_dead_stones(0, range(8)))
    assert not any(_ended_with_dead_stones(400, range(8)))


def test_cleanup_capture_attacks_dead_stones_of_the_opponent_only():
    from dlgo.zero.selfplay import cleanup_capture

    board_moves = ["C3", "pass", "C5", "pass", "E3", "pass", "E5", "pass", "D2", "D4", "F4", "pass", "B4", "pass", "D6"]
    state = GameState.new_game(7, komi=0.5)
    for text in board_moves:
        state = state.apply_move(Move.pass_turn() if text == "pass" else Move.play(_point(text)))
    # Black's wall surrounds White's D4 and a lot of room; White passes, Black to move
    state = state.apply_move(Move.pass_turn())
    move = cleanup_capture(state, 400)
    string = state.board.get_go_string(_point("D4"))
    assert move is not None and move.point in string.liberties
    assert cleanup_capture(state.apply_move(move), 400) is None  # White to move: no Black stone is dead


def _point(text: str) -> Point:
    return Point(int(text[1:]), "ABCDEFGHJ".index(text[0]) + 1)


def test_gating_games_capture_dead_stones_before_the_count(monkeypatch):
    from dlgo.deadstones import count
    from dlgo.sgf import read_game
    from dlgo.zero import workers
    from dlgo.zero.workers import GatingTask, play_gating_task

    def dead_left(cleanup_playouts: int, seed: int) -> bool:
        agent = ZeroAgent(PassingEvaluator(8), batch_size=4, seed=seed, pipeline=False)
        monkeypatch.setattr(workers, "_agent", lambda *args, **kwargs: agent)
        task = GatingTask(0, seed, seed, None, None, 7, 0.5, 16, 8, cleanup_playouts=cleanup_playouts)
        final = read_game(play_gating_task(task)[1].sgf).final_state
        assert final.is_over()
        passes = (final.previous_state, final.previous_state.previous_state)
        return any(count(s, 400).dead_of(s.next_player.other, s) for s in passes)

    assert any(dead_left(0, seed) for seed in range(8))
    assert not any(dead_left(400, seed) for seed in range(8))
