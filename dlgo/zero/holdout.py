"""How well a network predicts held-out games: the teacher's moves, the results, and where the
games were counted, the final owner of each point and the score (``dlgo.zero.teacher``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from dlgo.zero.experience import ZeroExperienceBuffer

__all__ = ["holdout_metrics", "holdout_metrics_by_size", "aux_metrics", "held_out_loss"]


def holdout_metrics(model: Any, data: ZeroExperienceBuffer, batch_size: int = 512) -> dict[str, float]:
    """Top-1 agreement and cross-entropy on the teacher's moves, squared error of the value
    against the results (mean over positions), and the value's bias for Black (its mean minus
    the results', both from Black's side: > 0 rates Black too high), for a Keras model with
    (policy, value, ...)."""
    from dlgo.encoders.zero import PLANES

    outputs: list[list[np.ndarray]] = []
    for start in range(0, len(data), batch_size):
        out = model.predict_on_batch(np.asarray(data.states[start : start + batch_size], dtype=np.float32))
        outputs.append([np.asarray(o) for o in out])
    policy = np.concatenate([o[0] for o in outputs])
    value = np.concatenate([o[1].reshape(-1) for o in outputs])
    black_to_move = np.asarray(data.states[:, 0, 0, PLANES.index("black_to_move")], dtype=np.float32) > 0.5
    black_side = np.where(black_to_move, 1.0, -1.0)
    taught = data.policies.sum(axis=1) > 0
    moves = data.policies[taught].argmax(axis=1)
    predicted = policy[taught]
    return {
        **aux_metrics(list(getattr(model, "output_names", ())), outputs, data),
        "positions": float(len(data)),
        "teacher_moves": float(taught.sum()),
        "top1": float((predicted.argmax(axis=1) == moves).mean()) if taught.any() else float("nan"),
        "policy_xent": float(-np.log(np.clip(predicted[np.arange(len(moves)), moves], 1e-7, 1)).mean())
        if taught.any()
        else float("nan"),
        "value_mse": float(np.mean((value - data.rewards) ** 2)),
        "value_bias_black": float(np.mean((value - data.rewards) * black_side)),
    }


# what each metric is a mean over: positions, the teacher's moves, the counted positions
_WEIGHTS = {
    "top1": "teacher_moves",
    "policy_xent": "teacher_moves",
    "value_mse": "positions",
    "value_bias_black": "positions",
    "ownership_accuracy": "counted_positions",
    "score_mae": "counted_positions",
}


def holdout_metrics_by_size(model: Any, windows: Mapping[int, ZeroExperienceBuffer]) -> dict[str, float]:
    """:func:`holdout_metrics` over held-out positions of several board sizes (one buffer a size):
    each mean over all of them, weighted by what it averages, and ``value_mse_NxN`` and
    ``top1_NxN`` of each size where there are several."""
    rows = {n: holdout_metrics(model, w) for n, w in windows.items() if len(w)}
    if len(rows) == 1:
        return next(iter(rows.values()))
    out: dict[str, float] = {}
    for key in ("positions", "teacher_moves", "counted_positions"):
        if any(key in r for r in rows.values()):
            out[key] = float(sum(r.get(key, 0.0) for r in rows.values()))
    for key, weight in _WEIGHTS.items():
        parts = [(r[key], r[weight]) for r in rows.values() if key in r and r.get(weight) and not np.isnan(r[key])]
        if parts:
            out[key] = float(sum(v * w for v, w in parts) / sum(w for _, w in parts))
    for n, r in rows.items():
        out[f"value_mse_{n}x{n}"] = r["value_mse"]
        out[f"top1_{n}x{n}"] = r["top1"]
    return out


def aux_metrics(names: list[str], outputs: list[list[np.ndarray]], data: ZeroExperienceBuffer) -> dict[str, float]:
    """Where the model (its output ``names``, its ``outputs`` batch by batch) has the ownership
    and score heads and ``data`` counted positions: the share of points whose final owner the
    ownership head names (its sign; points nobody owns left out), and the score head's mean
    absolute error in points. Empty otherwise (a stand-in without names: policy and value only)."""
    from dlgo.networks.zero import AUX_HEADS, SCORE_SCALE

    if not all(h in names for h in AUX_HEADS) or data.aux_mask is None:
        return {}
    counted = data.aux_mask > 0
    if not counted.any():
        return {}
    ownership = np.concatenate([o[names.index("ownership")] for o in outputs])[counted]
    score = np.concatenate([o[names.index("score")].reshape(-1) for o in outputs])[counted] * SCORE_SCALE
    target = np.asarray(data.ownership[counted], dtype=np.float32)
    decided = target != 0
    return {
        "counted_positions": float(counted.sum()),
        "ownership_accuracy": float((np.sign(ownership) == target)[decided].mean()) if decided.any() else float("nan"),
        "score_mae": float(np.abs(score - data.score[counted]).mean()),
    }


def held_out_loss(row: dict[str, float], heads: Iterable[str]) -> float:
    """What picks the best round: the held-out error of the heads that learned (all: policy
    cross-entropy plus value squared error, and the auxiliary errors where measured)."""
    from dlgo.networks.zero import SCORE_SCALE

    terms = {
        "policy": row.get("policy_xent"),
        "value": row.get("value_mse"),
        "ownership": 1.0 - row["ownership_accuracy"] if "ownership_accuracy" in row else None,
        "score": row["score_mae"] / SCORE_SCALE if "score_mae" in row else None,
    }
    wanted = set(heads) or set(terms)
    return float(sum(v for k, v in terms.items() if k in wanted and v is not None))
