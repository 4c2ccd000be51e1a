"""Command line: ``python -m dlgo_analysis [--config FILE] [--set key=value ...]`` (also ``dlgo-analysis``).

KataGo's JSON analysis engine protocol on stdin/stdout (docs/analysis.md), with the agents of
the engine config (default: the repository's ``configs/engine/default.toml``, as ``dlgo-gtp``).
Logs go to stderr; stdout carries JSON lines only. A bad config, or a model file it names that
is missing or damaged, is one line on stderr and exit status 2, before any input is read.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from dlgo.analysis import DEFAULT_MAX_QUEUED, DEFAULT_MAX_QUEUED_BYTES, DEFAULT_THREADS
from dlgo.analysis.perspective import REPORT_AS
from dlgo.play.process import exit_status, load_checked_config, reserve_stdout, setup_logging

__all__ = ["main"]

PROG = "dlgo-analysis"
# KataGo's analysis_example.cfg searches 500 visits when a query names none
DEFAULT_VISITS = 500


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="The dlgo Go engine speaking KataGo's JSON analysis protocol on stdin/stdout.",
    )
    parser.add_argument("--config", metavar="FILE", help="TOML engine config (default: configs/engine/default.toml)")
    parser.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override a config key, e.g. --set analysis.max_visits=20000 (repeatable)",
    )
    parser.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error", "critical"),
        help="logging level on stderr (default: the config's log.level)",
    )
    parser.add_argument(
        "--threads",
        type=_positive,
        default=DEFAULT_THREADS,
        help=f"positions searched at once, sharing the network's batches (KataGo's numAnalysisThreads; "
        f"default {DEFAULT_THREADS})",
    )
    parser.add_argument(
        "--max-queued",
        type=_positive,
        default=DEFAULT_MAX_QUEUED,
        help=f"turns waiting at most; a query that would overflow the queue is refused (default {DEFAULT_MAX_QUEUED})",
    )
    parser.add_argument(
        "--max-queued-mb",
        type=_positive,
        default=DEFAULT_MAX_QUEUED_BYTES >> 20,
        help="megabytes the records of the waiting turns may hold (each record once); a query that would "
        f"overflow them is refused (default {DEFAULT_MAX_QUEUED_BYTES >> 20})",
    )
    parser.add_argument(
        "--max-visits",
        type=_positive,
        default=DEFAULT_VISITS,
        help=f"visits of a query that gives no maxVisits (KataGo's config maxVisits; default {DEFAULT_VISITS})",
    )
    parser.add_argument(
        "--report-as",
        choices=REPORT_AS,
        type=str.upper,
        default="BLACK",
        help="whose view values are reported from unless a query's overrideSettings say "
        "(KataGo's reportAnalysisWinratesAs; default BLACK, as KataGo's analysis configs and KaTrain)",
    )
    parser.add_argument(
        "--quit-without-waiting",
        action="store_true",
        help="at the end of the input, terminate the queued analysis instead of finishing it",
    )
    return parser.parse_args(argv)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    config = load_checked_config(PROG, args.config, args.set)
    if config is None:
        return 2
    path = config.path
    log_file = config.resolve_path(config.get("log.file"))
    try:
        setup_logging(args.log_level or config.get("log.level"), log_file)
    except OSError as e:
        print(f"{PROG}: config error: {path or 'defaults'}: log.file: cannot open {log_file}: {e}", file=sys.stderr)
        return 2

    from dlgo.play.memory import tune_malloc

    tune_malloc()  # before any thread: a long review must not grow the heap
    out = reserve_stdout()
    from dlgo.analysis import Analyzer
    from dlgo_analysis.engine import AnalysisEngine
    from dlgo_analysis.output import JsonWriter
    from dlgo_analysis.protocol import Limits

    analyzer = Analyzer(
        config, threads=args.threads, max_queued=args.max_queued, max_queued_bytes=args.max_queued_mb << 20
    )
    if config.get("engine.preload"):
        analyzer.preload()
    limits = Limits(visit_cap=analyzer.visit_cap, max_visits=args.max_visits, report_as=args.report_as)
    engine = AnalysisEngine(analyzer, JsonWriter(out), limits)
    log = logging.getLogger("dlgo_analysis")
    log.info("ready: %d threads, config %s", args.threads, config.path or "defaults")
    print("Started, ready to begin handling requests", file=sys.stderr, flush=True)  # KataGo's line
    try:
        status = engine.run(sys.stdin.buffer, quit_without_waiting=args.quit_without_waiting)
    except KeyboardInterrupt:
        status = 130
    return _exit(status, out)


def _exit(status: int, out) -> int:
    """``status`` once the answers' stream is closed (``exit_status``: at once while an agent is
    still being built)."""
    try:
        out.close()
    except OSError:
        pass
    return exit_status(status)


if __name__ == "__main__":
    sys.exit(main())
