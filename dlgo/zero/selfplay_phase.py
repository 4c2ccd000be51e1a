"""The Zero loop's self-play phase: one iteration's games of the best network, stored task by task.

``play_selfplay`` plays the iteration's missing tasks on the loop's workers (``dlgo.zero.workers``)
and stores each as it ends: SGFs and ``selfplay.jsonl`` lines first, the replay chunk last (the
chunk marks the task done, so a restart never replays it). Once every task is stored it
recalibrates the resign threshold on the games played out (the thesis' rule: at most 5% of
winners would have resigned); the loop puts the result in its state.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.parallel import task_seed
from dlgo.zero.experience import ReplayBuffer, combine_experience
from dlgo.zero.loop_config import SelfPlayLoopSettings
from dlgo.zero.phase import PhaseRuntime, TaskStep, iteration_dir
from dlgo.zero.selfplay import SelfPlayGame, SelfPlaySettings, calibrate_resign_threshold
from dlgo.zero.workers import ModelBlob, SelfPlayTask, play_selfplay_task

__all__ = [
    "ResignCalibration",
    "SelfPlayContext",
    "SelfPlayResult",
    "game_summaries",
    "play_selfplay",
    "store_task",
    "task_games",
]


@dataclass(frozen=True)
class SelfPlayContext:
    """What one iteration's self-play needs.

    ``settings`` carry the state's resign threshold; ``plan`` the games per iteration and task;
    ``calibration_*`` and ``resign_max`` are ``[loop]``'s resign calibration keys."""

    out: Path  # the run folder: iter-NNNN/ gets the SGFs and selfplay.jsonl
    replay: ReplayBuffer
    iteration: int
    best: Path  # the network that plays
    settings: SelfPlaySettings
    plan: SelfPlayLoopSettings
    seed: int
    calibration_iterations: int
    calibration_min_games: int
    resign_max: float


@dataclass(frozen=True)
class ResignCalibration:
    """The iteration's played-out games, and a new threshold when enough winners' values were seen."""

    played_out: int
    false_resign_rate: float | None
    threshold: float | None = None  # None: too few games, the threshold stays
    games: int = 0  # the winners' values the threshold came from


@dataclass(frozen=True)
class SelfPlayResult:
    finished: bool  # every task of the iteration is stored
    calibration: ResignCalibration | None = None  # only when finished


def task_games(plan: SelfPlayLoopSettings, task: int) -> int:
    """Games in ``task`` (the last task of an iteration may have fewer)."""
    total, per = plan.games_per_iteration, plan.games_per_task
    return max(0, min(per, total - task * per))


def play_selfplay(ctx: SelfPlayContext, runtime: PhaseRuntime) -> SelfPlayResult:
    """Play the iteration's missing tasks; not ``finished`` when stopped before the end."""
    it, plan = ctx.iteration, ctx.plan
    n_tasks = math.ceil(plan.games_per_iteration / plan.games_per_task)
    done = ctx.replay.done_tasks(it)
    blob = ModelBlob.from_file(ctx.best)
    tasks = []
    for t in range(n_tasks):
        if t in done:
            continue
        seed = task_seed(ctx.seed, it, t)
        rng = np.random.default_rng(seed)
        allowed = tuple(bool(rng.random() >= plan.no_resign_fraction) for _ in range(task_games(plan, t)))
        tasks.append(SelfPlayTask(it, t, len(allowed), seed, blob, ctx.settings, allowed))
    clock = runtime.clock("selfplay")

    def store(result: tuple[SelfPlayTask, list]) -> TaskStep:
        task, games = result
        store_task(ctx.out, ctx.replay, task, games)
        return TaskStep(len(games), runtime.status())

    try:
        runtime.run_tasks(
            play_selfplay_task,
            tasks,
            store,
            plan.games_per_iteration,
            f"self-play it {it}",
            initial=plan.games_per_iteration - sum(len(task.resign_allowed) for task in tasks),
        )
    finally:
        clock.stop()
    if len(ctx.replay.done_tasks(it)) < n_tasks:  # stopped before the end
        return SelfPlayResult(finished=False)
    return SelfPlayResult(finished=True, calibration=calibrate_resign(ctx))


def store_task(out: Path, replay: ReplayBuffer, task: SelfPlayTask, games: list[SelfPlayGame]) -> None:
    """SGFs and summaries first, the replay chunk last: the chunk marks the task done."""
    d = iteration_dir(out, task.iteration)
    lines = []
    for k, g in enumerate(games):
        name = f"t{task.task:05d}-g{k}"
        (d / "games" / f"{name}.sgf").write_text(g.sgf, encoding="utf-8")
        lines.append(json.dumps({"task": task.task, "game": k, **g.summary()}) + "\n")
    with open(d / "selfplay.jsonl", "a", encoding="utf-8") as f:
        f.writelines(lines)
        f.flush()
        os.fsync(f.fileno())
    if games:
        replay.add(combine_experience([g.experience for g in games]), task.iteration, task.task)


def game_summaries(out: Path, replay: ReplayBuffer, iteration: int) -> list[dict[str, Any]]:
    """One summary per stored game (a task replayed after a crash keeps its last lines)."""
    path = out / f"iter-{iteration:04d}" / "selfplay.jsonl"
    if not path.is_file():
        return []
    done = replay.done_tasks(iteration)
    latest: dict[tuple[int, int], dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a line a crash cut short
        if row.get("task") in done:
            latest[(row["task"], row["game"])] = row
    return list(latest.values())


def calibrate_resign(ctx: SelfPlayContext) -> ResignCalibration:
    """The winners' lowest values in the played-out games of the latest iterations."""
    it = ctx.iteration
    lows: list[float] = []
    played_out = false = 0
    for i in range(max(0, it - ctx.calibration_iterations + 1), it + 1):
        for row in game_summaries(ctx.out, ctx.replay, i):
            if not row["resign_allowed"]:
                if i == it:
                    played_out += 1
                    false += bool(row["false_resign"])
                if row["winner_low"] is not None:
                    lows.append(float(row["winner_low"]))
    rate = false / played_out if played_out else None
    if len(lows) < ctx.calibration_min_games:
        return ResignCalibration(played_out, rate)
    threshold = min(ctx.resign_max, calibrate_resign_threshold(lows))
    return ResignCalibration(played_out, rate, round(max(-1.0, threshold), 4), len(lows))
