"""The moves of seeded games from every game loop of the library, as JSON: run it before and
after a change to the game loops (``dlgo.game_runner``) and compare the two files.

    .venv/bin/python experiments/seeded_game_loops.py --out before.json
    .venv/bin/python experiments/seeded_game_loops.py --out after.json
    .venv/bin/python experiments/seeded_game_loops.py --compare before.json after.json

Zero self-play (9x9, a tiny random network: one seeded linear layer over the Zero encoder's
planes; resigning, played out, cleanup of dead stones, a corner start), gating (two games),
the search A/B (one pair), RL's ``simulate_game`` (two seeded random agents) and the
benchmark's RandomBot games. Self-play, the A/B, RL and the benchmark must give the same moves
before and after a refactor; gating moved onto the engine's move selection and resign rule on
purpose when it moved onto the runner, so its games may differ there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

import numpy as np

from dlgo.encoders import get_encoder_by_name
from dlgo.goboard import GameState


class TinyRandomNetwork:
    """A seeded linear layer over the Zero encoder's planes: policy softmax and tanh value, the
    same answer for the same position every time (no TensorFlow, no cache, no symmetry draw)."""

    def __init__(self, size: int, seed: int = 3) -> None:
        self.encoder = get_encoder_by_name("zero", size)
        rng = np.random.default_rng(seed)
        inputs = int(np.prod(self.encoder.shape()))
        self.policy = rng.normal(0, 0.3, (inputs, size * size + 1))
        self.value = rng.normal(0, 0.05, inputs)

    def evaluate(self, states):
        x = np.stack([self.encoder.encode(s).reshape(-1).astype(np.float64) for s in states])
        logits = x @ self.policy
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True), np.tanh(x @ self.value)


def _digest(array: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def selfplay_games() -> dict:
    from dlgo.search.settings import SearchSettings
    from dlgo.search.zero_agent import ZeroAgent
    from dlgo.zero.selfplay import SelfPlaySettings, play_game

    out = {}
    runs = {
        "plain": (
            SelfPlaySettings(board_size=9, full_visits=24, fast_visits=8, search=SearchSettings(batch_size=4)),
            (True, False),
        ),
        "resign": (
            SelfPlaySettings(
                board_size=9, full_visits=24, fast_visits=8, search=SearchSettings(batch_size=4), resign_threshold=-0.05
            ),
            (True, False),
        ),
        "cleanup_corner": (
            SelfPlaySettings(
                board_size=9,
                full_visits=24,
                fast_visits=8,
                search=SearchSettings(batch_size=4),
                cleanup_playouts=100,
                corner_start_fraction=0.5,
                komi_spread=2,
            ),  # fmt: skip
            (True, True),
        ),  # fmt: skip
    }
    for name, (settings, allowed) in runs.items():
        agent = ZeroAgent(TinyRandomNetwork(9), batch_size=4, self_play=True, seed=11, pipeline=False, tree="python")
        agent.tree.rng = np.random.default_rng(12)
        rng = np.random.default_rng(13)
        games = []
        for resign_allowed in allowed:
            g = play_game(agent, settings, rng, resign_allowed=resign_allowed)
            e = g.experience
            games.append({
                "moves": g.moves, "result": g.result,
                "summary": {k: v for k, v in g.summary().items() if k != "seconds"},
                "values": [round(v, 6) for v in g.values],
                "experience": [_digest(a) for a in (e.states, e.policies, e.rewards, e.ownership, e.score, e.aux_mask)],
                "sgf_moves": g.sgf.split(";", 2)[-1],
            })  # fmt: skip
        out[name] = games
    return out


def gating_games() -> list:
    from dlgo.search.zero_agent import ZeroAgent
    from dlgo.zero import workers
    from dlgo.zero.workers import GatingTask, play_gating_task

    out = []
    for index in range(2):
        agents = {
            role: ZeroAgent(TinyRandomNetwork(9, seed), batch_size=4, seed=index, pipeline=False, tree="python")
            for role, seed in (("candidate", 3), ("best", 4))
        }
        workers._agent = lambda blob, role, *a, **k: agents[role]  # noqa: B023 (used at once)
        task = GatingTask(0, index, 21 + index, None, None, 9, 7.0, 24, 4, batch_size=4, cleanup_playouts=100)
        game = play_gating_task(task)[1]
        out.append(
            {"winner": game.winner, "result": game.result, "moves": game.moves, "sgf": game.sgf.split(";", 2)[-1]}
        )
    return out


def search_ab_games() -> list:
    from dlgo.search.zero_agent import ZeroAgent
    from dlgo.zero.search_ab import SearchPlayer, play_match

    a = SearchPlayer("A", ZeroAgent(TinyRandomNetwork(9), batch_size=4, seed=1, pipeline=False, tree="python"), 16)
    b = SearchPlayer("B", ZeroAgent(TinyRandomNetwork(9, 5), batch_size=4, seed=2, pipeline=False, tree="python"), 16)
    return play_match(a, b, 2, np.random.default_rng(7), size=9, progress=False).results


def rl_games() -> list:
    from dlgo.agent.naive import RandomBot
    from dlgo.rl.simulate import simulate_game

    out = []
    for seed in (1, 2):
        record = simulate_game(RandomBot(seed=seed), RandomBot(seed=seed + 10), 9, max_moves=120 + 60 * seed)
        out.append({"moves": record.moves, "result": record.result, "reason": record.reason})
    return out


def bench_moves() -> dict:
    from dlgo.agent.naive import RandomBot
    from dlgo.bench.__main__ import bench_selfplay
    from dlgo.utils import move_to_text

    played: list[str] = []
    select = RandomBot.select_move

    def recording(self, state):
        move = select(self, state)
        played.append(move_to_text(move))
        return move

    RandomBot.select_move = recording
    try:
        result = bench_selfplay(7, 3, 4)
    finally:
        RandomBot.select_move = select
    return {"games": result["games"], "moves": played}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="write the games here")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.load(open(p, encoding="utf-8")) for p in args.compare)
        same = True
        for key in before:
            verdict = "same" if before[key] == after.get(key) else "differ"
            same &= verdict == "same" or key == "gating"
            print(f"{key}: {verdict}")
        return 0 if same else 1
    GameState.new_game(9)
    games = {
        "selfplay": selfplay_games(),
        "gating": gating_games(),
        "search_ab": search_ab_games(),
        "rl_simulate": rl_games(),
        "bench_selfplay": bench_moves(),
    }
    text = json.dumps(games, indent=1)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
