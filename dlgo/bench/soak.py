"""Days without a restart: one engine process plays many games, as a bot on a server does.

One ``dlgo-gtp`` process plays game after game against GNU Go (``clear_board`` between them),
under the clocks gtp2ogs announces (``kgs-time_settings byoyomi``, ``kgs-time_settings canadian``,
``kata-time_settings fischer-capped``, in turn) with a ``time_left`` before every ``genmove``, as
gtp2ogs sends them. The driver keeps the engine's clock itself, charging each move's wall time
as the server would, and reports a time loss when a clock falls. After every game it reads the
engine's resident memory, open file descriptors, threads and child processes from ``/proc``.

    python -m dlgo.bench.soak --games9 300 --games19 20 --out runs/soak          # docs/ogs.md
    python -m dlgo.bench.soak --games9 20 --profile live --out runs/soak-live    # a short run

One JSON line a game (``games.jsonl`` in ``--out``) as it finishes, then a summary
(``summary.json``) and the figures for docs/ogs.md on stdout. ``--profile corr`` plays
correspondence clocks (a day a move, the engine's ``time.max_seconds`` caps its thinking): what
the many-games benchmark (``python -m dlgo.bench.many_games``) runs beside live games.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dlgo.goboard import GameState
from dlgo.match.gtp_client import GtpClientError, GtpProcess
from dlgo.match.players import find_gnugo
from dlgo.match.record import parse_move
from dlgo.utils import move_to_text

__all__ = ["ClockSpec", "GameClock", "ProcessStats", "process_stats", "play_soak_game", "main"]

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ClockSpec:
    """A clock as gtp2ogs announces it. ``system``: byoyomi (``main`` s, then ``periods`` of
    ``period`` s), canadian (``main`` s, then ``stones`` moves in every ``period`` s) or
    fischer (``main`` s, ``increment`` s a move, never above ``cap``)."""

    system: str
    main: float
    period: float = 0.0
    periods: int = 0
    stones: int = 0
    increment: float = 0.0
    cap: float = 0.0

    def command(self) -> str:
        if self.system == "byoyomi":
            return f"kgs-time_settings byoyomi {self.main:g} {self.period:g} {self.periods}"
        if self.system == "canadian":
            return f"kgs-time_settings canadian {self.main:g} {self.period:g} {self.stones}"
        return f"kata-time_settings fischer-capped {self.main:g} {self.increment:g} {self.cap:g} -1"


# Fast clocks for the soak (a few tenths of a second a move) and a day a move for correspondence.
PROFILES: dict[str, dict[int, list[ClockSpec]]] = {
    "live": {
        9: [
            ClockSpec("byoyomi", 2, period=1, periods=3),
            ClockSpec("canadian", 5, period=5, stones=10),
            ClockSpec("fischer", 5, increment=0.5, cap=10),
        ],
        19: [
            ClockSpec("byoyomi", 10, period=1, periods=3),
            ClockSpec("canadian", 10, period=15, stones=25),
            ClockSpec("fischer", 10, increment=0.5, cap=20),
        ],
    },
    "corr": {size: [ClockSpec("fischer", 86400, increment=86400, cap=3 * 86400)] for size in (9, 19)},
}


class GameClock:
    """One player's clock under a :class:`ClockSpec`, charged with each move's wall time."""

    def __init__(self, spec: ClockSpec) -> None:
        self.spec = spec
        self.main = spec.main
        self.period_left = spec.period
        self.periods = spec.periods
        self.stones = spec.stones
        self.flagged = False

    def time_left(self) -> tuple[float, int]:
        """What ``time_left`` says now: (seconds, stones or periods; 0 in main time)."""
        spec = self.spec
        if spec.system == "fischer" or self.main > 0:
            return self.main, 0
        if spec.system == "byoyomi":
            return spec.period, self.periods
        return self.period_left, self.stones

    def spend(self, seconds: float) -> None:
        spec = self.spec
        if spec.system == "fischer":
            self.main -= seconds
            self.flagged |= self.main < 0
            self.main = min(spec.cap, self.main + spec.increment)
            return
        if self.main > 0:
            used = min(self.main, seconds)
            self.main -= used
            seconds -= used
            if self.main > 0 or seconds == 0:
                return
        if spec.system == "byoyomi":
            while seconds > spec.period and self.periods > 0:
                seconds -= spec.period
                self.periods -= 1
            self.flagged |= self.periods == 0 or seconds > spec.period
            return
        self.period_left -= seconds
        self.flagged |= self.period_left < 0
        self.stones -= 1
        if self.stones == 0:
            self.period_left, self.stones = spec.period, spec.stones


@dataclass
class ProcessStats:
    rss_mb: float
    fds: int
    threads: int
    children: int
    pss_mb: float = 0.0  # the process's share of its pages: what N engines together cost is the sum


def process_stats(pid: int) -> ProcessStats:
    """Resident memory, open descriptors, threads and living child processes of ``pid`` (Linux)."""
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss_kb = int(fields["VmRSS"].split()[0])
    threads = int(fields["Threads"])
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    children = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                children += 1
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
        pss_kb = next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
    except (OSError, StopIteration):
        pss_kb = 0
    return ProcessStats(round(rss_kb / 1024, 1), fds, threads, children, round(pss_kb / 1024, 1))


@dataclass
class GameReport:
    index: int
    size: int
    clock: str
    engine_colour: str
    moves: int
    result: str
    time_loss: bool
    longest_move: float
    seconds: float
    stats: ProcessStats
    errors: list[str] = field(default_factory=list)


def play_soak_game(engine: GtpProcess, gnugo: GtpProcess, size: int, spec: ClockSpec, engine_black: bool) -> dict:
    """One game between the two running processes; the engine's clock kept here."""
    for proc in (engine, gnugo):
        proc.send(f"boardsize {size}")
        proc.send("clear_board")
        proc.send("komi 7")
    engine.send(spec.command())
    ours, theirs = ("b", "w") if engine_black else ("w", "b")
    clock = GameClock(spec)
    state = GameState.new_game(size)
    colour = "b"
    passes = moves = 0
    longest = 0.0
    result = ""
    while moves < 3 * size * size:
        if colour == ours:
            seconds, count = clock.time_left()
            engine.send(f"time_left {ours} {max(0, int(seconds))} {count}")
            started = time.monotonic()
            answer = engine.send(f"genmove {ours}", timeout=max(60.0, seconds + 60))
            spent = time.monotonic() - started
            longest = max(longest, spent)
            clock.spend(spent)
            move = parse_move(answer)
            if not move.is_resign:
                gnugo.send(f"play {ours} {move_to_text(move)}")
        else:
            move = parse_move(gnugo.send(f"genmove {theirs}"))
            if not move.is_resign:
                engine.send(f"play {theirs} {move_to_text(move)}")
        moves += 1
        if move.is_resign:
            result = f"{'W' if colour == 'b' else 'B'}+R"
            break
        state = state.apply_move(move)
        passes = passes + 1 if move.is_pass else 0
        if passes == 2:
            result = gnugo.send("final_score")
            break
        colour = "w" if colour == "b" else "b"
    return {"moves": moves, "result": result, "time_loss": clock.flagged, "longest_move": round(longest, 3)}


