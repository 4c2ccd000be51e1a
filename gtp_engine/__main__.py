"""Command line: ``python -m gtp_engine [--config FILE] [--set key=value ...]`` (also ``dlgo-gtp``).

Without ``--config`` the engine plays the repository's ``configs/engine/default.toml`` (the built-in
defaults only when that file is not there, e.g. the package installed on its own).

Speaks GTP on stdin/stdout. Before anything else, file descriptor 1 is moved aside for GTP
responses and pointed at stderr, so nothing else (library prints, C extensions, TensorFlow's
banners) can ever reach the controller. A bad config, or a model file it names that is missing
or damaged, is one line on stderr and exit status 2, before any GTP is read. ``--prepare`` makes
what the config's networks need before a game (their int8 models) and exits: the set-up runs it.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Sequence

from dlgo.play.config import (
    Config,
    ConfigError,
    check_model_files,
    default_config_path,
    int8_model_files,
    load_config,
    model_files,
)
from dlgo.play.process import exit_status, reserve_stdout, setup_logging

__all__ = ["main"]

_CHAT_WORDS = re.compile(r"(DISCUSSION|MALKOVICH|MAIN):")


class _NoChatFilter(logging.Filter):
    """gtp2ogs turns stderr lines containing ``MAIN:`` and friends into chat: not for logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if _CHAT_WORDS.search(message):
            record.msg = _CHAT_WORDS.sub(r"\1 :", message)
            record.args = None
        return True


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="dlgo-gtp",
        description="The dlgo Go engine speaking GTP on stdin/stdout.",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="TOML config (default: the repository's configs/engine/default.toml, Zero search on 9x9, 13x13, 19x19)",
    )
    parser.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override a config key, e.g. --set mcts.rounds=5000 (repeatable)",
    )
    parser.add_argument(
        "--version",
        action="store_true",
        help="print the version, the config and the networks it plays (and where each is loaded from), and exit",
    )
    parser.add_argument(
        "--prepare",
        action="store_true",
        help="make what a game would wait for (the networks' int8 models, printed; the agents' compiled "
        "kernels, warmed up) and exit",
    )
    return parser.parse_args(argv)


def _print_version(config: Config) -> int:
    """``--version``: the engine's version, its config, its networks and opening books, on stdout."""
    from dlgo import __version__
    from dlgo.play.config import describe_books, describe_networks

    print(f"dlgo-gtp {__version__} (Python {sys.version.split()[0]})")
    print(f"config: {config.path or 'built-in defaults'}")
    for line in describe_networks(config) or ["none (the config plays no network)"]:
        print(f"network {line}")
    for line in describe_books(config):
        print(f"opening book {line}")
    return 0


def _prepare(config: Config) -> int:
    """``--prepare``: what a game would otherwise wait for, made now (in this process, no game
    running): the int8 model of every network the config plays on int8 (its file printed), then
    every agent the engine builds at start-up, built and warmed up once, so that numba's kernels
    are compiled into their cache (half a minute on 2 cores after a fresh checkout or an update).
    One line on stderr per network or agent that fails, exit status 1 if any did; a config whose
    model files are missing (weights still to train) warms no agent and says so, with status 0."""
    import time

    from dlgo.inference.files import load_model
    from dlgo.inference.quantize import ensure_int8
    from dlgo.play.agents import AgentPool

    status = 0
    for path in int8_model_files(config):
        try:
            print(ensure_int8(load_model(path, lazy=True)), flush=True)
        except Exception as e:  # a damaged model, no quantization tools: the engine plays fp32
            print(f"dlgo-gtp: --prepare: {path}: int8 model not made: {e}", file=sys.stderr)
            status = 1
    from dlgo.inference.files import network_file

    missing = [path for _, path in model_files(config) if path and not network_file(path).exists()]
    if missing:  # weights still to train or fetch (the engine refuses this config until then)
        print(f"dlgo-gtp: --prepare: no agent warmed: {', '.join(missing)}: not found", file=sys.stderr)
        return status
    try:
        check_model_files(config)
    except ConfigError as e:  # a damaged or unfit model file
        print(f"dlgo-gtp: --prepare: no agent warmed: {e}", file=sys.stderr)
        return 1
    logging.disable(logging.CRITICAL)  # a failed build is the one line below, not a traceback too
    pool = AgentPool(config)
    for size in pool.startup_sizes():
        started = time.monotonic()
        try:
            build = pool.build_now(size)
        except Exception as e:  # noqa: BLE001 - no agent plays this size: nothing to warm
            print(f"dlgo-gtp: --prepare: {size}x{size}: {e}", file=sys.stderr)
            continue
        if build.error is not None:
            print(f"dlgo-gtp: --prepare: {size}x{size}: {build.error}", file=sys.stderr)
            status = 1
        else:
            seconds = time.monotonic() - started
            print(f"dlgo-gtp: --prepare: agent {build.name} for {size}x{size} warm ({seconds:.1f} s)", file=sys.stderr)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.config is None:
        args.config = default_config_path()  # the shipped default: what the README's quick start plays
    try:
        config = load_config(args.config, args.set)
        if args.version:
            return _print_version(config)
        if args.prepare:  # each failure is its own line
            return _prepare(config)
        check_model_files(config)  # now, not as a `?` at the first genmove of a game
    except ConfigError as e:
        print(f"dlgo-gtp: config error: {e}", file=sys.stderr)
        return 2
    log_file = config.resolve_path(config.get("log.file"))
    try:
        setup_logging(config.get("log.level"), log_file, [_NoChatFilter()])
    except OSError as e:
        print(
            f"dlgo-gtp: config error: {args.config or 'defaults'}: log.file: cannot open {log_file}: {e}",
            file=sys.stderr,
        )
        return 2

    from dlgo.play.memory import tune_malloc

    tune_malloc()  # before any thread: days of games must not grow the heap (dlgo.play.memory)
    gtp_out = reserve_stdout()
    from dlgo.play.clock import process_started
    from gtp_engine.channel import Channel, OutputClosed
    from gtp_engine.engine import Engine

    channel = Channel(sys.stdin.buffer, gtp_out, backlog_since=process_started())
    engine = Engine(config, channel)
    log = logging.getLogger("gtp_engine")
    log.info("ready: agent %s, config %s", config.agent_name(), config.path or "defaults")
    try:
        status = engine.run()
    except OutputClosed:
        log.info("the controller closed our output")
        status = 0
    except KeyboardInterrupt:
        status = 130
    finally:
        try:
            gtp_out.close()
        except OSError:
            pass
    return exit_status(status)


if __name__ == "__main__":
    sys.exit(main())
