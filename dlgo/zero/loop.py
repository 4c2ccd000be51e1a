"""The AlphaGo Zero training loop: self-play, replay, training, gating, Elo against an anchor.

    python -m dlgo.zero.loop --config configs/zero-train-9x9.toml               # this machine
    python -m dlgo.zero.loop --config configs/zero-train-9x9.toml --ray auto    # a Ray cluster
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

Everything lands in ``loop.out``: ``state.json`` (where the loop is), ``replay/`` (chunks),
``iter-NNNN/`` (SGFs, ``selfplay.jsonl``, the candidate, ``gating.jsonl``),
``generations/gen-NNNN.keras``, ``learner.keras``, ``anchor/``, ``iterations.csv``,
``elo.csv``, ``curves.png``, and ``clock.json`` while a phase runs. A stop at any point
(Ctrl-C, ``--max-minutes``, a crash, ``kill -9``) loses at most the tasks under way: a restart
with the same command goes on where it stopped, never replaying a stored task or gating game.
The worker processes end with the loop however it ends, and the time a killed run spent still
counts in ``state.json``'s ``seconds`` (up to its last heartbeat, a few seconds before the end).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import math
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.zero.experience import ReplayBuffer, combine_experience
from dlgo.zero.loop_config import LoopConfig, LoopConfigError, load_loop_config
from dlgo.zero.selfplay import SelfPlayGame, calibrate_resign_threshold
from dlgo.zero.workers import (
    GatingGame,
    GatingTask,
    ModelBlob,
    SelfPlayTask,
    make_pool,
    play_gating_task,
    play_selfplay_task,
)

__all__ = ["ZeroLoop", "main", "ITERATION_COLUMNS", "ELO_COLUMNS"]

STATE = "state.json"
STATE_FORMAT = 1
HEARTBEAT = "clock.json"  # the running phase's elapsed time, rewritten every HEARTBEAT_SECONDS
HEARTBEAT_SECONDS = 2.0
ITERATION_COLUMNS = (
    "iteration", "generation", "games", "positions", "total_games", "total_positions", "policy_loss",
    "value_loss", "lr", "window", "gate_wins", "gate_losses", "gate_draws", "gate_accept", "accepted",
    "resign_threshold", "false_resign_rate", "played_out", "selfplay_seconds", "train_seconds", "gate_seconds",
    "games_per_hour",
)  # fmt: skip
ELO_COLUMNS = (
    "generation", "iteration", "anchor", "games", "wins", "losses", "draws", "win_rate", "elo", "elo_low",
    "elo_high", "total_games", "total_positions",
)  # fmt: skip
ELO_CLIP = 800.0  # a 0% or 100% score has an infinite estimate: the plot and CSV clip it


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _copy_model(src: Path, dst: Path) -> None:
    """A model with its card and ONNX export (the card last: a model without it is unusable)."""
    from dlgo.inference.card import card_path

    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(dst.stem + ".tmp.keras")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)
    if src.with_suffix(".onnx").is_file():
        shutil.copyfile(src.with_suffix(".onnx"), dst.with_suffix(".onnx"))
    shutil.copyfile(card_path(src), card_path(dst))


def _export_onnx(path: Path) -> None:
    """The ONNX export next to the model, once, so workers need not each export it: stamped with
    the model's hash (``dlgo.inference.onnx_cache``), so they load it without Keras or TensorFlow."""
    from dlgo.inference import load_model
    from dlgo.inference.onnx_cache import onnx_runner

    try:
        if onnx_runner(load_model(path)) is None:
            print(f"zero-loop: no ONNX export of {path}", file=sys.stderr)
    except Exception as e:  # workers fall back on exporting or compiling themselves
        print(f"zero-loop: no ONNX export of {path} ({e})", file=sys.stderr)


