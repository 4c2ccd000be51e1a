"""The AlphaGo Zero training loop: self-play, replay, training, gating, Elo against an anchor.

    python -m dlgo.zero.loop --config configs/train/zero-train-9x9.toml               # this machine
    python -m dlgo.zero.loop --config configs/train/zero-train-9x9.toml --ray auto    # a Ray cluster
    python -m dlgo.zero.loop --config ... --export weights/zero-9x9.keras       # ship the best

One **iteration** (book 14.4; Silver et al. 2017, Methods; docs/book-differences.md, 20):

1. **self-play**: ``games_per_iteration`` games of the best network (``dlgo.zero.selfplay``:
   root noise, temperature, playout cap randomization, resignation with a share played out),
   in tasks of a few games on the workers; every finished task is one replay chunk.
2. **train**: the learner (its own checkpoint) takes ``steps_per_iteration`` steps on the
   replay window and writes a candidate.
3. **gate**: candidate against best, ``gating.games`` games with alternating colours, stopped
   as soon as the outcome is certain; accepted when the candidate wins more than
   ``gating.accept`` of the decisive games: it becomes the next **generation**.
4. **anchor**: every new generation (and generation 0) plays ``anchor.games`` games against
   GNU Go through the GTP engine (``dlgo.match``); its Elo against the anchor goes to
   ``elo.csv`` and the plot.

After every self-play phase the resign threshold is recalibrated on the games played out
(the thesis' rule: at most 5% of winners would have resigned).

``--export`` also writes what the next run needs to go on from the exported network on another
machine (``dlgo.zero.carry``: the learner and the counts, beside the network); a fresh loop whose
``init_model`` is that network takes them up.

Everything lands in ``loop.out``: ``state.json`` (where the loop is), ``replay/`` (chunks),
``iter-NNNN/`` (SGFs, ``selfplay.jsonl``, the candidate, ``gating.jsonl``),
``generations/gen-NNNN.keras``, ``learner.keras``, ``anchor/``, ``iterations.csv``,
``elo.csv``, ``curves.png``, and ``clock.json`` while a phase runs. A stop at any point
(Ctrl-C, ``--max-minutes``, a crash, ``kill -9``) loses at most the tasks under way: a restart
with the same command goes on where it stopped, never replaying a stored task or gating game.
The worker processes end with the loop however it ends, and the time a killed run spent still
counts in ``state.json``'s ``seconds`` (up to its last heartbeat, a few seconds before the end).

This module is the loop itself: it alone owns ``state.json`` (``dlgo.zero.loop_state``). It
picks the next phase from the state, hands the phase a context of what that phase reads and the
runtime it may use (``dlgo.zero.phase``: workers, clock, deadline, log), and writes what the
phase returns into the state. The phases are functions of their context: self-play in
``dlgo.zero.selfplay_phase``, training in ``dlgo.zero.train_phase``, gating and anchor games in
``dlgo.zero.matches``; the hand-over to the next run in ``dlgo.zero.handover``, the CSVs, status
and plot in ``dlgo.zero.report``, the phase clock in ``dlgo.zero.loop_clock`` and the command line
in ``dlgo.zero.loop``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from dlgo.zero.experience import ReplayBuffer
from dlgo.zero.handover import (
    ExportContext,
    copy_model,
    export_run,
    export_runtimes,
    seed_carried_anchor,
    take_up_carry,
)
from dlgo.zero.loop_clock import PhaseClock, atomic_write
from dlgo.zero.loop_config import LoopConfig
from dlgo.zero.loop_state import STATE, fresh_state, read_state
from dlgo.zero.matches import AnchorContext, GatingContext, play_anchor, play_gating
from dlgo.zero.phase import PhaseRuntime, iteration_dir
from dlgo.zero.report import ITERATION_COLUMNS, iteration_row, plot_loop, status_line, write_csv
from dlgo.zero.selfplay_phase import SelfPlayContext, game_summaries, play_selfplay, task_games
from dlgo.zero.train_phase import TrainContext, train_phase
from dlgo.zero.workers import make_pool

__all__ = ["ZeroLoop", "STATE"]


class ZeroLoop:
    """One run folder's loop: the state and its checkpoint are its own; each phase gets a context."""

    def __init__(
        self, config: LoopConfig, ray_address: str | None = None, progress: bool = True, command: str = ""
    ) -> None:
        self.config = config
        self.out = config.out
        self.ray_address = ray_address
        self.progress = progress
        self.command = command
        self.out.mkdir(parents=True, exist_ok=True)
        self.replay = ReplayBuffer(self.out / "replay")
        self._clock: PhaseClock | None = None
        self.state = self._load_state()
        self._deadline: float | None = None
        self._pool = None

    # --- state --------------------------------------------------------------------------------
    def _load_state(self) -> dict[str, Any]:
        stored = read_state(self.out, self.config.selfplay.board_size)
        if stored is not None:
            state, recovered = stored
            if recovered > 0:
                self.say(f"the last run stopped without saving its time (killed?): {recovered:.0f} s counted")
            return state
        state = fresh_state(self.config)
        cfg = self.config
        if cfg.loop.carry_over and cfg.loop.init_model:  # a fresh start from an exported network goes on
            state.update(
                take_up_carry(
                    cfg.resolve(cfg.loop.init_model), cfg.selfplay.board_size, cfg.anchor,
                    self.out / "learner.keras", self.say,
                )
            )  # fmt: skip
        return state

    @property
    def carried(self) -> dict[str, Any]:
        """What this run took up from an earlier one (``dlgo.zero.carry``); empty if nothing."""
        return self.state.get("carried", {})

    def save_state(self) -> None:
        """Write ``state.json`` (atomically), the running phase's time charged up to now."""
        if self._clock is not None:
            self._clock.charge()
        atomic_write(self.out / STATE, json.dumps(self.state, indent=2) + "\n")

    def start_clock(self, phase: str) -> PhaseClock:
        """Charge the time from now to ``phase`` until the clock's ``stop``."""
        if self._clock is not None:
            self._clock.stop()
        self._clock = PhaseClock(self.state, self.out, phase, on_stop=self._clock_stopped)
        self.save_state()
        return self._clock

    def _clock_stopped(self) -> None:
        self._clock = None
        self.save_state()

    @property
    def best_path(self) -> Path:
        return self.out / self.state["best"]

    def time_up(self) -> bool:
        """Is the ``max_minutes`` of this ``run`` spent?"""
        return self._deadline is not None and time.monotonic() > self._deadline

    def run_on_workers(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[Any]:
        """``fn`` of every task on the loop's workers, results as they finish (while ``run`` runs)."""
        if self._pool is None:
            raise RuntimeError("the loop's workers run only during ZeroLoop.run")
        return self._pool.run(fn, tasks)

    def runtime(self) -> PhaseRuntime:
        """What a phase may use of the loop: its workers, clock, deadline, log and status."""
        return PhaseRuntime(
            run_on_workers=self.run_on_workers, clock=self.start_clock, time_up=self.time_up, say=self.say,
            status=self.status_line, progress=self.progress,
        )  # fmt: skip

    def status_line(self) -> str:
        return status_line(self.state, self.replay_games(), self.replay.positions())

    def replay_games(self) -> int:
        return sum(int(r.get("games") or 0) for r in self.state["history"]) + self._games_in(self.state["iteration"])

    def _games_in(self, iteration: int) -> int:
        if any(r["iteration"] == iteration for r in self.state["history"]):
            return 0
        plan = self.config.selfplay_loop
        return sum(min(plan.games_per_task, task_games(plan, t)) for t in self.replay.done_tasks(iteration))

    # --- the loop -------------------------------------------------------------------------------
    def run(self, iterations: int | None = None, max_minutes: float | None = None) -> dict[str, Any]:
        """Run until ``iterations`` (default: the config's) are done or the time is up."""
        target = self.config.loop.iterations if iterations is None else iterations
        self._deadline = time.monotonic() + 60 * max_minutes if max_minutes else None
        if self.command:
            self.state.setdefault("commands", []).append(self.command)
        self._init_generation_zero()
        if seed_carried_anchor(self.out, self.carried, self.state["anchored"]):
            self.state["anchored"].append(0)
        self.save_state()
        self.say(self.status_line())
        try:
            with make_pool(self.config.loop.workers, self.ray_address) as pool:
                self._pool = pool
                while self.state["iteration"] < target and not self.time_up():
                    if self._needs_anchor():
                        self._anchor()
                        continue
                    phase = self.state["phase"]
                    if phase == "selfplay" and not self._selfplay():
                        break
                    if self.state["phase"] == "train":
                        self._train()
                    if self.state["phase"] == "gate" and not self._gate():
                        break
                    self.say(self.status_line())
                if self._needs_anchor() and not self.time_up():
                    self._anchor()
        finally:
            self._pool = None
            if self._clock is not None:
                self._clock.stop()
            self.save_state()
            self.write_plot()
        return self.state

    def say(self, text: str) -> None:
        """One line of the loop's log (stderr)."""
        print(f"zero-loop: {text}", file=sys.stderr, flush=True)

    def _init_generation_zero(self) -> None:
        """Generation 0 (at the first start), and the best network's exports for the workers."""
        path = self.best_path
        cfg = self.config
        if path.is_file():
            pass
        elif cfg.loop.init_model:
            copy_model(cfg.resolve(cfg.loop.init_model), path)
        else:
            from dlgo.encoders import get_encoder_by_name
            from dlgo.inference import save_model
            from dlgo.networks import build_network

            encoder = get_encoder_by_name("zero", cfg.selfplay.board_size)
            model = build_network("zero", encoder, blocks=cfg.loop.blocks, filters=cfg.loop.filters)
            save_model(
                model, path, encoder, [cfg.selfplay.board_size],
                network={"kind": "zero", "blocks": cfg.loop.blocks, "filters": cfg.loop.filters},
                training={"kind": "zero self-play", "generation": 0, "notes": "random initial weights"},
            )  # fmt: skip
        int8 = cfg.selfplay.runtime == "int8"
        if not path.with_suffix(".onnx").is_file() or (int8 and not path.with_name(f"{path.stem}.int8.onnx").is_file()):
            export_runtimes(path, int8)

    # --- 1. self-play (dlgo.zero.selfplay_phase) ------------------------------------------------
    def _selfplay(self) -> bool:
        """Play the iteration's missing tasks; False when stopped before the end."""
        cfg = self.config
        ctx = SelfPlayContext(
            out=self.out, replay=self.replay, iteration=self.state["iteration"], best=self.best_path,
            settings=dataclasses.replace(cfg.selfplay, resign_threshold=float(self.state["resign_threshold"])),
            plan=cfg.selfplay_loop, seed=cfg.loop.seed, calibration_iterations=cfg.loop.calibration_iterations,
            calibration_min_games=cfg.loop.calibration_min_games, resign_max=cfg.loop.resign_max,
        )  # fmt: skip
        result = play_selfplay(ctx, self.runtime())
        if not result.finished:
            return False
        calibration = result.calibration
        if calibration is not None:
            self.state["played_out"] = calibration.played_out
            self.state["false_resign_rate"] = calibration.false_resign_rate
            if calibration.threshold is not None:
                self.state["resign_threshold"] = calibration.threshold
                self.state["resign_calibration"] = {"games": calibration.games, "iteration": ctx.iteration}
        self.state["phase"] = "train"
        self.save_state()
        return True

    # --- 2. training (dlgo.zero.train_phase) ----------------------------------------------------
    def _train(self) -> None:
        cfg, it = self.config, self.state["iteration"]
        card = {
            "kind": "zero self-play",
            "iteration": it,
            "games": self.replay_games(),
            "positions": self.replay.positions(it),
            "config": str(cfg.path) if cfg.path else "",
            "commands": self.state.get("commands", []),
        }
        ctx = TrainContext(
            out=self.out, replay=self.replay, iteration=it, best=self.best_path, settings=cfg.train,
            seed=cfg.loop.seed, aux_heads=cfg.loop.aux_heads, global_pooling=cfg.loop.global_pooling,
            trunk=(cfg.loop.blocks, cfg.loop.filters), int8=cfg.selfplay.runtime == "int8",
            carried_iterations=int(self.carried.get("iteration", 0)), card=card,
        )  # fmt: skip
        result = train_phase(ctx, self.runtime())
        if result.candidate is None:
            self._finish_iteration({})
            return
        self.state["train_metrics"] = result.metrics
        self.state["phase"] = "gate"
        self.save_state()

    # --- 3. gating (dlgo.zero.matches) ---------------------------------------------------------
    def _gate(self) -> bool:
        """Gate the iteration's candidate; False when stopped before the verdict."""
        cfg, it = self.config, self.state["iteration"]
        candidate = iteration_dir(self.out, it) / "candidate.keras"
        ctx = GatingContext(
            out=self.out, iteration=it, candidate=candidate, best=self.best_path, gating=cfg.gating,
            selfplay=cfg.selfplay, seed=cfg.loop.seed,
        )  # fmt: skip
        result = play_gating(ctx, self.runtime())
        if result.verdict is None:
            self.save_state()
            return False
        wins, losses, draws, verdict = result.wins, result.losses, result.draws, result.verdict
        if verdict:  # the candidate becomes the next generation
            self.state["generation"] += 1
            best = f"generations/gen-{self.state['generation']:04d}.keras"
            copy_model(candidate, self.out / best)
            self.state["best"] = best
        self._finish_iteration(
            {
                "gate_wins": wins,
                "gate_losses": losses,
                "gate_draws": draws,
                "gate_accept": cfg.gating.accept,
                "accepted": int(verdict),
            }
        )
        self.say(f"iteration {it}: candidate {wins}-{losses} ({draws} jigo): {'accepted' if verdict else 'rejected'}")
        return True

    def _finish_iteration(self, gate: dict[str, Any]) -> None:
        it = self.state["iteration"]
        seconds = self.state["seconds"]
        # The phases' time since the last iteration ended: the totals minus their marks then.
        selfplay_seconds = seconds["selfplay"] - seconds.get("_selfplay_mark", 0.0)
        gate_seconds = seconds["gate"] - seconds.get("_gate_mark", 0.0)
        seconds["_selfplay_mark"] = seconds["selfplay"]
        seconds["_gate_mark"] = seconds["gate"]
        row = iteration_row(
            self.state, game_summaries(self.out, self.replay, it), self.state.pop("train_metrics", {}) or {}, gate,
            self.replay.positions(it), selfplay_seconds, gate_seconds,
        )  # fmt: skip
        self.state["history"].append(row)
        self.state["iteration"] = it + 1
        self.state["phase"] = "selfplay"
        self.save_state()
        write_csv(self.out / "iterations.csv", ITERATION_COLUMNS, self.state["history"])
        self.write_plot()

    # --- 4. anchor (dlgo.zero.matches) ----------------------------------------------------------
    def _needs_anchor(self) -> bool:
        gen, anchor = self.state["generation"], self.config.anchor
        return anchor.games > 0 and gen % max(1, anchor.every) == 0 and gen not in self.state["anchored"]

    def _anchor(self) -> None:
        cfg = self.config
        ctx = AnchorContext(
            out=self.out, generation=self.state["generation"], iteration=self.state["iteration"],
            best=self.best_path, anchor=cfg.anchor, board_size=cfg.selfplay.board_size,
            resign_winrate=self.resign_winrate, workers=cfg.loop.workers, total_games=self.replay_games(),
            total_positions=self.replay.positions(),
        )  # fmt: skip
        play_anchor(ctx, self.runtime())
        self.state["anchored"].append(ctx.generation)
        self.save_state()
        self.write_plot()

    # --- shipping (dlgo.zero.handover) ---------------------------------------------------------------
    def export(self, target: str | os.PathLike) -> Path:
        """Copy the best generation to ``target`` with a model card of the whole run, and the
        carry file and learner beside it (``dlgo.zero.carry``)."""
        state = self.state
        ctx = ExportContext(
            config=self.config, out=self.out, best=self.best_path, generation=state["generation"],
            iteration=state["iteration"], resign_threshold=state["resign_threshold"],
            resign_winrate=self.resign_winrate, seconds=state["seconds"], commands=state.get("commands", []),
            carried=self.carried, earlier=state.get("earlier"), games=self.replay_games(),
            positions=self.replay.positions(), say=self.say,
        )  # fmt: skip
        return export_run(ctx, Path(target))

    @property
    def resign_winrate(self) -> float:
        """The resign threshold as a win rate (the engine's ``resign.threshold``)."""
        return (float(self.state["resign_threshold"]) + 1.0) / 2.0

    # --- outputs (dlgo.zero.report) -------------------------------------------------------------
    def write_plot(self) -> None:
        """``curves.png`` from the CSVs; a failure is said, never raised."""
        try:
            size = self.config.selfplay.board_size
            plot_loop(self.out, title=f"AlphaGo Zero loop, {size}x{size}: {self.out.name}")
        except Exception as e:  # a plot must never stop training
            print(f"zero-loop: no plot ({e})", file=sys.stderr)
