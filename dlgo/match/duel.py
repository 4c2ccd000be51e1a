"""Duel: our engine (or any GTP engine) against GNU Go, Pachi or any GTP command, N games.

Run as ``dlgo-duel`` (the console script) or ``python -m dlgo.match.duel``.

Examples::

    dlgo-duel --engine configs/engine/mcts.toml --opponent gnugo --level 10 --size 9 \\
        --games 20 -j 2 --seconds-per-move 1 --out runs/duel-mcts-9x9
    dlgo-duel --engine configs/engine/mcts.toml --opponent-cmd "pachi -t =5000 threads=1" \\
        --visits 2000 --games 10
    dlgo-duel --engine configs/engine/mcts.toml --main-time 60 --byo-yomi 5 --stones 1 --games 4
    dlgo-duel --engine configs/engine/default.toml --opponent pachi --size 19 --main-time 300 --byo-yomi 10 --periods 5

A player is ``gnugo``, ``pachi``, a ``.toml`` config of this project's engine, or (with
``--engine-cmd`` / ``--opponent-cmd``) any GTP command line. Rerunning with the same ``--out``
resumes: finished games are kept, the rest are played. Ctrl-C keeps every finished game and
writes the summary so far. Exit status: 0 done, 130 interrupted, 2 bad arguments or an engine
that does not start.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from dlgo.match import (
    ClockSettings,
    GameRules,
    MatchError,
    MatchSettings,
    PlayerSpec,
    command_player,
    player_from_text,
    run_match,
)
from dlgo.match.openings import load_openings
from dlgo.match.summary import summary_text

ROOT = Path(__file__).resolve().parents[2]  # the checkout: configs/... resolve here from anywhere


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dlgo-duel",
        description="Play a match between two GTP engines, with SGFs and a summary (win rate, Elo, p-value).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    who = p.add_argument_group("players")
    who.add_argument(
        "--engine", default="configs/engine/mcts.toml", help="gnugo, pachi, a .toml engine config, or a command"
    )
    who.add_argument("--engine-cmd", help="the first player as a GTP command line (instead of --engine)")
    who.add_argument("--engine-name", help="label of the first player in tables and SGF")
    who.add_argument(
        "--engine-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra --set override for our engine (repeatable)",
    )
    who.add_argument("--opponent", default="gnugo", help="gnugo, pachi, a .toml engine config, or a command")
    who.add_argument("--opponent-cmd", help='the opponent as a GTP command line, e.g. "pachi -t =5000 threads=1"')
    who.add_argument("--opponent-name", help="label of the opponent")
    who.add_argument(
        "--opponent-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra --set override when the opponent is our engine (repeatable)",
    )
    who.add_argument("--level", type=int, default=10, help="GNU Go level")
    who.add_argument(
        "--no-time-commands",
        action="store_true",
        help="never send time_settings to --engine-cmd/--opponent-cmd engines in --seconds-per-move mode",
    )

    game = p.add_argument_group("games")
    game.add_argument("--games", type=int, default=10, help="number of games (colours alternate)")
    game.add_argument("-j", "--jobs", type=int, default=1, help="games played at once (worker processes)")
    game.add_argument("--size", type=int, default=9, help="board size")
    game.add_argument("--komi", type=float, default=None, help="komi (default 7.5, or 0.5 with a handicap)")
    game.add_argument("--handicap", type=int, default=0, help="handicap stones for Black (0 or 2+)")
    game.add_argument("--free-handicap", action="store_true", help="free placement (place_free_handicap) not fixed")
    game.add_argument("--max-moves", type=int, help="stop and count a game after this many moves (default 3 x points)")
    game.add_argument(
        "--dead-stones",
        choices=("union", "agreed"),
        default="union",
        help="which of the players' dead-stone lists to remove before counting",
    )
    game.add_argument("--no-gnugo-check", action="store_true", help="do not cross-check the count with GNU Go")
    game.add_argument(
        "--openings",
        nargs="+",
        metavar="SGF",
        help="start each pair of games (colours swapped) from the next of these SGF files or folders of them "
        "(their main line's moves; GoGui twogtp's -openings)",
    )

    clock = p.add_argument_group("time (pick one way, or combine visits with a clock)")
    clock.add_argument("--seconds-per-move", type=float, help="thinking time per move (no clock kept)")
    clock.add_argument("--visits", type=int, help="search visits per move for our engine (mcts.rounds)")
    clock.add_argument("--main-time", type=float, help="referee clock: main time in seconds")
    clock.add_argument("--byo-yomi", type=float, default=0.0, help="referee clock: Canadian byo-yomi period (s)")
    clock.add_argument("--stones", type=int, default=0, help="referee clock: stones per byo-yomi period")
    clock.add_argument(
        "--periods",
        type=int,
        default=0,
        help="referee clock: Japanese byo-yomi (OGS, KGS), this many periods of --byo-yomi seconds (not --stones)",
    )
    clock.add_argument("--lag-allowance", type=float, default=0.2, help="seconds per move not charged to a clock")
    clock.add_argument(
        "--move-timeout",
        type=float,
        help="outside a clock, a player silent this long has hung (default: 10 x seconds-per-move, "
        "at least 60; 600 with visits)",
    )

    out = p.add_argument_group("output")
    out.add_argument("--out", help="output folder (default runs/duel-ENGINE-vs-OPPONENT-SIZE); rerun to resume")
    out.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _player(
    text: str | None, cmd: str | None, name: str | None, sets: list[str], level: int, time_commands: bool
) -> PlayerSpec:
    if cmd:
        return command_player(cmd, name, time_commands=time_commands)
    text = (text or "").strip()
    if text.endswith(".toml") and not Path(text).exists() and (ROOT / text).is_file():
        text = str(ROOT / text)  # configs/... from outside the checkout
    return player_from_text(text, level=level, label=name, sets=tuple(sets))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:40]


def build_settings(args: argparse.Namespace) -> MatchSettings:
    """MatchSettings from parsed arguments (ValueError / FileNotFoundError on bad ones)."""
    time_commands = not args.no_time_commands
    engine = _player(args.engine, args.engine_cmd, args.engine_name, args.engine_set, args.level, time_commands)
    opponent = _player(
        args.opponent, args.opponent_cmd, args.opponent_name, args.opponent_set, args.level, time_commands
    )
    if opponent.label == engine.label and not args.opponent_name:
        opponent = PlayerSpec(**{**opponent.__dict__, "label": opponent.label + "-2"})
    clock = None
    if args.main_time is not None or args.byo_yomi:
        clock = ClockSettings(args.main_time or 0.0, args.byo_yomi, args.stones, args.periods)
    if clock is not None and args.seconds_per_move is not None:
        raise ValueError("--seconds-per-move and a referee clock (--main-time/--byo-yomi) exclude each other")
    komi = args.komi if args.komi is not None else (0.5 if args.handicap else 7.5)
    rules = GameRules(
        size=args.size,
        komi=komi,
        handicap=args.handicap,
        handicap_type="free" if args.free_handicap else "fixed",
        seconds_per_move=args.seconds_per_move,
        visits=args.visits,
        clock=clock,
        move_timeout=args.move_timeout,
        lag_allowance=args.lag_allowance,
        max_moves=args.max_moves,
        dead_stones=args.dead_stones,
        openings=load_openings(args.openings, args.size) if args.openings else (),
    )
    return MatchSettings(engine, opponent, args.games, rules, jobs=args.jobs, gnugo_check=not args.no_gnugo_check)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = build_settings(args)
    except (ValueError, FileNotFoundError) as e:
        print(f"duel: {e}", file=sys.stderr)
        return 2
    out = Path(args.out or f"runs/duel-{_slug(settings.engine.label)}-vs-{_slug(settings.opponent.label)}-{args.size}")
    print(
        f"duel: {settings.engine.label} vs {settings.opponent.label}, {args.games} games, "
        f"{settings.describe()}, -j {args.jobs}, output {out}",
        file=sys.stderr,
    )
    try:
        result = run_match(settings, out, progress=not args.no_progress)
    except MatchError as e:
        print(f"duel: {e}", file=sys.stderr)
        return 2
    for error in result.errors:
        print(f"duel: referee error in {error}", file=sys.stderr)
    print(summary_text(result.summary, header=f"# {settings.describe()}; output {out}"), end="")
    print(
        f"# {len(result.records)} games in {out}/results.jsonl, SGFs in {out}/games, "
        f"this run took {result.elapsed:.0f} s"
    )
    if result.interrupted:
        print("duel: interrupted; rerun the same command to play the remaining games", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
