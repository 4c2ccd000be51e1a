"""A/B of KataGo's auxiliary heads (docs/zero-training.md): the same replay data, the same batches,
the same starting weights, trained with and without the ownership and score heads (and global
pooling), compared on held-out games' policy cross-entropy and value MSE.

    python experiments/zero_aux_ab.py --replay runs/aux-ab/data/replay --steps 600 --eval-every 150 \\
        --init weights/zero-9x9.keras --arms plain aux aux+pool --out runs/aux-ab/warm.json

``--init fresh`` starts every arm from the same random 4x48 network instead. The held-out set is
the last ``--holdout`` share of the chunks (whole tasks: other games than the training ones),
evaluated in its stored orientation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def _arm_model(init: str, arm: str, seed: int):
    import keras

    from dlgo.networks.grow import conform_network
    from dlgo.networks.zero import zero_model

    keras.utils.set_random_seed(seed)  # the grafted heads start alike in every run
    if init == "fresh":
        base = zero_model(16, blocks=4, filters=48)
    else:
        base = keras.saving.load_model(init, compile=False)
    return conform_network(base, aux_heads=arm != "plain", global_pooling=arm.endswith("+pool"))


def _held_out(model, data, batch: int = 512) -> dict[str, float]:
    import keras

    outs = [[], [], [], []]
    for i in range(0, len(data), batch):
        got = model(data.states[i : i + batch].astype(np.float32), training=False)
        for j, o in enumerate(got):
            outs[j].append(np.asarray(keras.ops.convert_to_numpy(o)))
    policy, value = np.concatenate(outs[0]), np.concatenate(outs[1])[:, 0]
    result = {
        "policy_ce": float(-np.mean(np.sum(data.policies * np.log(np.clip(policy, 1e-7, 1.0)), axis=1))),
        "value_mse": float(np.mean((value - data.rewards) ** 2)),
    }
    if outs[2]:
        keep = data.aux_mask > 0
        ownership = np.concatenate(outs[2])
        result["ownership_mse"] = float(np.mean((ownership[keep] - data.ownership[keep]) ** 2))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replay", required=True)
    parser.add_argument("--init", default="weights/zero-9x9.keras", help="a .keras file, or 'fresh'")
    parser.add_argument("--arms", nargs="+", default=["plain", "aux"], choices=["plain", "aux", "aux+pool"])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--eval-every", type=int, default=150)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.002)
    parser.add_argument("--holdout", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)

    from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer, combine_experience, training_batch
    from dlgo.zero.trainer import TrainerSettings, batch_targets, compile_learner, loss_values

    chunks = ReplayBuffer(args.replay).chunks()
    cut = len(chunks) - max(1, round(args.holdout * len(chunks)))
    train = combine_experience([ZeroExperienceBuffer.load(c.path) for c in chunks[:cut]])
    held = combine_experience([ZeroExperienceBuffer.load(c.path) for c in chunks[cut:]])
    settings = TrainerSettings(batch_size=args.batch_size, lr=args.lr)
    report = {
        "args": vars(args),
        "train_positions": len(train),
        "held_out_positions": len(held),
        "train_aux_share": float(train.aux_mask.mean()),
        "arms": {},
    }
    for arm in args.arms:
        model = _arm_model(args.init, arm, args.seed)
        compile_learner(model, settings, args.lr)
        rng = np.random.default_rng(args.seed)  # the same batches and symmetries in every arm
        curve = [{"step": 0, **_held_out(model, held)}]
        began = time.monotonic()
        totals = np.zeros(5)
        for step in range(1, args.steps + 1):
            batch = training_batch(train, args.batch_size, rng)
            y, w = batch_targets(model, batch)
            totals += loss_values(model.train_on_batch(batch.x, y, sample_weight=w, return_dict=True))
            if step % args.eval_every == 0 or step == args.steps:
                curve.append({"step": step, **_held_out(model, held)})
                print(arm, json.dumps(curve[-1]), file=sys.stderr, flush=True)
        report["arms"][arm] = {
            "params": int(model.count_params()),
            "seconds": round(time.monotonic() - began, 1),
            "train_loss_mean": dict(
                zip(("loss", "policy", "value", "ownership", "score"), (totals / args.steps).round(4).tolist())
            ),
            "held_out": curve,
        }
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({a: r["held_out"][-1] for a, r in report["arms"].items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
