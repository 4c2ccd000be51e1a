"""The learner: trains the network on the replay window (book 14.4; Silver et al. 2017, Methods).

Loss: cross-entropy of the policy against the search's visit distribution plus
``value_weight`` x the mean squared error of the value against the game result (L2 on the
weights comes from the network's own regularisers). With ``value_q_weight`` w > 0 the value's
target is ``(1 - w) x result + w x Q``, Q the full search's mean value at the root where the
position's chunk has it (the result alone where not): one game's result is a noisy label for
each of its positions, the search's Q a less noisy but biased one (averaging the two learned
faster in the Connect Four AlphaZero study "Lessons from Implementing AlphaZero", Prasad 2018).
Each step draws a random batch from the window, every position in a random one of the 8
symmetries.

A network with KataGo's auxiliary heads (``dlgo.networks.zero``; Wu 2019) adds
``ownership_weight`` x the mean over points of the squared error of the final ownership and
``score_weight`` x a Huber loss (delta 1, i.e. SCORE_SCALE points) of the final score over
SCORE_SCALE, both averaged over the batch's positions from games counted after two passes only
(the others' mask is 0). KataGo weighs ownership 1.5 / points summed over the points (1.5 x the
mean) and a Huber loss of its mean score in points (delta 12) by 0.0012: 0.0012 x 20**2 = 0.48
on the scaled score, hence the default 0.5. The learner is made to fit the loop's ``aux_heads`` and
``global_pooling`` (``conform_network``): a checkpoint or starting network without them is
grafted (a fresh optimizer then), so a loop can switch them on at any iteration.

``train_heads`` names the heads that learn (``dlgo.networks.heads``): the trunk and the other
heads stay frozen, their batch norms in inference mode, and a frozen head's loss weighs 0. Empty
(the default): the whole network learns. ``("value",)`` fits a network's value to new games
while its policy, the search's prior, stays exactly as it was.

The learner has its own checkpoint, ``trainer.keras`` (weights and optimizer state, so momentum
and the step count survive a restart); it keeps training across generations whether or not the
gate accepts its candidates, as AlphaGo Zero's learner did. Only the candidate for the gate
(``candidate.keras`` + card) is an inference model.

Only ``keras`` APIs: the same code trains with ``KERAS_BACKEND`` tensorflow, jax or torch.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.zero.experience import ReplayBuffer, mixed_training_batch, window_size
from dlgo.zero.komi_jitter import komi_jittered

__all__ = [
    "TrainerSettings",
    "train_candidate",
    "inference_copy",
    "learning_rate",
    "blended_value_targets",
    "compile_learner",
    "batch_targets",
    "LOSS_NAMES",
    "loss_values",
]


@dataclass(frozen=True)
class TrainerSettings:
    batch_size: int = 256
    steps_per_iteration: int = 300
    optimizer: str = "sgd"
    lr: float = 0.01
    lr_drops: tuple[tuple[int, float], ...] = ()  # (from iteration, rate)
    momentum: float = 0.9
    value_weight: float = 1.0
    value_q_weight: float = 0.0  # the search's root Q's share of the value target (0: the result alone)
    window_start: int = 20_000
    window_growth: int = 10_000
    window_max: int = 250_000
    min_positions: int = 2_000
    augment: bool = True
    clipnorm: float = 10.0
    ownership_weight: float = 1.5  # auxiliary losses (networks with the heads only)
    score_weight: float = 0.5
    bn_batches: int = 32  # batches of the window that recompute the batch-norm statistics of each
    # candidate before it is saved (dlgo.networks.batchnorm; 0: keep the moving averages)
    train_heads: tuple[str, ...] = ()  # the heads that learn, the rest frozen (module doc); (): all
    komi_jitter: float = 0.0  # counted rows' komi moved by up to this many points (dlgo.zero.komi_jitter); 0: off

    def __post_init__(self) -> None:
        from dlgo.networks.heads import HEAD_NAMES

        if self.steps_per_iteration < 0:
            raise ValueError(f"steps_per_iteration: {self.steps_per_iteration} (0: self-play only, no training)")

        heads = (self.train_heads,) if isinstance(self.train_heads, str) else tuple(self.train_heads)
        unknown = [h for h in heads if h not in HEAD_NAMES]
        if unknown:
            raise ValueError(
                f"train_heads: unknown head {', '.join(map(str, unknown))} (heads: {', '.join(HEAD_NAMES)})"
            )
        object.__setattr__(self, "train_heads", heads)


def learning_rate(settings: TrainerSettings, iteration: int) -> float:
    """The rate for ``iteration``: ``lr`` then each ``(iteration, rate)`` drop once reached."""
    rate = settings.lr
    for start, value in sorted(settings.lr_drops):
        if iteration >= start:
            rate = value
    return rate


def compile_learner(model: Any, settings: TrainerSettings, rate: float) -> None:
    """Compile ``model`` (policy, value, optional aux heads) with ``settings``' losses at ``rate``."""
    import keras

    from dlgo.networks.heads import train_only_heads
    from dlgo.train.optimizers import make_optimizer

    names = list(model.output_names)
    if len(names) < 2 or "policy" not in names[0] or "value" not in names[1]:
        raise ValueError(f"expected outputs (policy, value, ...), the model has {names}")
    train_only_heads(model, settings.train_heads)
    # the auxiliary losses average over the positions whose mask (sample weight) is 1
    per_masked = "mean_with_sample_weight"
    losses = {names[0]: keras.losses.CategoricalCrossentropy(), names[1]: keras.losses.MeanSquaredError()}
    weights = {names[0]: 1.0, names[1]: float(settings.value_weight)}
    if "ownership" in names:
        losses["ownership"] = keras.losses.MeanSquaredError(reduction=per_masked)
        weights["ownership"] = float(settings.ownership_weight)
    if "score" in names:
        losses["score"] = keras.losses.Huber(delta=1.0, reduction=per_masked)
        weights["score"] = float(settings.score_weight)
    if settings.train_heads:
        weights = {name: w if name in settings.train_heads else 0.0 for name, w in weights.items()}
    model.compile(
        optimizer=make_optimizer(settings.optimizer, rate, settings.momentum, settings.clipnorm),
        loss=losses,
        loss_weights=weights,
    )


