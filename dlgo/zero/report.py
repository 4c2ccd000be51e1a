"""The loop's curves: losses, gating results and Elo against the anchor, one PNG.

Reads ``iterations.csv`` and ``elo.csv`` from the loop's folder (matplotlib, the ``report``
extra; without it the loop goes on with a warning and no plot).
"""

from __future__ import annotations

import csv
import os
import warnings
from pathlib import Path

__all__ = ["plot_loop", "read_csv"]


def read_csv(path: str | os.PathLike) -> list[dict[str, str]]:
    p = Path(path)
    if not p.is_file():
        return []
    with open(p, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _floats(rows: list[dict[str, str]], key: str) -> list[float]:
    out = []
    for r in rows:
        try:
            out.append(float(r.get(key, "")))
        except ValueError:
            out.append(float("nan"))
    return out


def plot_loop(folder: str | os.PathLike, png: str | os.PathLike | None = None, title: str = "") -> Path | None:
    """Write the three panels to ``png`` (default ``<folder>/curves.png``); None without data."""
    folder = Path(folder)
    iters = read_csv(folder / "iterations.csv")
    elo = read_csv(folder / "elo.csv")
    if not iters:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        warnings.warn("matplotlib is not installed (pip install .[report]): no plot of the loop", stacklevel=2)
        return None
    x = _floats(iters, "iteration")
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    ax = axes[0]
    ax.plot(x, _floats(iters, "policy_loss"), marker=".", label="policy (cross-entropy)")
    ax.plot(x, _floats(iters, "value_loss"), marker=".", label="value (MSE)")
    ax.set_xlabel("iteration")
    ax.set_title("training loss")
    ax.legend()
    ax.grid(alpha=0.3)

    ax = axes[1]
    rates = []
    for r in iters:
        w, lo = float(r.get("gate_wins") or 0), float(r.get("gate_losses") or 0)
        rates.append(w / (w + lo) if w + lo else float("nan"))
    accepted = [r.get("accepted") == "1" for r in iters]
    ax.bar(x, rates, color=["tab:green" if a else "tab:gray" for a in accepted])
    if iters and iters[0].get("gate_accept"):
        ax.axhline(float(iters[0]["gate_accept"]), color="tab:red", ls="--", label="acceptance")
        ax.legend()
    ax.set_ylim(0, 1)
    ax.set_xlabel("iteration (green: accepted)")
    ax.set_title("candidate's share of decisive gating games")
    ax.grid(alpha=0.3, axis="y")

    ax = axes[2]
    if elo:
        g = _floats(elo, "generation")
        e = _floats(elo, "elo")
        lo = _floats(elo, "elo_low")
        hi = _floats(elo, "elo_high")
        ax.errorbar(
            g, e, yerr=[[max(0.0, a - b) for a, b in zip(e, lo)], [max(0.0, b - a) for a, b in zip(e, hi)]],
            marker="o", capsize=3,
        )  # fmt: skip
        ax.axhline(0, color="gray", lw=0.8)
        ax.set_title(f"Elo vs {elo[-1].get('anchor', 'anchor')} (95% CI, clipped)")
    else:
        ax.text(0.5, 0.5, "no anchor games yet", ha="center", va="center", transform=ax.transAxes)
        ax.set_title("Elo vs anchor")
    ax.set_xlabel("generation")
    ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(png) if png is not None else folder / "curves.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out
