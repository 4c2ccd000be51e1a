"""Stage bookkeeping and the two supervised stages of the AlphaGo pipeline (book 13.1-13.2).

Each stage works in ``<out>/<stage>/`` and writes ``stage.json``: its settings, a fingerprint
of its input files and, once finished, its outputs. A stage is skipped when ``stage.json`` says
done with the same settings and inputs and its outputs exist; a stopped stage resumes (the
supervised trainer from its last checkpoint, self-play from its finished task files); a stage
whose inputs or settings changed moves its old folder aside (``<stage>.stale-N``) and starts over.

- ``supervised``: expert games (9x9: a Zero network's self-play records, written by
  ``python -m dlgo.zero.records`` in a child process, since ``dlgo.alphago`` never imports
  ``dlgo.zero``), then ``dlgo.train``'s supervised trainer with the ``alphago`` encoder and the
  book's 13-layer policy network at a CPU width; saved as a ``PolicyAgent`` (``sl-policy.keras``).
- ``rollout``: the same games, the ``sevenplane`` encoder and the linear pattern network
  (``rollout.keras``), which ``dlgo.alphago.trained_rollout`` plays inside compiled rollouts.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from dlgo.alphago.pipeline.config import PipelineConfig
from dlgo.parallel import ProcessPool

__all__ = [
    "Stage",
    "StageIncomplete",
    "expert_games",
    "run_supervised",
    "run_rollout",
    "fingerprint",
    "run_tasks",
]


class StageIncomplete(RuntimeError):
    """A stage stopped before its end (a time limit): rerun the same command to resume it."""


def fingerprint(path: Path) -> str:
    """A file's content hash; a folder's hash of its file names and sizes (game records)."""
    h = hashlib.sha1()
    if path.is_dir():
        for p in sorted(path.rglob("*")):
            if p.is_file() and not p.name.endswith(".tmp"):
                h.update(f"{p.relative_to(path)}:{p.stat().st_size}\n".encode())
    else:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


class Stage:
    """One stage's folder and ``stage.json``."""

    def __init__(self, config: PipelineConfig, name: str, inputs: dict[str, Path], settings_of: str | None = None):
        self.config = config
        self.name = name
        self.dir = config.root / name
        self.inputs = inputs
        self.settings = config.stage_settings(settings_of or name)
        self.began = time.monotonic()

    @property
    def meta_path(self) -> Path:
        return self.dir / "stage.json"

    def _identity(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "inputs": {key: {"path": str(p), "hash": fingerprint(p)} for key, p in self.inputs.items()},
        }

    def _read(self) -> dict[str, Any] | None:
        if not self.meta_path.exists():
            return None
        return json.loads(self.meta_path.read_text(encoding="utf-8"))

    def _write(self, data: dict[str, Any]) -> None:
        tmp = self.meta_path.with_name("stage.json.tmp")
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, self.meta_path)

    def done(self) -> dict[str, str] | None:
        """The outputs (name -> path) when the stage is finished for these inputs, else None."""
        data = self._read()
        if not data or not data.get("done"):
            return None
        if {k: data.get(k) for k in ("settings", "inputs")} != self._identity():
            return None
        outputs = {k: str(self.dir / v) for k, v in data["outputs"].items()}
        return outputs if all(Path(p).exists() for p in outputs.values()) else None

    def begin(self) -> None:
        """Open the folder: resume work of the same identity, move other work aside."""
        data = self._read()
        identity = self._identity()
        same = data is not None and {k: data.get(k) for k in ("settings", "inputs")} == identity
        self._seconds_before = float(data.get("seconds", 0.0)) if same else 0.0
        if data is not None and not same:
            n = 1
            while self.dir.with_name(f"{self.name}.stale-{n}").exists():
                n += 1
            stale = self.dir.with_name(f"{self.name}.stale-{n}")
            os.replace(self.dir, stale)
            print(f"pipeline: {self.name}: inputs or settings changed; old work moved to {stale}", file=sys.stderr)
        self.dir.mkdir(parents=True, exist_ok=True)
        self._write({**identity, "done": False, "seconds": self._seconds_before})

    def finish(self, outputs: dict[str, str], metrics: dict[str, Any] | None = None) -> dict[str, str]:
        """Record the stage as done; ``outputs`` are file names inside the stage folder."""
        seconds = round(self._seconds_before + time.monotonic() - self.began, 1)
        data = {**self._identity(), "done": True, "outputs": outputs, "metrics": metrics or {}, "seconds": seconds}
        self._write(data)
        return {k: str(self.dir / v) for k, v in outputs.items()}


def run_tasks(fn: Callable[[Any], dict], tasks: list, workers: int, total: int, done: int, label: str,
              progress: bool) -> None:  # fmt: skip
    """Run ``fn`` on every task, in ``workers`` spawned processes when more than one, with a
    progress bar counting each result's ``games``. Each task writes its own files, so a stop
    loses only the tasks in progress."""
    bar = None
    if progress and tasks:
        from tqdm import tqdm

        bar = tqdm(total=total, initial=done, unit="game", desc=label, file=sys.stderr, dynamic_ncols=True)
    try:
        if workers <= 1 or len(tasks) <= 1:
            results: Iterable[dict] = map(fn, tasks)
            for r in results:
                if bar is not None:
                    bar.update(r["games"])
        else:
            # spawned workers that die with this process (dlgo.parallel), as the Zero loop's
            with ProcessPool(min(workers, len(tasks))) as pool:
                for r in pool.run(fn, tasks):
                    if bar is not None:
                        bar.update(r["games"])
    finally:
        if bar is not None:
            bar.close()