def _load_learner(
    checkpoint: Path,
    init_model: Path,
    settings: TrainerSettings,
    rate: float,
    aux_heads: bool = False,
    global_pooling: bool = False,
    trunk: tuple[int, int] | None = None,
) -> Any:
    import keras

    import dlgo.networks  # noqa: F401  (registers custom objects)
    from dlgo.networks.grow import conform_network
    from dlgo.networks.heads import train_only_heads

    if checkpoint.exists():
        model = keras.saving.load_model(checkpoint, compile=True)
        fitted = conform_network(model, aux_heads, global_pooling, trunk)
        trainable = [layer.trainable for layer in model.layers]
        train_only_heads(model, settings.train_heads)
        if fitted is model and trainable == [layer.trainable for layer in model.layers]:
            model.optimizer.learning_rate.assign(rate)
            return model
        model = fitted  # the heads, the trunk or what learns changed: a fresh optimizer
    else:
        model = conform_network(keras.saving.load_model(init_model, compile=False), aux_heads, global_pooling, trunk)
    compile_learner(model, settings, rate)
    return model


def blended_value_targets(rewards: np.ndarray, root_values: np.ndarray, q_weight: float) -> np.ndarray:
    """The value head's target: the result blended with the search's root Q where it is known."""
    rewards = np.asarray(rewards, dtype=np.float32)
    if q_weight <= 0:
        return rewards
    q = np.asarray(root_values, dtype=np.float32)
    blended = (1.0 - q_weight) * rewards + q_weight * np.clip(np.nan_to_num(q), -1.0, 1.0)
    return np.where(np.isnan(q), rewards, blended).astype(np.float32)


