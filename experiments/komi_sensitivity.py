"""Does a network's value read the komi? Held-out counted positions, each put to the network at
its own komi moved by half points in the mover's favour, the value compared with the result the
count gives at that komi (dlgo.zero.komi_jitter explains the shift).

    python experiments/komi_sensitivity.py weights/zero-9x9-10x128.keras --data runs/heads9/data

For every shift: the value's mean squared error against the result at that komi, and its lean
(mean value less mean result). Then the positions whose count is a jigo at their own komi, in the
last third of their games: a value that reads the komi says about +1 half a point in the mover's
favour and about -1 half a point against; one that ignores it says the same to both.
"""

from __future__ import annotations

import argparse
import json

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("models", nargs="+")
    p.add_argument("--data", required=True, help="a teacher data folder (holdout/ is read)")
    p.add_argument("--max-shift", type=float, default=1.5, help="points either way, in half points")
    args = p.parse_args()

    import keras

    import dlgo.networks  # noqa: F401  (custom objects)
    from dlgo.encoders.zero import KOMI_SCALE, PLANES
    from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer

    states, scores, late = [], [], []
    for chunk in ReplayBuffer(f"{args.data}/holdout").chunks():
        game = ZeroExperienceBuffer.load(chunk.path)
        counted = game.aux_mask > 0
        if not counted.any():
            continue
        index = np.arange(len(game))
        states.append(np.asarray(game.states[counted], dtype=np.float32))
        scores.append(game.score[counted])
        late.append((3 * index[counted] // len(game)) == 2)
    x0, score, late_rows = np.concatenate(states), np.concatenate(scores), np.concatenate(late)
    on_board = x0[..., PLANES.index("on_board")] > 0
    shifts = np.arange(-args.max_shift, args.max_shift + 0.25, 0.5)
    jigo = (score == 0) & late_rows
    report: dict[str, object] = {"positions": int(len(score)), "late_jigo_positions": int(jigo.sum())}
    for path in args.models:
        model = keras.saving.load_model(path, compile=False)
        value_at = list(model.output_names).index("value")
        rows = {}
        by_shift = {}
        for m in shifts:
            x = x0.copy()
            x[..., PLANES.index("komi")] += np.where(on_board, m / KOMI_SCALE, 0.0)
            batches = [model.predict_on_batch(x[i : i + 512])[value_at] for i in range(0, len(x), 512)]
            value = np.concatenate([np.asarray(b).reshape(-1) for b in batches])
            target = np.sign(score + m)
            by_shift[float(m)] = value
            rows[f"{m:+.1f}"] = {
                "mse": round(float(np.mean((value - target) ** 2)), 4),
                "lean": round(float(np.mean(value - target)), 4),
            }
        report[path] = {
            "by_shift": rows,
            "late_jigo_value_at_+0.5": round(float(by_shift[0.5][jigo].mean()), 3) if jigo.any() else None,
            "late_jigo_value_at_-0.5": round(float(by_shift[-0.5][jigo].mean()), 3) if jigo.any() else None,
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
