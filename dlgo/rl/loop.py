"""The book's reinforcement-learning cycle as one resumable command (book 9.4, 10.3, 11, 12.4).

    python -m dlgo.rl loop --config configs/train/rl-pg-9x9.toml      # folder runs/rl-pg-9x9

Each iteration ``i`` does what docs/rl.md shows step by step: the current version plays itself
(``exp-NNNN/``, ``dlgo.rl.selfplay``), one training pass over the experience of the last
``train.window`` iterations gives a candidate (``cand-NNNN.keras``), and the candidate plays the
current version (``eval-NNNN/``, ``dlgo.rl.evaluate``). A candidate that passes the gate becomes
the next generation (``gen-GGGG.keras``); a rejected one is dropped and the next iteration
self-plays the current version again, so the window holds more fresh games. After the last
iteration the final version plays each of ``final.opponents`` (``final/gen-GGGG-vs-NAME/``).

Resuming: every output is written whole or not at all; ``loop.json`` (the state: generation,
iterations done, the accepted ones, each iteration's row, the step under way) says which steps
are done, and a rerun skips them; a stopped self-play or match resumes from its finished games
(the existing functions do), a stopped training pass restarts. ``log.csv`` is ``loop.json``'s
rows as a table. A rerun may raise ``loop.iterations`` (go on), change ``selfplay.jobs`` or the
``[final]`` table; other changes need another folder.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from dlgo.parallel import task_seed
from dlgo.rl.evaluate import EvalSettings, gate_passed, run_evaluation
from dlgo.rl.loop_config import RESUMABLE_CHANGES, RLConfigError, RLLoopConfig
from dlgo.rl.selfplay import SelfPlaySettings, run_selfplay

__all__ = ["RLLoop", "LOG_COLUMNS", "read_state", "gen_path", "final_summary"]

STATE = "loop.json"
LOG_COLUMNS = (
    "iteration", "generation", "temperature", "games", "decisions", "train_decisions", "loss", "losses",
    "gate_games", "candidate_wins", "candidate_losses", "draws", "win_rate", "win_rate_low", "win_rate_high",
    "p_value", "p_value_one_sided", "accepted", "selfplay_seconds", "train_seconds", "gate_seconds",
    "cpu_minutes",
)  # fmt: skip
SUMMARY_KEYS = ("games", "engine_wins", "opponent_wins", "draws", "win_rate", "win_rate_95", "p_value",
                "p_value_one_sided")  # fmt: skip


def gen_path(out: Path, generation: int) -> Path:
    return out / f"gen-{generation:04d}.keras"


def _cand_path(out: Path, iteration: int) -> Path:
    return out / f"cand-{iteration:04d}.keras"


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _copy_model(src: Path, dst: Path) -> None:
    """A model file and its card, card first: the model file's presence says the copy is whole."""
    from dlgo.inference.card import card_path

    for a, b in ((card_path(src), card_path(dst)), (src, dst)):
        tmp = b.with_name(b.name + ".tmp")
        shutil.copyfile(a, tmp)
        os.replace(tmp, b)


def read_state(out: str | os.PathLike) -> dict[str, Any]:
    """The run's ``loop.json``; ``FileNotFoundError`` naming the folder if it holds no run."""
    path = Path(out) / STATE
    if not path.exists():
        raise FileNotFoundError(f"{out}: no {STATE} (not a folder of python -m dlgo.rl loop)")
    return json.loads(path.read_text(encoding="utf-8"))


def final_summary(summary: dict) -> dict[str, Any]:
    """The match figures a log row, a plot or a model card needs."""
    return {key: summary.get(key) for key in SUMMARY_KEYS}


def _differences(before: dict, now: dict, prefix: str = "") -> list[str]:
    found = []
    for key in sorted(set(before) | set(now)):
        name = f"{prefix}{key}"
        if name in RESUMABLE_CHANGES:
            continue
        a, b = before.get(key), now.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            found += _differences(a, b, name + ".")
        elif a != b:
            found.append(f"{name} ({a!r} -> {b!r})")
    return found


