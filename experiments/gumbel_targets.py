"""Which self-play search teaches more per visit: PUCT's visit counts or Gumbel's improved policy?

    python experiments/gumbel_targets.py --model weights/zero-9x9.keras --positions 200 \
        --visits 16 32 64 128 256 --reference 2048 --out docs/gumbel-targets.json

Positions come from the network's own games (every move sampled from a 16-visit search, so
they spread from opening to endgame). Each position gets a reference search (PUCT, no noise,
``--reference`` visits); then, at each budget, the two self-play searches: PUCT with
Dirichlet noise at the root (the loop's full search; its target is the visit distribution,
its move the most visited) and the Gumbel root search (``dlgo.search.gumbel``; its target the
improved policy, its move the halving's winner). Reported per budget and method, against the
reference: KL(reference || target) in nats, how often the target's top move is the
reference's, and how often the move played is. The network's own policy is the zero-visit row.
``--games N``: first a match of the two searches in play (no exploration: PUCT's most visited
move, Gumbel's halving winner without the draw) at each of ``--match-visits``, pairs of games
from an opening of 4 moves drawn from the policy, colours swapped, counted by area.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from dlgo.goboard import GameState
from dlgo.search import SearchBudget
from dlgo.search.gumbel import gumbel_search
from dlgo.search.zero_agent import ZeroAgent
from dlgo.zero.search_ab import SearchPlayer, play_match


def sample_positions(agent: ZeroAgent, size: int, count: int, rng: np.random.Generator) -> list[GameState]:
    """``count`` positions from the network's games, a random few from each game."""
    out: list[GameState] = []
    while len(out) < count:
        agent.clear_tree()
        state = GameState.new_game(size, komi=7.0)
        game: list[GameState] = []
        while not state.is_over() and len(game) < 2 * size * size:
            agent.tree.search(state, SearchBudget(max_visits=16), self_play=True)
            move = agent.tree.sample_move(1.0)
            if move is None:
                break
            game.append(state)
            state = state.apply_move(move)
        picks = rng.choice(len(game), size=min(4, len(game)), replace=False)
        out.extend(game[int(i)] for i in picks if not game[int(i)].is_over())
    return out[:count]


def kl(reference: np.ndarray, target: np.ndarray) -> float:
    p = reference / reference.sum()
    q = np.maximum(target / target.sum(), 1e-6)
    keep = p > 0
    return float((p[keep] * np.log(p[keep] / q[keep])).sum())


def move_index(move, size: int) -> int:
    return size * size if move.is_pass else (move.point.row - 1) * size + move.point.col - 1


def match(make, size: int, visits: int, games: int, rng: np.random.Generator) -> dict:
    """Gumbel against PUCT at ``visits`` a move (``dlgo.zero.search_ab``)."""
    gumbel = SearchPlayer("gumbel", make(False), visits, gumbel=True)
    puct = SearchPlayer("puct", make(False), visits)
    return {"visits": visits, **play_match(gumbel, puct, games, rng, size).summary()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="weights/zero-9x9.keras")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--visits", type=int, nargs="+", default=[16, 32, 64, 128, 256])
    parser.add_argument("--reference", type=int, default=2048)
    parser.add_argument("--considered", type=int, default=16)
    parser.add_argument("--runtime", default="int8")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=0, help="also a Gumbel-PUCT match of this many games")
    parser.add_argument("--match-visits", type=int, nargs="+", default=[32, 128])
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    def make(self_play: bool) -> ZeroAgent:
        return ZeroAgent.from_model(
            args.model, board_size=args.size, seed=args.seed, threads=1, runtime=args.runtime,
            self_play=self_play, batch_size=8, early_stop=False,
        )  # fmt: skip

    started = time.time()
    matches = [match(make, args.size, n, args.games, rng) for n in args.match_visits] if args.games else []
    for row in matches:
        print(f"gumbel against puct at {row['visits']} visits: {row}", flush=True)
    play, reference = make(True), make(False)
    positions = sample_positions(play, args.size, args.positions, rng)
    print(f"{len(positions)} positions in {time.time() - started:.0f} s", flush=True)
    rows: dict[str, dict[str, list[float]]] = {}

    def note(name: str, ref: np.ndarray, target: np.ndarray, played: int) -> None:
        row = rows.setdefault(name, {"kl": [], "target_top1": [], "played_top1": []})
        best = int(np.argmax(ref))
        row["kl"].append(kl(ref, target))
        row["target_top1"].append(float(int(np.argmax(target)) == best))
        row["played_top1"].append(float(played == best))

    for k, state in enumerate(positions):
        reference.clear_tree()
        reference.tree.search(state, SearchBudget(max_visits=args.reference))
        ref = reference.tree.last_statistics.visit_counts.astype(np.float64)
        prior = reference.tree.root_priors().astype(np.float64)
        note("policy", ref, prior, int(np.argmax(prior)))
        for n in args.visits:
            play.clear_tree()
            play.tree.search(state, SearchBudget(max_visits=n), self_play=True)
            stats = play.tree.last_statistics
            note(f"puct-{n}", ref, stats.distribution(1.0), move_index(play.tree.most_visited(), args.size))
            play.clear_tree()
            outcome = gumbel_search(play.tree, state, n, args.considered, rng)
            note(f"gumbel-{n}", ref, outcome.policy_target, move_index(outcome.move, args.size))
        if (k + 1) % 25 == 0:
            print(f"{k + 1}/{len(positions)} positions, {time.time() - started:.0f} s", flush=True)

    summary = {
        name: {key: round(float(np.mean(v)), 4) for key, v in row.items()} | {"positions": len(row["kl"])}
        for name, row in rows.items()
    }
    print(f"{'search':12} {'KL(ref||target)':>16} {'target top-1':>13} {'played top-1':>13}")
    for name, row in summary.items():
        print(f"{name:12} {row['kl']:16.3f} {row['target_top1']:13.3f} {row['played_top1']:13.3f}")
    if args.out:
        meta = {k: v for k, v in vars(args).items() if k != "out"}
        report = {"settings": meta, "results": summary, "matches": matches}
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
