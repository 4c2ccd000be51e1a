"""Held-out ownership accuracy and score error of a network's auxiliary heads by the phase of
the game: the first, middle and last third of each held-out game's positions; beside the score head, the
score that the ownership head's area implies (its sum plus the komi).

    python experiments/heads_by_phase.py runs/heads19/net/zero-19x19.keras --data runs/heads19/data

The phases matter because the opening cannot know the final margin: the error that counts for
the end of the game and for resigning is the last third's.
"""

from __future__ import annotations

import argparse
import json

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("--data", required=True, help="a teacher data folder (holdout/ is read)")
    p.add_argument("--games", type=int, default=0, help="the first N held-out games only (0: all)")
    args = p.parse_args()

    import keras

    import dlgo.networks  # noqa: F401  (custom objects)
    from dlgo.encoders.zero import KOMI_SCALE, PLANES
    from dlgo.networks.zero import SCORE_SCALE
    from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer

    model = keras.saving.load_model(args.model, compile=False)
    names = list(model.output_names)
    rows: dict[str, list] = {"first": [], "middle": [], "last": []}
    chunks = ReplayBuffer(f"{args.data}/holdout").chunks()
    for chunk in chunks[: args.games or None]:
        game = ZeroExperienceBuffer.load(chunk.path)
        if game.aux_mask is None or not (game.aux_mask > 0).all():
            continue
        out = model.predict_on_batch(np.asarray(game.states, dtype=np.float32))
        ownership = np.asarray(out[names.index("ownership")])
        score = np.asarray(out[names.index("score")]).reshape(-1) * SCORE_SCALE
        # the area the ownership head foresees, with the mover's komi: a second score estimate
        komi = np.asarray(game.states[:, 0, 0, PLANES.index("komi")], dtype=np.float32) * KOMI_SCALE
        from_ownership = ownership.sum(axis=1) + komi
        for i in range(len(game)):
            phase = ("first", "middle", "last")[min(2, 3 * i // len(game))]
            decided = game.ownership[i] != 0
            right = float((np.sign(ownership[i]) == game.ownership[i])[decided].mean())
            rows[phase].append(
                (right, abs(score[i] - game.score[i]), abs(game.score[i]), abs(from_ownership[i] - game.score[i]))
            )
    report = {
        phase: {
            "positions": len(r),
            "ownership_accuracy": round(float(np.mean([x[0] for x in r])), 4),
            "score_mae": round(float(np.mean([x[1] for x in r])), 2),
            "score_mae_of_zero": round(float(np.mean([x[2] for x in r])), 2),
            "score_mae_of_ownership_sum": round(float(np.mean([x[3] for x in r])), 2),
        }
        for phase, r in rows.items()
        if r
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