def batch_targets(model: Any, batch: Any, q_weight: float = 0.0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The batch's targets and sample weights in the model's output order (aux: masked)."""
    from dlgo.networks.zero import SCORE_SCALE

    ones = np.ones(len(batch.x), dtype=np.float32)
    # a position without a policy target (a row of zeros: dlgo.zero.teacher's value-only rows)
    # is weighted 0, with a uniform row in its place: Keras' fused softmax cross-entropy takes its
    # gradient as (softmax - target), which for a zero row pushes every logit down without end
    taught = batch.policy.sum(axis=1) > 0
    policy = batch.policy if taught.all() else np.where(taught[:, None], batch.policy, 1.0 / batch.policy.shape[1])
    by_name = {
        "ownership": (batch.ownership, batch.aux_mask),
        "score": ((batch.score / SCORE_SCALE)[:, None], batch.aux_mask),
    }
    names = list(model.output_names)
    value = blended_value_targets(batch.value, batch.root_values, q_weight)
    pairs = [(policy, taught.astype(np.float32)), (value, ones)] + [by_name[n] for n in names[2:]]
    return [y for y, _ in pairs], [w for _, w in pairs]


def train_candidate(
    replay: ReplayBuffer,
    iteration: int,
    checkpoint: str | os.PathLike,
    init_model: str | os.PathLike,
    candidate: str | os.PathLike,
    settings: TrainerSettings,
    seed: int,
    card_fields: dict[str, Any] | None = None,
    progress: bool = True,
    aux_heads: bool = False,
    global_pooling: bool = False,
    schedule_iteration: int | None = None,
    trunk: tuple[int, int] | None = None,
) -> dict[str, float]:
    """Train ``steps_per_iteration`` steps on the window after ``iteration``'s games, then write
    the learner checkpoint and the candidate; returns the mean losses of the steps.
    ``aux_heads``/``global_pooling``/``trunk``: what the learner network must have (``conform_network``:
    heads, pooling, at least ``trunk`` = (blocks, filters), grown to it with the same outputs);
    ``schedule_iteration``: the iteration the learning-rate drops read (default ``iteration``;
    more for a run that goes on from an earlier one's)."""
    from dlgo.inference import save_model

    checkpoint, candidate = Path(checkpoint), Path(candidate)
    rate = learning_rate(settings, iteration if schedule_iteration is None else schedule_iteration)
    model = _load_learner(checkpoint, Path(init_model), settings, rate, aux_heads, global_pooling, trunk)
    windows = replay.windows(
        window_size(iteration, settings.window_start, settings.window_growth, settings.window_max),
        up_to_iteration=iteration,
    )
    positions = sum(len(w) for w in windows.values())
    rng = np.random.default_rng(seed)
    started = time.monotonic()
    totals = np.zeros(len(LOSS_NAMES))
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=settings.steps_per_iteration, desc=f"train it {iteration}", unit="step", leave=False)
    for _ in range(settings.steps_per_iteration):
        batch = mixed_training_batch(windows, settings.batch_size, rng, settings.augment)
        batch = komi_jittered(batch, settings.komi_jitter, rng)
        y, weights = batch_targets(model, batch, settings.value_q_weight)
        out = model.train_on_batch(batch.x, y, sample_weight=weights, return_dict=True)
        losses = loss_values(out)
        totals += losses
        if bar is not None:
            bar.update(1)
            bar.set_postfix(policy=f"{losses[1]:.3f}", value=f"{losses[2]:.3f}")
    if bar is not None:
        bar.close()
    mean = totals / max(1, settings.steps_per_iteration)
    kept = {"loss", "policy_loss", "value_loss"} | {f"{name}_loss" for name in model.output_names}
    metrics: dict[str, Any] = {name: float(v) for name, v in zip(LOSS_NAMES, mean) if name in kept}
    metrics |= {
        "aux_positions": float(sum(w.aux_mask.sum() for w in windows.values()) / positions) if positions else 0.0,
        "lr": rate,
        "window": positions,
        "steps": settings.steps_per_iteration,
        "seconds": round(time.monotonic() - started, 1),
    }
    if settings.bn_batches > 0:
        from dlgo.networks.batchnorm import recalibrate_batch_norm

        metrics["bn_batches"] = recalibrate_batch_norm(
            model, (mixed_training_batch(windows, 256, rng, settings.augment).x for _ in range(settings.bn_batches))
        )
        metrics["seconds"] = round(time.monotonic() - started, 1)
    from dlgo.inference.files import card_of

    base = card_of(init_model)
    fields = dict(card_fields or {})
    fields.setdefault("network", dict(base.network))
    if aux_heads or global_pooling:
        fields["network"] = {**fields["network"], "aux_heads": aux_heads, "global_pooling": global_pooling}
    if fields["network"].get("kind", "zero") == "zero" and "stem_conv" in {layer.name for layer in model.layers}:
        from dlgo.networks.grow import trunk_size

        blocks, filters = trunk_size(model)  # a grown learner's, not its starting network's
        fields["network"] = {**fields["network"], "name": model.name, "blocks": blocks, "filters": filters}
    from dlgo.inference.komi import trained_komi_after

    komi = base.trained_komi
    for window in windows.values():
        komi = trained_komi_after(komi, window.states)
    fields.setdefault("trained_komi", komi)
    save_model(inference_copy(model), candidate, "zero", sorted(windows), **fields)
    tmp = checkpoint.with_name(checkpoint.stem + ".tmp.keras")
    model.save(tmp)
    os.replace(tmp, checkpoint)
    return metrics


def inference_copy(model: Any) -> Any:
    """An uncompiled clone with ``model``'s weights: the candidate file without the optimizer's
    slots, which doubled it (a 10x128 candidate 24 MB instead of 12) and serve no one but the
    learner, whose own checkpoint keeps them."""
    from dlgo.networks.heads import train_only_heads

    clone = type(model).from_config(model.get_config())  # clone_model would compile it again
    clone.set_weights(model.get_weights())
    train_only_heads(clone, ())  # a learner's frozen layers stay the learner's: whoever trains it next decides
    return clone


LOSS_NAMES = ("loss", "policy_loss", "value_loss", "ownership_loss", "score_loss")


def loss_values(out: dict[str, Any]) -> np.ndarray:
    """``LOSS_NAMES`` from ``train_on_batch``'s dict, whatever the backend names them (0: no such head)."""
    found = dict.fromkeys(LOSS_NAMES, 0.0)
    found["loss"] = float(out.get("loss", 0.0))
    for k, v in out.items():
        for head in ("policy", "value", "ownership", "score"):
            if k.endswith("_loss") and head in k:
                found[f"{head}_loss"] = float(v)
    return np.array([found[name] for name in LOSS_NAMES])
