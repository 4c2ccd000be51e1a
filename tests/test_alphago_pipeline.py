"""The AlphaGo pipeline (book chapter 13) on a tiny setting: 5x5, a handful of games, tiny widths.

The end-to-end test runs every training stage (supervised policy, fast rollout policy, RL
against the pool, value network) on random 5x5 game records, then reruns them to check that a
finished stage is skipped; the search stage's GTP matches are in a slow test.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from dlgo.agent.naive import RandomBot
from dlgo.alphago.pipeline import PipelineConfig
from dlgo.alphago.pipeline.stages import Stage
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point

ROOT = Path(__file__).resolve().parent.parent


def _random_games(folder: Path, n: int, size: int = 5) -> Path:
    from dlgo.sgf import write_game

    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        bot = RandomBot(seed=i)
        state = GameState.new_game(size, komi=0.5)
        moves = 0
        while not state.is_over() and moves < 60:
            state = state.apply_move(bot.select_move(state))
            moves += 1
        (folder / f"game-{i:03d}.sgf").write_text(write_game(state, result="B+1", komi=0.5), encoding="utf-8")
    return folder


def _config(tmp: Path, **search) -> PipelineConfig:
    return PipelineConfig.from_dict(
        {
            "out": str(tmp / "run"),
            "board_size": 5,
            "komi": 0.5,
            "workers": 1,
            "seed": 3,
            "expert_games": {"sgf": str(_random_games(tmp / "games", 12))},
            "supervised": {"filters": 4, "epochs": 1, "batch_size": 16, "test_fraction": 0.2},
            "rollout": {"epochs": 1, "batch_size": 16},
            "rl": {"iterations": 2, "games_per_iteration": 4, "games_per_task": 2, "eval_games": 2},
            "value": {"games": 8, "games_per_task": 2, "filters": 4, "epochs": 2, "batch_size": 8, "held_out_every": 4},
            "search": {"rounds": 8, "seconds_per_move": 0.2, "games": 2, **search},
        }
    )


# --- the trained rollout policy -----------------------------------------------------------------


def test_rollout_kernel_scores_are_the_networks_logits():
    """The compiled rollout reads the linear network exactly: softmax of its scores over the
    empty points equals the Keras model's output there (up to the mass on occupied points)."""
    import keras

    from dlgo.alphago.trained_rollout import pattern_scores
    from dlgo.encoders import get_encoder_by_name
    from dlgo.encoders.kernels import chain_info
    from dlgo.networks.rollout import rollout_network
    from dlgo.playout.kernel import init_strings, work_arrays

    keras.utils.set_random_seed(5)
    encoder = get_encoder_by_name("sevenplane", 5)
    model = rollout_network(encoder.shape())
    kernel, bias = model.get_weights()
    model.set_weights([np.random.default_rng(1).normal(size=kernel.shape).astype(np.float32), bias])
    state = GameState.new_game(5)
    for row, col in [(3, 3), (3, 4), (2, 3), (4, 4), (2, 4), (2, 2), (5, 5), (1, 1)]:
        state = state.apply_move(Move.play(Point(row, col)))
    probs = model.predict(encoder.encode(state)[None], verbose=0)[0]
    board = state.board
    colors = np.frombuffer(board.padded_colors, dtype=np.int8).copy()
    w = board.geometry.width
    head, nxt, libs, size, empties, epos = work_arrays(len(colors))
    init_strings(colors, w, head, nxt, libs, size, empties, epos)
    exact = np.empty(len(colors), np.int32)
    scratch = [np.empty(len(colors), np.int32) for _ in range(3)]
    chain_info(colors, w, scratch[0], scratch[1], exact, scratch[2])
    scores = np.empty(len(colors), np.float64)
    weights = np.ascontiguousarray(model.get_weights()[0][:, :, :, 0], dtype=np.float64)
    pattern_scores(colors, w, state.next_player.value, state.ko_point, weights, exact, scores)
    empty = [(r, c) for r in range(1, 6) for c in range(1, 6) if board.get(Point(r, c)) is None]
    ours = np.array([scores[board.geometry.index(Point(r, c))] for r, c in empty])
    theirs = np.log([probs[(r - 1) * 5 + c - 1] for r, c in empty])
    np.testing.assert_allclose(ours - ours.mean(), theirs - theirs.mean(), atol=1e-4)


