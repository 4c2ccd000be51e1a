"""The RL policy (book 13.3): policy gradient against a pool of the learner's earlier versions.

The learner starts as the supervised policy (``rl-0000.keras``). Iteration ``i`` plays
``games_per_iteration`` games of version ``i - 1`` against opponents drawn uniformly from the
pool of versions ``0 .. i - 1`` (AlphaGo's guard against overfitting to the current opponent),
colours alternating; only the learner's decisions are collected, each with its game's reward,
and one REINFORCE pass over them (``PolicyAgent.train``, book 10.2) gives version ``i``.

Files, in ``<out>/rl/``: ``rl-NNNN.keras`` (each with its card), ``exp-NNNN/task-NNNNN.h5`` (the
book's HDF5 layout) and ``.jsonl`` game records, ``log.csv`` (iteration, the learner's win rate
against the pool, the loss, seconds) and at the end ``eval-vs-sl-NNNN/`` (``dlgo.rl.evaluate``: the
final version against the supervised policy, binomial test). Resuming: a version whose file
exists is done; within an iteration, finished task files are kept and only missing tasks play.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dlgo.alphago.pipeline.config import PipelineConfig
from dlgo.alphago.pipeline.stages import Stage, run_tasks
from dlgo.parallel import task_seed

__all__ = ["PoolTask", "play_pool_task", "run_rl", "version_path"]


def version_path(folder: Path, i: int) -> Path:
    return folder / f"rl-{i:04d}.keras"


@dataclass(frozen=True)
class PoolTask:
    index: int
    games: int
    learner: str
    pool: tuple[str, ...]
    board_size: int
    komi: float
    temperature: float
    seed: int
    out: str
    baseline: str = ""


_LOADED: dict[str, object] = {}


def _agent(path: str, size: int, copy: int = 0):
    """The worker's agent for ``path``, loaded once (``copy`` 1: a second one, for a version
    that plays itself: each agent carries its own collector and random state)."""
    from dlgo.rl.agents import load_rl_agent

    key = f"{path}:{os.path.getmtime(path)}:{copy}"
    if key not in _LOADED:
        if len(_LOADED) > 16:
            _LOADED.clear()
        _LOADED[key] = load_rl_agent(path, size)
    return _LOADED[key]


def baseline_values(path: str, size: int, states: np.ndarray, black_to_move: list[bool]) -> np.ndarray:
    """The value network's estimate for the player to move at each recorded decision: the
    policy planes plus the ``alphago_value`` encoder's 49th plane (ones if Black is to move)."""
    if len(states) == 0:
        return np.zeros(0, np.float32)
    value = _agent(path, size)
    player = np.broadcast_to(np.asarray(black_to_move, np.float32)[:, None, None, None], (*states.shape[:3], 1))
    x = np.concatenate([states.astype(np.float32), player], axis=-1)
    return np.concatenate([value.network_outputs(x[i : i + 1024])[0].reshape(-1) for i in range(0, len(x), 1024)])


def play_pool_task(task: PoolTask) -> dict:
    """Play a task's games (learner against pool opponents) and write its experience file last."""
    from dlgo.gotypes import Player
    from dlgo.rl.experience import ExperienceCollector, write_experience
    from dlgo.rl.simulate import simulate_game

    rng = np.random.default_rng(task.seed)
    learner = _agent(task.learner, task.board_size)
    learner.set_temperature(task.temperature)
    collector = ExperienceCollector()
    black_moves: list[bool] = []  # per recorded decision: the learner played Black
    records, wins = [], 0
    for g in range(task.games):
        index = task.index * 1000 + g
        opponent_path = task.pool[int(rng.integers(len(task.pool)))]
        opponent = _agent(opponent_path, task.board_size)
        if opponent is learner:  # the latest version against itself: a second copy
            opponent = _agent(opponent_path, task.board_size, copy=1)
        learner.seed(int(rng.integers(2**31)))
        opponent.seed(int(rng.integers(2**31)))
        opponent.set_temperature(task.temperature)
        learner_colour = Player.black if g % 2 == 0 else Player.white
        collectors = {learner_colour: collector, learner_colour.other: ExperienceCollector()}
        players = (learner, opponent) if learner_colour == Player.black else (opponent, learner)
        labels = ("learner", Path(opponent_path).stem) if learner_colour == Player.black else (
            Path(opponent_path).stem, "learner")  # fmt: skip
        record = simulate_game(*players, task.board_size, komi=task.komi, collectors=collectors, index=index,
                               labels=labels)  # fmt: skip
        wins += record.winner == ("B" if learner_colour == Player.black else "W")
        black_moves += [learner_colour == Player.black] * (len(collector.states) - len(black_moves))
        records.append(record.to_json())
    learner.set_collector(None)
    buffer = collector.to_buffer()
    if task.baseline:
        buffer.advantages = buffer.rewards - baseline_values(task.baseline, task.board_size, buffer.states, black_moves)
    out = Path(task.out)
    records_file = out / f"task-{task.index:05d}.jsonl"
    tmp = records_file.with_name(records_file.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), encoding="utf-8")
    os.replace(tmp, records_file)
    write_experience(buffer, out / f"task-{task.index:05d}.h5")
    return {"index": task.index, "games": task.games, "wins": wins}


