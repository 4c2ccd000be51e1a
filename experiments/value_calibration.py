"""Value calibration: does a network's win probability match how often the side to move won by
the final count? For the positions of games that reached a count (replay chunks with
``aux_mask`` 1: self-play played out to two passes, or counted human games from
``python -m dlgo.zero.teacher counted``), the value head's win probability is binned and each
bin's mean prediction set against the fraction of those positions whose side to move won.

    python experiments/value_calibration.py weights/zero-19x19.keras --data runs/heads19/data/holdout \
        --plot docs/img/value-calibration-19x19.png

Reported per game phase (first, middle, last third of each game's positions), since the
question of issue 52 is the late game, where a count is near: the expected calibration error
(the visit-weighted gap between prediction and outcome), the Brier score, and the lean (mean
prediction minus mean outcome: positive is optimism for the side to move). Several models on
the same data are compared in one run and one plot.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

PHASES = ("first", "middle", "last")


def predictions(model_path: str, folders: list[str], games: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per phase: the value head's win probabilities for the side to move, and whether it won."""
    import keras

    import dlgo.networks  # noqa: F401  (custom objects)
    from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer

    model = keras.saving.load_model(model_path, compile=False)
    names = list(model.output_names)
    rows: dict[str, tuple[list, list]] = {phase: ([], []) for phase in PHASES}
    used = 0
    for folder in folders:
        for chunk in ReplayBuffer(folder).chunks():
            if games and used >= games:
                break
            game = ZeroExperienceBuffer.load(chunk.path)
            if len(game) == 0 or game.aux_mask is None or not (game.aux_mask > 0).all():
                continue  # resigned or not counted: its result is not the count's
            used += 1
            out = model.predict_on_batch(np.asarray(game.states, dtype=np.float32))
            value = np.asarray(out[names.index("value")] if isinstance(out, (list, tuple)) else out).reshape(-1)
            for i in range(len(game)):
                phase = PHASES[min(2, 3 * i // len(game))]
                rows[phase][0].append((float(value[i]) + 1.0) / 2.0)
                rows[phase][1].append(float(game.rewards[i] > 0))
    return {phase: (np.asarray(p), np.asarray(w)) for phase, (p, w) in rows.items() if p}


def calibration(p: np.ndarray, won: np.ndarray, bins: int) -> dict:
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    curve, ece = [], 0.0
    for b in range(bins):
        mask = which == b
        if not mask.any():
            continue
        mean_p, mean_won = float(p[mask].mean()), float(won[mask].mean())
        ece += mask.mean() * abs(mean_p - mean_won)
        curve.append(
            {
                "bin": [round(edges[b], 2), round(edges[b + 1], 2)],
                "positions": int(mask.sum()),
                "predicted": round(mean_p, 4),
                "won": round(mean_won, 4),
            }
        )
    return {
        "positions": len(p),
        "ece": round(float(ece), 4),
        "brier": round(float(np.mean((p - won) ** 2)), 4),
        "lean": round(float(p.mean() - won.mean()), 4),
        "curve": curve,
    }


def plot(report: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(PHASES), figsize=(4 * len(PHASES), 4), sharey=True)
    for ax, phase in zip(axes, PHASES, strict=True):
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        for name, phases in report.items():
            if phase in phases:
                c = phases[phase]["curve"]
                ax.plot(
                    [x["predicted"] for x in c],
                    [x["won"] for x in c],
                    marker="o",
                    ms=3,
                    label=f"{name} (ECE {phases[phase]['ece']:.3f})",
                )
        ax.set_title(f"{phase} third of the game")
        ax.set_xlabel("value head's win probability")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("won by the count")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("models", nargs="+", help="Keras networks (.keras) to compare on the same positions")
    p.add_argument("--data", nargs="+", required=True, help="replay folders (chunks .npz)")
    p.add_argument("--games", type=int, default=0, help="the first N counted games only (0: all)")
    p.add_argument("--bins", type=int, default=10)
    p.add_argument("--plot", help="write the reliability curves here (PNG)")
    args = p.parse_args()
    report = {}
    names = [Path(m).name for m in args.models]
    for model, name in zip(args.models, names):
        report[name if names.count(name) == 1 else model] = {  # the path where two files share a name
            phase: calibration(pr, won, args.bins)
            for phase, (pr, won) in predictions(model, args.data, args.games).items()
        }
    print(json.dumps(report, indent=1))
    if args.plot:
        plot(report, args.plot)


if __name__ == "__main__":
    main()