def test_trained_rollouts_finish_games_and_follow_the_weights():
    from dlgo.alphago.trained_rollout import trained_rollout_value

    state = GameState.new_game(5, komi=0.5)
    zero = np.zeros((5, 5, 7))
    values = [trained_rollout_value(state, zero) for _ in range(20)]
    assert set(values) <= {-1.0, 0.0, 1.0} and any(v != 0 for v in values)
    # A policy that only likes points next to an opponent string in atari captures it at once.
    from dlgo.alphago.trained_rollout import _sample, pattern_scores
    from dlgo.encoders.kernels import chain_info
    from dlgo.playout.kernel import init_strings, work_arrays

    for move in ["B3", "C3", "D3", "E5", "C2"]:  # White's C3 is in atari, Black to move
        state = state.apply_move(Move.play(Point(int(move[1]), "ABCDE".index(move[0]) + 1)))
    board = state.board
    colors = np.frombuffer(board.padded_colors, dtype=np.int8).copy()
    w, n = board.geometry.width, len(colors)
    head, nxt, libs, size, empties, epos = work_arrays(n)
    init_strings(colors, w, head, nxt, libs, size, empties, epos)
    exact = np.empty(n, np.int32)
    scratch = [np.empty(n, np.int32) for _ in range(3)]
    chain_info(colors, w, scratch[0], scratch[1], exact, scratch[2])
    capture = np.zeros((5, 5, 7))
    for i, j in [(1, 2), (3, 2), (2, 1), (2, 3)]:
        capture[i, j, 3] = 30.0  # plane 3: opponent stones with one liberty
    scores = np.empty(n)
    pattern_scores(colors, w, 1, 0, capture, exact, scores)
    picks = {_sample(colors, w, head, libs, 1, 0, scores, np.empty(n)) for _ in range(20)}
    assert picks == {board.geometry.index(Point(4, 3))}  # C4, the capture


# --- the value stage's sampling -------------------------------------------------------------------


def test_value_stage_takes_one_position_with_the_result_of_its_player_to_move():
    from dlgo.alphago.pipeline.value_stage import position_of_game
    from dlgo.match.record import GameRecord

    moves = [["B", "C3"], ["W", "B2"], ["B", "pass"], ["W", "D4"]]
    record = GameRecord(index=0, black="b", white="w", size=5, komi=0.5, moves=moves, times=[0.0] * 4,
                        winner="W", result="W+3", reason="score", started="", duration=0.0)  # fmt: skip
    seen = {}
    for seed in range(40):
        state, action, reward = position_of_game(record, np.random.default_rng(seed))
        k = sum(1 for _ in _history(state))
        seen[k] = (action, reward)
    assert set(seen) == {0, 1, 2, 3}
    assert seen[0] == (2 * 5 + 2, -1.0)  # Black to move before C3, White won
    assert seen[1] == (1 * 5 + 1, 1.0)  # White to move before B2
    assert seen[2] == (-1, -1.0)  # Black passed there
    assert seen[3] == (3 * 5 + 3, 1.0)


def _history(state):
    while state.previous_state is not None:
        yield state.last_move
        state = state.previous_state


# --- stage bookkeeping ------------------------------------------------------------------------------