def _engine_argv(config: str | None, sets: list[str]) -> list[str]:
    argv = [sys.executable, "-m", "gtp_engine"]
    if config:
        argv += ["--config", config]
    for s in sets:
        argv += ["--set", s]
    return argv


def _sample(pid: int, path: Path, every: float, stop: threading.Event) -> None:
    """Append the engine's figures to ``path`` every ``every`` seconds until ``stop``."""
    started = time.monotonic()
    while not stop.wait(every):
        try:
            stats = process_stats(pid)
        except (OSError, KeyError, ValueError):
            return
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"seconds": round(time.monotonic() - started, 1), **asdict(stats)}) + "\n")


def run_soak(
    games9: int,
    games19: int,
    profile: str,
    out: Path,
    config: str | None,
    sets: list[str],
    gnugo_level: int,
    sample_every: float = 0.0,
) -> list[GameReport]:
    gnugo_path = find_gnugo()
    if gnugo_path is None:
        raise SystemExit("soak: GNU Go is needed as the opponent (Debian: apt-get install gnugo)")
    out.mkdir(parents=True, exist_ok=True)
    log = out / "games.jsonl"
    log.write_text("")
    engine = GtpProcess(_engine_argv(config, sets), "dlgo", cwd=ROOT, stderr_path=out / "engine.log")
    gnugo = GtpProcess([gnugo_path, "--mode", "gtp", "--chinese-rules", "--level", str(gnugo_level)], "gnugo")
    reports: list[GameReport] = []
    engine.start()
    gnugo.start()
    stop = threading.Event()
    if sample_every > 0:  # the figures between games too (a correspondence game may not end)
        (out / "samples.jsonl").write_text("")
        threading.Thread(
            target=_sample, args=(engine.pid, out / "samples.jsonl", sample_every, stop), daemon=True
        ).start()
    try:
        schedule = [9] * games9 + [19] * games19
        for index, size in enumerate(schedule):
            clocks = PROFILES[profile][size]
            spec = clocks[index % len(clocks)]
            started = time.monotonic()
            errors: list[str] = []
            try:
                game = play_soak_game(engine, gnugo, size, spec, engine_black=index % 2 == 0)
            except GtpClientError as e:
                errors.append(str(e))
                game = {"moves": 0, "result": "", "time_loss": False, "longest_move": 0.0}
                if not engine.running:
                    raise
            report = GameReport(
                index=index + 1,
                size=size,
                clock=spec.command(),
                engine_colour="b" if index % 2 == 0 else "w",
                seconds=round(time.monotonic() - started, 1),
                stats=process_stats(engine.pid),
                errors=errors,
                **game,
            )
            reports.append(report)
            with open(log, "a", encoding="utf-8") as f:
                f.write(json.dumps(asdict(report)) + "\n")
            print(
                f"game {report.index}/{len(schedule)} {size}x{size} {report.result or '-'} "
                f"rss {report.stats.rss_mb} MB fds {report.stats.fds} threads {report.stats.threads} "
                f"children {report.stats.children}{' TIME LOSS' if report.time_loss else ''}",
                file=sys.stderr,
                flush=True,
            )
    finally:
        stop.set()
        engine.close()
        gnugo.close()
    return reports


