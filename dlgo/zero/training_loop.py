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

This module is the loop itself (its state, the self-play and training phases, ``export``); the
matches (gating, anchor games) are in ``dlgo.zero.matches``, the hand-over to the next run in
``dlgo.zero.handover``, the CSVs, status and plot in ``dlgo.zero.report``, the phase clock in
``dlgo.zero.loop_clock`` and the command line in ``dlgo.zero.loop``. Those helpers use the
loop's public methods (``say``, ``save_state``, ``start_clock``, ``run_on_workers``, ...).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.parallel import task_seed
from dlgo.zero.experience import ReplayBuffer, combine_experience
from dlgo.zero.handover import copy_model, export_run, export_runtimes, seed_carried_anchor, take_up_carry
from dlgo.zero.loop_clock import PhaseClock, atomic_write, recover_clock
from dlgo.zero.loop_config import LoopConfig, LoopConfigError
from dlgo.zero.matches import play_anchor, play_gating
from dlgo.zero.report import (
    ITERATION_COLUMNS,
    iteration_row,
    plot_loop,
    status_line,
    write_csv,
)
from dlgo.zero.selfplay import SelfPlayGame, calibrate_resign_threshold
from dlgo.zero.workers import ModelBlob, SelfPlayTask, make_pool, play_selfplay_task

__all__ = ["ZeroLoop", "STATE"]

STATE = "state.json"
STATE_FORMAT = 1


