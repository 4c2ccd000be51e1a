"""The Zero training loop's command line: ``python -m dlgo.zero.loop`` (the loop: ``dlgo.zero.training_loop``).

python -m dlgo.zero.loop --config configs/train/zero-train-9x9.toml               # this machine
python -m dlgo.zero.loop --config configs/train/zero-train-9x9.toml --ray auto    # a Ray cluster
python -m dlgo.zero.loop --config ... --export weights/zero-9x9.keras       # ship the best
python -m dlgo.zero.loop --config ... --status                              # where it stands
python -m dlgo.zero.loop --config ... --set anchor.games=0 --set loop.workers=15  # any key, this run
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Any

from dlgo.extras import require_extra
from dlgo.tomlfile import parse_override
from dlgo.zero.loop_config import LoopConfigError, load_loop_config
from dlgo.zero.training_loop import ZeroLoop

__all__ = ["main"]

DESCRIPTION = "The AlphaGo Zero training loop: self-play, replay, training, gating, Elo against an anchor."


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m dlgo.zero.loop", description=DESCRIPTION)
    p.add_argument("--config", required=True, help="the loop's TOML config (configs/train/zero-train-9x9.toml)")
    p.add_argument("--ray", metavar="ADDRESS", help="run workers on Ray: 'auto', 'ray://host:10001', or 'local'")
    p.add_argument("--iterations", type=int, help="stop after this many iterations (default: the config's)")
    p.add_argument("--max-minutes", type=float, help="stop after the task under way once this time is up")
    p.add_argument("--workers", type=int, help="override loop.workers")
    p.add_argument("--out", help="override loop.out")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="TABLE.KEY=VALUE",
        help="override one config key for this run (value in TOML; repeatable), e.g. anchor.games=0",
    )
    p.add_argument("--export", metavar="FILE", help="copy the best generation to FILE with its card, then exit")
    p.add_argument("--status", action="store_true", help="print where the loop stands, then exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    require_extra("train", "python -m dlgo.zero.loop")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up chatter (workers inherit it)
    overrides: dict[str, dict[str, Any]] = {}
    for text in args.set:
        try:
            [(table, values)] = parse_override(text).items()
            if not isinstance(values, dict) or len(values) != 1 or isinstance(next(iter(values.values())), dict):
                raise ValueError(f"expected TABLE.KEY=VALUE, got {text!r}")
        except ValueError as e:
            print(f"zero-loop: --set: {e}", file=sys.stderr)
            return 2
        overrides.setdefault(table, {}).update(values)
    if args.workers is not None:
        overrides.setdefault("loop", {})["workers"] = args.workers
    if args.out is not None:
        overrides.setdefault("loop", {})["out"] = str(Path(args.out).resolve())
    try:
        config = load_loop_config(args.config, overrides)
        command = "python -m dlgo.zero.loop " + " ".join(argv if argv is not None else sys.argv[1:])
        loop = ZeroLoop(config, ray_address=args.ray, progress=not args.no_progress, command=command)
    except LoopConfigError as e:
        print(f"zero-loop: {e}", file=sys.stderr)
        return 2
    if args.status:
        print(loop.status_line())
        return 0
    if args.export:
        print(f"zero-loop: exported {loop.export(args.export)}", file=sys.stderr)
        return 0

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # `kill` stops like Ctrl-C: state saved, workers stopped

    # SIGINT too: a loop started in the background (`cmd &`) inherits SIGINT ignored, and
    # `kill -INT` must still stop it cleanly.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    try:
        loop.run(args.iterations, args.max_minutes)
    except KeyboardInterrupt:
        print("zero-loop: interrupted; the same command resumes", file=sys.stderr)
        return 130
    print(f"zero-loop: {loop.status_line()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
