"""What the opening's variety costs: the points our drawn moves give away against our own best
move, at each variety setting, judged by KataGo.

    .venv/bin/python experiments/variety_cost.py runs/gnugo1-v800/results.jsonl --visits 800 \
        --out runs/variety-cost.json

A bot on a server draws its first moves among the near-best (``dlgo.search.variety``) so that it
does not replay one game; each draw that is not the search's best move may give points away.
For every distinct position of the matches' first ``--moves`` moves where ``--player`` was to
move, our engine (``--config``, variety off) searches at ``--visits`` and keeps its candidates.
KataGo's analysis engine (a measure only: nothing is trained on it) scores the position after
each candidate that the loosest setting could draw. Then, for each setting (``--settings``:
opening_moves/max_winrate_loss/temperature/min_visits_fraction), per game of the matches:

- the points the draws give away: the sum over the positions, weighted by how often the games
  reached them, of sum_c P(c) * (lead after the best - lead after c), from the mover's side;
- the varied moves: the expected number of our moves that are not the search's best (how much
  variety the setting buys).

Also printed: the points the search's best move itself gives away against KataGo's best there,
the network's error that no setting changes. The positions come from games played with the
match's own setting, so for other settings the weights are an estimate.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from dlgo.goboard import GameState, Move
from dlgo.match.katago_judge import KataGoJudge
from dlgo.play.agents import AgentPool
from dlgo.play.config import load_config
from dlgo.search.base import CandidateInfo, SearchBudget, SearchResult
from dlgo.search.variety import VarietySettings, draw_probabilities
from dlgo.utils import move_to_text, point_from_coords

DEFAULT_SETTINGS = [
    "10/0.02/0.5/0.1",  # the OGS configs' and the web page's (variety.opening_moves=10)
    "10/0.01/0.5/0.1",
    "10/0.005/0.5/0.1",
    "10/0.02/0.25/0.1",
    "10/0.02/0.5/0.3",
    "6/0.02/0.5/0.1",
    "6/0.01/0.5/0.1",
    "4/0.02/0.5/0.1",
]


def parse_setting(text: str) -> VarietySettings:
    opening, loss, temperature, fraction = text.split("/")
    return VarietySettings(int(opening), float(temperature), float(loss), float(fraction))


def opening_positions(paths: list[str], player: str, moves: int) -> tuple[Counter, dict, int]:
    """Counts of the distinct move sequences before each of ``player``'s first ``moves`` moves,
    the komi and size of each, and the number of games."""
    seen: Counter = Counter()
    board: dict[tuple, tuple[int, float]] = {}
    games = 0
    for path in paths:
        for line in Path(path).read_text().splitlines():
            record = json.loads(line)
            ours = "B" if record["black"] == player else "W" if record["white"] == player else None
            if ours is None:
                continue
            games += 1
            history = [tuple(m) for m in record["moves"]]
            for turn, (colour, _) in enumerate(history[:moves]):
                if colour == ours:
                    key = tuple(history[:turn])
                    seen[key] += 1
                    board[key] = (record["size"], record["komi"])
    return seen, board, games


def state_after(size: int, komi: float, history: tuple) -> GameState:
    state = GameState.new_game(size, komi)
    for _, vertex in history:
        state = state.apply_move(parse_move(vertex))
    return state


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", help="matches' results.jsonl (dlgo-duel)")
    p.add_argument("--player", default="dlgo-default", help="our player's name in the matches")
    p.add_argument("--moves", type=int, default=10, help="the opening: the games' first this many moves")
    p.add_argument("--visits", type=int, default=800, help="our search's visits (the match's)")
    p.add_argument("--config", default="configs/engine/default.toml")
    p.add_argument("--engine-set", action="append", default=[], help="a KEY=VALUE override of the config")
    p.add_argument("--katago", help="KataGo's folder (default: ../shared/tools/katago)")
    p.add_argument("--katago-visits", type=int, default=200)
    p.add_argument("--settings", nargs="+", default=DEFAULT_SETTINGS, help="opening/loss/temperature/fraction")
    p.add_argument("--limit", type=int, default=0, help="the most-reached this many positions only (0: all)")
    p.add_argument("--out", help="write every position's candidates and leads as JSON here")
    args = p.parse_args(argv)

    settings = [parse_setting(s) for s in args.settings]
    loosest = VarietySettings(
        args.moves,
        max(s.temperature for s in settings),
        max(s.max_winrate_loss for s in settings),
        min(s.min_visits_fraction for s in settings),
    )
    seen, boards, games = opening_positions(args.results, args.player, args.moves)
    positions = [h for h, _ in seen.most_common(args.limit or None)]
    size, komi = boards[positions[0]]
    overrides = [
        "variety.opening_moves=0",
        "resign.enabled=false",
        "engine.preload=false",
        f"size.{size}.zero.rounds={args.visits}",
        *args.engine_set,
    ]
    pool = AgentPool(load_config(args.config, overrides))
    _, _, agent = pool.get(size, size)
    judge = KataGoJudge(args.katago, size, komi, args.katago_visits)
    rows = []
    try:
        for n, history in enumerate(positions, 1):
            state = state_after(size, komi, history)
            result: SearchResult = agent.search(state, SearchBudget(max_visits=args.visits))
            getattr(agent, "clear_tree", lambda: None)()
            pool_moves = [c for c, _ in draw_probabilities(result, loosest)]
            line = [list(m) for m in history]
            colour = "B" if len(history) % 2 == 0 else "W"
            side = 1.0 if colour == "B" else -1.0
            # KataGo's lead before the move, and after each candidate the loosest setting may draw
            texts = [move_to_text(c.move) for c in pool_moves]
            answers = judge.leads_after([line] + [line + [[colour, t]] for t in texts])
            before = answers[0]
            leads = {t: side * lead for t, (lead, _) in zip(texts, answers[1:])}
            rows.append(
                {
                    "history": line,
                    "reached": seen[history],
                    "katago_best": before[1],
                    "lead_before": side * before[0],
                    "candidates": [
                        {"move": move_to_text(c.move), "visits": c.visits, "winrate": round(c.winrate, 4)}
                        for c in result.candidates[:8]
                    ],
                    "leads": leads,
                }
            )
            print(f"{n}/{len(positions)} {colour} after {len(line)} moves: {leads}", file=sys.stderr, flush=True)
    finally:
        judge.close()
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    report(rows, settings, games)
    return 0


def parse_move(vertex: str) -> Move:
    return Move.pass_turn() if vertex.lower() == "pass" else Move.play(point_from_coords(vertex))


def result_of(row: dict) -> SearchResult:
    """The search's result as kept in a row (its first candidates)."""
    cands = [CandidateInfo(parse_move(c["move"]), c["visits"], c["winrate"]) for c in row["candidates"]]
    return SearchResult(cands, sum(c.visits for c in cands), cands[0].winrate, 0.0)


def report(rows: list[dict], settings: list[VarietySettings], games: int) -> None:
    reached = sum(r["reached"] for r in rows)
    best_error = sum(r["reached"] * (r["lead_before"] - r["leads"][r["candidates"][0]["move"]]) for r in rows)
    print(f"{len(rows)} positions, reached {reached} times in {games} games")
    print(f"the search's best move against KataGo's: {best_error / games:.2f} points a game (no setting changes it)")
    print(
        "| setting (opening moves / win-rate window / temperature / visits fraction) "
        "| points the draws give away a game | varied moves a game |"
    )
    print("|---|---|---|")
    for s in settings:
        lost = varied = 0.0
        for r in rows:
            if len(r["history"]) >= s.opening_moves:
                continue
            best = r["candidates"][0]["move"]
            for c, prob in draw_probabilities(result_of(r), s):
                text = move_to_text(c.move)
                lost += r["reached"] * prob * (r["leads"][best] - r["leads"][text])
                if text != best:
                    varied += r["reached"] * prob
        name = f"{s.opening_moves} / {s.max_winrate_loss} / {s.temperature} / {s.min_visits_fraction}"
        print(f"| {name} | {lost / games:.2f} | {varied / games:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