def summarise(reports: list[GameReport]) -> dict:
    """The figures docs/ogs.md reports, per board size (memory after the size's first and tenth
    games and at the end, its growth since the tenth), and for the whole run the ranges of
    descriptors, threads and children, time losses and errors."""
    if not reports:
        return {}
    by_size = {}
    for size in sorted({r.size for r in reports}):
        rss = [r.stats.rss_mb for r in reports if r.size == size]
        tenth = rss[min(9, len(rss) - 1)]
        by_size[str(size)] = {
            "games": len(rss),
            "rss_mb_after_game_1": rss[0],
            "rss_mb_after_game_10": tenth,
            "rss_mb_last": rss[-1],
            "rss_mb_max": max(rss),
            "rss_growth_since_game_10": round((rss[-1] - tenth) / tenth, 4),
            "longest_move_s": max(r.longest_move for r in reports if r.size == size),
            "engine_wins": sum(
                r.result.upper().startswith(r.engine_colour.upper() + "+") for r in reports if r.size == size
            ),
        }
    return {
        "games": len(reports),
        "by_size": by_size,
        "fds": sorted({r.stats.fds for r in reports}),
        "threads": sorted({r.stats.threads for r in reports}),
        "children": sorted({r.stats.children for r in reports}),
        "time_losses": sum(r.time_loss for r in reports),
        "errors": sum(bool(r.errors) for r in reports),
    }


def _report_from_json(line: str) -> GameReport:
    data = json.loads(line)
    data["stats"] = ProcessStats(**data["stats"])
    return GameReport(**data)


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dlgo.bench.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games9", type=int, default=300, help="9x9 games first (default 300)")
    parser.add_argument("--games19", type=int, default=20, help="then 19x19 games (default 20)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="live")
    parser.add_argument("--config", default=None, help="engine config (default: the engine's default)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="engine --set (repeatable)")
    parser.add_argument("--gnugo-level", type=int, default=1)
    parser.add_argument("--sample-every", type=float, default=0.0, help="also record the figures every S seconds")
    parser.add_argument("--summarise", action="store_true", help="only summarise the games already in --out")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)  # stopped from outside (many_games): close the engine first
    if args.summarise:
        reports = [_report_from_json(line) for line in (args.out / "games.jsonl").read_text().splitlines() if line]
    else:
        reports = run_soak(
            args.games9,
            args.games19,
            args.profile,
            args.out,
            args.config,
            args.set,
            args.gnugo_level,
            args.sample_every,
        )
    summary = summarise(reports)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
