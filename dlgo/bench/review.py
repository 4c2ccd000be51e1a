"""Whole-game review speed: every turn of a game analysed at once on one shared network.

    python -m dlgo.bench.review            # 19x19, 200 turns, 100 visits each (minutes on 2 cores)
    python -m dlgo.bench.review --quick    # 9x9, 60 turns, 100 visits each

A review searches every turn of a game (``dlgo.analysis.Analyzer``: ``--threads`` searches at
once, their leaves merged into shared network batches, ``dlgo.inference.shared``). It is
measured against two references, from one run:

- the network alone at the review's mean batch size (random planes through the same runner):
  the review's positions/s (positions the network evaluated / wall time) over the network's
  own, the share of the network's speed the review keeps (goal: at least 0.8);
- the same turns searched one after another by one agent as the GTP engine searches (its own
  evaluator, batches of its ``batch_size``, the next batch collected while one is evaluated):
  the review's wall time against theirs (goal: faster).

The game is played by the network's policy (a draw among its best moves, seeded), so the
positions are a game's. Prints one JSON object on stdout, a summary on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

import numpy as np

__all__ = ["main", "policy_game", "network_speed"]


def policy_game(evaluator: Any, size: int, moves: int, seed: int) -> list:
    """The positions of a ``moves``-move game the policy plays (a draw among its five likeliest
    legal moves), the empty board first."""
    from dlgo.goboard import GameState, Move
    from dlgo.gotypes import Point

    rng = np.random.default_rng(seed)
    state = GameState.new_game(size, 7.5)
    states = [state]
    for _ in range(moves):
        policy = np.asarray(evaluator.evaluate([state])[0][0], dtype=np.float64)[: size * size]
        legal = [m for m in state.legal_moves() if m.is_play]
        if not legal:
            state = state.apply_move(Move.pass_turn())
        else:
            index = np.array([(m.point.row - 1) * size + m.point.col - 1 for m in legal])
            top = np.argsort(policy[index])[-5:]
            weights = policy[index][top] + 1e-9
            pick = int(index[top][rng.choice(len(top), p=weights / weights.sum())])
            state = state.apply_move(Move.play(Point(pick // size + 1, pick % size + 1)))
        states.append(state)
    return states


def network_speed(evaluator: Any, batch: int, size: int, seconds: float) -> float:
    """Positions/s of the network alone on batches of ``batch`` (random planes, no cache)."""
    from dlgo.encoders.zero import PLANES
    from dlgo.inference.evaluator import EncodedBatch

    rng = np.random.default_rng(0)
    x = rng.random((batch, size, size, len(PLANES)), dtype=np.float32)
    work = EncodedBatch([], [], {}, x=x, dims=(size, size))
    evaluator.forward(work)  # the session's first run of this shape
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        evaluator.forward(work)
        done += batch
    return done / (time.perf_counter() - started)


def _review(config: Any, states: list, visits: int, threads: int) -> dict[str, Any]:
    from dlgo.analysis import Analyzer, TurnOptions

    size = states[0].board.num_rows
    with Analyzer(config, threads=threads) as analyzer:
        analyzer.analyze(states[:2], TurnOptions(max_visits=16))  # build, warm up, compile
        before = analyzer.stats["networks"][0]
        started = time.perf_counter()
        answers = analyzer.analyze(states, TurnOptions(max_visits=visits))
        wall = time.perf_counter() - started
        after = analyzer.stats["networks"][0]
        shared = analyzer.pool.shared_evaluators()[0]
        calls = after["merged_batches"] - before["merged_batches"]
        positions = after["merged_positions"] - before["merged_positions"]
        mean_batch = positions / max(1, calls)
        network = network_speed(shared.inner, max(1, round(mean_batch)), size, 5.0)
    errors = [a for a in answers if "error" in a]
    return {
        "seconds": round(wall, 2),
        "turns": len(answers),
        "errors": len(errors),
        "visits": sum(a["rootInfo"]["visits"] for a in answers if "rootInfo" in a),
        "network_positions": positions,
        "network_calls": calls,
        "mean_batch": round(mean_batch, 1),
        "positions_per_second": round(positions / wall, 1),
        "network_positions_per_second_at_mean_batch": round(network, 1),
        "share_of_network_speed": round(positions / wall / network, 3),
    }


def _sequential(config: Any, states: list, visits: int) -> dict[str, Any]:
    from dlgo import agent_registry as registry
    from dlgo.search import SearchBudget

    size = states[0].board.num_rows
    name, params = config.agent_for_size(size)
    resolved = registry.resolve_paths(registry.get(name), params, config.resolve_path)
    agent = registry.build_agent(name, {**resolved, "reuse_tree": False}, size, early_stop=False)
    agent.search(states[0], SearchBudget(max_visits=16))  # build the session, compile
    agent.clear_tree()
    before = dict(agent.evaluator.stats)
    started = time.perf_counter()
    total = 0
    for state in states:
        total += agent.search(state, SearchBudget(max_visits=visits)).visits
        agent.clear_tree()
    wall = time.perf_counter() - started
    after = agent.evaluator.stats
    positions = after["cache_misses"] - before["cache_misses"]
    calls = after["batches"] - before["batches"]
    return {
        "seconds": round(wall, 2),
        "visits": total,
        "network_positions": positions,
        "network_calls": calls,
        "mean_batch": round(positions / max(1, calls), 1),
        "positions_per_second": round(positions / wall, 1),
    }


def run(size: int, moves: int, visits: int, threads: int, config_path: str | None, seed: int) -> dict[str, Any]:
    from dlgo import agent_registry as registry
    from dlgo.play.config import default_config_path, load_config

    config = load_config(config_path or default_config_path())
    spec = config.agent_for_size(size)
    if spec is None or spec[0] != "zero":
        raise SystemExit(f"the config plays no Zero network on {size}x{size}: nothing to share")
    name, params = spec
    resolved = registry.resolve_paths(registry.get(name), params, config.resolve_path)
    game_agent = registry.build_agent(name, resolved, size)
    states = policy_game(game_agent.evaluator, size, moves, seed)
    del game_agent
    review = _review(config, states, visits, threads)
    sequential = _sequential(config, states, visits)
    return {
        "benchmark": "review",
        "board_size": size,
        "turns": len(states),
        "visits_per_turn": visits,
        "threads": threads,
        "config": config.path,
        "review": review,
        "sequential": sequential,
        "speedup_over_sequential": round(sequential["seconds"] / max(1e-9, review["seconds"]), 2),
        "machine": {
            "python": platform.python_version(),
            "cpu_count": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dlgo.bench.review", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="9x9, 60 turns (default: 19x19, 200 turns)")
    parser.add_argument("--size", type=int, help="board size (default 19; --quick 9)")
    parser.add_argument("--turns", type=int, help="moves of the game (default 200; --quick 60)")
    parser.add_argument("--visits", type=int, default=100, help="visits per turn (default 100)")
    parser.add_argument("--threads", type=int, default=None, help="searches at once (default: the analyzer's)")
    parser.add_argument("--config", help="engine config (default: configs/engine/default.toml)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the game's moves")
    args = parser.parse_args(argv)
    from dlgo.analysis import DEFAULT_THREADS

    size = args.size or (9 if args.quick else 19)
    turns = args.turns or (60 if args.quick else 200)
    out = run(size, turns, args.visits, args.threads or DEFAULT_THREADS, args.config, args.seed)
    print(json.dumps(out))
    r, s = out["review"], out["sequential"]
    print(
        f"review of {out['turns']} turns x {args.visits} visits on {size}x{size}: {r['seconds']} s "
        f"({r['positions_per_second']} positions/s, batches of {r['mean_batch']}: "
        f"{r['share_of_network_speed']:.0%} of the network's {r['network_positions_per_second_at_mean_batch']}/s); "
        f"one search after another: {s['seconds']} s (batches of {s['mean_batch']}); "
        f"{out['speedup_over_sequential']}x",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
