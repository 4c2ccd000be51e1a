"""What a finished ``python -m dlgo.rl loop`` run gives: a figure and a shipped model with its card.

    python -m dlgo.rl plot --run runs/rl-pg-9x9                   # runs/rl-pg-9x9/training.png
    python -m dlgo.rl ship --run runs/rl-pg-9x9 --to weights/rl/pg-9x9.keras

``plot_run`` draws (a) the candidate's win rate against the current version per iteration with
its 95% interval and the gate's line, (b) the training loss per iteration and (c) the final
version's results against each final opponent (matplotlib, the ``report`` extra). ``ship_run``
copies the final version and writes its model card: the self-play games and iterations, the
time, the loop's command and config, and the final results (wins, win rate, 95% interval,
p-values) as its measured strength.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from dlgo.rl.evaluate import GATES
from dlgo.rl.loop import gen_path, read_state

__all__ = ["plot_run", "ship_run", "NoMatplotlib"]


class NoMatplotlib(RuntimeError):
    """The plot needs matplotlib (``pip install .[report]``)."""


def _float(value: Any) -> float:
    return float("nan") if value in (None, "") else float(value)


def plot_run(run: str | os.PathLike, png: str | os.PathLike | None = None) -> Path:
    """Write the run's three panels to ``png`` (default ``<run>/training.png``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        raise NoMatplotlib("the plot needs matplotlib: pip install .[report]") from None
    run = Path(run)
    state = read_state(run)
    rows = state["rows"]
    results = state.get("final", {}).get("results", {})
    panels = 3 if results else 2
    fig, axes = plt.subplots(1, panels, figsize=(5.0 * panels, 3.8), squeeze=False)
    axes = axes[0]
    x = [int(r["iteration"]) for r in rows]

    ax = axes[0]
    rate = [_float(r["win_rate"]) for r in rows]
    low = [max(0.0, a - _float(r["win_rate_low"])) for a, r in zip(rate, rows)]
    high = [max(0.0, _float(r["win_rate_high"]) - a) for a, r in zip(rate, rows)]
    for accepted, colour, label in ((1, "tab:green", "accepted"), (0, "tab:gray", "rejected")):
        keep = [k for k, r in enumerate(rows) if int(r["accepted"]) == accepted]
        if keep:
            ax.errorbar([x[k] for k in keep], [rate[k] for k in keep],
                        yerr=[[low[k] for k in keep], [high[k] for k in keep]], fmt="o", capsize=3, color=colour,
                        label=label)  # fmt: skip
    gate = state["config"]["gate"]["kind"]
    if gate in GATES:  # the thesis' gate counts decisive games only: close to this line, not on it
        ax.axhline(GATES[gate], color="tab:red", ls="--", lw=1, label=f"gate ({gate})")
    ax.axhline(0.5, color="gray", lw=0.6)
    ax.set_ylim(0, 1)
    ax.set_xlabel("iteration")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("candidate vs current version (95% CI)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)

    ax = axes[1]
    ax.plot(x, [_float(r["loss"]) for r in rows], marker="o", markersize=3, label="loss")
    parts: dict[str, list[float]] = {}
    for k, r in enumerate(rows):
        for item in filter(None, str(r.get("losses") or "").split(";")):
            name, value = item.split("=")
            parts.setdefault(name, [float("nan")] * len(rows))[k] = float(value)
    for name, values in parts.items():
        ax.plot(x, values, marker=".", markersize=3, ls="--", label=name)
    ax.set_xlabel("iteration")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"training loss ({state['config']['kind']})")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)

    if results:
        ax = axes[2]
        names = list(results)
        rates = [_float(results[n]["win_rate"]) for n in names]
        ci = [results[n].get("win_rate_95") or [float("nan")] * 2 for n in names]
        yerr = [[max(0.0, r - c[0]) for r, c in zip(rates, ci)], [max(0.0, c[1] - r) for r, c in zip(rates, ci)]]
        labels = [f"vs {n}\n{results[n]['engine_wins']} of {results[n]['games']} won" for n in names]
        ax.bar(labels, rates, yerr=yerr, capsize=4, color="tab:blue")
        ax.axhline(0.5, color="gray", lw=0.6)
        ax.set_ylim(0, 1)
        ax.set_title(f"final {state['final']['agent']} (95% CI)")
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    out = Path(png) if png is not None else run / "training.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.stem + ".tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    os.replace(tmp, out)
    return out


def ship_run(run: str | os.PathLike, to: str | os.PathLike) -> Path:
    """Copy the run's final version to ``to`` with a card saying how it was made and what it is worth."""
    from dlgo.inference.card import read_card, write_card

    run, to = Path(run), Path(to)
    if to.suffix != ".keras":
        raise ValueError(f"{to}: model files end in .keras")
    state = read_state(run)
    config = state["config"]
    final = state.get("final", {})
    if state["iteration"] < config["loop"]["iterations"] or final.get("generation") != state["generation"]:
        raise ValueError(f"{run}: the loop has not finished (iterations and final matches): run it to its end first")
    model = gen_path(run, state["generation"])
    rows = state["rows"]
    card = read_card(model)
    seconds = sum(r["selfplay_seconds"] + r["train_seconds"] + r["gate_seconds"] for r in rows)
    seconds += sum(float(r.get("seconds", 0)) for r in final["results"].values())
    last_pass = {k: card.training.get(k) for k in ("parent", "decisions", "settings", "seconds")}
    card.training = {
        "kind": f"{config['kind']} self-play, python -m dlgo.rl loop",
        "command": state["commands"][0] if state.get("commands") else "",
        "commands": state.get("commands", []),
        "config": config,
        "generation": state["generation"],
        "iterations": state["iteration"],
        "accepted_iterations": state["accepted"],
        "games": sum(int(r["games"]) for r in rows),
        "decisions": sum(int(r["decisions"]) for r in rows),
        "minutes": round(seconds / 60, 1),
        "cpu_minutes": rows[-1]["cpu_minutes"] if rows else 0.0,
        "workers": config["selfplay"]["jobs"],
        "last_pass": last_pass,
    }
    card.strength = {
        **card.strength,
        **{f"vs_{name}": {k: v for k, v in r.items() if k != "folder"} for name, r in final["results"].items()},
    }
    card.notes = (
        f"Generation {state['generation']} of a {config['kind']} reinforcement-learning run (book chapters 9-12): "
        f"{len(state['accepted'])} of {state['iteration']} candidates accepted by the {config['gate']['kind']} gate."
    )
    to.parent.mkdir(parents=True, exist_ok=True)
    tmp = to.with_name(to.name + ".tmp")
    shutil.copyfile(model, tmp)
    os.replace(tmp, to)
    write_card(to, card)
    return to
