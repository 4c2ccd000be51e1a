"""Nodes visited and time taken by depth-limited minimax and alpha-beta, per depth (book 4.4.2).

python -m dlgo.minimax.nodes --size 5 --depths 1-4            a table
python -m dlgo.minimax.nodes --size 5 --depths 1-4 --json     one JSON object

Both searches run on the same seeded random positions (``--positions`` of them, each after
``--moves`` random moves); the table averages over the positions and checks that both give
the same value.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from dlgo.agent.naive import RandomBot
from dlgo.goboard import GameState
from dlgo.minimax.alphabeta import alpha_beta_result
from dlgo.minimax.depthprune import capture_diff, depth_pruned_result
from dlgo.minimax.scores import MIN_SCORE, SearchStats

__all__ = ["random_position", "compare", "parse_depths", "main"]


def random_position(size: int, moves: int, seed: int) -> GameState:
    """The position after ``moves`` moves of a seeded random bot from the empty board."""
    bot = RandomBot(seed=seed)
    state = GameState.new_game(size)
    for _ in range(moves):
        move = bot.select_move(state)
        if move.is_pass:
            break  # a full board; a pass could end the game
        state = state.apply_move(move)
    return state


def _timed(search, state: GameState) -> tuple[float, int, float]:
    stats = SearchStats()
    start = time.perf_counter()
    value = search(state, stats)
    return value, stats.nodes, time.perf_counter() - start


def compare(size: int, depth: int, positions: int, moves: int, seed: int) -> dict:
    """Average nodes and seconds of both searches at one depth over seeded random positions."""
    totals = {"minimax_nodes": 0, "minimax_seconds": 0.0, "alphabeta_nodes": 0, "alphabeta_seconds": 0.0}
    for i in range(positions):
        state = random_position(size, moves, seed + i)
        mm_value, mm_nodes, mm_time = _timed(lambda s, st: depth_pruned_result(s, depth, capture_diff, st), state)
        ab_value, ab_nodes, ab_time = _timed(
            lambda s, st: alpha_beta_result(s, depth, MIN_SCORE, MIN_SCORE, capture_diff, st), state
        )
        if mm_value != ab_value:
            raise AssertionError(f"depth {depth}, position {seed + i}: minimax {mm_value} != alpha-beta {ab_value}")
        totals["minimax_nodes"] += mm_nodes
        totals["minimax_seconds"] += mm_time
        totals["alphabeta_nodes"] += ab_nodes
        totals["alphabeta_seconds"] += ab_time
    row = {"depth": depth}
    for key, total in totals.items():
        row[key] = round(total / positions, 4 if key.endswith("seconds") else 1)
    row["node_ratio"] = round(totals["alphabeta_nodes"] / totals["minimax_nodes"], 4)
    return row


def parse_depths(text: str) -> list[int]:
    """``"1-4"`` -> [1, 2, 3, 4]; ``"2"`` -> [2]; ``"1,3"`` -> [1, 3]."""
    depths: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        depths.extend(range(int(low), int(high or low) + 1))
    if not depths or min(depths) < 1:
        raise argparse.ArgumentTypeError(f"depths must be 1 or more: {text!r}")
    return depths


def _table(result: dict) -> str:
    lines = [
        f"board {result['size']}x{result['size']}, {result['positions']} positions after {result['moves']} "
        f"random moves (seeds {result['seed']}..{result['seed'] + result['positions'] - 1}), averages per position",
        "",
        "| depth | minimax nodes | minimax s | alpha-beta nodes | alpha-beta s | alpha-beta / minimax nodes |",
        "|------:|--------------:|----------:|-----------------:|-------------:|---------------------------:|",
    ]
    for row in result["rows"]:
        lines.append(
            f"| {row['depth']} | {row['minimax_nodes']:,.1f} | {row['minimax_seconds']:.4f} "
            f"| {row['alphabeta_nodes']:,.1f} | {row['alphabeta_seconds']:.4f} | {row['node_ratio']:.1%} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dlgo.minimax.nodes", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5, help="board size (default 5)")
    parser.add_argument("--depths", type=parse_depths, default=parse_depths("1-3"), help="e.g. 1-4 or 1,3")
    parser.add_argument("--positions", type=int, default=3, help="random positions to average over")
    parser.add_argument("--moves", type=int, default=6, help="random moves played to make each position")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first position")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args(argv)
    rows = [compare(args.size, d, args.positions, args.moves, args.seed) for d in args.depths]
    result = {"size": args.size, "positions": args.positions, "moves": args.moves, "seed": args.seed, "rows": rows}
    print(json.dumps(result) if args.json else _table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
