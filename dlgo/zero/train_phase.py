"""The Zero loop's training phase: the learner's steps on the replay window, and the candidate.

``train_phase`` trains the learner (``learner.keras``, its own checkpoint) for
``steps_per_iteration`` steps on the window after the iteration's games (``dlgo.zero.trainer``),
writes ``iter-NNNN/candidate.keras`` with its ONNX exports and returns the mean losses. It trains
nothing for a self-play-only loop (``steps_per_iteration = 0``) or while the replay holds fewer
than ``min_positions`` positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dlgo.parallel import task_seed
from dlgo.zero.experience import ReplayBuffer
from dlgo.zero.handover import export_runtimes
from dlgo.zero.phase import PhaseRuntime, iteration_dir
from dlgo.zero.trainer import TrainerSettings

__all__ = ["TrainContext", "TrainResult", "train_phase"]


@dataclass(frozen=True)
class TrainContext:
    """What one iteration's training needs (``[train]``, and ``[loop]``'s network shape and seed)."""

    out: Path  # the run folder: learner.keras, generations/gen-0000.keras, iter-NNNN/candidate.keras
    replay: ReplayBuffer
    iteration: int
    best: Path  # where the first learner starts (iteration 0)
    settings: TrainerSettings
    seed: int
    aux_heads: bool
    global_pooling: bool
    trunk: tuple[int, int]  # (blocks, filters) the learner has at least
    int8: bool  # also quantize the candidate (self-play and gating on the int8 runtime)
    carried_iterations: int  # an earlier run's iterations: the learning-rate schedule counts them
    card: dict[str, Any]  # the candidate card's ``training`` entry


@dataclass(frozen=True)
class TrainResult:
    candidate: Path | None  # None: nothing trained this iteration
    metrics: dict[str, Any]


def train_phase(ctx: TrainContext, runtime: PhaseRuntime) -> TrainResult:
    """Train the iteration's candidate (or say why not)."""
    from dlgo.zero.trainer import train_candidate

    it = ctx.iteration
    positions = ctx.replay.positions(it)
    if ctx.settings.steps_per_iteration == 0:  # self-play only: games for another trainer
        runtime.say(f"iteration {it}: {positions} positions, no training (train.steps_per_iteration = 0)")
        return TrainResult(None, {})
    if positions < ctx.settings.min_positions:
        runtime.say(f"iteration {it}: {positions} positions, training starts at {ctx.settings.min_positions}")
        return TrainResult(None, {})
    candidate = iteration_dir(ctx.out, it) / "candidate.keras"
    clock = runtime.clock("train")
    # A learner without a checkpoint starts from generation 0 (warm start), after iteration 0 too.
    init = ctx.best if it == 0 else ctx.out / "generations" / "gen-0000.keras"
    metrics = train_candidate(
        ctx.replay, it, ctx.out / "learner.keras", init, candidate, ctx.settings,
        seed=task_seed(ctx.seed, it, 1 << 20), card_fields={"training": ctx.card}, progress=runtime.progress,
        aux_heads=ctx.aux_heads, global_pooling=ctx.global_pooling,
        schedule_iteration=it + ctx.carried_iterations, trunk=ctx.trunk,
    )  # fmt: skip
    export_runtimes(candidate, ctx.int8)
    clock.stop()
    return TrainResult(candidate, metrics)