def test_a_stage_is_done_only_for_the_same_inputs_and_settings(tmp_path):
    config = PipelineConfig(out=str(tmp_path / "run"))
    source = tmp_path / "in.txt"
    source.write_text("one")
    stage = Stage(config, "value", {"x": source})
    assert stage.done() is None
    stage.begin()
    (stage.dir / "out.bin").write_text("result")
    outputs = stage.finish({"result": "out.bin"}, {"figure": 1})
    assert Stage(config, "value", {"x": source}).done() == outputs
    changed = PipelineConfig.from_dict({"out": config.out, "value": {"games": 7}})
    assert Stage(changed, "value", {"x": source}).done() is None
    source.write_text("two")
    again = Stage(config, "value", {"x": source})
    assert again.done() is None
    again.begin()  # other inputs: the old work moves aside, nothing is deleted
    assert (tmp_path / "run" / "value.stale-1" / "out.bin").read_text() == "result"
    assert not (again.dir / "out.bin").exists()


def test_the_config_rejects_unknown_keys(tmp_path):
    with pytest.raises(ValueError, match=r"unknown key rl\.iterationz"):
        PipelineConfig.from_dict({"rl": {"iterationz": 3}})
    with pytest.raises(ValueError, match=r"rl\.lr must be a number"):  # the types of dlgo.tomlfile's tables
        PipelineConfig.from_dict({"rl": {"lr": "fast"}})
    config = PipelineConfig.load(str(ROOT / "configs" / "train" / "alphago-9x9.toml"))
    assert config.board_size == 9 and config.search.engine_config == "configs/engine/alphago-9x9.toml"


# --- end to end ---------------------------------------------------------------------------------------


