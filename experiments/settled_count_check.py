"""How often the count an ownership head implies settles a game, and how often it settles it
wrongly: the measure behind the search's settled count (``zero.settled_count``).

    python experiments/settled_count_check.py runs/own9/net/zero-9x9-10x128.keras --data runs/kv9/data

For every held-out counted position, each point the ownership head gives one side with at least
``threshold`` is counted for that side and every other point is unsure; the count settles the game
when the mover wins (or loses) even if every unsure point went the other way. That verdict is
checked against the game's count at its own komi and at the komi moved half a point and a point
either way (the counted margin moves with it), so a head that settles late jigos right reads the
komi where the value head does not. Prints, by threshold and phase of the game, the share of
positions settled and the share of those settled wrongly, and writes JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

SHIFTS = (-1.0, -0.5, 0.0, 0.5, 1.0)


def verdicts(ownership: np.ndarray, mover_komi: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """The settled margin's bounds (mover's view, komi included) of each position."""
    sure = np.abs(ownership) >= threshold
    margin = (np.sign(ownership) * sure).sum(axis=1) + mover_komi
    unsure = (~sure).sum(axis=1)
    return margin - unsure, margin + unsure


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="a network with an ownership head (.keras)")
    p.add_argument("--data", required=True, help="a teacher data folder (holdout/ is read)")
    p.add_argument("--thresholds", type=float, nargs="+", default=[0.5, 0.7, 0.8, 0.9, 0.95])
    p.add_argument("--out", help="write the table as JSON here")
    args = p.parse_args()

    import keras

    import dlgo.networks  # noqa: F401  (custom objects)
    from dlgo.encoders.zero import KOMI_SCALE, PLANES
    from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer

    model = keras.saving.load_model(args.model, compile=False)
    names = list(model.output_names)
    own, komi, score, phase = [], [], [], []
    for chunk in ReplayBuffer(f"{args.data}/holdout").chunks():
        game = ZeroExperienceBuffer.load(chunk.path)
        if game.aux_mask is None or not (game.aux_mask > 0).all():
            continue
        out = model.predict_on_batch(np.asarray(game.states, dtype=np.float32))
        own.append(np.asarray(out[names.index("ownership")], dtype=np.float32))
        komi.append(np.asarray(game.states[:, 0, 0, PLANES.index("komi")], dtype=np.float32) * KOMI_SCALE)
        score.append(np.asarray(game.score, dtype=np.float32))
        phase += [min(2, 3 * i // len(game)) for i in range(len(game))]
    ownership, mover_komi, final = np.concatenate(own), np.concatenate(komi), np.concatenate(score)
    phases = np.array(phase)
    report: dict = {"positions": int(len(final)), "by_threshold": {}}
    for threshold in args.thresholds:
        low, high = verdicts(ownership, mover_komi, threshold)
        rows = {}
        for name, where in (("first", phases == 0), ("middle", phases == 1), ("last", phases == 2)):
            settled = wrong = total = 0
            for shift in SHIFTS:
                lo, hi, result = low[where] + shift, high[where] + shift, final[where] + shift
                won, lost = lo > 0, hi < 0
                settled += int(won.sum() + lost.sum())
                wrong += int((won & (result <= 0)).sum() + (lost & (result >= 0)).sum())
                total += int(where.sum())
            rows[name] = {"settled": round(settled / max(total, 1), 4), "wrong": round(wrong / max(settled, 1), 4)}
        jigo = (final == 0) & (phases == 2)
        read = 0
        for shift in (-0.5, 0.5):
            lo, hi = low[jigo] + shift, high[jigo] + shift
            read += int(((lo > 0) & (shift > 0)).sum() + ((hi < 0) & (shift < 0)).sum())
        rows["late_jigos_read"] = f"{read} of {2 * int(jigo.sum())}"
        report["by_threshold"][str(threshold)] = rows
        line = "  ".join(
            f"{k} {v['settled']:.1%} settled, {v['wrong']:.2%} wrong" for k, v in rows.items() if k != "late_jigos_read"
        )
        print(f"threshold {threshold}: {line}; late jigos read at komi -+0.5: {rows['late_jigos_read']}")
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
