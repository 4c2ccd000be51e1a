"""Command line: ``dlgo-review GAME.sgf -o REVIEWED.sgf`` or ``dlgo-review FOLDER -o OUTFOLDER``
(also ``python -m dlgo_review``).

Every move of a record searched by the config's agent for its board size (the analysis engine's
library, ``dlgo.analysis.Analyzer``: several positions at once on shared network batches) and
annotated as SGF:
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
import sys
from collections.abc import Sequence
from pathlib import Path

from dlgo.play.process import exit_status, load_checked_config, setup_logging

__all__ = ["main"]

PROG = "dlgo-review"
DEFAULT_VISITS = 100
CLOSE_TIMEOUT = 5.0  # seconds to wait for the analysis threads at the end
DEFAULT_THREADS = 4  # dlgo.analysis.analyzer.DEFAULT_THREADS (not imported: --help stays quick)


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
        "--threads",
        type=int,
        default=DEFAULT_THREADS,
        help=f"positions searched at once, on shared network batches (default {DEFAULT_THREADS})",
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
    if args.threads < 1:
        parser.error(f"--threads must be at least 1, got {args.threads}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    source, output = Path(args.source), Path(args.output)
    if not source.exists():
        print(f"{PROG}: {source}: no such file or folder", file=sys.stderr)
        return 2
    if source.is_dir() and output.exists() and not output.is_dir():
        print(f"{PROG}: {output}: a folder is reviewed into a folder, and this is a file", file=sys.stderr)
        return 2
    config = load_checked_config(PROG, args.config, args.set)
    if config is None:
        return 2
    setup_logging(config.get("log.level"))

    from dlgo.analysis import Analyzer
    from dlgo_review.jobs import find_jobs, writes_over_its_record
    from dlgo_review.runner import review_jobs

    jobs = find_jobs(source, output)
    if not jobs:
        print(f"{PROG}: {source}: no .sgf records found", file=sys.stderr)
        return 1
    overwritten = next((job.source for job in jobs if writes_over_its_record(job)), None)
    if overwritten is not None:
        print(
            f"{PROG}: {overwritten}: the review would overwrite the record itself; give -o another path",
            file=sys.stderr,
        )
        return 2
    analyzer = Analyzer(config, threads=args.threads)
    try:
        outcome = review_jobs(
            analyzer, jobs, args.visits, resume=source.is_dir() and not args.force, progress=args.progress
        )
    finally:  # also on Ctrl-C: the searches under way end, an agent build is not waited for long
        analyzer.scheduler.close(finish=False, timeout=CLOSE_TIMEOUT)
    summary = f"{outcome.reviewed} reviewed, {outcome.skipped} skipped (already reviewed), {outcome.failed} failed"
    if outcome.interrupted:
        print(f"{PROG}: interrupted: {summary}; run the same command again to go on", file=sys.stderr)
        return exit_status(130)
    print(f"{PROG}: {summary}", file=sys.stderr)
    if outcome.failed:
        print(f"{PROG}: {outcome.failed} of {len(jobs)} record(s) failed", file=sys.stderr)
    return exit_status(1 if outcome.failed else 0)


if __name__ == "__main__":
    sys.exit(main())
