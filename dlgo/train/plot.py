"""Training curves from the CSV log as a PNG (matplotlib, the ``report`` extra; skipped with a
warning when it is missing)."""

from __future__ import annotations

import csv
import os
import warnings
from pathlib import Path

__all__ = ["plot_curves"]

_PANELS = (
    ("policy loss", ("policy_loss", "val_policy_loss")),
    ("value loss (MSE)", ("value_loss", "val_value_loss")),
    ("move accuracy", ("top1", "val_top1", "top5", "val_top5")),
    ("learning rate", ("lr",)),
)


def plot_curves(csv_path: str | os.PathLike, png_path: str | os.PathLike) -> Path | None:
    """Plot the log's columns per epoch; None (and a warning) without matplotlib or rows."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        warnings.warn("matplotlib is not installed (pip install .[report]): no plot of the curves", stacklevel=2)
        return None
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return None
    epochs = [int(r["epoch"]) for r in rows]

    def column(name: str) -> list[float] | None:
        values = [r.get(name, "") for r in rows]
        if not any(values):
            return None
        return [float(v) if v not in ("", None) else float("nan") for v in values]

    panels = [(title, [(n, column(n)) for n in names]) for title, names in _PANELS]
    panels = [(t, [(n, c) for n, c in cols if c is not None]) for t, cols in panels]
    panels = [p for p in panels if p[1]]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, (title, cols) in zip(axes[0], panels):
        for name, values in cols:
            ax.plot(epochs, values, marker="o", markersize=3, label=name, linestyle="--" if "val" in name else "-")
        ax.set_title(title)
        ax.set_xlabel("epoch")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    png_path = Path(png_path)
    tmp = png_path.with_name(png_path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    os.replace(tmp, png_path)
    return png_path
