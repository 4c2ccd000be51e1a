"""``python -m dlgo.zero.teacher``: a stronger player's games into a network (``dlgo.zero.teacher``).

    # 1. games to learn from: Pachi against itself, and our engine against Pachi
    python -m dlgo.match.duel --engine-cmd "PACHI -t =5000 threads=1" --engine-name pachi-a \\
        --opponent-cmd "PACHI -t =5000 threads=1" --opponent-name pachi-b --no-time-commands \\
        --size 9 --komi 7 --games 1000 --out runs/teacher-pp
    # 2. their positions as replay chunks (every 10th game held out)
    python -m dlgo.zero.teacher convert runs/teacher-pp runs/teacher-gp \\
        --learn-from pachi-a pachi-b pachi-5k --out runs/teacher/data
    # 3. fine-tune the shipped network on them, measured on the held-out games every round
    python -m dlgo.zero.teacher train --data runs/teacher/data --init weights/zero-9x9.keras \\
        --out runs/teacher/net --rounds 8 --steps 200
    # how well networks predict the held-out teacher moves and results
    python -m dlgo.zero.teacher evaluate weights/zero-9x9.keras runs/teacher/net/zero-9x9.keras \\
        --data runs/teacher/data

``train`` keeps a learner checkpoint after every round and goes on from it when run again; the
network it writes (``OUT/zero-9x9.keras`` with its card) is the round with the lowest held-out
loss (policy cross-entropy on teacher moves + value squared error), not the last one.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.extras import require_extra
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer, combine_experience
from dlgo.zero.teacher import convert_matches

__all__ = ["main", "holdout_metrics"]


def holdout_metrics(model: Any, data: ZeroExperienceBuffer, batch_size: int = 512) -> dict[str, float]:
    """Top-1 agreement and cross-entropy on the teacher's moves, squared error of the value
    against the results (mean over positions), for a Keras model with (policy, value, ...)."""
    policies, values = [], []
    for start in range(0, len(data), batch_size):
        out = model.predict_on_batch(np.asarray(data.states[start : start + batch_size], dtype=np.float32))
        policies.append(np.asarray(out[0]))
        values.append(np.asarray(out[1]).reshape(-1))
    policy, value = np.concatenate(policies), np.concatenate(values)
    taught = data.policies.sum(axis=1) > 0
    moves = data.policies[taught].argmax(axis=1)
    predicted = policy[taught]
    return {
        "positions": float(len(data)),
        "teacher_moves": float(taught.sum()),
        "top1": float((predicted.argmax(axis=1) == moves).mean()) if taught.any() else float("nan"),
        "policy_xent": float(-np.log(np.clip(predicted[np.arange(len(moves)), moves], 1e-7, 1)).mean())
        if taught.any()
        else float("nan"),
        "value_mse": float(np.mean((value - data.rewards) ** 2)),
    }


def _load(path: str | Path) -> Any:
    import keras

    import dlgo.networks  # noqa: F401  (registers custom objects)

    if not Path(path).is_file():
        raise SystemExit(f"{path}: no such model")
    return keras.saving.load_model(path, compile=False)


def _convert(args: argparse.Namespace) -> int:
    out = Path(args.out)
    report = convert_matches(
        args.matches, args.learn_from, ReplayBuffer(out / "train"), ReplayBuffer(out / "holdout"), args.holdout_every
    )
    print(
        f"teacher: {report.games} games converted ({report.held_out} held out), {report.positions} positions, "
        f"{report.teacher_moves} teacher moves, {report.counted} counted games; {report.skipped} already there"
    )
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    holdout = ReplayBuffer(Path(args.data) / "holdout")
    chunks = holdout.chunks()
    if not chunks:
        raise SystemExit(f"{holdout.root}: no held-out games")
    # all held-out games, then those of each match folder (the chunks' iteration: its number)
    parts = {"all": chunks} | {
        f"match {k}": [c for c in chunks if c.iteration == k] for k in sorted({c.iteration for c in chunks})
    }
    data = {
        name: combine_experience([ZeroExperienceBuffer.load(c.path) for c in group]) for name, group in parts.items()
    }
    for path in args.models:
        model = _load(path)
        for name, part in data.items():
            m = holdout_metrics(model, part)
            print(
                f"{path} [{name}]: top-1 {m['top1']:.1%} of {int(m['teacher_moves'])} teacher moves, policy "
                f"cross-entropy {m['policy_xent']:.3f}, value MSE {m['value_mse']:.3f} "
                f"({int(m['positions'])} positions)"
            )
    return 0


def _train(args: argparse.Namespace) -> int:
    from dlgo.inference.card import read_card, write_card
    from dlgo.zero.handover import copy_model, export_runtimes
    from dlgo.zero.trainer import TrainerSettings, train_candidate

    data = Path(args.data)
    replay = ReplayBuffer(data / "train")
    holdout = ReplayBuffer(data / "holdout").window(10**9)
    last = max((c.iteration for c in replay.chunks()), default=0)
    if last == 0:
        raise SystemExit(f"{data / 'train'}: no converted games (run `convert` first)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "rounds.jsonl"
    rounds = [json.loads(line) for line in log_path.read_text().splitlines()] if log_path.exists() else []
    if not rounds:
        rounds.append({"round": 0, **holdout_metrics(_load(args.init), holdout)})
        log_path.write_text(json.dumps(rounds[0]) + "\n")
    network = read_card(args.init).network
    settings = TrainerSettings(
        batch_size=args.batch_size,
        steps_per_iteration=args.steps,
        optimizer="sgd",
        lr=args.lr,
        value_weight=args.value_weight,
        window_start=10**9,
        window_max=10**9,
        augment=True,
    )
    command = "python -m dlgo.zero.teacher " + " ".join(sys.argv[1:])
    card = {
        "kind": "fine-tuned on a stronger player's games (dlgo.zero.teacher)",
        "init": str(args.init),
        "games": len(replay.chunks()),
        "positions": replay.positions(),
        "commands": [command],
    }
    for number in range(len(rounds), args.rounds + 1):
        losses = train_candidate(
            replay, last, out / "learner.keras", args.init, out / f"round-{number:02d}.keras", settings,
            seed=args.seed + number, card_fields={"training": {**card, "round": number}}, progress=False,
            aux_heads=bool(network.get("aux_heads")), global_pooling=bool(network.get("global_pooling")),
        )  # fmt: skip
        row = {"round": number, **holdout_metrics(_load(out / f"round-{number:02d}.keras"), holdout), **losses}
        rounds.append(row)
        with log_path.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(
            f"round {number}: train policy {losses['policy_loss']:.3f} value {losses['value_loss']:.3f}; held out "
            f"top-1 {row['top1']:.1%} policy {row['policy_xent']:.3f} value {row['value_mse']:.3f}",
            flush=True,
        )
    best = min(rounds[1:], key=lambda r: r["policy_xent"] + r["value_mse"], default=None)
    if best is None:
        return 0
    copy_model(out / f"round-{best['round']:02d}.keras", out / "zero-9x9.keras")
    card = read_card(out / "zero-9x9.keras")
    held = ("top1", "policy_xent", "value_mse", "positions", "teacher_moves")
    card.metrics = {"held_out": {k: best[k] for k in held}, "held_out_before": {k: rounds[0][k] for k in held}}
    write_card(out / "zero-9x9.keras", card)
    export_runtimes(out / "zero-9x9.keras", int8=True)  # what the engine's default runtime loads
    shutil.copyfile(log_path, out / "zero-9x9.rounds.jsonl")
    print(f"teacher: round {best['round']} is the best on the held-out games -> {out / 'zero-9x9.keras'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dlgo.zero.teacher", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("convert", help="match folders (dlgo.match.duel) into replay chunks")
    c.add_argument("matches", nargs="+", help="match folders with results.jsonl")
    c.add_argument("--learn-from", nargs="+", required=True, help="player names whose moves are policy targets")
    c.add_argument("--out", required=True, help="data folder (train/ and holdout/ chunks)")
    c.add_argument("--holdout-every", type=int, default=10, help="every k-th game held out (0: none)")
    t = sub.add_parser("train", help="fine-tune a network on converted games")
    t.add_argument("--data", required=True, help="the folder `convert` wrote")
    t.add_argument("--init", required=True, help="the network to start from")
    t.add_argument("--out", required=True, help="run folder (rounds, learner checkpoint, best network)")
    t.add_argument("--rounds", type=int, default=8)
    t.add_argument("--steps", type=int, default=200, help="training steps per round")
    t.add_argument("--batch-size", type=int, default=256)
    t.add_argument("--lr", type=float, default=0.001, help="SGD learning rate (momentum 0.9)")
    t.add_argument("--value-weight", type=float, default=1.0)
    t.add_argument("--seed", type=int, default=1)
    e = sub.add_parser("evaluate", help="networks on the held-out games")
    e.add_argument("models", nargs="+")
    e.add_argument("--data", required=True)
    args = p.parse_args(argv)
    require_extra("train", "python -m dlgo.zero.teacher")
    return {"convert": _convert, "train": _train, "evaluate": _evaluate}[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
