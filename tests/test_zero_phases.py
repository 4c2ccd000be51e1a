"""The Zero loop's phases run from their own context, without a loop: self-play, training and
gating on 5x5 with a tiny network, in this process, and no ``state.json`` written by any of them."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from dlgo.zero.experience import ReplayBuffer
from dlgo.zero.loop_config import GatingSettings, SelfPlayLoopSettings
from dlgo.zero.matches import GatingContext, gating_games, play_gating
from dlgo.zero.phase import PhaseRuntime
from dlgo.zero.selfplay import SelfPlaySettings
from dlgo.zero.selfplay_phase import SelfPlayContext, game_summaries, play_selfplay
from dlgo.zero.train_phase import TrainContext, train_phase
from dlgo.zero.trainer import TrainerSettings

ROOT = Path(__file__).resolve().parent.parent
PHASE_MODULES = ("phase", "selfplay_phase", "train_phase", "matches", "handover")


def test_no_phase_module_sees_the_loop():
    """The phases and the hand-over import neither the loop nor its state file's module."""
    for name in PHASE_MODULES:
        tree = ast.parse((ROOT / "dlgo" / "zero" / f"{name}.py").read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not imported & {"dlgo.zero.training_loop", "dlgo.zero.loop_state"}, name


def _generation_zero(path: Path) -> Path:
    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import save_model
    from dlgo.networks import build_network
    from dlgo.zero.handover import export_runtimes

    encoder = get_encoder_by_name("zero", 5)
    model = build_network("zero", encoder, blocks=1, filters=8)
    save_model(model, path, encoder, [5], network={"kind": "zero", "blocks": 1, "filters": 8})
    export_runtimes(path)
    return path


class Recorder:
    """A runtime's clock that notes which phases were timed."""

    def __init__(self) -> None:
        self.phases: list[str] = []
        self.stopped = 0

    def __call__(self, phase: str) -> Recorder:
        self.phases.append(phase)
        return self

    def stop(self) -> None:
        self.stopped += 1


def test_self_play_training_and_gating_run_from_their_contexts_alone(tmp_path):
    out = tmp_path / "run"
    best = _generation_zero(out / "generations" / "gen-0000.keras")
    replay = ReplayBuffer(out / "replay")
    settings = SelfPlaySettings(board_size=5, komi=3.0, full_visits=8, fast_visits=4, full_search_fraction=0.5)
    plan = SelfPlayLoopSettings(games_per_iteration=3, games_per_task=2, no_resign_fraction=1.0)

    def selfplay(iteration: int) -> SelfPlayContext:
        return SelfPlayContext(
            out=out, replay=replay, iteration=iteration, best=best, settings=settings, plan=plan, seed=1,
            calibration_iterations=1, calibration_min_games=1, resign_max=-0.6,
        )  # fmt: skip

    clock = Recorder()
    result = play_selfplay(selfplay(0), PhaseRuntime(clock=clock))
    assert result.finished and sorted(replay.done_tasks(0)) == [0, 1]
    assert len(game_summaries(out, replay, 0)) == 3  # the last task has the odd game
    calibration = result.calibration
    assert calibration is not None and calibration.played_out == 3  # no_resign_fraction 1: all played out
    assert calibration.threshold is None or -1.0 <= calibration.threshold <= -0.6
    assert clock.phases == ["selfplay"] and clock.stopped == 1

    # Time up after the first task: not finished; the next call plays only what is missing.
    stopped = play_selfplay(selfplay(1), PhaseRuntime(time_up=lambda: True))
    assert not stopped.finished and stopped.calibration is None and len(replay.done_tasks(1)) == 1
    first = {t: c.path.stat().st_mtime_ns for t, c in replay.done_tasks(1).items()}
    assert play_selfplay(selfplay(1), PhaseRuntime()).finished
    assert all(replay.done_tasks(1)[t].path.stat().st_mtime_ns == stamp for t, stamp in first.items())

    train = TrainContext(
        out=out, replay=replay, iteration=1, best=best,
        settings=TrainerSettings(batch_size=8, steps_per_iteration=2, min_positions=1, bn_batches=2), seed=1,
        aux_heads=False, global_pooling=False, trunk=(1, 8), int8=False, carried_iterations=0, card={},
    )  # fmt: skip
    trained = train_phase(train, PhaseRuntime(clock=clock))
    assert trained.candidate == out / "iter-0001" / "candidate.keras" and trained.candidate.is_file()
    assert trained.metrics["policy_loss"] > 0 and (out / "learner.keras").is_file()
    assert clock.phases == ["selfplay", "train"]

    said: list[str] = []
    too_few = dataclasses.replace(train, settings=TrainerSettings(min_positions=10**6))
    assert train_phase(too_few, PhaseRuntime(say=said.append)).candidate is None and "training starts" in said[0]

    gating = GatingContext(
        out=out, iteration=1, candidate=trained.candidate, best=best, gating=GatingSettings(games=2, visits=4),
        selfplay=settings, seed=1,
    )  # fmt: skip
    gate = play_gating(gating, PhaseRuntime(clock=clock))
    assert gate.verdict is not None and 1 <= len(gate.games) <= 2
    assert gate.wins + gate.losses + gate.draws == len(gate.games) == len(gating_games(out, 1))
    assert clock.phases == ["selfplay", "train", "gate"]
    assert not (out / "state.json").exists()  # only the loop writes its state


def test_a_phase_stops_its_workers_when_the_time_is_up():
    """The runtime's in-process workers are a generator: ``close`` leaves the rest unplayed."""
    played: list[int] = []
    results = PhaseRuntime().run_on_workers(lambda t: played.append(t) or t, [1, 2, 3])
    assert next(results) == 1
    results.close()
    with pytest.raises(StopIteration):
        next(results)
    assert played == [1]