class RLLoop:
    """One run folder of the loop (see module doc); ``run`` does what is left of it."""

    def __init__(self, config: RLLoopConfig, out: str | os.PathLike, command: str = "", progress: bool = True):
        self.config = config
        self.out = Path(out)
        self.command = command
        self.progress = progress
        self.state = self._open()

    # state -------------------------------------------------------------------------------
    def _open(self) -> dict[str, Any]:
        now = self.config.to_dict()
        path = self.out / STATE
        if path.exists():
            state = read_state(self.out)
            changed = _differences(state["config"], now)
            if changed:
                raise RLConfigError(
                    f"{self.out} holds a run with other settings: {'; '.join(changed)}; use another --out "
                    f"(a rerun may change only {', '.join(RESUMABLE_CHANGES)})"
                )
        else:
            state = {"generation": 0, "iteration": 0, "accepted": [], "rows": [], "pending": {}, "final": {}}
        state["config"] = now
        if self.command and self.command not in state.setdefault("commands", []):
            state["commands"].append(self.command)
        return state

    def _save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        _write(self.out / STATE, json.dumps(self.state, indent=2) + "\n")
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=LOG_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.state["rows"])
        _write(self.out / "log.csv", text.getvalue())

    def _say(self, text: str) -> None:
        print(f"rl-loop: {text}", file=sys.stderr, flush=True)

    @property
    def current(self) -> Path:
        return gen_path(self.out, self.state["generation"])

    # steps -------------------------------------------------------------------------------
    def _start(self) -> None:
        """Generation 0: a fresh network (book 9.3.3) or a copy of ``init.start``."""
        first = gen_path(self.out, 0)
        if first.exists():
            return
        c, init = self.config, self.config.init
        if init.start:
            from dlgo.rl.agents import agent_kind

            start = c.resolve(init.start)
            if agent_kind(start) != c.kind:
                raise RLConfigError(f"{c.path}: init.start {start} is a {agent_kind(start)!r} agent, not {c.kind!r}")
            _copy_model(start, first)
            self._say(f"generation 0 is a copy of {start}")
            return
        from dlgo.inference.card import card_path
        from dlgo.rl.agents import new_agent

        agent = new_agent(c.kind, c.board_size, encoder=init.encoder, trunk=init.trunk, width=init.width,
                          seed=init.seed)  # fmt: skip
        tmp = first.with_name("gen-0000.partial.keras")
        agent.serialize(tmp, training={"command": self.command, "generation": 0}, notes="untrained (random weights)")
        os.replace(card_path(tmp), card_path(first))
        os.replace(tmp, first)
        self._say(f"generation 0: a fresh {c.kind} network ({init.trunk}, width {init.width}, seed {init.seed})")

    def _selfplay(self, i: int, pending: dict) -> None:
        from dlgo.rl.experience import experience_size

        c = self.config
        settings = SelfPlaySettings(
            model=str(self.current), games=c.selfplay.games, board_size=c.board_size, komi=c.komi,
            temperature=c.temperature(i), games_per_task=c.selfplay.games_per_task, seed=task_seed(c.seed, i),
        )  # fmt: skip
        self._say(f"iteration {i}: self-play of {self.current.stem}, {settings.games} games, "
                  f"temperature {settings.temperature:g}")  # fmt: skip
        began = time.monotonic()
        files = run_selfplay(settings, self.out / f"exp-{i:04d}", workers=c.selfplay.jobs, progress=self.progress)
        seconds = self._seconds(pending, "selfplay", began)
        decisions = sum(experience_size(f) for f in files)
        pending["selfplay"] = {"games": settings.games, "decisions": decisions, "seconds": seconds,
                               "temperature": settings.temperature}  # fmt: skip
        self._save()
        self._say(f"iteration {i}: self-play done ({decisions} decisions, {seconds:g} s)")

    def _train(self, i: int, pending: dict) -> None:
        from dlgo.inference import read_card
        from dlgo.rl.agents import train_version
        from dlgo.rl.experience import experience_files

        began = time.monotonic()
        candidate = _cand_path(self.out, i)
        if candidate.exists():  # trained, stopped before the state was saved
            card = read_card(candidate)
            training = {**card.training, "losses": card.metrics.get("train_losses", {})}
        else:
            first = max(1, i - self.config.train.window + 1)
            folders = [str(self.out / f"exp-{j:04d}") for j in range(first, i + 1)]
            self._say(f"iteration {i}: training {self.current.stem} on exp-{first:04d}..exp-{i:04d}")
            training = train_version(self.current, experience_files(folders), candidate,
                                     self.config.train_settings(), self.command)  # fmt: skip
        seconds = self._seconds(pending, "train", began)
        pending["train"] = {"losses": training["losses"], "decisions": training["decisions"], "seconds": seconds}
        self._save()
        loss = training["losses"].get("loss")
        self._say(f"iteration {i}: candidate {candidate.name}, loss {loss:.4g} ({seconds:g} s)")

    def _gate(self, i: int, pending: dict) -> None:
        c, candidate = self.config, _cand_path(self.out, i)
        summary: dict[str, Any] = {}
        began = time.monotonic()
        if c.gate.games:
            self._say(f"iteration {i}: {candidate.stem} against {self.current.stem}, {c.gate.games} games")
            settings = EvalSettings(str(candidate), str(self.current), c.gate.games, c.board_size, c.komi,
                                    seed=task_seed(c.seed, i, 2))  # fmt: skip
            gate = None if c.gate.kind == "none" else c.gate.kind
            summary = final_summary(run_evaluation(settings, self.out / f"eval-{i:04d}", workers=c.selfplay.jobs,
                                                   gate=gate, progress=self.progress))  # fmt: skip
        accepted = c.gate.kind == "none" or gate_passed(summary, c.gate.kind)
        pending["gate"] = {**summary, "accepted": accepted, "seconds": self._seconds(pending, "gate", began)}
        self._save()
        rate = f"win rate {summary['win_rate']:.3f}, " if summary else ""
        self._say(f"iteration {i}: {rate}gate {c.gate.kind}: {'accepted' if accepted else 'rejected'}")

    def _seconds(self, pending: dict, step: str, began: float) -> float:
        """The step's time: this run's, and that of runs stopped during it (by Ctrl-C or ``kill``)."""
        return round(time.monotonic() - began + pending.pop(f"{step}_stopped_seconds", 0.0), 1)

    def _timed(self, step: str, i: int, pending: dict) -> None:
        """Do a step of iteration ``i`` unless done; a stop keeps the time spent for the rerun."""
        if step in pending:
            return
        began = time.monotonic()
        try:
            getattr(self, f"_{step}")(i, pending)
        except BaseException:
            key = f"{step}_stopped_seconds"
            pending[key] = round(pending.get(key, 0.0) + time.monotonic() - began, 1)
            self._save()
            raise

    def _finish_iteration(self, i: int, pending: dict) -> None:
        play, train, gate = pending["selfplay"], pending["train"], pending["gate"]
        generation = self.state["generation"]
        if gate["accepted"]:
            _copy_model(_cand_path(self.out, i), gen_path(self.out, generation + 1))
        seconds = play["seconds"] + train["seconds"] + gate["seconds"]
        before = float(self.state["rows"][-1]["cpu_minutes"]) if self.state["rows"] else 0.0
        losses = {k: v for k, v in train["losses"].items() if k not in ("loss", "decisions")}
        low, high = gate.get("win_rate_95") or (None, None)
        row = {
            "iteration": i, "generation": generation, "temperature": play["temperature"], "games": play["games"],
            "decisions": play["decisions"], "train_decisions": train["decisions"],
            "loss": round(float(train["losses"].get("loss", float("nan"))), 6),
            "losses": ";".join(f"{k}={v:.6g}" for k, v in losses.items()),
            "gate_games": gate.get("games", 0), "candidate_wins": gate.get("engine_wins"),
            "candidate_losses": gate.get("opponent_wins"), "draws": gate.get("draws"), "win_rate": gate.get("win_rate"),
            "win_rate_low": low, "win_rate_high": high, "p_value": gate.get("p_value"),
            "p_value_one_sided": gate.get("p_value_one_sided"), "accepted": int(gate["accepted"]),
            "selfplay_seconds": play["seconds"], "train_seconds": train["seconds"], "gate_seconds": gate["seconds"],
            "cpu_minutes": round(before + seconds * self.config.selfplay.jobs / 60, 2),
        }  # fmt: skip
        self.state["rows"].append(row)
        if gate["accepted"]:
            self.state["generation"] = generation + 1
            self.state["accepted"].append(i)
        self.state["iteration"] = i
        self.state["pending"] = {}
        self._save()

    def _final(self) -> None:
        c = self.config
        generation = self.state["generation"]
        results = self.state["final"].get("results", {}) if self.state["final"].get("generation") == generation else {}
        for name in c.final.opponents:
            key = Path(name).stem if name not in ("start", "random") else name
            spec = {"start": str(gen_path(self.out, 0)), "random": "random"}.get(name) or str(c.resolve(name))
            explore = c.final.temperature
            folder = self.out / "final" / (f"gen-{generation:04d}-vs-{key}" + (f"-t{explore:g}" if explore else ""))
            done = results.get(key, {})
            if done.get("games") == c.final.games and done.get("temperature", 0.0) == explore:
                continue
            self._say(f"final: {self.current.stem} against {key}, {c.final.games} games")
            began = time.monotonic()
            settings = EvalSettings(str(self.current), spec, c.final.games, c.board_size, c.komi,
                                    seed=task_seed(c.seed, 1 << 20), temperature=explore)  # fmt: skip
            summary = run_evaluation(settings, folder, workers=c.selfplay.jobs, progress=self.progress)
            seconds = round(time.monotonic() - began, 1)
            opponent = gen_path(self.out, 0).name if name == "start" else name
            results[key] = {**final_summary(summary), "opponent": opponent, "temperature": explore,
                            "folder": str(folder.relative_to(self.out)), "seconds": seconds}  # fmt: skip
            self.state["final"] = {"generation": generation, "agent": self.current.name, "results": results}
            self._save()
            self._say(f"final: {summary['engine_wins']}-{summary['opponent_wins']} against {key} "
                      f"(win rate {summary['win_rate']:.3f}, p = {summary['p_value']:.3g})")  # fmt: skip

    def run(self) -> dict[str, Any]:
        """Do the iterations and the final matches not yet done; the state."""
        self.out.mkdir(parents=True, exist_ok=True)
        self._start()
        self._save()
        for i in range(self.state["iteration"] + 1, self.config.loop.iterations + 1):
            pending = self.state["pending"]
            if pending.get("iteration") != i:
                pending.clear()
                pending["iteration"] = i
            for step in ("selfplay", "train", "gate"):
                self._timed(step, i, pending)
            self._finish_iteration(i, pending)
        if self.state["iteration"] >= self.config.loop.iterations and self.config.final.games:
            self._final()
        return self.state