class ZeroLoop:
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
        path = self.out / STATE
        if path.is_file():
            try:
                state = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise LoopConfigError(f"{path}: unreadable loop state ({e})") from None
            if state.get("format") != STATE_FORMAT:
                raise LoopConfigError(f"{path}: loop state format {state.get('format')} is not {STATE_FORMAT}")
            if state.get("board_size") != self.config.selfplay.board_size:
                raise LoopConfigError(
                    f"{path}: this loop plays {state.get('board_size')}x{state.get('board_size')}, "
                    f"the config says {self.config.selfplay.board_size}"
                )
            recovered = recover_clock(state, self.out)
            if recovered > 0:
                self.say(f"the last run stopped without saving its time (killed?): {recovered:.0f} s counted")
            return state
        state = {
            "format": STATE_FORMAT,
            "board_size": self.config.selfplay.board_size,
            "iteration": 0,
            "phase": "selfplay",
            "generation": 0,
            "best": "generations/gen-0000.keras",
            "resign_threshold": self.config.selfplay.resign_threshold,
            "anchored": [],
            "history": [],
            "seconds": {"selfplay": 0.0, "train": 0.0, "gate": 0.0, "anchor": 0.0},
            "started": datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat(),
            "commands": [],
        }
        take_up_carry(self, state)
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

    def iteration_dir(self, iteration: int) -> Path:
        """``iter-NNNN/`` of ``iteration`` (made with its ``games/`` folder if missing)."""
        d = self.out / f"iter-{iteration:04d}"
        (d / "games").mkdir(parents=True, exist_ok=True)
        return d

    def time_up(self) -> bool:
        """Is the ``max_minutes`` of this ``run`` spent?"""
        return self._deadline is not None and time.monotonic() > self._deadline

    def run_on_workers(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[Any]:
        """``fn`` of every task on the loop's workers, results as they finish (while ``run`` runs)."""
        if self._pool is None:
            raise RuntimeError("the loop's workers run only during ZeroLoop.run")
        return self._pool.run(fn, tasks)

    def status_line(self) -> str:
        return status_line(self.state, self.replay_games(), self.replay.positions())

    def replay_games(self) -> int:
        return sum(int(r.get("games") or 0) for r in self.state["history"]) + self._games_in(self.state["iteration"])

    def _games_in(self, iteration: int) -> int:
        if any(r["iteration"] == iteration for r in self.state["history"]):
            return 0
        per = self.config.selfplay_loop.games_per_task
        return sum(min(per, self._task_games(t)) for t in self.replay.done_tasks(iteration))

    def _task_games(self, task: int) -> int:
        total, per = self.config.selfplay_loop.games_per_iteration, self.config.selfplay_loop.games_per_task
        return max(0, min(per, total - task * per))

    # --- the loop -------------------------------------------------------------------------------
    def run(self, iterations: int | None = None, max_minutes: float | None = None) -> dict[str, Any]:
        """Run until ``iterations`` (default: the config's) are done or the time is up."""
        target = self.config.loop.iterations if iterations is None else iterations
        self._deadline = time.monotonic() + 60 * max_minutes if max_minutes else None
        if self.command:
            self.state.setdefault("commands", []).append(self.command)
        self._init_generation_zero()
        seed_carried_anchor(self)
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

    # --- 1. self-play ---------------------------------------------------------------------------
    def _selfplay_settings(self):
        return dataclasses.replace(self.config.selfplay, resign_threshold=float(self.state["resign_threshold"]))

    def _selfplay(self) -> bool:
        """Play the iteration's missing tasks; False when stopped before the end."""
        it = self.state["iteration"]
        cfg = self.config.selfplay_loop
        n_tasks = math.ceil(cfg.games_per_iteration / cfg.games_per_task)
        done = self.replay.done_tasks(it)
        blob = ModelBlob.from_file(self.best_path)
        settings = self._selfplay_settings()
        tasks = []
        for t in range(n_tasks):
            if t in done:
                continue
            seed = task_seed(self.config.loop.seed, it, t)
            rng = np.random.default_rng(seed)
            allowed = tuple(bool(rng.random() >= cfg.no_resign_fraction) for _ in range(self._task_games(t)))
            tasks.append(SelfPlayTask(it, t, len(allowed), seed, blob, settings, allowed))
        clock = self.start_clock("selfplay")
        bar = self.progress_bar(cfg.games_per_iteration, f"self-play it {it}", initial=cfg.games_per_iteration - sum(
            len(task.resign_allowed) for task in tasks))  # fmt: skip
        stopped = False
        try:
            results = self.run_on_workers(play_selfplay_task, tasks)
            for task, games in results:
                self._store_task(task, games)
                if bar is not None:
                    bar.update(len(games))
                    bar.set_postfix_str(self.status_line(), refresh=True)
                if self.time_up():
                    stopped = len(self.replay.done_tasks(it)) < n_tasks
                    results.close()
                    break
        finally:
            if bar is not None:
                bar.close()
            clock.stop()
        if stopped or len(self.replay.done_tasks(it)) < n_tasks:
            return False
        self._calibrate_resign()
        self.state["phase"] = "train"
        self.save_state()
        return True

    def _store_task(self, task: SelfPlayTask, games: list[SelfPlayGame]) -> None:
        """SGFs and summaries first, the replay chunk last: the chunk marks the task done."""
        d = self.iteration_dir(task.iteration)
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
            self.replay.add(combine_experience([g.experience for g in games]), task.iteration, task.task)

    def _game_summaries(self, iteration: int) -> list[dict[str, Any]]:
        """One summary per stored game (a task replayed after a crash keeps its last lines)."""
        path = self.out / f"iter-{iteration:04d}" / "selfplay.jsonl"
        if not path.is_file():
            return []
        done = self.replay.done_tasks(iteration)
        latest: dict[tuple[int, int], dict] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue  # a line a crash cut short
            if row.get("task") in done:
                latest[(row["task"], row["game"])] = row
        return list(latest.values())

    def _calibrate_resign(self) -> None:
        cfg = self.config.loop
        it = self.state["iteration"]
        lows: list[float] = []
        played_out = false = 0
        for i in range(max(0, it - cfg.calibration_iterations + 1), it + 1):
            for row in self._game_summaries(i):
                if not row["resign_allowed"]:
                    if i == it:
                        played_out += 1
                        false += bool(row["false_resign"])
                    if row["winner_low"] is not None:
                        lows.append(float(row["winner_low"]))
        self.state["played_out"] = played_out
        self.state["false_resign_rate"] = false / played_out if played_out else None
        if len(lows) >= cfg.calibration_min_games:
            threshold = min(cfg.resign_max, calibrate_resign_threshold(lows))
            self.state["resign_threshold"] = round(max(-1.0, threshold), 4)
            self.state["resign_calibration"] = {"games": len(lows), "iteration": it}

    # --- 2. training ----------------------------------------------------------------------------
    def _train(self) -> None:
        from dlgo.zero.trainer import train_candidate

        it = self.state["iteration"]
        positions = self.replay.positions(it)
        if self.config.train.steps_per_iteration == 0:  # self-play only: games for another trainer
            self.say(f"iteration {it}: {positions} positions, no training (train.steps_per_iteration = 0)")
            self._finish_iteration({})
            return
        if positions < self.config.train.min_positions:
            self.say(f"iteration {it}: {positions} positions, training starts at {self.config.train.min_positions}")
            self._finish_iteration({})
            return
        candidate = self.iteration_dir(it) / "candidate.keras"
        clock = self.start_clock("train")
        metrics = train_candidate(
            self.replay, it, self.out / "learner.keras", self.best_path if it == 0 else self._learner_init(),
            candidate, self.config.train, seed=task_seed(self.config.loop.seed, it, 1 << 20),
            card_fields={"training": self._training_card(it)}, progress=self.progress,
            aux_heads=self.config.loop.aux_heads, global_pooling=self.config.loop.global_pooling,
            schedule_iteration=it + int(self.carried.get("iteration", 0)),
            trunk=(self.config.loop.blocks, self.config.loop.filters),
        )  # fmt: skip
        export_runtimes(candidate, self.config.selfplay.runtime == "int8")
        clock.stop()
        self.state["train_metrics"] = metrics
        self.state["phase"] = "gate"
        self.save_state()

    def _learner_init(self) -> Path:
        """Where a learner without a checkpoint starts: generation 0 (warm start)."""
        return self.out / "generations" / "gen-0000.keras"

    def _training_card(self, it: int) -> dict[str, Any]:
        return {
            "kind": "zero self-play",
            "iteration": it,
            "games": self.replay_games(),
            "positions": self.replay.positions(it),
            "config": str(self.config.path) if self.config.path else "",
            "commands": self.state.get("commands", []),
        }

    # --- 3. gating (dlgo.zero.matches) ---------------------------------------------------------
    def _gate(self) -> bool:
        """Gate the iteration's candidate; False when stopped before the verdict."""
        it = self.state["iteration"]
        candidate = self.iteration_dir(it) / "candidate.keras"
        games, verdict = play_gating(self, candidate)
        if verdict is None:
            self.save_state()
            return False
        wins = sum(r["winner"] == 1 for r in games.values())
        losses = sum(r["winner"] == -1 for r in games.values())
        draws = len(games) - wins - losses
        if verdict:
            self.state["generation"] += 1
            best = f"generations/gen-{self.state['generation']:04d}.keras"
            copy_model(candidate, self.out / best)
            self.state["best"] = best
        self._finish_iteration(
            {
                "gate_wins": wins,
                "gate_losses": losses,
                "gate_draws": draws,
                "gate_accept": self.config.gating.accept,
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
            self.state, self._game_summaries(it), self.state.pop("train_metrics", {}) or {}, gate,
            self.replay.positions(it), selfplay_seconds, gate_seconds,
        )  # fmt: skip
        self.state["history"].append(row)
        self.state["iteration"] = it + 1
        self.state["phase"] = "selfplay"
        self.save_state()
        write_csv(self.out / "iterations.csv", ITERATION_COLUMNS, self.state["history"])
        self.write_plot()

    # --- 4. anchor ------------------------------------------------------------------------------
    def _needs_anchor(self) -> bool:
        gen, anchor = self.state["generation"], self.config.anchor
        return anchor.games > 0 and gen % max(1, anchor.every) == 0 and gen not in self.state["anchored"]

    def _anchor(self) -> None:
        play_anchor(self)

    # --- shipping (dlgo.zero.handover) ---------------------------------------------------------------
    def export(self, target: str | os.PathLike) -> Path:
        """Copy the best generation to ``target`` with a model card of the whole run, and the
        carry file and learner beside it (``dlgo.zero.carry``)."""
        return export_run(self, Path(target))

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

    def progress_bar(self, total: int, desc: str, initial: int = 0) -> Any:
        """A tqdm bar of games on stderr; None without ``progress``."""
        if not self.progress:
            return None
        from tqdm import tqdm

        return tqdm(total=total, initial=initial, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)
