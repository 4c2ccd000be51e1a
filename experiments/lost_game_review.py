"""Review a match's lost games with an outside judge: which of our moves lost the points, and does
a deeper search of our own find better ones?

    .venv/bin/python experiments/lost_game_review.py runs/gnugo1-v800/results.jsonl --player dlgo-default \
        --recheck 800 3200 --engine-set variety.opening_moves=0

Our own review (``dlgo-review``) cannot see the errors our network is blind to, so the judge is
KataGo's analysis engine (``../shared/tools/katago``) at ``--katago-visits``: a measure only, its
answers are never trained on. For every game our ``--player`` lost, each of its moves is scored by
KataGo's score lead before and after it, from the mover's side; a move that gives away at least
``--threshold`` points is a flagged error. With ``--recheck``, our engine (``--config`` and its
``--engine-set`` overrides) searches each flagged position again at each visit count, and KataGo
scores the move it now chooses. Prints one line per flagged move and a total per visit count,
and writes everything as JSON to ``--out`` when given. ``--flagged`` takes that JSON back to
recheck the same moves with other settings (another network, say) without judging the games again.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dlgo.match.gtp_client import GtpProcess
from dlgo.match.katago_judge import KataGoJudge


@dataclass
class FlaggedMove:
    game: int
    turn: int  # moves played before it
    colour: str
    played: str
    points_lost: float
    katago_best: str
    rechecks: dict[int, tuple[str, float]] = field(default_factory=dict)


def flagged_moves(record: dict, player: str, judge: KataGoJudge, threshold: float) -> list[FlaggedMove]:
    ours = "B" if record["black"] == player else "W"
    moves = [list(m) for m in record["moves"]]
    leads = judge.leads(moves, list(range(len(moves) + 1)))
    flagged = []
    for turn, (colour, vertex) in enumerate(moves):
        if colour != ours or vertex == "pass":
            continue
        side = 1.0 if colour == "B" else -1.0
        lost = side * (leads[turn][0] - leads[turn + 1][0])
        if lost >= threshold:
            flagged.append(FlaggedMove(record["index"], turn, colour, vertex, round(lost, 1), leads[turn][1]))
    return flagged


def recheck(flagged: list[FlaggedMove], records: dict[int, dict], visits: int, args, judge: KataGoJudge) -> None:
    sets = [f"size.{args.size}.zero.rounds={visits}", f"size.{args.size}.time.default_seconds=0"]
    sets += ["time.default_seconds=0", "resign.enabled=false", "engine.preload=false", *args.engine_set]
    argv = [sys.executable, "-m", "gtp_engine", "--config", args.config, *[a for s in sets for a in ("--set", s)]]
    engine = GtpProcess(argv, label=f"dlgo at {visits} visits")
    engine.start()
    try:
        for move in flagged:
            record = records[move.game]
            engine.send(f"boardsize {record['size']}")
            engine.send("clear_board")
            engine.send(f"komi {record['komi']}")
            history = [list(m) for m in record["moves"][: move.turn]]
            for colour, vertex in history:
                engine.send(f"play {colour} {vertex}")
            chosen = engine.send(f"genmove {move.colour}", timeout=None).strip().upper()
            leads = judge.leads(history + [[move.colour, chosen]], [move.turn, move.turn + 1])
            side = 1.0 if move.colour == "B" else -1.0
            move.rechecks[visits] = (chosen, round(side * (leads[move.turn][0] - leads[move.turn + 1][0]), 1))
    finally:
        engine.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", help="a match's results.jsonl (dlgo-duel)")
    p.add_argument("--player", default="dlgo-default", help="our player's name in the match")
    p.add_argument("--katago", help="KataGo's folder (default: ../shared/tools/katago)")
    p.add_argument("--katago-visits", type=int, default=800)
    p.add_argument("--threshold", type=float, default=1.5, help="points a flagged move gives away at least")
    p.add_argument("--recheck", type=int, nargs="*", default=[], help="visit counts to search flagged positions again")
    p.add_argument("--config", default="configs/engine/default.toml", help="our engine's config for --recheck")
    p.add_argument("--engine-set", action="append", default=[], help="a KEY=VALUE override for --recheck")
    p.add_argument("--out", help="write the flagged moves as JSON here")
    p.add_argument(
        "--flagged",
        nargs="*",
        default=[],
        help="earlier reviews' --out JSON: recheck those moves, judge no games",
    )
    args = p.parse_args(argv)

    records = {}
    for path in args.results:
        for line in Path(path).read_text().splitlines():
            record = json.loads(line)
            ours = "B" if record["black"] == args.player else "W" if record["white"] == args.player else None
            if ours and record["winner"] != ours:
                records[record["index"]] = record
    if not records:
        print("no lost games")
        return 0
    first = next(iter(records.values()))
    args.size = first["size"]
    judge = KataGoJudge(args.katago, first["size"], first["komi"], args.katago_visits)
    try:
        if args.flagged:
            flagged = [
                FlaggedMove(**{**m, "rechecks": {}})
                for path in args.flagged
                for m in json.loads(Path(path).read_text())
            ]
            flagged = [m for m in flagged if m.game in records]
        else:
            flagged = [
                m for record in records.values() for m in flagged_moves(record, args.player, judge, args.threshold)
            ]
        for visits in args.recheck:
            recheck(flagged, records, visits, args, judge)
    finally:
        judge.close()

    games = len({m.game for m in flagged}) if args.flagged else len(records)
    print(f"{games} lost games, {len(flagged)} moves giving away {args.threshold}+ points (KataGo)")
    for m in flagged:
        again = "  ".join(f"{v}: {mv} {lost:+.1f}" for v, (mv, lost) in m.rechecks.items())
        played = f"{m.colour} {m.played} {m.points_lost:+.1f} (best {m.katago_best})"
        print(f"game {m.game} move {m.turn + 1} {played}  {again}")
    print(f"played: {sum(m.points_lost for m in flagged):.1f} points lost")
    for visits in args.recheck:
        print(f"at {visits} visits: {sum(m.rechecks[visits][1] for m in flagged):.1f} points lost")
    if args.out:
        Path(args.out).write_text(json.dumps([asdict(m) for m in flagged], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