def _play_iteration(config: PipelineConfig, folder: Path, i: int, progress: bool) -> dict:
    s = config.rl
    out = folder / f"exp-{i:04d}"
    out.mkdir(parents=True, exist_ok=True)
    pool = tuple(str(version_path(folder, v)) for v in range(i))
    per = max(1, s.games_per_task)
    counts = [min(per, s.games_per_iteration - start) for start in range(0, s.games_per_iteration, per)]
    tasks = [
        PoolTask(
            t,
            n,
            pool[-1],
            pool,
            config.board_size,
            config.komi,
            s.temperature,
            task_seed(config.seed, i, t),
            str(out),
            s.baseline,
        )  # fmt: skip
        for t, n in enumerate(counts)
        if not (out / f"task-{t:05d}.h5").exists()
    ]
    done = s.games_per_iteration - sum(t.games for t in tasks)
    run_tasks(play_pool_task, tasks, config.workers, s.games_per_iteration, done, f"rl {i}", progress)
    wins = games = 0
    for t in range(len(counts)):
        for line in (out / f"task-{t:05d}.jsonl").read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            games += 1
            wins += (r["black"] == "learner" and r["winner"] == "B") or (r["white"] == "learner" and r["winner"] == "W")
    return {"files": [out / f"task-{t:05d}.h5" for t in range(len(counts))], "games": games, "wins": wins}


def _log(folder: Path, row: dict) -> None:
    path = folder / "log.csv"
    new = not path.exists()
    with open(path, "a", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)


def _eval_folder(iterations: int) -> str:
    """The final match's folder: one per final version."""
    return f"eval-vs-sl-{iterations:04d}"


def _finished(folder: Path, iterations: int, eval_games: int) -> bool:
    """The stage's recorded result is for this many iterations and this final match."""
    meta = json.loads((folder / "stage.json").read_text(encoding="utf-8"))
    metrics = meta.get("metrics", {})
    played = metrics.get("vs_sl_policy", {}).get("games", 0) if eval_games else 0
    return metrics.get("iterations") == iterations and played == eval_games


def run_rl(config: PipelineConfig, sl_policy: str, progress: bool = True) -> dict[str, str]:
    """Iterate policy gradient against the pool; ``rl-policy.keras`` and the match against ``sl_policy``."""
    from dlgo.inference import read_card
    from dlgo.rl.agents import load_rl_agent
    from dlgo.rl.experience import iter_experience

    stage = Stage(config, "rl", {"sl_policy": Path(sl_policy)})
    # How far to go and the final match are not part of the stage's identity: raising
    # ``iterations`` goes on from the last version instead of starting over.
    stage.settings = {k: v for k, v in stage.settings.items() if k not in ("iterations", "eval_games")}
    s = config.rl
    folder = stage.dir
    if (outputs := stage.done()) is not None and _finished(folder, s.iterations, s.eval_games):
        return outputs
    stage.begin()
    if not version_path(folder, 0).exists():
        shutil.copy(sl_policy, version_path(folder, 0).with_suffix(".tmp"))
        card = Path(sl_policy).with_suffix(".card.json")
        shutil.copy(card, version_path(folder, 0).with_suffix(".card.json"))
        os.replace(version_path(folder, 0).with_suffix(".tmp"), version_path(folder, 0))
    for i in range(1, s.iterations + 1):
        if version_path(folder, i).exists():
            continue
        began = time.monotonic()
        played = _play_iteration(config, folder, i, progress)
        learner = load_rl_agent(version_path(folder, i - 1), config.board_size)
        losses = learner.train(iter_experience(played["files"], 50_000), lr=s.lr, clipnorm=s.clipnorm,
                               batch_size=s.batch_size, use_advantage=bool(s.baseline))  # fmt: skip
        seconds = round(time.monotonic() - began, 1)
        win_rate = played["wins"] / max(1, played["games"])
        parent = read_card(version_path(folder, i - 1)).training
        learner.serialize(
            version_path(folder, i),
            training={
                "command": "python -m dlgo.alphago.pipeline rl",
                "generation": int(parent.get("generation", 0)) + 1,
                "parent": version_path(folder, i - 1).name,
                "opponents": f"uniform over rl-0000 .. rl-{i - 1:04d}",
                "games": played["games"],
                "settings": {
                    "lr": s.lr,
                    "clipnorm": s.clipnorm,
                    "batch_size": s.batch_size,
                    "baseline": s.baseline or None,
                },
                "seconds": seconds,
            },
            metrics={"train_losses": losses, "win_rate_vs_pool": round(win_rate, 4)},
            notes="AlphaGo RL policy (book 13.3): policy gradient against a pool of earlier versions",
        )
        row = {"iteration": i, "games": played["games"], "win_rate_vs_pool": round(win_rate, 4),
               "loss": round(float(losses.get("loss", 0.0)), 5), "decisions": losses.get("decisions"),
               "seconds": seconds}  # fmt: skip
        _log(folder, row)
        print(f"pipeline: rl {json.dumps(row)}", file=sys.stderr)
    final = version_path(folder, s.iterations)
    shutil.copy(final, folder / "rl-policy.keras")
    shutil.copy(final.with_suffix(".card.json"), folder / "rl-policy.card.json")
    metrics: dict = {}
    if s.eval_games:
        from dlgo.rl.evaluate import EvalSettings, run_evaluation

        settings = EvalSettings(str(final), sl_policy, s.eval_games, config.board_size, config.komi, config.seed)
        summary = run_evaluation(settings, folder / _eval_folder(s.iterations), workers=config.workers,
                                 progress=progress)  # fmt: skip
        metrics = {key: summary.get(key) for key in ("games", "engine_wins", "win_rate", "p_value",
                                                      "p_value_one_sided")}  # fmt: skip
    return stage.finish({"policy": "rl-policy.keras"}, {"vs_sl_policy": metrics, "iterations": s.iterations})
