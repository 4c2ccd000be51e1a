"""Command line: ``python -m dlgo_ogs [OPTIONS] -- [GTP2OGS ARGUMENTS]``.

Hosts games on a local stand-in for the OGS server, starts gtp2ogs against it (with ``--server``
and ``--apikey`` added to the arguments after ``--``), plays the opponent through GTP (GNU Go
level 1 by default), and writes ``game-<id>.sgf``, ``summary.json`` and ``gtp2ogs.log`` to
``--out``. Every game either comes from the flags (``--games N`` alike) or from ``--game SPEC``
(repeatable; keys size, clock, speed, bot, handicap, free, komi, resign, kill, drop, count)::

    python -m dlgo_ogs --games 1 --size 9 --clock byoyomi:0:10:3 --out runs/ogs-rehearsal \\
        -- --config configs/ogs/gtp2ogs.json5

Exit status: 0 when every game finished with no illegal move, no move after time-out and no
time-out of the bot; 1 otherwise (the problems on stderr and in the summary); 2 for a bad
argument; 130 after Ctrl-C or SIGTERM (gtp2ogs and its engines are stopped, records written).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import shlex
import shutil
import signal
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from dlgo_ogs.clock import SPEEDS, TimeControl
from dlgo_ogs.session import GNUGO_OPPONENT, GNUGO_REFEREE, SessionOptions, run_session
from dlgo_ogs.spec import GameSpec, parse_game_spec

__all__ = ["main"]

PROG = "python -m dlgo_ogs"


def _parse_args(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    argv = list(argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    own, passed = argv[:cut], argv[cut + 1 :]
    p = argparse.ArgumentParser(
        prog=PROG,
        description="A local stand-in for the OGS server: plays games through the real gtp2ogs against a GTP "
        "opponent, keeping OGS's clock, and writes SGF records and a JSON summary. Arguments after -- go to gtp2ogs.",
    )
    p.add_argument("--games", type=int, default=1, help="games alike, from the flags below (default 1)")
    p.add_argument("--size", type=int, default=9, help="board size (default 9)")
    p.add_argument(
        "--clock",
        default="byoyomi:60:10:3",
        help="byoyomi:MAIN:PERIOD:PERIODS, canadian:MAIN:PERIOD:"
        "STONES, fischer:INITIAL:INCREMENT:MAX, simple:PER_MOVE or absolute:TOTAL, in seconds",
    )
    p.add_argument("--speed", choices=SPEEDS, help="OGS's speed class (default: from the clock)")
    p.add_argument("--bot-color", choices=("black", "white", "alternate"), default="alternate")
    p.add_argument("--handicap", type=int, default=0, help="handicap stones, 2-9 (default none)")
    p.add_argument("--free-handicap", action="store_true", help="Black places them as moves (fixed otherwise)")
    p.add_argument("--komi", type=float, help="default 7.5, or 0.5 with handicap")
    p.add_argument("--opponent-resigns-at", type=int, default=0, metavar="MOVE", help="the opponent resigns then")
    p.add_argument(
        "--kill-engine-at",
        type=int,
        default=0,
        metavar="MOVE",
        help="SIGKILL gtp2ogs's engines while the bot thinks on this move",
    )
    p.add_argument(
        "--drop-connection-at",
        type=int,
        default=0,
        metavar="MOVE",
        help="cut the WebSocket while the bot thinks on this move (gtp2ogs reconnects)",
    )
    p.add_argument(
        "--game",
        action="append",
        default=[],
        metavar="SPEC",
        help="a game (or count=N of them), "
        "e.g. size=13,clock=fischer:60:10:120,bot=black,handicap=4,free,speed=live,resign=40",
    )
    p.add_argument("--opponent", default=shlex.join(GNUGO_OPPONENT), help="the opponent's GTP command")
    p.add_argument(
        "--opponent-min-seconds",
        type=float,
        default=0.3,
        help="the opponent never answers faster (default 0.3: gtp2ogs drops chats after faster answers)",
    )
    p.add_argument("--referee", default=shlex.join(GNUGO_REFEREE), help="GNU Go command that checks and scores")
    p.add_argument("--gtp2ogs", default="gtp2ogs", help="how to run gtp2ogs (a .js file runs with node)")
    p.add_argument("--bot-name", default="dlgo-bot", help="the bot's username")
    p.add_argument("--apikey", default="", help="the key gtp2ogs must present (default: a random one)")
    p.add_argument(
        "--parallel",
        type=int,
        default=0,
        help="games in play at once; the next starts as one ends (default: all at once)",
    )
    p.add_argument("--timeout", type=float, default=3600, help="seconds for the whole session (default 3600)")
    p.add_argument("--out", type=Path, default=Path("runs/ogs-standin"), help="folder for records and summary")
    p.add_argument("-q", "--quiet", action="store_true", help="only the result lines on stderr")
    return p.parse_args(own), passed


def _specs(args: argparse.Namespace) -> list[GameSpec]:
    base = GameSpec(
        size=args.size,
        clock=TimeControl.parse(args.clock, args.speed),
        bot_color="white" if args.bot_color == "alternate" else args.bot_color,
        handicap=args.handicap,
        free_handicap=args.free_handicap,
        komi=args.komi,
        opponent_resigns_at=args.opponent_resigns_at,
        kill_engine_at=args.kill_engine_at,
        drop_connection_at=args.drop_connection_at,
    )
    if args.game:
        specs = []
        for text in args.game:
            spec, count = parse_game_spec(text, base)
            specs += [spec] * count
        return specs
    colours = ("white", "black") if args.bot_color == "alternate" else (args.bot_color,)
    return [replace(base, bot_color=colours[i % len(colours)]) for i in range(args.games)]


def _gtp2ogs_command(text: str) -> list[str]:
    command = shlex.split(text)
    if command and command[0].endswith(".js"):
        command = ["node", *command]
    return command


def main(argv: Sequence[str] | None = None) -> int:
    args, passed = _parse_args(sys.argv[1:] if argv is None else argv)
    try:
        specs = _specs(args)
    except ValueError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    if importlib.util.find_spec("websockets") is None:
        print(
            f"{PROG}: needs the Python package websockets: pip install 'dlgo-engine[ogs]' (or 'websockets>=12')",
            file=sys.stderr,
        )
        return 2
    gtp2ogs = _gtp2ogs_command(args.gtp2ogs)
    for what, command in (
        ("gtp2ogs", gtp2ogs),
        ("opponent", shlex.split(args.opponent)),
        ("referee", shlex.split(args.referee)),
    ):
        if not command or shutil.which(command[0]) is None:
            print(f"{PROG}: {what} command not found: {command[:1]}", file=sys.stderr)
            return 2
    options = SessionOptions(
        games=specs,
        gtp2ogs=gtp2ogs,
        gtp2ogs_args=passed,
        out=args.out,
        opponent=shlex.split(args.opponent),
        referee=shlex.split(args.referee),
        bot_name=args.bot_name,
        apikey=args.apikey,
        timeout=args.timeout,
        parallel=args.parallel,
        opponent_min_seconds=args.opponent_min_seconds,
    )

    def log(message: str) -> None:
        if not args.quiet:
            print(f"dlgo_ogs: {message}", file=sys.stderr, flush=True)

    try:
        summary = asyncio.run(_run(options, log))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print(f"{PROG}: stopped; gtp2ogs and its engines are stopped, records in {args.out}", file=sys.stderr)
        return 130
    for game in summary["games"]:
        print(
            f"game {game['game_id']}: {game['result']} ({game['reason']}), the bot ({game['bot_color']}) "
            f"{'won' if game['winner'] == 'bot' else 'did not win'}; {game['sgf']}",
            file=sys.stderr,
        )
    for problem in summary["problems"]:
        print(f"{PROG}: problem: {problem}", file=sys.stderr)
    print(f"{PROG}: summary in {args.out / 'summary.json'}", file=sys.stderr)
    return 0 if summary["ok"] else 1


async def _run(options: SessionOptions, log) -> dict:
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    return await run_session(options, log)


if __name__ == "__main__":
    sys.exit(main())
