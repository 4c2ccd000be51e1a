"""Supervised training on game records (book chapter 7, with what the book's loop lacked).

    config = SupervisedConfig(out="runs/zero-6x64", games=20000, epochs=20, steps_per_epoch=500)
    summary = train_supervised(config)            # or resume=True to continue after a stop

Steps: process (or reuse) the data (``dlgo.data.GoDataProcessor``: train/test split by game), build
or load the network, then ``model.fit`` on a stream of augmented batches with

- a learning-rate schedule evaluated from the optimizer's step (``dlgo.train.schedule``);
- validation on held-out games only (a fixed random sample of ``val_positions`` test positions);
- after every epoch: ``checkpoint-NNN.keras`` (model with optimizer state, written to a temporary
  file then renamed), ``state.json`` (epochs done, positions seen, history), ``log.csv``,
  ``curves.png`` and ``model.keras`` + card (the inference model, what ``dlgo.evaluate`` and the
  agents load);
- ``--resume``: load the last checkpoint and go on at the next epoch, on the same data stream
  position and learning-rate curve; ``--init FILE``: start from another model's weights;
- ``max_minutes``: stop after the epoch that would overrun the time (resume later).

Only ``keras`` APIs: the same code runs with ``KERAS_BACKEND`` tensorflow, jax or torch.
"""

from __future__ import annotations

import csv
import datetime
import json
import os
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.data.generator import DataGenerator, Prefetch
from dlgo.data.processor import GoDataProcessor, Manifest
from dlgo.data.split import DEFAULT_SEED, DEFAULT_TEST_FRACTION, Split
from dlgo.encoders import get_encoder_by_name
from dlgo.train.precision import StepTimer, float32_copy, restored_dtype_policy

if TYPE_CHECKING:
    import keras

__all__ = ["SupervisedConfig", "train_supervised", "TrainingError", "STATE", "LOG", "MODEL"]

STATE = "state.json"
LOG = "log.csv"
PLOT = "curves.png"
MODEL = "model.keras"
STATE_FORMAT = 1
LOG_COLUMNS = (
    *("epoch", "lr", "loss", "policy_loss", "value_loss", "top1", "top5"),
    *("val_loss", "val_policy_loss", "val_value_loss", "val_top1", "val_top5", "seconds", "positions_seen"),
)


class TrainingError(RuntimeError):
    """A training run that cannot start or go on as asked (message says why)."""


@dataclass
class SupervisedConfig:
    out: str
    encoder: str = "zero"
    network: str = "zero"
    blocks: int = 6
    filters: int = 64
    size: int = 19
    games: int | None = 2000
    test_games: int = 300
    sources: list[str] | None = None
    data: str | None = None  # processed data folder; default <out>/data
    epochs: int = 10
    steps_per_epoch: int | None = None  # default: one pass over the training positions
    batch_size: int = 128
    optimizer: str = "adam"
    lr: float = 1e-3
    lr_schedule: str = "cosine"
    lr_min: float = 1e-5
    warmup_steps: int = 100
    momentum: float = 0.9
    value_weight: float = 0.25
    val_positions: int = 4096
    augment: bool = True
    seed: int = 1
    split_seed: int = DEFAULT_SEED
    test_fraction: float = DEFAULT_TEST_FRACTION
    jobs: int | None = None
    init: str | None = None
    max_minutes: float | None = None
    fit_to_time: bool = False  # size the schedule to max_minutes from the first epoch's speed
    mixed_precision: bool = False  # bfloat16 compute (GPUs, AMX CPUs); weights and export stay float32
    games_per_chunk: int = 48
    command: str = ""
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def data_dir(self) -> Path:
        return Path(self.data) if self.data else Path(self.out) / "data"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SupervisedConfig:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


# --- small helpers ---------------------------------------------------------------------------------


