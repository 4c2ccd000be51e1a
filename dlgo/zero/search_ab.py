"""Two searches on one network, in one process, at a fixed number of visits a move: the quick
A/B of search settings (exploration constant, visits, first-play urgency, Gumbel root search).

    python -m dlgo.zero.search_ab --model weights/zero-9x9.keras --a c=1.0 --b c=2.0 \
        --visits 400 --games 100

Games come in pairs: one opening of ``--opening`` moves drawn from the network's policy, then
each side plays it once as Black. No exploration on either side (PUCT plays its most visited
move, Gumbel the halving's winner without the draw), games to two passes counted by area with
every stone alive (as self-play counts), capped at twice the board's points. A side is
``key=value`` pairs, comma separated: ``c`` (PUCT constant), ``visits``, ``fpu`` (first-play
urgency reduction, -1 off), ``batch`` (leaves per network call, 8 unless set; with virtual
loss, a larger batch spreads a search of few visits), ``growth`` (tree visits per leaf of a
batch, 4 unless set: ``zero.batch_growth``), ``lcb`` (1: play the best lower confidence
bound, ``zero.select_by = "lcb"``), ``gumbel`` (1: Gumbel root search), ``rollout`` (the weight of one
fast rollout in each leaf's value, AlphaGo's 1 - lambda, book chapter 13; 0 off). For claims against other
engines use ``dlgo.match.duel`` and GNU Go's count; this compares settings of our own search.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field

import numpy as np

from dlgo.game_runner import play_game
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.match.stats import elo_interval, wilson_interval
from dlgo.search import PUCTAgent, SearchBudget, SearchSettings
from dlgo.search.gumbel import gumbel_search

__all__ = ["SearchPlayer", "make_player", "opening", "play_out", "play_match", "parse_side", "with_rollouts"]

_SIDE_KEYS = {
    "c": float, "visits": int, "fpu": float, "gumbel": int, "rollout": float, "batch": int, "growth": int, "lcb": int,
}  # fmt: skip


@dataclass
class SearchPlayer:
    """A search on a Zero agent: ``visits`` a move, PUCT or (``gumbel``) Gumbel root search."""

    name: str
    agent: object  # a ZeroAgent / PUCTAgent on the compiled tree
    visits: int
    gumbel: bool = False

    def move(self, state: GameState, rng: np.random.Generator) -> Move:
        if self.gumbel:
            return gumbel_search(self.agent.tree, state, self.visits, rng=rng, explore=False).move
        best = self.agent.tree.search(state, SearchBudget(max_visits=self.visits)).best
        return best.move if best is not None else Move.pass_turn()


def parse_side(text: str) -> dict[str, float | int]:
    """``"c=1.5,visits=400"`` -> ``{"c": 1.5, "visits": 400}`` (keys: c, visits, fpu, gumbel)."""
    out: dict[str, float | int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = part.partition("=")
        if key not in _SIDE_KEYS or not value:
            raise ValueError(f"{part!r}: expected key=value with key one of {', '.join(_SIDE_KEYS)}")
        out[key] = _SIDE_KEYS[key](value)
    return out


def opening(evaluator, size: int, moves: int, rng: np.random.Generator, komi: float = 7.0) -> GameState:
    """``moves`` moves drawn from ``evaluator``'s policy (no pass): where a pair of games starts."""
    state = GameState.new_game(size, komi=komi)
    for _ in range(moves):
        policy, _ = evaluator.evaluate([state])
        p = np.asarray(policy[0], np.float64)[: size * size]
        legal = np.array([state.is_valid_move(Move.play(Point(i // size + 1, i % size + 1))) for i in range(len(p))])
        p = p * legal
        if p.sum() <= 0:
            break
        index = int(rng.choice(len(p), p=p / p.sum()))
        state = state.apply_move(Move.play(Point(index // size + 1, index % size + 1)))
    return state


class _Playing:
    """A ``SearchPlayer`` as the game runner's player: no resign signal, its move on the match's
    random generator."""

    def __init__(self, player: SearchPlayer, rng: np.random.Generator) -> None:
        self.player = player
        self.rng = rng

    def evaluate(self, state: GameState, index: int) -> float | None:
        return None

    def select(self, state: GameState, index: int) -> Move:
        return self.player.move(state, self.rng)


def play_out(start: GameState, black: SearchPlayer, white: SearchPlayer, rng: np.random.Generator) -> int:
    """The game from ``start`` to two passes (or twice the points in moves, the opening's
    included) on the game runner: +1 when Black wins by the area count (every stone alive), -1
    when White does, 0 for a draw."""
    for player in (black, white):
        player.agent.clear_tree()
    limit = 2 * start.board.num_rows * start.board.num_cols
    outcome = play_game(_Playing(black, rng), _Playing(white, rng), start, max_moves=max(0, limit - start.move_number))
    winner = outcome.winner
    return 0 if winner is None else (1 if winner is Player.black else -1)


@dataclass
class MatchResult:
    a: str
    b: str
    games: int = 0
    a_wins: int = 0
    draws: int = 0
    results: list[int] = field(default_factory=list)  # +1 a won, -1 b won, 0 draw, in order

    def summary(self) -> dict:
        score = self.a_wins + 0.5 * self.draws
        low, high = wilson_interval(score, self.games)
        elo_low, elo_high = elo_interval(score, self.games)
        return {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "a_wins": self.a_wins,
            "b_wins": self.games - self.a_wins - self.draws,
            "draws": self.draws,
            "a_score": round(score / max(1, self.games), 4),
            "ci95": [round(low, 4), round(high, 4)],
            "elo95": [_finite(elo_low), _finite(elo_high)],
        }


def _finite(elo: float) -> float | None:
    return round(elo, 1) if np.isfinite(elo) else None  # JSON has no infinity


def play_match(
    a: SearchPlayer,
    b: SearchPlayer,
    games: int,
    rng: np.random.Generator,
    size: int = 9,
    komi: float = 7.0,
    opening_moves: int = 4,
    progress: bool = True,
) -> MatchResult:
    """``games`` (rounded down to pairs) of ``a`` against ``b``, colours swapped in each pair."""
    result = MatchResult(a.name, b.name)
    for _ in range(games // 2):
        start = opening(a.agent.evaluator, size, opening_moves, rng, komi)
        for black, white in ((a, b), (b, a)):
            outcome = play_out(start, black, white, rng)
            mine = outcome if black is a else -outcome
            result.games += 1
            result.a_wins += mine == 1
            result.draws += mine == 0
            result.results.append(mine)
        if progress:
            print(f"  {a.name} against {b.name}: {result.a_wins}-{result.games - result.a_wins - result.draws}"
                  f"-{result.draws} after {result.games} games", flush=True)  # fmt: skip
    return result


def with_rollouts(agent: PUCTAgent, weight: float, seed: int | None = None) -> PUCTAgent:
    """The same network and settings with each leaf valued ``(1 - weight) * value head + weight *
    one fast rollout`` (AlphaGo's mixing, book chapter 13), on the Python tree (the compiled
    tree evaluates encoded planes only)."""
    from dlgo.alphago.evaluator import AlphaGoEvaluator

    net = agent.evaluator
    s = agent.settings
    # the settings this has always carried over (the others at their defaults), on the Python tree
    settings = SearchSettings(
        rounds=s.rounds, exploration=s.exploration, batch_size=s.batch_size, early_stop=s.early_stop,
        fpu_reduction=s.fpu_reduction, tree="python",
    )  # fmt: skip
    return PUCTAgent(AlphaGoEvaluator(net, net, lambda_value=1.0 - weight), settings, seed=seed)


def make_player(name: str, spec: dict, args: argparse.Namespace) -> SearchPlayer:
    """Side ``spec`` (``parse_side``) as a player on ``args.model`` (one thread, no early stop)."""
    from dlgo.search.zero_agent import ZeroAgent

    agent = ZeroAgent.from_model(
        args.model, board_size=args.size, seed=args.seed, threads=1, runtime=args.runtime,
        batch_size=int(spec.get("batch", 8)), batch_growth=int(spec.get("growth", 4)),
        select_by="lcb" if spec.get("lcb", 0) else "visits",
        early_stop=False, exploration=float(spec.get("c", 2.0)), fpu_reduction=float(spec.get("fpu", -1.0)),
    )  # fmt: skip
    if spec.get("rollout", 0.0) > 0:
        agent = with_rollouts(agent, float(spec["rollout"]), args.seed)
    return SearchPlayer(name, agent, int(spec.get("visits", args.visits)), bool(spec.get("gumbel", 0)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="weights/zero-9x9.keras")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.0)
    parser.add_argument("--a", default="", help="side A's settings, e.g. c=1.0,visits=400")
    parser.add_argument("--b", default="", help="side B's settings")
    parser.add_argument("--visits", type=int, default=200, help="visits a move where a side names none")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--opening", type=int, default=4, help="moves drawn from the policy before each pair")
    parser.add_argument("--runtime", default="int8")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="", help="write the summary here as JSON")
    args = parser.parse_args(argv)
    a = make_player(f"A({args.a or 'default'})", parse_side(args.a), args)
    b = make_player(f"B({args.b or 'default'})", parse_side(args.b), args)
    rng = np.random.default_rng(args.seed)
    summary = play_match(a, b, args.games, rng, args.size, args.komi, args.opening).summary()
    summary["command_settings"] = {k: v for k, v in vars(args).items() if k != "out"}
    print(json.dumps(summary))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