class _PhaseClock:
    """Wall time charged to ``state["seconds"][phase]`` so that no way of stopping loses it.

    Starting marks the state with the phase's total so far (``base``) and a segment id; every
    state save charges the time up to then, and a thread rewrites ``clock.json`` (this segment's
    elapsed seconds) every ``HEARTBEAT_SECONDS``. ``stop`` charges the rest and removes both.
    A run killed in between (``kill -9``, power loss) leaves the mark: the next load counts
    ``base`` + the last heartbeat of that segment, losing at most a heartbeat's interval and
    never counting a second twice.
    """

    def __init__(self, loop: ZeroLoop, phase: str) -> None:
        self.loop = loop
        self.phase = phase
        self.base = float(loop.state["seconds"].get(phase, 0.0))
        self.start = time.monotonic()
        self.segment = f"{os.getpid()}-{time.time_ns()}"
        loop.state["clock"] = {"segment": self.segment, "phase": phase, "base": self.base}
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="zero-loop-clock", daemon=True)
        self._thread.start()

    def charge(self) -> None:
        self.loop.state["seconds"][self.phase] = self.base + (time.monotonic() - self.start)

    def _beat(self) -> None:
        path = self.loop.out / HEARTBEAT
        while not self._stopped.wait(HEARTBEAT_SECONDS):
            beat = {"segment": self.segment, "seconds": round(time.monotonic() - self.start, 3)}
            try:
                _atomic_write(path, json.dumps(beat) + "\n")
            except OSError:
                pass  # the next beat tries again; the state saves still charge

    def stop(self) -> None:
        """Charge the time so far and save the state (once; later calls do nothing)."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        self._thread.join()
        self.charge()
        self.loop.state.pop("clock", None)
        self.loop._clock = None
        self.loop._save_state()
        (self.loop.out / HEARTBEAT).unlink(missing_ok=True)


def _recover_clock(state: dict[str, Any], out: Path) -> float:
    """Count the time of a phase a killed run was in (see ``_PhaseClock``); the seconds added."""
    clock = state.pop("clock", None)
    if not clock:
        return 0.0
    elapsed = 0.0
    try:
        beat = json.loads((out / HEARTBEAT).read_text(encoding="utf-8"))
        if beat.get("segment") == clock["segment"]:
            elapsed = float(beat["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no beat yet: the saves charged what there is
    seconds = state["seconds"]
    before = float(seconds.get(clock["phase"], 0.0))
    seconds[clock["phase"]] = max(before, float(clock["base"]) + elapsed)
    return seconds[clock["phase"]] - before


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
        self._clock: _PhaseClock | None = None
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
            recovered = _recover_clock(state, self.out)
            if recovered > 0:
                self._say(f"the last run stopped without saving its time (killed?): {recovered:.0f} s counted")
            return state
        return {
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

    def _save_state(self) -> None:
        if self._clock is not None:
            self._clock.charge()
        _atomic_write(self.out / STATE, json.dumps(self.state, indent=2) + "\n")

    def _start_clock(self, phase: str) -> _PhaseClock:
        """Charge the time from now to ``phase`` until the clock's ``stop``."""
        if self._clock is not None:
            self._clock.stop()
        self._clock = _PhaseClock(self, phase)
        self._save_state()
        return self._clock

    @property
    def best_path(self) -> Path:
        return self.out / self.state["best"]

    def _iter_dir(self, iteration: int) -> Path:
        d = self.out / f"iter-{iteration:04d}"
        (d / "games").mkdir(parents=True, exist_ok=True)
        return d

    def _time_up(self) -> bool:
        return self._deadline is not None and time.monotonic() > self._deadline

    def status_line(self) -> str:
        s = self.state
        last = s["history"][-1] if s["history"] else None
        gate = "none yet"
        if last and last.get("gate_wins") not in (None, ""):
            verdict = "accepted" if last.get("accepted") else "rejected"
            gate = f"{last['gate_wins']}-{last['gate_losses']} {verdict}"
        return (
            f"iteration {s['iteration']} ({s['phase']}) | generation {s['generation']} | "
            f"{self.replay_games()} games, {self.replay.positions():,} positions | last gate {gate} | "
            f"resign below {s['resign_threshold']:+.2f}"
        )

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
        self._save_state()
        self._say(self.status_line())
        try:
            with make_pool(self.config.loop.workers, self.ray_address) as pool:
                self._pool = pool
                while self.state["iteration"] < target and not self._time_up():
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
                    self._say(self.status_line())
                if self._needs_anchor() and not self._time_up():
                    self._anchor()
        finally:
            self._pool = None
            if self._clock is not None:
                self._clock.stop()
            self._save_state()
            self._write_plot()
        return self.state

    def _say(self, text: str) -> None:
        print(f"zero-loop: {text}", file=sys.stderr, flush=True)

    def _init_generation_zero(self) -> None:
        path = self.best_path
        if path.is_file():
            return
        cfg = self.config
        if cfg.loop.init_model:
            _copy_model(cfg.resolve(cfg.loop.init_model), path)
        else:
            from dlgo.encoders import get_encoder_by_name
            from dlgo.inference import save_model
            from dlgo.networks.zero import zero_model

            encoder = get_encoder_by_name("zero", cfg.selfplay.board_size)
            model = zero_model(encoder.num_planes, blocks=cfg.loop.blocks, filters=cfg.loop.filters)
            save_model(
                model, path, encoder, [cfg.selfplay.board_size],
                network={"kind": "zero", "blocks": cfg.loop.blocks, "filters": cfg.loop.filters},
                training={"kind": "zero self-play", "generation": 0, "notes": "random initial weights"},
            )  # fmt: skip
        if not path.with_suffix(".onnx").is_file():
            _export_onnx(path)

    # --- 1. self-play ---------------------------------------------------------------------------
    def _selfplay_settings(self):
        import dataclasses

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
            seed = _seed(self.config.loop.seed, it, t)
            rng = np.random.default_rng(seed)
            allowed = tuple(bool(rng.random() >= cfg.no_resign_fraction) for _ in range(self._task_games(t)))
            tasks.append(SelfPlayTask(it, t, len(allowed), seed, blob, settings, allowed))
        clock = self._start_clock("selfplay")
        bar = self._bar(cfg.games_per_iteration, f"self-play it {it}", initial=cfg.games_per_iteration - sum(
            len(task.resign_allowed) for task in tasks))  # fmt: skip
        stopped = False
        try:
            results = self._pool.run(play_selfplay_task, tasks)
            for task, games in results:
                self._store_task(task, games)
                if bar is not None:
                    bar.update(len(games))
                    bar.set_postfix_str(self.status_line(), refresh=True)
                if self._time_up():
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
        self._save_state()
        return True

    def _store_task(self, task: SelfPlayTask, games: list[SelfPlayGame]) -> None:
        """SGFs and summaries first, the replay chunk last: the chunk marks the task done."""
        d = self._iter_dir(task.iteration)
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
        if positions < self.config.train.min_positions:
            self._say(f"iteration {it}: {positions} positions, training starts at {self.config.train.min_positions}")
            self._finish_iteration({})
            return
        candidate = self._iter_dir(it) / "candidate.keras"
        clock = self._start_clock("train")
        metrics = train_candidate(
            self.replay, it, self.out / "learner.keras", self.best_path if it == 0 else self._learner_init(),
            candidate, self.config.train, seed=_seed(self.config.loop.seed, it, 1 << 20),
            card_fields={"training": self._training_card(it)}, progress=self.progress,
        )  # fmt: skip
        _export_onnx(candidate)
        clock.stop()
        self.state["train_metrics"] = metrics
        self.state["phase"] = "gate"
        self._save_state()

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

    # --- 3. gating ------------------------------------------------------------------------------
    def _gating_games(self, it: int) -> dict[int, dict[str, Any]]:
        path = self.out / f"iter-{it:04d}" / "gating.jsonl"
        games: dict[int, dict[str, Any]] = {}
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                games[int(row["index"])] = row
        return games

    def _gate_decided(self, games: dict[int, dict[str, Any]]) -> bool | None:
        """True/False once no remaining game can change the verdict; None while open."""
        g = self.config.gating
        wins = sum(r["winner"] == 1 for r in games.values())
        losses = sum(r["winner"] == -1 for r in games.values())
        left = g.games - len(games)
        if wins + losses + left == 0:
            return False
        if wins / (wins + losses + left) > g.accept:
            return True  # accepted even if it lost every remaining game
        if (wins + left) / (wins + losses + left) <= g.accept:
            return False  # rejected even if it won every remaining game
        return None if left > 0 else wins / max(1, wins + losses) > g.accept

    def _gate(self) -> bool:
        it = self.state["iteration"]
        g = self.config.gating
        d = self._iter_dir(it)
        candidate = d / "candidate.keras"
        games = self._gating_games(it)
        clock = self._start_clock("gate")
        verdict = self._gate_decided(games)
        if verdict is None:
            cand_blob, best_blob = ModelBlob.from_file(candidate), ModelBlob.from_file(self.best_path)
            tasks = [
                GatingTask(
                    it,
                    i,
                    _seed(self.config.loop.seed, it, 1 << 21, i),
                    cand_blob,
                    best_blob,
                    self.config.selfplay.board_size,
                    self.config.selfplay.komi,
                    g.visits,
                    g.temperature_moves,
                    self.config.selfplay.c_puct,
                    self.config.selfplay.batch_size,
                )  # fmt: skip
                for i in range(g.games)
                if i not in games
            ]
            bar = self._bar(g.games, f"gating it {it}", initial=len(games))
            try:
                results = self._pool.run(play_gating_task, tasks)
                for _, game in results:
                    self._store_gating_game(d, game)
                    games[game.index] = {"index": game.index, "winner": game.winner}
                    if bar is not None:
                        w = sum(r["winner"] == 1 for r in games.values())
                        lo = sum(r["winner"] == -1 for r in games.values())
                        bar.update(1)
                        bar.set_postfix_str(f"candidate {w}-{lo} best")
                    verdict = self._gate_decided(games)
                    if verdict is not None or self._time_up():
                        results.close()
                        break
            finally:
                if bar is not None:
                    bar.close()
        clock.stop()
        if verdict is None:
            self._save_state()
            return False
        wins = sum(r["winner"] == 1 for r in games.values())
        losses = sum(r["winner"] == -1 for r in games.values())
        draws = len(games) - wins - losses
        if verdict:
            self.state["generation"] += 1
            best = f"generations/gen-{self.state['generation']:04d}.keras"
            _copy_model(candidate, self.out / best)
            self.state["best"] = best
        self._finish_iteration(
            {
                "gate_wins": wins,
                "gate_losses": losses,
                "gate_draws": draws,
                "gate_accept": g.accept,
                "accepted": int(verdict),
            }
        )
        self._say(f"iteration {it}: candidate {wins}-{losses} ({draws} jigo): {'accepted' if verdict else 'rejected'}")
        return True

    @staticmethod
    def _store_gating_game(d: Path, game: GatingGame) -> None:
        (d / "games" / f"gate-{game.index:03d}.sgf").write_text(game.sgf, encoding="utf-8")
        row = {
            "index": game.index, "winner": game.winner, "candidate_black": game.candidate_black,
            "result": game.result, "moves": game.moves,
        }  # fmt: skip
        with open(d / "gating.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def _finish_iteration(self, gate: dict[str, Any]) -> None:
        it = self.state["iteration"]
        summaries = self._game_summaries(it)
        metrics = self.state.pop("train_metrics", {}) or {}
        false_rate = self.state.get("false_resign_rate")
        seconds = self.state["seconds"]
        spent = seconds.get("_selfplay_mark", 0.0)
        selfplay_seconds = seconds["selfplay"] - spent
        seconds["_selfplay_mark"] = seconds["selfplay"]
        row = {
            "iteration": it,
            "generation": self.state["generation"],
            "games": len(summaries),
            "positions": sum(r["positions"] for r in summaries),
            "total_games": sum(int(r.get("games") or 0) for r in self.state["history"]) + len(summaries),
            "total_positions": self.replay.positions(it),
            "policy_loss": metrics.get("policy_loss", ""),
            "value_loss": metrics.get("value_loss", ""),
            "lr": metrics.get("lr", ""),
            "window": metrics.get("window", ""),
            "gate_wins": gate.get("gate_wins", ""),
            "gate_losses": gate.get("gate_losses", ""),
            "gate_draws": gate.get("gate_draws", ""),
            "gate_accept": gate.get("gate_accept", ""),
            "accepted": gate.get("accepted", ""),
            "resign_threshold": self.state["resign_threshold"],
            "false_resign_rate": "" if false_rate is None else round(false_rate, 4),
            "played_out": self.state.get("played_out", 0),
            "selfplay_seconds": round(selfplay_seconds, 1),
            "train_seconds": metrics.get("seconds", ""),
            "gate_seconds": "",
            "games_per_hour": round(3600 * len(summaries) / selfplay_seconds, 1) if selfplay_seconds > 0 else "",
        }
        gate_spent = seconds.get("_gate_mark", 0.0)
        row["gate_seconds"] = round(seconds["gate"] - gate_spent, 1)
        seconds["_gate_mark"] = seconds["gate"]
        self.state["history"].append(row)
        self.state["iteration"] = it + 1
        self.state["phase"] = "selfplay"
        self._save_state()
        self._write_csv(self.out / "iterations.csv", ITERATION_COLUMNS, self.state["history"])
        self._write_plot()

    # --- 4. anchor ------------------------------------------------------------------------------
    def _needs_anchor(self) -> bool:
        return self.config.anchor.games > 0 and self.state["generation"] not in self.state["anchored"]

    def _anchor(self) -> None:
        from dlgo.match import GameRules, MatchSettings, dlgo_player, gnugo_player
        from dlgo.match.runner import run_match
        from dlgo.match.stats import elo_from_rate, elo_interval

        a = self.config.anchor
        gen = self.state["generation"]
        size = self.config.selfplay.board_size
        clock = self._start_clock("anchor")
        engine = dlgo_player(
            None, label=f"zero-gen{gen}",
            sets=(
                "agent=zero", f"zero.model={self.best_path}", f"zero.rounds={a.visits}", "zero.threads=1",
                "time.default_seconds=0", f"engine.board_size={size}", f"resign.threshold={self._resign_winrate():.3f}",
            ),
        )  # fmt: skip
        opponent = gnugo_player(a.level)
        rules = GameRules(size=size, komi=a.komi)
        settings = MatchSettings(engine, opponent, a.games, rules, jobs=self.config.loop.workers)
        try:
            result = run_match(settings, self.out / "anchor" / f"gen-{gen:04d}", progress=self.progress)
        finally:
            clock.stop()
        s = result.summary
        if result.interrupted:
            raise KeyboardInterrupt
        wins, losses, draws = s["engine_wins"], s["opponent_wins"], s.get("draws", 0)
        games = wins + losses + draws
        score = wins + 0.5 * draws
        rate = score / games if games else 0.0
        lo, hi = elo_interval(score, games)

        def clip(v: float) -> float:
            return round(max(-ELO_CLIP, min(ELO_CLIP, v)), 1)

        row = {
            "generation": gen,
            "iteration": self.state["iteration"],
            "anchor": opponent.label,
            "games": games,
            "wins": wins,
            "losses": losses,
            "draws": draws,
            "win_rate": round(rate, 4),
            "elo": clip(elo_from_rate(rate)) if games else "",
            "elo_low": clip(lo),
            "elo_high": clip(hi),
            "total_games": self.replay_games(),
            "total_positions": self.replay.positions(),
        }
        elo_rows = [r for r in self._read_elo() if int(r["generation"]) != gen] + [row]
        self._write_csv(self.out / "elo.csv", ELO_COLUMNS, elo_rows)
        self.state["anchored"].append(gen)
        self._save_state()
        self._say(f"generation {gen} against {opponent.label}: {wins}-{losses} ({rate:.0%}), Elo {row['elo']}")
        self._write_plot()

    def _resign_winrate(self) -> float:
        return (float(self.state["resign_threshold"]) + 1.0) / 2.0

    def _read_elo(self) -> list[dict[str, str]]:
        from dlgo.zero.report import read_csv

        return read_csv(self.out / "elo.csv")

    # --- outputs --------------------------------------------------------------------------------
    @staticmethod
    def _write_csv(path: Path, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
        os.replace(tmp, path)

    def _write_plot(self) -> None:
        from dlgo.zero.report import plot_loop

        try:
            size = self.config.selfplay.board_size
            plot_loop(self.out, title=f"AlphaGo Zero loop, {size}x{size}: {self.out.name}")
        except Exception as e:  # a plot must never stop training
            print(f"zero-loop: no plot ({e})", file=sys.stderr)

    def _bar(self, total: int, desc: str, initial: int = 0):
        if not self.progress:
            return None
        from tqdm import tqdm

        return tqdm(total=total, initial=initial, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)

    # --- shipping -------------------------------------------------------------------------------
    def export(self, target: str | os.PathLike) -> Path:
        """Copy the best generation to ``target`` with a model card of the whole run."""
        from dlgo.inference.card import read_card, write_card

        target = Path(target)
        _copy_model(self.best_path, target)
        card = read_card(target)
        seconds = {k: round(v / 3600, 2) for k, v in self.state["seconds"].items() if not k.startswith("_")}
        elo = self._read_elo()
        card.training = {
            **card.training,
            "kind": "zero self-play",
            "generation": self.state["generation"],
            # games/positions/iteration (from the candidate's own card): what this network
            # was trained on; run_*: the whole run so far
            "run_iterations": self.state["iteration"],
            "run_games": self.replay_games(),
            "run_positions": self.replay.positions(),
            "compute_hours": seconds,
            "workers": self.config.loop.workers,
            "machine": f"{os.cpu_count()} CPU cores",
            "config": self.config.to_dict(),
            "commands": self.state.get("commands", []),
            "warm_start": self.config.loop.init_model or "random weights",
        }
        card.strength = {
            **card.strength,
            "resign_threshold_value": self.state["resign_threshold"],
            "resign_threshold_winrate": round(self._resign_winrate(), 4),
            "anchor": elo[-1] if elo else {},
        }
        write_card(target, card)
        return target


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m dlgo.zero.loop", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="the loop's TOML config (configs/zero-train-9x9.toml)")
    p.add_argument("--ray", metavar="ADDRESS", help="run workers on Ray: 'auto', 'ray://host:10001', or 'local'")
    p.add_argument("--iterations", type=int, help="stop after this many iterations (default: the config's)")
    p.add_argument("--max-minutes", type=float, help="stop after the task under way once this time is up")
    p.add_argument("--workers", type=int, help="override loop.workers")
    p.add_argument("--out", help="override loop.out")
    p.add_argument("--export", metavar="FILE", help="copy the best generation to FILE with its card, then exit")
    p.add_argument("--status", action="store_true", help="print where the loop stands, then exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up chatter (workers inherit it)
    overrides: dict[str, dict[str, Any]] = {}
    if args.workers is not None:
        overrides.setdefault("loop", {})["workers"] = args.workers
    if args.out is not None:
        overrides.setdefault("loop", {})["out"] = str(Path(args.out).resolve())
    try:
        config = load_loop_config(args.config, overrides)
        command = "python -m dlgo.zero.loop " + " ".join(argv if argv is not None else sys.argv[1:])
        loop = ZeroLoop(config, ray_address=args.ray, progress=not args.no_progress, command=command)
    except LoopConfigError as e:
        print(f"zero-loop: {e}", file=sys.stderr)
        return 2
    if args.status:
        print(loop.status_line())
        return 0
    if args.export:
        print(f"zero-loop: exported {loop.export(args.export)}", file=sys.stderr)
        return 0

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # `kill` stops like Ctrl-C: state saved, workers stopped

    signal.signal(signal.SIGTERM, stop)
    try:
        loop.run(args.iterations, args.max_minutes)
    except KeyboardInterrupt:
        print("zero-loop: interrupted; the same command resumes", file=sys.stderr)
        return 130
    print(f"zero-loop: {loop.status_line()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