def expert_games(config: PipelineConfig, progress: bool = True) -> Path:
    """The folder of expert game records, written first when the config asks for Zero self-play."""
    e = config.expert_games
    if e.sgf:
        return Path(e.sgf)
    out = config.root / "expert-games"
    command = [
        sys.executable, "-m", "dlgo.zero.records", "--model", e.model, "--size", str(config.board_size),
        "--games", str(e.games), "--visits", str(e.visits), "--seed", str(config.seed), "--out", str(out),
        "-j", str(config.workers),
    ]  # fmt: skip
    if not progress:
        command.append("--quiet")
    missing = [i for i in range(e.games) if not (out / f"game-{i:05d}.sgf").exists()]
    if missing:
        print(f"pipeline: expert games: {shlex.join(command)}", file=sys.stderr)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return out


def _train(config: PipelineConfig, stage: Stage, games: Path, encoder: str, network: str, opts: Any, progress: bool):
    """Run (or resume) ``dlgo.train``'s supervised trainer in ``<stage>/train``; its state summary."""
    from dlgo.train.supervised import STATE, SupervisedConfig, train_supervised

    run = stage.dir / "train"
    settings = SupervisedConfig(
        out=str(run),
        encoder=encoder,
        network=network,
        filters=getattr(opts, "filters", 0),
        size=config.board_size,
        games=None,
        test_games=1_000_000,  # every game the split holds out
        sources=[str(games)],
        epochs=opts.epochs,
        steps_per_epoch=opts.steps_per_epoch or None,
        batch_size=opts.batch_size,
        lr=opts.lr,
        value_weight=0.0,
        val_positions=2048,
        seed=config.seed,
        test_fraction=getattr(opts, "test_fraction", 0.05),
        jobs=config.workers,
        max_minutes=getattr(opts, "max_minutes", 0.0) or None,
        command=f"python -m dlgo.alphago.pipeline {stage.name}",
        notes=f"AlphaGo pipeline, {stage.name} stage (book chapter 13)",
    )
    train_supervised(settings, resume=(run / STATE).exists(), progress=progress)
    state = json.loads((run / STATE).read_text(encoding="utf-8"))
    if int(state["epochs_done"]) < opts.epochs:
        raise StageIncomplete(f"{stage.name}: {state['epochs_done']} of {opts.epochs} epochs; rerun to resume")
    return run, state


def adopt_network(config: PipelineConfig, name: str, source: str, output: str) -> dict[str, str]:
    """A stage whose network is given (``[supervised] policy``, ``[rollout] model``): the file and
    its card are copied into the stage's folder, so later stages and their fingerprints see one
    layout whether the network was trained here or on another machine."""
    import shutil

    from dlgo.inference.files import check_model_file

    path = Path(source)
    check_model_file(path)  # one clear error naming the file
    stage = Stage(config, name, {"network": path})
    if (outputs := stage.done()) is not None:
        return outputs
    stage.begin()
    target = stage.dir / output
    for src, dst in ((path.with_suffix(".card.json"), target.with_suffix(".card.json")), (path, target)):
        tmp = dst.with_name(dst.name + ".tmp")
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    return stage.finish({"policy" if name == "supervised" else name: output}, {"adopted": str(path)})


def run_supervised(config: PipelineConfig, progress: bool = True) -> dict[str, str]:
    """The strong policy network (book 13.1): ``sl-policy.keras``, a ``PolicyAgent`` file."""
    if config.supervised.policy:
        return adopt_network(config, "supervised", config.supervised.policy, "sl-policy.keras")
    games = expert_games(config, progress)
    stage = Stage(config, "supervised", {"games": games}, settings_of="supervised")
    stage.settings = {**stage.settings, "expert_games": config.stage_settings("expert_games")}
    if (outputs := stage.done()) is not None:
        return outputs
    stage.begin()
    run, state = _train(config, stage, games, "alphago", "alphago", config.supervised, progress)
    import keras

    from dlgo.encoders import get_encoder_by_name
    from dlgo.rl.policy import PolicyAgent

    model = keras.saving.load_model(run / "model.keras", compile=False)
    agent = PolicyAgent(model, get_encoder_by_name("alphago", config.board_size))
    validation = state.get("summary", {}).get("validation", {})
    agent.serialize(
        stage.dir / "sl-policy.keras",
        training={"command": "python -m dlgo.alphago.pipeline supervised", "generation": 0, "games": str(games)},
        metrics={"validation": validation},
        notes="AlphaGo supervised policy (book 13.1), 13 layers at CPU width, trained on expert games",
    )
    return stage.finish({"policy": "sl-policy.keras"}, {"validation": validation})


def run_rollout(config: PipelineConfig, progress: bool = True) -> dict[str, str]:
    """The fast rollout policy (book 13.2): ``rollout.keras`` on the supervised stage's games."""
    if config.rollout.model:
        return adopt_network(config, "rollout", config.rollout.model, "rollout.keras")
    games = expert_games(config, progress)
    stage = Stage(config, "rollout", {"games": games})
    if (outputs := stage.done()) is not None:
        return outputs
    stage.begin()
    run, state = _train(config, stage, games, "sevenplane", "rollout", config.rollout, progress)
    import keras

    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import save_model

    model = keras.saving.load_model(run / "model.keras", compile=False)
    validation = state.get("summary", {}).get("validation", {})
    save_model(
        model,
        stage.dir / "rollout.keras",
        get_encoder_by_name("sevenplane", config.board_size),
        training={"command": "python -m dlgo.alphago.pipeline rollout", "games": str(games)},
        metrics={"validation": validation},
        notes="AlphaGo fast rollout policy (book 13.2): linear 5x5 patterns, read by dlgo.alphago.trained_rollout",
    )
    return stage.finish({"rollout": "rollout.keras"}, {"validation": validation})