def _atomic_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _read_state(out: Path) -> dict[str, Any] | None:
    path = out / STATE
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != STATE_FORMAT:
        raise TrainingError(f"{path}: state format {data.get('format')}, this code reads {STATE_FORMAT}")
    return data


def _write_log(out: Path, history: list[dict[str, Any]]) -> Path:
    path = out / LOG
    tmp = path.with_name(LOG + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=LOG_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in history:
            writer.writerow({k: _fmt(row.get(k)) for k in LOG_COLUMNS})
    os.replace(tmp, path)
    return path


def _fmt(v: Any) -> Any:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "" if v is None else v


def _normalise_logs(logs: dict[str, Any]) -> dict[str, float]:
    """Keras' names (``policy_top1``, ``val_policy_top5``...) to the log's columns."""
    out: dict[str, float] = {}
    for key, value in logs.items():
        name = key
        for prefix in ("val_", ""):
            if key.startswith(prefix + "policy_top"):
                name = prefix + key[len(prefix) + len("policy_") :]
        out[name] = float(value)
    if "policy_loss" not in out and "loss" in out:
        out["policy_loss"] = out["loss"]
    if "val_policy_loss" not in out and "val_loss" in out:
        out["val_policy_loss"] = out["val_loss"]
    return out


def _targets(batch, value_head: bool):
    if not value_head:
        return batch.x, batch.moves
    ones = np.ones(len(batch), dtype=np.float32)
    return batch.x, (batch.moves, batch.values[:, None]), (ones, batch.value_weights())


def _train_stream(gen: DataGenerator, start: int, augment: bool, value_head: bool) -> Iterator:
    for batch in Prefetch(gen.batches(augment=augment, shuffle=True, start=start)):
        yield _targets(batch, value_head)


def _validation_batches(manifest: Manifest, config: SupervisedConfig, num_moves: int) -> list:
    chunks = manifest.chunks("test")
    if not chunks or manifest.positions("test") == 0:
        return []
    gen = DataGenerator(
        [p for p, _ in chunks],
        batch_size=config.batch_size,
        seed=config.seed + 1000,
        buffer_chunks=len(chunks),
        num_moves=num_moves,
        lengths=[n for _, n in chunks],
    )
    batches = []
    seen = 0
    for b in gen.batches(augment=False, shuffle=True, loop=False):
        if seen >= config.val_positions:
            break
        batches.append(b)
        seen += len(b)
    return batches


def _cycle(items: list) -> Iterator:
    while True:
        yield from items


# --- the run --------------------------------------------------------------------------------------


def train_supervised(config: SupervisedConfig, resume: bool = False, progress: bool = True) -> dict[str, Any]:
    """Train (or resume) as configured; returns a summary (also in ``state.json``)."""
    with restored_dtype_policy():  # --mixed-precision sets Keras' global policy for this run only
        return _train(config, resume, progress)


def _train(config: SupervisedConfig, resume: bool, progress: bool) -> dict[str, Any]:
    out = Path(config.out)
    state = _read_state(out)
    if resume:
        if state is None:
            raise TrainingError(f"{out}: nothing to resume (no {STATE}); start without --resume")
        stored = SupervisedConfig.from_dict(state["config"])
        # What may change on resume: how long to go on, and the bookkeeping.
        stored.epochs = config.epochs or stored.epochs
        stored.max_minutes = config.max_minutes
        stored.jobs = config.jobs
        if config.command:
            stored.extra = {**stored.extra, "resumed": [*stored.extra.get("resumed", []), config.command]}
        config = stored
    elif state is not None:
        raise TrainingError(f"{out} already holds a run ({STATE}): use --resume to continue it or choose another --out")
    if config.fit_to_time and not config.max_minutes and not resume:
        raise TrainingError("--fit-to-time needs --max-minutes (the time to fit the schedule into)")
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()

    # Data first, before Keras loads: worker processes are spawned either way.
    processor = GoDataProcessor(
        config.encoder,
        config.size,
        config.data_dir,
        sources=config.sources,
        split=Split(config.split_seed, config.test_fraction),
        games_per_chunk=config.games_per_chunk,
    )
    try:
        manifest = processor.load_or_process(config.games, config.test_games, jobs=config.jobs, progress=progress)
    except ValueError as e:
        raise TrainingError(str(e)) from e
    if manifest.positions("train") == 0:
        raise TrainingError(f"{config.data_dir}: no training positions (see its manifest.json)")

    import keras

    from dlgo.networks import build_network
    from dlgo.train import optimizers
    from dlgo.train.schedule import WarmupSchedule

    encoder = get_encoder_by_name(config.encoder, config.size)
    keras.utils.set_random_seed(config.seed)
    if config.mixed_precision:
        keras.mixed_precision.set_global_policy("mixed_bfloat16")

    gen = DataGenerator.from_folder(config.data_dir, "train", batch_size=config.batch_size, seed=config.seed)
    steps_per_epoch = int(config.steps_per_epoch or gen.steps_per_pass())
    total_steps = steps_per_epoch * config.epochs

    initial_epoch = 0
    if resume:
        initial_epoch = int(state["epochs_done"])
        if initial_epoch >= config.epochs:
            print(f"{out}: {initial_epoch} epochs done already (--epochs {config.epochs})", file=sys.stderr)
            return state.get("summary", {})
        if int(state["steps_per_epoch"]) != steps_per_epoch:
            used = state["steps_per_epoch"]
            raise TrainingError(f"{out}: the run used {used} steps per epoch, not {steps_per_epoch}")
        ckpt = out / state["checkpoint"]
        try:
            model = keras.saving.load_model(ckpt, compile=True)
        except Exception as e:
            raise TrainingError(f"{ckpt}: cannot load the checkpoint: {e}") from e
        schedule = model.optimizer._learning_rate
        if isinstance(schedule, WarmupSchedule):
            schedule.total_steps = total_steps  # more epochs stretch the rest of the curve
    else:
        try:
            model = build_network(config.network, encoder, config.blocks, config.filters)
        except ValueError as e:
            raise TrainingError(str(e)) from e
        if config.init:
            _warm_start(model, config.init, config.encoder)
        schedule = WarmupSchedule(config.lr_schedule, config.lr, total_steps, config.warmup_steps, config.lr_min)
        optimizer = optimizers.make_optimizer(config.optimizer, schedule, config.momentum)
        optimizers.compile_model(model, optimizer, config.value_weight)

    value_head = optimizers.has_value_head(model)
    outputs = model.output_shape[0][-1] if value_head else model.output_shape[-1]
    num_moves = int(outputs) if outputs is not None else encoder.num_moves()  # None: size-independent
    if num_moves < encoder.num_points():
        raise TrainingError(f"the network has {num_moves} outputs, the {config.size}x{config.size} board needs more")
    gen.num_moves = num_moves
    history: list[dict[str, Any]] = list(state["history"]) if resume else []
    history = [h for h in history if h["epoch"] <= initial_epoch]
    train_seconds = float(state.get("train_seconds", 0.0)) if resume else 0.0
    positions_seen = int(state.get("positions_seen", 0)) if resume else 0

    val = [_targets(b, value_head) for b in _validation_batches(manifest, config, num_moves)]
    checkpointer = EpochEnd(
        out, config, manifest, encoder, steps_per_epoch, history, train_seconds, positions_seen, started
    )
    start = initial_epoch * steps_per_epoch * config.batch_size
    verbose = 1 if (progress and sys.stderr.isatty()) else 2
    warnings.filterwarnings("ignore", message=r".*`shuffle=True` was passed.*")  # our stream is shuffled
    stream = _train_stream(gen, start, config.augment, value_head)
    validation = dict(validation_data=_cycle(val), validation_steps=len(val)) if val else {}
    fit_args = dict(steps_per_epoch=steps_per_epoch, verbose=verbose, **validation)
    callbacks = [checkpointer.as_callback()]
    if config.fit_to_time and initial_epoch == 0 and config.epochs > 1:
        # Epoch 1 measures the speed; the rate's curve then ends when --max-minutes does.
        timer = StepTimer()
        model.fit(stream, epochs=1, callbacks=[*callbacks, timer.as_callback()], **fit_args)
        left = config.max_minutes * 60 - (time.monotonic() - started) - timer.first_batch_seconds
        per_epoch = steps_per_epoch * timer.step_seconds * 1.03 + checkpointer.save_seconds + 1.0
        config.epochs = 1 + max(0, int(left // per_epoch))
        print(f"fit-to-time: {timer.step_seconds:.4f} s a step: {config.epochs} epochs", file=sys.stderr)
        schedule.total_steps = steps_per_epoch * config.epochs
        checkpointer.record_config()  # a first epoch longer than the minutes ends the run here
        model.train_function = None  # the schedule is traced into the train step: build it again
        initial_epoch = 1
    if initial_epoch < config.epochs:
        model.fit(stream, epochs=config.epochs, initial_epoch=initial_epoch, callbacks=callbacks, **fit_args)
    return checkpointer.summary


def _warm_start(model, init: str, encoder_name: str) -> None:
    from dlgo.inference import ModelFileError, load_model

    try:
        source = load_model(init, encoder=encoder_name)
    except ModelFileError as e:
        raise TrainingError(f"--init: {e}") from e
    ours = [w.shape for w in model.get_weights()]
    theirs = [w.shape for w in source.model.get_weights()]
    if ours != theirs:
        raise TrainingError(f"--init {init}: its network ({source.model.name}) differs from the one configured")
    model.set_weights(source.model.get_weights())


def _lr_now(model) -> float:
    import keras

    lr = model.optimizer.learning_rate
    return float(keras.ops.convert_to_numpy(lr))


class EpochEnd:
    """What training does after every epoch: checkpoint, state, log, plot and inference model;
    and the time limit. ``as_callback()`` hands it to ``model.fit``."""

    def __init__(self, out, config, manifest, encoder, steps, history, train_seconds, seen, started) -> None:
        self.model: keras.Model | None = None  # the model being trained (set by the Keras callback)
        self.out, self.config, self.manifest, self.encoder = out, config, manifest, encoder
        self.steps, self.history = steps, history
        self.train_seconds, self.seen, self.started = train_seconds, seen, started
        self.summary: dict[str, Any] = {}
        self.save_seconds = 0.0  # what the last epoch's checkpoint and export took
        self._epoch_started = 0.0

    def as_callback(self) -> keras.callbacks.Callback:
        """This object as a Keras callback (built here, so the module imports without Keras)."""
        import keras

        def epoch_end(epoch: int, logs: dict[str, Any] | None = None) -> None:
            self.model = callback.model
            self.on_epoch_end(epoch, logs)

        callback = keras.callbacks.LambdaCallback(
            on_epoch_begin=lambda epoch, logs=None: self.on_epoch_begin(epoch, logs), on_epoch_end=epoch_end
        )
        return callback

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch_started = time.monotonic()

    def on_epoch_end(self, epoch, logs=None):
        seconds = time.monotonic() - self._epoch_started
        self.train_seconds += seconds
        positions = self.steps * self.config.batch_size
        self.seen += positions
        row = {"epoch": epoch + 1, "lr": _lr_now(self.model), **_normalise_logs(logs or {})}
        row |= {"seconds": round(seconds, 1), "positions_seen": self.seen}
        row["positions_per_second"] = round(positions / seconds, 1) if seconds > 0 else None
        self.history.append(row)
        saving = time.monotonic()
        self._save(epoch + 1, row)
        self.save_seconds = time.monotonic() - saving
        if self.config.max_minutes is not None:
            elapsed = time.monotonic() - self.started
            if elapsed + seconds > self.config.max_minutes * 60 and epoch + 1 < self.config.epochs:
                print(
                    f"stopping after epoch {epoch + 1}: the next would pass --max-minutes "
                    f"{self.config.max_minutes:g} (continue with --resume)",
                    file=sys.stderr,
                )
                self.model.stop_training = True

    def record_config(self) -> None:
        """The config as it now stands (--fit-to-time's epochs) into the state file: a resume reads it."""
        if (state := _read_state(self.out)) is not None:
            _atomic_json(self.out / STATE, state | {"config": asdict(self.config)})

    def _save(self, epoch: int, row: dict[str, Any]) -> None:
        out = self.out
        name = f"checkpoint-{epoch:03d}.keras"
        tmp = out / f"checkpoint-{epoch:03d}.tmp.keras"
        self.model.save(tmp)
        os.replace(tmp, out / name)
        self.summary = self._summary(epoch, row)
        state = {
            "format": STATE_FORMAT,
            "config": asdict(self.config),
            "epochs_done": epoch,
            "checkpoint": name,
            "steps_per_epoch": self.steps,
            "positions_seen": self.seen,
            "train_seconds": round(self.train_seconds, 1),
            "history": self.history,
            "summary": self.summary,
            "updated": datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat(),
        }
        _atomic_json(out / STATE, state)
        for old in out.glob("checkpoint-*.keras"):
            if old.name != name:
                old.unlink(missing_ok=True)
        log = _write_log(out, self.history)
        from dlgo.train.plot import plot_curves

        plot_curves(log, out / PLOT)
        self._export(epoch, row)

    def _summary(self, epoch: int, row: dict[str, Any]) -> dict[str, Any]:
        m = self.manifest
        return {
            "epochs": epoch,
            "positions_seen": self.seen,
            "train_seconds": round(self.train_seconds, 1),
            "train_games": m.games("train"),
            "train_positions": m.positions("train"),
            "validation": {k: row.get(k) for k in ("val_policy_loss", "val_value_loss", "val_top1", "val_top5")}
            | {"games": m.games("test"), "positions": min(self.config.val_positions, m.positions("test"))},
            "last": {k: row.get(k) for k in ("policy_loss", "value_loss", "top1", "top5", "lr")},
        }

    def _export(self, epoch: int, row: dict[str, Any]) -> None:
        import keras

        from dlgo.inference import save_model

        c, m = self.config, self.manifest
        clone = float32_copy(self.model, c.mixed_precision, c.network, self.encoder, c.blocks, c.filters)
        save_model(
            clone,
            self.out / MODEL,
            self.encoder,
            [c.size],
            network={"name": clone.name, "kind": c.network, "blocks": c.blocks, "filters": c.filters},
            training={
                "kind": "supervised",
                "command": c.command,
                "resumed": c.extra.get("resumed", []),
                "data": {
                    "sources": [Path(s).name for s in m.data["sources"]],
                    "split": m.data["split"],
                    "train_games": m.games("train"),
                    "train_positions": m.positions("train"),
                    "test_games": m.games("test"),
                    "test_positions": m.positions("test"),
                },
                "epochs": epoch,
                "steps_per_epoch": self.steps,
                "batch_size": c.batch_size,
                "positions_seen": self.seen,
                "augmentation": "8 symmetries, random per sample" if c.augment else "none",
                "optimizer": c.optimizer,
                "lr": c.lr,
                "lr_schedule": c.lr_schedule,
                "value_weight": c.value_weight,
                "init": c.init,
                "train_seconds": round(self.train_seconds, 1),
                "backend": keras.backend.backend(),
                "precision": "mixed_bfloat16" if c.mixed_precision else "float32",
            },
            metrics={"validation": self.summary["validation"]},
            notes=c.notes,
        )
