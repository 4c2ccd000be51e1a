"""Can a value head learn the komi from the trunk's features, without training the trunk? A probe:
the network's pooled value features (``value_pool``) of every counted position of a teacher data
folder, computed once, and a new value head on them that also reads the komi (its first layer
started from the network's own, the komi's weights at zero), fitted with the komi moved by up to
``--max-shift`` points either way and the result with it (``dlgo.zero.komi_jitter``'s rule).

Measured on the held-out rows as ``experiments/komi_sensitivity.py`` measures a network: the
value's mean squared error against the result at each komi shift, and the late positions that
are a jigo at their own komi, where a value that reads half a point says about +1 and -1.

    python experiments/komi_head_probe.py weights/zero-9x9-10x128.keras --data runs/kv9/data --steps 6000
"""

from __future__ import annotations

import argparse
import json

import numpy as np


def _counted_rows(folder: str, sub) -> dict[str, np.ndarray]:
    from dlgo.encoders.zero import PLANES
    from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer

    pools, komis, scores, late = [], [], [], []
    for chunk in ReplayBuffer(folder).chunks():
        game = ZeroExperienceBuffer.load(chunk.path)
        counted = game.aux_mask > 0
        if not counted.any():
            continue
        x = np.asarray(game.states[counted], dtype=np.float32)
        pools.append(np.concatenate([np.asarray(sub.predict_on_batch(x[i : i + 256])) for i in range(0, len(x), 256)]))
        komis.append(x[:, 0, 0, PLANES.index("komi")])
        scores.append(game.score[counted])
        late.append((3 * np.arange(len(game))[counted] // len(game)) == 2)
    return {
        "pool": np.concatenate(pools),
        "komi": np.concatenate(komis),
        "score": np.concatenate(scores),
        "late": np.concatenate(late),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("--data", required=True, help="a teacher data folder (train/ and holdout/)")
    p.add_argument("--steps", type=int, default=6000)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--max-shift", type=float, default=3.0, help="points either way, in half points")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    import keras

    import dlgo.networks  # noqa: F401  (custom objects)
    from dlgo.encoders.zero import KOMI_SCALE

    base = keras.saving.load_model(args.model, compile=False)
    sub = keras.Model(base.input, base.get_layer("value_pool").output)
    train, held = _counted_rows(f"{args.data}/train", sub), _counted_rows(f"{args.data}/holdout", sub)

    w1, b1 = base.get_layer("value_hidden").get_weights()
    w2, b2 = base.get_layer("value").get_weights()
    pool_in, komi_in = keras.Input((w1.shape[0],)), keras.Input((1,))
    hidden = keras.layers.Dense(w1.shape[1], activation="relu", name="hidden")
    head = keras.layers.Dense(1, activation="tanh", name="value")
    probe = keras.Model([pool_in, komi_in], head(hidden(keras.layers.Concatenate()([pool_in, komi_in]))))
    hidden.set_weights([np.vstack([w1, np.zeros((1, w1.shape[1]), w1.dtype)]), b1])
    head.set_weights([w2, b2])
    probe.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse")

    rng = np.random.default_rng(args.seed)
    half_points = int(2 * args.max_shift)
    jigo = (held["score"] == 0) & held["late"]

    def measure() -> dict[str, object]:
        out: dict[str, object] = {}
        for shift in (-1.0, -0.5, 0.0, 0.5, 1.0):
            komi = (held["komi"] + shift / KOMI_SCALE)[:, None]
            value = probe.predict([held["pool"], komi], verbose=0, batch_size=4096).reshape(-1)
            out[f"mse_{shift:+.1f}"] = round(float(np.mean((value - np.sign(held["score"] + shift)) ** 2)), 4)
            if shift in (-0.5, 0.5) and jigo.any():
                out[f"late_jigo_value_{shift:+.1f}"] = round(float(value[jigo].mean()), 3)
        return out

    report = {"train_rows": len(train["score"]), "held_out_rows": len(held["score"]), "late_jigo": int(jigo.sum())}
    report["step_0"] = measure()
    for step in range(1, args.steps + 1):
        i = rng.integers(0, len(train["score"]), args.batch_size)
        shift = rng.integers(-half_points, half_points + 1, args.batch_size) / 2.0
        komi = (train["komi"][i] + shift / KOMI_SCALE)[:, None]
        probe.train_on_batch([train["pool"][i], komi], np.sign(train["score"][i] + shift)[:, None])
        if step % 1000 == 0 or step == args.steps:
            report[f"step_{step}"] = measure()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
