"""What the Zero loop reports: its CSVs, its one-line status and its curves.

- ``iterations.csv`` (one row per iteration: ``ITERATION_COLUMNS``) and ``elo.csv`` (one row
  per anchored generation: ``ELO_COLUMNS``), rewritten whole and atomically by ``write_csv``;
- ``status_line``: where the loop stands (``--status`` and every iteration's log line);
- ``plot_loop``: losses, gating results and Elo against the anchor, one PNG (matplotlib, the
  ``report`` extra; without it the loop goes on with a warning and no plot).
"""

from __future__ import annotations

import csv
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "ITERATION_COLUMNS",
    "ELO_COLUMNS",
    "training_hours",
    "ELO_CLIP",
    "iteration_row",
    "plot_loop",
    "read_csv",
    "write_csv",
    "status_line",
]

ITERATION_COLUMNS = (
    "iteration", "generation", "games", "positions", "total_games", "total_positions", "policy_loss",
    "value_loss", "lr", "window", "gate_wins", "gate_losses", "gate_draws", "gate_accept", "accepted",
    "resign_threshold", "false_resign_rate", "played_out", "selfplay_seconds", "train_seconds", "gate_seconds",
    "games_per_hour", "ownership_loss", "score_loss", "white_won",
)  # fmt: skip
ELO_COLUMNS = (
    "generation", "iteration", "anchor", "games", "wins", "losses", "draws", "win_rate", "elo", "elo_low",
    "elo_high", "total_games", "total_positions",
)  # fmt: skip
ELO_CLIP = 800.0  # a 0% or 100% score has an infinite estimate: the plot and CSV clip it


def write_csv(path: Path, columns: Sequence[str], rows: list[dict[str, Any]]) -> None:
    """All ``rows`` under a header of ``columns``, replacing the file at once."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)


def iteration_row(
    state: dict[str, Any],
    summaries: list[dict[str, Any]],
    metrics: dict[str, Any],
    gate: dict[str, Any],
    total_positions: int,
    selfplay_seconds: float,
    gate_seconds: float,
) -> dict[str, Any]:
    """The ``iterations.csv`` row of the iteration ``state`` is finishing: its games'
    ``summaries``, the training ``metrics``, the ``gate`` result and the phases' seconds."""
    false_rate = state.get("false_resign_rate")
    return {
        "iteration": state["iteration"],
        "generation": state["generation"],
        "games": len(summaries),
        "positions": sum(r["positions"] for r in summaries),
        "total_games": sum(int(r.get("games") or 0) for r in state["history"]) + len(summaries),
        "total_positions": total_positions,
        "policy_loss": metrics.get("policy_loss", ""),
        "value_loss": metrics.get("value_loss", ""),
        "lr": metrics.get("lr", ""),
        "window": metrics.get("window", ""),
        "gate_wins": gate.get("gate_wins", ""),
        "gate_losses": gate.get("gate_losses", ""),
        "gate_draws": gate.get("gate_draws", ""),
        "gate_accept": gate.get("gate_accept", ""),
        "accepted": gate.get("accepted", ""),
        "resign_threshold": state["resign_threshold"],
        "false_resign_rate": "" if false_rate is None else round(false_rate, 4),
        "played_out": state.get("played_out", 0),
        "selfplay_seconds": round(selfplay_seconds, 1),
        "train_seconds": metrics.get("seconds", ""),
        "gate_seconds": round(gate_seconds, 1),
        "games_per_hour": round(3600 * len(summaries) / selfplay_seconds, 1) if selfplay_seconds > 0 else "",
        "ownership_loss": metrics.get("ownership_loss", ""),  # networks with the auxiliary heads
        "score_loss": metrics.get("score_loss", ""),
        # the colours' balance: White won 66% at komi 7 alone (docs/zero-training.md, "Komi varied per game")
        "white_won": round(sum(r["winner"] == "W" for r in summaries) / len(summaries), 4) if summaries else "",
    }


def status_line(state: dict[str, Any], games: int, positions: int) -> str:
    """The loop's ``state`` in one line, with the replay buffer's ``games`` and ``positions``."""
    last = state["history"][-1] if state["history"] else None
    gate = "none yet"
    if last and last.get("gate_wins") not in (None, ""):
        verdict = "accepted" if last.get("accepted") else "rejected"
        played = sum(int(last.get(k) or 0) for k in ("gate_wins", "gate_losses", "gate_draws"))
        gate = f"{last['gate_wins']}-{last['gate_losses']} {verdict}" if played else "off (candidate accepted)"
    return (
        f"iteration {state['iteration']} ({state['phase']}) | generation {state['generation']} | "
        f"{games} games, {positions:,} positions | last gate {gate} | "
        f"resign below {state['resign_threshold']:+.2f}"
    )


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


def training_hours(iters: list[dict[str, str]], before_iteration: int) -> float:
    """Hours of self-play, training and gating of the iterations before ``before_iteration``."""
    seconds = 0.0
    for r in iters:
        if int(float(r.get("iteration") or 0)) < before_iteration:
            for key in ("selfplay_seconds", "train_seconds", "gate_seconds"):
                seconds += float(r.get(key) or 0.0)
    return seconds / 3600


def plot_loop(folder: str | os.PathLike, png: str | os.PathLike | None = None, title: str = "") -> Path | None:
    """Write the four panels to ``png`` (default ``<folder>/curves.png``): losses, gates, Elo per
    generation, and Elo against the training's machine-hours (self-play, training and gating up to
    the generation's iteration; anchor games are measurement, not training); None without data."""
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
    fig, axes = plt.subplots(1, 4, figsize=(20, 4.2))
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
    if not any(rate == rate for rate in rates):  # no gating game at all: [gating] games = 0
        ax.text(0.5, 0.5, "no gate: every candidate\nis the next generation", ha="center", va="center",
                transform=ax.transAxes)  # fmt: skip
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

    ax = axes[3]
    if elo:
        hours = [training_hours(iters, int(float(r["iteration"] or 0))) for r in elo]
        ax.plot(hours, _floats(elo, "elo"), marker="o")
        for h, r in zip(hours, elo):
            label = f"g{r['generation']}"
            ax.annotate(label, (h, float(r["elo"] or 0)), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.axhline(0, color="gray", lw=0.8)
    ax.set_xlabel("machine-hours of self-play, training and gating")
    ax.set_title("Elo against training compute")
    ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(png) if png is not None else folder / "curves.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out
