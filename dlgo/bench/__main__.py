"""Benchmark entry point; every command prints one JSON object on stdout.

python -m dlgo.bench playouts --size 9     compiled random playouts (single process)
python -m dlgo.bench mcts --size 9         MCTS rounds per second from the empty board
python -m dlgo.bench selfplay --size 9     whole games of the Python RandomBot (rules core speed)
python -m dlgo.bench nn --build zero --blocks 6 --filters 64 --size 9   (or --model FILE; --encoders)
python -m dlgo.bench search --agent zero --size 9   (shipped weights; or --model FILE, --build zero ...)
python -m dlgo.bench firstmove             a fresh engine's first genmove (cold and warm ONNX cache)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time


def _machine() -> dict:
    return {"python": platform.python_version(), "cpu_count": os.cpu_count(), "machine": platform.machine()}


def bench_playouts(size: int, seconds: float, seed: int) -> dict:
    from dlgo.goboard import GameState
    from dlgo.playout import board_array, kernel

    state = GameState.new_game(size)
    colors = board_array(state)
    w = size + 2
    max_moves = 3 * size * size + 50
    kernel.seed(seed)
    kernel.playouts(colors, w, 1, 0, 7.5, 2, max_moves, False)  # compile / load the cache first
    games = moves = black = 0
    batch = 200 if size <= 9 else 50
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        b, _, m, _ = kernel.playouts(colors, w, 1, 0, 7.5, batch, max_moves, False)
        games += batch
        moves += m
        black += b
    elapsed = time.perf_counter() - start
    return {
        "benchmark": "playouts",
        "board_size": size,
        "playouts": games,
        "seconds": round(elapsed, 3),
        "playouts_per_second": round(games / elapsed, 1),
        "moves_per_second": round(moves / elapsed, 1),
        "average_moves_per_playout": round(moves / games, 1),
        "black_win_rate_komi_7.5": round(black / games, 3),
    }


def bench_mcts(size: int, rounds: int, seed: int) -> dict:
    from dlgo.goboard import GameState
    from dlgo.mcts import MCTSAgent
    from dlgo.search import SearchBudget

    state = GameState.new_game(size)
    agent = MCTSAgent(seed=seed)
    agent.search(state, SearchBudget(max_visits=50))  # warm-up (numba cache)
    # A mid-game position too: the tree gets deeper and rollouts shorter.
    for _ in range(size * size // 4):
        state = state.apply_move(agent.search(state, SearchBudget(max_visits=30)).best.move)
    out = {"benchmark": "mcts", "board_size": size, "rounds": rounds}
    for label, position in (("empty_board", GameState.new_game(size)), ("move_" + str(state.move_number), state)):
        start = time.perf_counter()
        result = agent.search(position, SearchBudget(max_visits=rounds))
        elapsed = time.perf_counter() - start
        out[label] = {"rounds_per_second": round(result.visits / elapsed, 1), "seconds": round(elapsed, 3)}
    return out


def bench_selfplay(size: int, games: int, seed: int) -> dict:
    from dlgo.agent.naive import RandomBot
    from dlgo.game_runner import AgentPlayer, play_game
    from dlgo.goboard import GameState

    bot = AgentPlayer(RandomBot(seed=seed))
    moves = 0
    start = time.perf_counter()
    for _ in range(games):  # to two passes, uncapped and uncounted: the rules core's speed
        moves += len(play_game(bot, bot, GameState.new_game(size), max_moves=None).moves)
    elapsed = time.perf_counter() - start
    return {
        "benchmark": "selfplay",
        "board_size": size,
        "games": games,
        "games_per_second": round(games / elapsed, 2),
        "moves_per_second": round(moves / elapsed, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dlgo.bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("playouts", help="compiled random playouts per second")
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--seed", type=int, default=1)
    m = sub.add_parser("mcts", help="MCTS rounds per second")
    m.add_argument("--size", type=int, default=9)
    m.add_argument("--rounds", type=int, default=10000)
    m.add_argument("--seed", type=int, default=1)
    s = sub.add_parser("selfplay", help="Python RandomBot games per second")
    s.add_argument("--size", type=int, default=9)
    s.add_argument("--games", type=int, default=20)
    s.add_argument("--seed", type=int, default=1)
    n = sub.add_parser("nn", help="network inference: fast runners next to model.predict")
    n.add_argument("--model", help=".keras model file (with its model card)")
    n.add_argument("--build", choices=["zero", "book-zero", "alphago-policy", "small", "medium", "large"])
    n.add_argument("--blocks", type=int, default=6)
    n.add_argument("--filters", type=int, default=64)
    n.add_argument("--size", type=int, default=9)
    n.add_argument("--encoder", help="encoder for --build (default: the network's usual one)")
    n.add_argument("--batches", default="1,8,32", help="comma-separated batch sizes")
    n.add_argument("--seconds", type=float, default=2.0, help="timing budget per runner and batch size")
    n.add_argument("--backends", default="onnx,compiled,predict")
    n.add_argument("--threads", type=int, default=None, help="ONNX Runtime intra-op threads (default: all cores)")
    n.add_argument("--encoders", action="store_true", help="only time every encoder on 9x9 and 19x19")
    z = sub.add_parser("search", help="search visits per second next to the network's batched throughput")
    z.add_argument("--agent", choices=["zero", "alphago"], default="zero")
    z.add_argument(
        "--model", help=".keras model (zero; default: the engine config's for --size), or the policy network (alphago)"
    )
    z.add_argument("--value-model", help="alphago: the value network")
    z.add_argument("--build", choices=["zero", "alphago"], help="an untrained network instead of --model")
    z.add_argument("--blocks", type=int, default=6)
    z.add_argument("--filters", type=int, default=64)
    z.add_argument("--size", type=int, default=9)
    z.add_argument("--batch-size", type=int, help="leaves per network call (default: the engine config's for --size)")
    z.add_argument("--seconds", type=float, default=10.0, help="search time per position")
    z.add_argument("--backend", default="auto")
    z.add_argument("--threads", type=int, default=None)
    z.add_argument("--seed", type=int, default=1)
    z.add_argument("--no-pipeline", action="store_true", help="evaluate batches on the search thread")
    z.add_argument("--runtime", choices=["fp32", "int8"], help="zero: the search's runtime (default: the config's)")
    z.add_argument(
        "--tree", choices=["compiled", "python"], default="compiled", help="zero: the search tree (zero.tree)"
    )
    f = sub.add_parser("firstmove", help="a fresh engine's first genmove on a short clock, and its overhead per move")
    f.add_argument("--config", default=None, help="engine config (default: configs/engine/default.toml)")
    f.add_argument("--sizes", default="9,19", help="comma-separated board sizes")
    f.add_argument("--moves", type=int, default=10, help="genmoves of the overhead measure per size (0: none)")
    args = parser.parse_args(argv)
    if args.command == "firstmove":
        from dlgo.bench.firstmove import ROOT, bench_firstmove

        result = bench_firstmove(
            args.config or ROOT / "configs" / "engine" / "default.toml",
            tuple(int(x) for x in args.sizes.split(",")),
            overhead_moves=args.moves,
        )
    elif args.command == "playouts":
        result = bench_playouts(args.size, args.seconds, args.seed)
    elif args.command == "mcts":
        result = bench_mcts(args.size, args.rounds, args.seed)
    elif args.command == "nn":
        from dlgo.bench.nn import bench_encoders, bench_nn

        if args.encoders:
            result = bench_encoders()
        else:
            result = bench_nn(
                args.model,
                args.build,
                args.blocks,
                args.filters,
                args.size,
                args.encoder,
                [int(b) for b in args.batches.split(",")],
                args.seconds,
                args.backends.split(","),
                args.threads,
            )
    elif args.command == "search":
        from dlgo.bench.search import bench_search

        result = bench_search(
            args.agent,
            args.model,
            args.build,
            args.blocks,
            args.filters,
            args.size,
            args.batch_size,
            args.seconds,
            args.backend,
            args.threads,
            args.seed,
            args.value_model,
            not args.no_pipeline,
            runtime=args.runtime,
            tree=args.tree,
        )
    else:
        result = bench_selfplay(args.size, args.games, args.seed)
    result["machine"] = _machine()
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
