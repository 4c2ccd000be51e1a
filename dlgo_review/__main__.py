"""Command line: ``dlgo-review GAME.sgf -o REVIEWED.sgf`` or ``dlgo-review FOLDER -o OUTFOLDER``
(also ``python -m dlgo_review``).

Every move of a record searched by the config's agent for its board size and annotated as SGF:
win rate, score lead, the engine's best move, points lost, and the largest mistakes marked
(``dlgo.review``; docs/review.md). A folder is reviewed record by record under a progress bar on
stderr and can be resumed: records whose review is already written are skipped.

Exit status: 0 when every record was reviewed (or skipped as done); 1 when some failed (one line
each on stderr, naming the file and the reason, and a count at the end); 2 for a bad config, a
model file it names that is missing or damaged, or a bad argument; 130 after Ctrl-C (finished
reviews are kept, the one under way is not written).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from dlgo.play.config import ConfigError, check_model_files, default_config_path, load_config

__all__ = ["main"]

PROG = "dlgo-review"
DEFAULT_VISITS = 100


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Review Go games: every move annotated with win rate, score lead, the engine's best move "
        "and points lost, the largest mistakes marked (SGF out).",
    )
    parser.add_argument("source", metavar="GAME.sgf|FOLDER", help="a record, or a folder of records (recursive)")
    parser.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="the reviewed record (a file or a folder), or folder"
    )
    parser.add_argument(
        "--visits", type=int, default=DEFAULT_VISITS, help=f"visits per position (default {DEFAULT_VISITS})"
    )
    parser.add_argument(
        "--config", metavar="FILE", help="engine TOML config (default: configs/engine/default.toml, as dlgo-gtp)"
    )
    parser.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override a config key, e.g. --set zero.seed=1 (repeatable)",
    )
    parser.add_argument("--force", action="store_true", help="in a folder, review records already reviewed again")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show the progress bar on stderr (default: when stderr is a terminal)",
    )
    args = parser.parse_args(argv)
    if args.visits < 1:
        parser.error(f"--visits must be at least 1, got {args.visits}")
    return args


def _setup_logging(level: str) -> None:
    root = logging.getLogger()
    root.handlers.clear()
    root.setLevel(level.upper())
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)


def _exit_status(status: int) -> int:
    """``status``; or an immediate exit with it while an agent is still built in the background
    (Ctrl-C during a build): tearing the interpreter down under numba's compiler can abort."""
    from dlgo.play.agents import AGENT_BUILD_THREAD

    if any(t.name == AGENT_BUILD_THREAD and t.is_alive() for t in threading.enumerate()):
        logging.shutdown()
        sys.stderr.flush()
        os._exit(status)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    source, output = Path(args.source), Path(args.output)
    if not source.exists():
        print(f"{PROG}: {source}: no such file or folder", file=sys.stderr)
        return 2
    if source.is_dir() and output.exists() and not output.is_dir():
        print(f"{PROG}: {output}: a folder is reviewed into a folder, and this is a file", file=sys.stderr)
        return 2
    config_path = args.config if args.config is not None else default_config_path()
    try:
        config = load_config(config_path, args.set)
        check_model_files(config)
    except ConfigError as e:
        print(f"{PROG}: config error: {e}", file=sys.stderr)
        return 2
    _setup_logging(config.get("log.level"))

    from dlgo.play.session import PlaySession
    from dlgo_review.jobs import find_jobs
    from dlgo_review.runner import review_jobs

    jobs = find_jobs(source, output)
    if not jobs:
        print(f"{PROG}: {source}: no .sgf records found", file=sys.stderr)
        return 1
    outcome = review_jobs(
        PlaySession(config), jobs, args.visits, resume=source.is_dir() and not args.force, progress=args.progress
    )
    summary = f"{outcome.reviewed} reviewed, {outcome.skipped} skipped (already reviewed), {outcome.failed} failed"
    if outcome.interrupted:
        print(f"{PROG}: interrupted: {summary}; run the same command again to go on", file=sys.stderr)
        return _exit_status(130)
    print(f"{PROG}: {summary}", file=sys.stderr)
    if outcome.failed:
        print(f"{PROG}: {outcome.failed} of {len(jobs)} record(s) failed", file=sys.stderr)
    return _exit_status(1 if outcome.failed else 0)


if __name__ == "__main__":
    sys.exit(main())
