"""Value calibration of a Zero network on self-play positions, and its batch-norm statistics
recomputed (``dlgo.networks.batchnorm``): the measurement behind ``[train] bn_batches``.

    python experiments/bn_recalibrate.py --model weights/zero-9x9.keras \\
        --replay runs/zero-9x9-aux/replay --fit 0-1 --score 2-3 --out RECAL.keras

Reads the loop's replay chunks of the ``--fit`` iterations to recompute the statistics and
scores the network before and after on the ``--score`` iterations (positions it was not
recalibrated on): the mean value against the mean result for the player to move, the value's
mean squared error and the policy's cross-entropy. ``--out`` saves the recalibrated network
with the original's card.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.extras import require_extra
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer, combine_experience, training_batch

__all__ = ["calibration", "iterations_buffer", "main"]


def iterations_buffer(replay: ReplayBuffer, first: int, last: int) -> ZeroExperienceBuffer:
    """Every position of iterations ``first``..``last`` of a replay folder."""
    chunks = [c for c in replay.chunks() if first <= c.iteration <= last]
    if not chunks:
        raise SystemExit(f"{replay.root}: no replay chunks of iterations {first}-{last}")
    return combine_experience([ZeroExperienceBuffer.load(c.path) for c in chunks])


def calibration(model: Any, buffer: ZeroExperienceBuffer) -> dict[str, float]:
    """Inference-mode value bias and errors of ``model`` on ``buffer``'s positions."""
    out = model.predict(buffer.states.astype(np.float32), batch_size=1024, verbose=0)
    heads = dict(zip(model.output_names, out))
    value = np.asarray(heads["value"], np.float64).reshape(-1)
    policy = np.clip(np.asarray(heads["policy"], np.float64), 1e-9, 1.0)
    z = buffer.rewards.astype(np.float64)
    return {
        "positions": len(z),
        "mean_value": round(float(value.mean()), 4),
        "mean_result": round(float(z.mean()), 4),
        "value_mse": round(float(np.mean((value - z) ** 2)), 4),
        "policy_cross_entropy": round(float(-(buffer.policies * np.log(policy)).sum(axis=1).mean()), 4),
    }


def _span(text: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    return int(first), int(last or first)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="a Zero network (.keras with its card)")
    parser.add_argument("--replay", required=True, help="the loop's replay folder (runs/<run>/replay)")
    parser.add_argument("--fit", default="0-1", help="iterations whose positions recompute the statistics")
    parser.add_argument("--score", default="2-3", help="iterations whose positions score the network")
    parser.add_argument("--batches", type=int, default=64, help="batches of 256 augmented positions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="save the recalibrated network here (with the model's card)")
    args = parser.parse_args(argv)
    require_extra("train", "experiments/bn_recalibrate.py")

    from dlgo.inference.files import ModelFileError, card_of, check_model_file, save_model

    try:
        check_model_file(args.model)
    except ModelFileError as e:
        raise SystemExit(str(e)) from None
    if not Path(args.replay).is_dir():
        raise SystemExit(f"{args.replay}: no such replay folder")
    import keras

    import dlgo.networks  # noqa: F401  (registers custom objects)
    from dlgo.networks.batchnorm import recalibrate_batch_norm

    replay = ReplayBuffer(args.replay)
    fit, score = iterations_buffer(replay, *_span(args.fit)), iterations_buffer(replay, *_span(args.score))
    model = keras.saving.load_model(args.model, compile=False)
    before = calibration(model, score)
    rng = np.random.default_rng(args.seed)
    recalibrate_batch_norm(model, (training_batch(fit, 256, rng).x for _ in range(args.batches)))
    report = {"model": args.model, "fit": args.fit, "score": args.score, "before": before}
    report["after"] = calibration(model, score)
    if args.out:
        card = card_of(args.model)
        notes = f"{card.notes} Batch-norm statistics recomputed (experiments/bn_recalibrate.py).".strip()
        save_model(model, args.out, card.encoder, card.board_sizes, card=card, notes=notes)
        report["out"] = str(Path(args.out))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
