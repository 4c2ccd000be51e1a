"""``python -m dlgo.rl``: the book's chapter 9-12 scripts as one command (docs/rl.md).

    python -m dlgo.rl init --kind pg --size 9 --out runs/pg/pg-0000.keras           # init_pg_agent.py
    python -m dlgo.rl selfplay --agent runs/pg/pg-0000.keras --games 1000 --out runs/pg/exp-0000 -j 2
    python -m dlgo.rl train --agent runs/pg/pg-0000.keras --experience runs/pg/exp-0000 --out runs/pg/pg-0001.keras
    python -m dlgo.rl evaluate --agent runs/pg/pg-0001.keras --opponent runs/pg/pg-0000.keras --games 200 \
        --out runs/pg/eval-0001 -j 2 --gate book
    python -m dlgo.rl loop --config configs/train/rl-pg-9x9.toml     # all of it, resumable (dlgo/rl/loop.py)
    python -m dlgo.rl plot --run runs/rl-pg-9x9
    python -m dlgo.rl ship --run runs/rl-pg-9x9 --to weights/rl/pg-9x9.keras
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from dlgo.extras import require_extra
from dlgo.rl.agents import AGENT_KINDS
from dlgo.rl.evaluate import GATES

__all__ = ["main"]


def _init(args: argparse.Namespace) -> None:
    from dlgo.rl.agents import new_agent

    agent = new_agent(args.kind, args.size, encoder=args.encoder, trunk=args.trunk, width=args.width, seed=args.seed)
    agent.serialize(
        args.out, training={"command": args.command_line, "generation": 0}, notes="untrained (random weights)"
    )
    print(json.dumps({"model": args.out, "kind": args.kind, "parameters": int(agent.model.count_params())}))


def _selfplay(args: argparse.Namespace) -> None:
    from dlgo.rl.selfplay import SelfPlaySettings, run_selfplay

    settings = SelfPlaySettings(
        model=args.agent,
        games=args.games,
        board_size=args.size,
        komi=args.komi,
        temperature=args.temperature,
        games_per_task=args.games_per_task,
        seed=args.seed,
    )
    began = time.monotonic()
    files = run_selfplay(settings, args.out, workers=args.jobs, progress=not args.quiet)
    print(json.dumps({"files": len(files), "out": args.out, "seconds": round(time.monotonic() - began, 1)}))


def _train(args: argparse.Namespace) -> None:
    from dlgo.rl.agents import train_version
    from dlgo.rl.experience import experience_files

    settings = {k: v for k, v in (("lr", args.lr), ("clipnorm", args.clipnorm), ("batch_size", args.batch_size)) if v}
    files = experience_files(args.experience)
    training = train_version(args.agent, files, args.out, settings, args.command_line, args.chunk_size)
    print(json.dumps({"model": args.out, "losses": training["losses"], "seconds": training["seconds"]}))


def _evaluate(args: argparse.Namespace) -> int:
    from dlgo.match.summary import summary_text
    from dlgo.rl.evaluate import EvalSettings, run_evaluation

    settings = EvalSettings(
        agent=args.agent,
        opponent=args.opponent,
        games=args.games,
        board_size=args.size,
        komi=args.komi,
        seed=args.seed,
        temperature=args.temperature,
    )
    summary = run_evaluation(settings, args.out, workers=args.jobs, gate=args.gate, progress=not args.quiet)
    sys.stdout.write(summary_text(summary))
    if args.gate:
        passed = summary["gate"]["passed"]
        print(f"  gate         {args.gate}: {'passed' if passed else 'not passed'}")
        return 0 if passed else 1
    return 0


def _loop(args: argparse.Namespace) -> int:
    import signal

    from dlgo.rl.loop import RLLoop
    from dlgo.rl.loop_config import RLConfigError, load_rl_config

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up chatter (workers inherit it)
    out = args.out or str(Path("runs") / Path(args.config).stem)
    try:
        loop = RLLoop(load_rl_config(args.config), out, command=args.command_line, progress=not args.quiet)
    except RLConfigError as e:
        print(f"rl-loop: {e}", file=sys.stderr)
        return 2

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # `kill` stops like Ctrl-C: the workers end, finished games stay

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        state = loop.run()
    except KeyboardInterrupt:
        print("rl-loop: interrupted; the same command resumes", file=sys.stderr)
        return 130
    except RLConfigError as e:
        print(f"rl-loop: {e}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(json.dumps({"out": out, "generation": state["generation"], "iterations": state["iteration"],
                      "accepted": state["accepted"], "final": state["final"].get("results", {})}))  # fmt: skip
    return 0


def _report(args: argparse.Namespace) -> int:
    from dlgo.rl.loop_report import NoMatplotlib, plot_run, ship_run

    try:
        path = plot_run(args.run, args.out) if args.command == "plot" else ship_run(args.run, args.to)
    except (NoMatplotlib, FileNotFoundError, ValueError) as e:
        print(f"rl-{args.command}: {e}", file=sys.stderr)
        return 2
    print(path)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dlgo.rl", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("init", help="a fresh (untrained) agent")
    p.add_argument("--kind", choices=AGENT_KINDS, required=True)
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--encoder", default="simple")
    p.add_argument("--trunk", default="tiny", help="tiny, small, medium or large (the book's 9.3.3 used large)")
    p.add_argument("--width", type=int, default=32, help="filters of the tiny trunk")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--out", required=True)

    p = sub.add_parser("selfplay", help="self-play games into experience files (resumable)")
    p.add_argument("--agent", required=True)
    p.add_argument("--games", type=int, required=True)
    p.add_argument("--out", required=True, help="folder: one HDF5 file per task")
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--komi", type=float, default=7.5)
    p.add_argument("--temperature", type=float, default=0.0, help="exploration (random-move chance or epsilon)")
    p.add_argument("--games-per-task", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true")

    p = sub.add_parser("train", help="one pass over experience files; saves a new version")
    p.add_argument("--agent", required=True)
    p.add_argument("--experience", nargs="+", required=True, help="HDF5 files or folders of them")
    p.add_argument("--out", required=True)
    p.add_argument("--lr", type=float, default=None, help="default: the agent's (pg 0.02, q 0.1, ac 0.01, value 0.05)")
    p.add_argument("--clipnorm", type=float, default=None)
    p.add_argument("--batch-size", type=int, default=None)
    p.add_argument("--chunk-size", type=int, default=50000, help="decisions read from disk at a time")

    p = sub.add_parser("evaluate", help="a match between two agents: win rate, p-value, gate")
    p.add_argument("--agent", required=True)
    p.add_argument("--opponent", required=True, help="a saved agent, or random")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--out", required=True)
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--komi", type=float, default=7.5)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gate", choices=list(GATES), default=None, help="exit 1 unless the agent passes it")
    p.add_argument("--quiet", action="store_true")

    p = sub.add_parser("loop", help="self-play, train and gate for many iterations, then final matches (resumable)")
    p.add_argument("--config", required=True, help="TOML file, e.g. configs/train/rl-pg-9x9.toml")
    p.add_argument("--out", default=None, help="run folder (default runs/<config name>)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")

    p = sub.add_parser("plot", help="win rates, losses and final results of a loop run as a PNG")
    p.add_argument("--run", required=True)
    p.add_argument("--out", default=None, help="PNG file (default <run>/training.png)")

    p = sub.add_parser("ship", help="copy a finished loop run's final version with its model card")
    p.add_argument("--run", required=True)
    p.add_argument("--to", required=True, help="e.g. weights/rl/pg-9x9.keras")

    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    require_extra("train", "python -m dlgo.rl")
    args.command_line = "python -m dlgo.rl " + " ".join(argv)  # written on the model cards
    if args.command == "loop":
        return _loop(args)
    if args.command in ("plot", "ship"):
        return _report(args)
    if args.command == "init":
        _init(args)
    elif args.command == "selfplay":
        _selfplay(args)
    elif args.command == "train":
        _train(args)
    else:
        return _evaluate(args)
    return 0
