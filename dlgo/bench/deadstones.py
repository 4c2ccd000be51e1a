"""Dead-stone count accuracy: how often counting a finished game's last position finds the winner
its record states.

    python -m dlgo.bench.deadstones                 # 400 KGS games, both playout policies
    python -m dlgo.bench.deadstones --games 100 --sources ../shared/data/kgs/KGS-2006-19-10388-.tar.gz

A game that ended by counting keeps its dead stones on the board (the players agreed on them
and removed them only in the count), so its final position is a test of the dead-stone
estimate (``dlgo.deadstones``, the count behind ``final_score``, ``final_status_list`` and the
engine's pass decisions). The estimate counts the position by area with the game's komi; a game
is used when its record gives a score of at least ``--margin`` points (area and territory
counts differ by a point or two), it had no handicap (handicap compensation differs between
rulesets) and it lasted ``--min-moves`` moves. Each playout policy is scored on the same games:
the share whose winner it finds (with a 95% Wilson interval) and its time per count.
Prints one JSON object on stdout, progress on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass

__all__ = ["CountedGame", "counted_games", "main"]


@dataclass(frozen=True)
class CountedGame:
    game_id: str
    state: object  # dlgo.goboard.GameState: the final position, dead stones still on it
    winner: str  # "B" or "W", as recorded
    margin: float


def counted_games(sources: list[str], games: int, margin: float, min_moves: int) -> list[CountedGame]:
    """The first ``games`` records of ``sources`` that ended by counting with at least ``margin``."""
    from dlgo.data.archives import default_sources
    from dlgo.data.counted import iter_counted

    paths = sources or [str(p) for p in default_sources()]
    found: list[CountedGame] = []
    for record in iter_counted(paths, margin, min_moves):
        found.append(CountedGame(record.game_id, record.game.final_state, record.winner, record.margin))
        if len(found) >= games:
            break
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dlgo.bench.deadstones", description=__doc__.split("\n")[0])
    p.add_argument("--sources", nargs="+", default=[], help="archives or folders (default: ../shared/data/kgs, tom9d)")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--margin", type=float, default=3.0, help="smallest recorded score used")
    p.add_argument("--min-moves", type=int, default=150)
    p.add_argument("--playouts", type=int, default=400, help="playouts per count (the engine's default)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)

    from tqdm import tqdm

    from dlgo.deadstones import PLAYOUT_POLICIES, estimate_status
    from dlgo.match.stats import wilson_interval
    from dlgo.scoring import compute_game_result

    games = counted_games(args.sources, args.games, args.margin, args.min_moves)
    if not games:
        print("no counted games found in the sources", file=sys.stderr)
        return 1
    estimate_status(games[0].state, 2, seed=args.seed)  # compile / load the playout kernels first
    found = dict.fromkeys(PLAYOUT_POLICIES, 0)
    seconds = dict.fromkeys(PLAYOUT_POLICIES, 0.0)
    missed: dict[str, list[str]] = {policy: [] for policy in PLAYOUT_POLICIES}
    for game in tqdm(games, desc="counting", unit="game", file=sys.stderr):
        for policy in PLAYOUT_POLICIES:
            start = time.perf_counter()
            status = estimate_status(game.state, args.playouts, seed=args.seed, policy=policy)
            seconds[policy] += time.perf_counter() - start
            result = compute_game_result(game.state, status.dead_stones())
            if result.winner is not None and result.winner.name[0].upper() == game.winner:
                found[policy] += 1
            else:
                missed[policy].append(game.game_id)
    n = len(games)
    out = {
        "benchmark": "deadstones",
        "games": n,
        "board_sizes": sorted({g.state.board.num_rows for g in games}),
        "playouts": args.playouts,
        "policies": {
            policy: {
                "winner_found": found[policy],
                "rate": round(found[policy] / n, 4),
                "interval_95": [round(x, 4) for x in wilson_interval(found[policy], n)],
                "ms_per_count": round(1000 * seconds[policy] / n, 1),
                "missed": missed[policy][:20],
            }
            for policy in PLAYOUT_POLICIES
        },
    }
    print(json.dumps(out, indent=1))
    summary = ", ".join(f"{k} {v['winner_found']}/{n}" for k, v in out["policies"].items())
    print(f"winner found: {summary}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
