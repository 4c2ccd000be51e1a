"""Many games on one machine: what a bot running several games at once costs, and whether the
live clocks hold.

gtp2ogs's ``persistent`` manager runs one engine process per game. This benchmark does the same:
``--live9`` soak drivers (``dlgo.bench.soak``, each one engine and one GNU Go) play fast 9x9
games under live clocks while ``--corr19`` others play 19x19 under correspondence clocks (a day a
move: each engine thinks up to its ``time.max_seconds`` a move, all the time), all at once. When
the live games are over the correspondence players are stopped. It reports each engine's
resident and proportional memory (``/proc/PID/smaps_rollup``: Pss shares the pages the processes
share, the libraries' code among them), the live games' time losses and longest moves. The
correspondence games start ``--warm-up`` seconds ahead, so that their engines are built and
thinking when the live games begin.

    python -m dlgo.bench.many_games --live9 4 --corr19 8 --games 8 --out runs/many-games   # docs/ogs.md

Each driver's own folder (``live-N/``, ``corr-N/``) keeps its games and its samples; the summary
is ``summary.json`` and stdout.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from dlgo.parallel import die_with_parent

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[2]


def _driver(kind: str, index: int, out: Path, games: int, sets: list[str], sample: float) -> subprocess.Popen:
    folder = out / f"{kind}-{index + 1}"
    size_args = ["--games9", str(games), "--games19", "0"] if kind == "live" else ["--games9", "0", "--games19", "50"]
    argv = [sys.executable, "-m", "dlgo.bench.soak", *size_args, "--profile", kind, "--out", str(folder)]
    argv += ["--sample-every", str(sample)]
    for s in sets:
        argv += ["--set", s]
    log = open(out / f"{kind}-{index + 1}.log", "w")  # noqa: SIM115 - the child's stderr, closed with it
    return subprocess.Popen(  # a killed bench must not leave its drivers (and their engines) playing
        argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent()
    )


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def summarise(out: Path, live: int, corr: int) -> dict:
    games = [g for i in range(live) for g in _read_jsonl(out / f"live-{i + 1}" / "games.jsonl")]
    samples = {
        f"{kind}-{i + 1}": _read_jsonl(out / f"{kind}-{i + 1}" / "samples.jsonl")
        for kind, n in (("live", live), ("corr", corr))
        for i in range(n)
    }
    peak = {name: max((s["rss_mb"] for s in rows), default=0.0) for name, rows in samples.items()}
    peak_pss = {name: max((s.get("pss_mb", 0.0) for s in rows), default=0.0) for name, rows in samples.items()}
    return {
        "live_games": len(games),
        "live_time_losses": sum(g["time_loss"] for g in games),
        "live_errors": sum(bool(g["errors"]) for g in games),
        "live_longest_move_s": max((g["longest_move"] for g in games), default=0.0),
        "engines": len(samples),
        "peak_rss_mb": peak,
        "peak_pss_mb": peak_pss,
        "sum_peak_pss_mb": round(sum(peak_pss.values()), 1),
        "mean_peak_rss_mb": round(sum(peak.values()) / max(1, len(peak)), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dlgo.bench.many_games", description=__doc__.split("\n\n")[0])
    parser.add_argument("--live9", type=int, default=4, help="live 9x9 games at once (default 4)")
    parser.add_argument("--corr19", type=int, default=8, help="correspondence 19x19 games at once (default 8)")
    parser.add_argument("--games", type=int, default=3, help="live games each live player plays in turn (default 3)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="engine --set, for all")
    parser.add_argument("--sample-every", type=float, default=5.0)
    parser.add_argument(
        "--warm-up", type=float, default=90.0, help="seconds the correspondence games play before the live ones start"
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    corr = [_driver("corr", i, args.out, 0, args.set, args.sample_every) for i in range(args.corr19)]
    time.sleep(args.warm_up if corr else 0.0)  # their engines built and thinking when the live games begin
    live = [_driver("live", i, args.out, args.games, args.set, args.sample_every) for i in range(args.live9)]
    try:
        for proc in live:
            proc.wait()
    finally:
        for proc in corr + live:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in corr + live:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
    summary = {"seconds": round(time.monotonic() - started, 1), **summarise(args.out, args.live9, args.corr19)}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
