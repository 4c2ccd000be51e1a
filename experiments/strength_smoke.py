"""Strength smoke test of the Zero search: a script, not CI.

    python experiments/strength_smoke.py                          # the shipped 19x19 network
    python experiments/strength_smoke.py --model weights/zero-19x19.keras --games 10 --seconds 1 -j 1

Three duels on 19x19 (dlgo.match: colours alternate, every move checked, GNU Go cross-checks the
count), each in its own folder under ``--out`` so a rerun resumes:

1. Zero search at ``--seconds`` per move against the raw policy network of the same model
   (the ``predict`` agent): the search should win most of the games;
2. Zero search against GNU Go level 1;
3. the policy network alone against GNU Go level 1.

Both network players should beat GNU Go level 1. The script prints one summary table and writes
``summary.json`` in ``--out``; the exit status is 0 when all three expectations hold.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from dlgo.match import GameRules, MatchError, MatchSettings, dlgo_player, gnugo_player
from dlgo.match.runner import run_match


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="weights/zero-19x19.keras", help="the Zero network (.keras with its card)")
    p.add_argument("--size", type=int, default=19)
    p.add_argument("--games", type=int, default=10, help="games per duel")
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per move of every player")
    p.add_argument("--level", type=int, default=1, help="GNU Go level")
    p.add_argument("--jobs", "-j", type=int, default=1, help="games in parallel per duel")
    p.add_argument("--out", default="runs/strength-smoke", help="output folder (one subfolder per duel)")
    p.add_argument("--only", choices=["zero-vs-predict", "zero-vs-gnugo", "predict-vs-gnugo"], action="append")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    model = Path(args.model).resolve()
    if not model.is_file():
        print(f"strength_smoke: model file {model} not found (train it first or pass --model)", file=sys.stderr)
        return 2
    zero = dlgo_player(
        None, label="zero", sets=("agent=zero", f"zero.model={model}", "resign.enabled=true", "zero.rounds=100000")
    )
    predict = dlgo_player(None, label="predict", sets=("agent=predict", f"predict.model={model}"))
    gnugo = gnugo_player(args.level)
    rules = GameRules(size=args.size, komi=7.5, seconds_per_move=args.seconds)
    duels = {
        "zero-vs-predict": (zero, predict),
        "zero-vs-gnugo": (zero, gnugo),
        "predict-vs-gnugo": (predict, gnugo),
    }
    out = Path(args.out)
    summaries = {}
    ok = True
    for name, (engine, opponent) in duels.items():
        if args.only and name not in args.only:
            continue
        started = time.monotonic()
        settings = MatchSettings(engine, opponent, args.games, rules, jobs=args.jobs)
        print(f"strength_smoke: {name}: {args.games} games, {settings.describe()}", file=sys.stderr)
        try:
            result = run_match(settings, out / name)
        except MatchError as e:
            print(f"strength_smoke: {name}: {e}", file=sys.stderr)
            return 2
        s = result.summary
        summaries[name] = {
            "games": s["games"],
            "engine_wins": s["engine_wins"],
            "opponent_wins": s["opponent_wins"],
            "win_rate": s["win_rate"],
            "win_rate_95": s["win_rate_95"],
            "reasons": s["reasons"],
            "errors": result.errors,
            "seconds": round(time.monotonic() - started),
        }
        ok = ok and s["games"] > 0 and s["engine_wins"] * 2 > s["games"]
    report = {
        "model": str(model),
        "size": args.size,
        "seconds_per_move": args.seconds,
        "gnugo_level": args.level,
        "duels": summaries,
        "passed": ok,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"{'duel':<18} {'games':>5} {'wins':>5} {'losses':>6}  win rate (95%)")
    for name, s in summaries.items():
        lo, hi = s["win_rate_95"]
        rate = "n/a" if s["win_rate"] is None else f"{s['win_rate']:.2f} ({lo:.2f}-{hi:.2f})"
        print(f"{name:<18} {s['games']:>5} {s['engine_wins']:>5} {s['opponent_wins']:>6}  {rate}")
    print(f"# {'all expectations hold' if ok else 'NOT all expectations hold'}; details in {out}/summary.json")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
