"""Plot the 9x9 networks' results against GNU Go level 10 over the loop's hours.

    python scripts/strength_history.py [--data docs/strength-history.json] [--out docs/strength-history.png]

Each point is one network's match (win rate with its Wilson 95% interval, Elo on the right
axis), placed at the loop hours spent since the first 9x9 self-play run; lines join a network
to the one it was trained from, so runs that were not shipped branch off the shipped line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dlgo.match.stats import elo_from_rate, wilson_interval  # noqa: E402


def _rate(point: dict) -> float:
    """The match score (draws count half)."""
    return (point["wins"] + 0.5 * point["draws"]) / (point["wins"] + point["losses"] + point["draws"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT / "docs" / "strength-history.json"))
    parser.add_argument("--out", default=str(ROOT / "docs" / "strength-history.png"))
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = json.loads(Path(args.data).read_text(encoding="utf-8"))["points"]
    by_name = {p["network"]: p for p in points}
    fig, ax = plt.subplots(figsize=(9, 5))
    for p in points:
        games = p["wins"] + p["losses"] + p["draws"]
        rate = _rate(p)
        low, high = wilson_interval(rate * games, games)
        colour = "tab:blue" if p["shipped"] else "tab:red"
        ax.errorbar(p["hours"], 100 * rate, yerr=[[100 * (rate - low)], [100 * (high - rate)]], fmt="o",
                    color=colour, capsize=4)  # fmt: skip
        ax.annotate(f"{p['network']}\n{p['wins']}-{p['losses']}-{p['draws']}", (p["hours"], 100 * rate),
                    textcoords="offset points", xytext=(6, -4), fontsize=7)  # fmt: skip
        parent = by_name.get(p.get("parent") or "")
        if parent is not None:
            ax.plot([parent["hours"], p["hours"]], [100 * _rate(parent), 100 * rate], color=colour, alpha=0.4)
    ax.axhline(90, color="grey", linestyle="--", linewidth=1)
    ax.text(0.01, 90.5, "target: 90%", fontsize=8, color="grey", transform=ax.get_yaxis_transform())
    ax.set_xlabel("loop hours on the 2-core machine (self-play, training, gating, anchor games)")
    ax.set_ylabel("score against GNU Go level 10, 9x9, 1 s/move (%)")
    ax.set_ylim(30, 100)
    right = ax.twinx()
    right.set_ylim(ax.get_ylim())
    ticks = [40, 50, 60, 70, 80, 90, 95]
    right.set_yticks(ticks, [f"{elo_from_rate(t / 100):+.0f}" for t in ticks])
    right.set_ylabel("Elo against GNU Go level 10")
    ax.set_title("9x9 self-play networks against GNU Go level 10 (blue: shipped, red: not shipped)")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out} ({len(points)} networks)")


if __name__ == "__main__":
    main()