def test_every_training_stage_end_to_end_then_skipped(tmp_path):
    from dlgo.alphago.pipeline.__main__ import run
    from dlgo.inference import read_card
    from dlgo.rl.experience import GROUP

    random.seed(0)
    config = _config(tmp_path)
    networks = run(config, "value", progress=False)
    assert set(networks) == {"sl", "rollout", "rl", "value"}
    run_dir = Path(config.out)
    # the supervised policy is the book's 13-layer network, playable as a PolicyAgent
    sl = read_card(networks["sl"])
    assert sl.encoder == "alphago" and sl.extra["rl_agent"] == "pg"
    # RL versions: the pool grows one version per iteration, each from its parent
    assert [p.name for p in sorted((run_dir / "rl").glob("rl-0*.keras"))] == ["rl-0000.keras", "rl-0001.keras",
                                                                              "rl-0002.keras"]  # fmt: skip
    assert read_card(run_dir / "rl" / "rl-0002.keras").training["parent"] == "rl-0001.keras"
    log = (run_dir / "rl" / "log.csv").read_text().splitlines()
    assert log[0].startswith("iteration,games,win_rate_vs_pool") and len(log) == 3
    # opponents come from the pool, the learner's decisions only are collected
    records = [json.loads(line) for line in (run_dir / "rl" / "exp-0002" / "task-00000.jsonl").read_text().splitlines()]
    assert all("learner" in (r["black"], r["white"]) for r in records)
    assert {r["white"] if r["black"] == "learner" else r["black"] for r in records} <= {"rl-0000", "rl-0001"}
    import h5py

    with h5py.File(run_dir / "value" / "positions" / "task-00000.h5") as f:
        assert set(f[GROUP]) == {"states", "actions", "rewards", "advantages"}
        assert f[GROUP]["states"].shape == (2, 5, 5, 49)  # one position per game, alphago_value planes
        assert set(np.abs(f[GROUP]["rewards"][()])) <= {1.0}
    value = read_card(networks["value"])
    assert value.encoder == "alphago_value" and value.heads == ["value"]
    assert value.metrics["held_out_positions"] == 2
    rollout = read_card(networks["rollout"])
    assert rollout.encoder == "sevenplane"

    # a second run skips every stage: nothing is retrained
    stamps = {p: p.stat().st_mtime for p in map(Path, networks.values())}
    assert run(config, "value", progress=False) == networks
    assert {p: p.stat().st_mtime for p in stamps} == stamps

    # the search plays on the trained networks, rollouts by the trained fast policy
    from dlgo.alphago import AlphaGoMCTS

    agent = AlphaGoMCTS.from_models(networks["sl"], networks["value"], rollout_model=networks["rollout"],
                                    board_size=5, num_simulations=8, seed=1)  # fmt: skip
    assert agent.evaluator.rollout_policy == "trained"
    move = agent.select_move(GameState.new_game(5, komi=0.5))
    assert move.is_play or move.is_pass

    # raising the RL stage's iterations goes on from the last version: nothing replayed
    from dlgo.alphago.pipeline.rl_stage import run_rl

    versions = {p: p.stat().st_mtime for p in (run_dir / "rl").glob("rl-000*.keras")}
    longer = PipelineConfig.from_dict({**_config_dict(config), "rl": {**_config_dict(config)["rl"], "iterations": 3}})
    run_rl(longer, networks["sl"], progress=False)
    assert {p: p.stat().st_mtime for p in versions} == versions
    assert (run_dir / "rl" / "rl-0003.keras").exists() and (
        run_dir / "rl" / "eval-vs-sl-0003" / "summary.json"
    ).exists()
    assert not list(run_dir.glob("rl.stale-*"))

    # a value network as the RL stage's baseline: each decision keeps reward - value
    import h5py

    from dlgo.alphago.pipeline.rl_stage import PoolTask, baseline_values, play_pool_task

    pool_out = tmp_path / "pool"
    pool_out.mkdir()
    sl_path = networks["sl"]
    play_pool_task(PoolTask(0, 2, sl_path, (sl_path,), 5, 0.5, 0.0, 9, str(pool_out), networks["value"]))
    with h5py.File(pool_out / "task-00000.h5") as f:
        states, rewards, advantages = (f[GROUP][k][()] for k in ("states", "rewards", "advantages"))
    values = rewards - advantages
    assert np.all(np.abs(values) <= 1.0 + 1e-3) and np.any(np.abs(values) > 1e-4)
    as_black = baseline_values(networks["value"], 5, states, [True] * len(states))
    as_white = baseline_values(networks["value"], 5, states, [False] * len(states))
    # each decision's value is the network's, for the colour the learner played
    assert all(abs(v - b) < 1e-3 or abs(v - w) < 1e-3 for v, b, w in zip(values, as_black, as_white))

    # another run starts from these trained networks instead of training them again (a new
    # machine resuming from committed weights): no expert games, the same files in its stages
    adopted = PipelineConfig.from_dict({**_config_dict(config), "out": str(tmp_path / "adopted"),
                                        "supervised": {"policy": networks["sl"]},
                                        "rollout": {"model": networks["rollout"]}})  # fmt: skip
    again = run(adopted, "rollout", progress=False)
    assert Path(again["sl"]).read_bytes() == Path(networks["sl"]).read_bytes()
    assert Path(again["rollout"]).read_bytes() == Path(networks["rollout"]).read_bytes()
    assert read_card(again["sl"]).extra["rl_agent"] == "pg"
    assert not (tmp_path / "adopted" / "expert-games").exists()
    from dlgo.inference.files import ModelFileError

    missing = PipelineConfig.from_dict(
        {"out": str(tmp_path / "bad"), "supervised": {"policy": str(tmp_path / "no.keras")}}
    )
    with pytest.raises((ModelFileError, FileNotFoundError), match="no.keras"):
        run(missing, "supervised", progress=False)


def _config_dict(config: PipelineConfig) -> dict:
    from dataclasses import asdict

    return asdict(config)


@pytest.mark.slow
def test_search_stage_plays_its_match_through_the_engine(tmp_path):
    from dlgo.alphago.pipeline.__main__ import run

    config = _config(tmp_path)
    run(config, "search", progress=False)
    stage = json.loads((Path(config.out) / "search" / "stage.json").read_text())
    assert stage["done"] and stage["metrics"]["vs_sl_policy"]["games"] == 2
    assert len(list((Path(config.out) / "search" / "vs-sl" / "games").glob("*.sgf"))) == 2
