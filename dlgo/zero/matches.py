"""The Zero loop's matches: gating (candidate against best) and anchor games against GNU Go.

- **gating** (book 14.4; AlphaGo Zero's evaluator): ``gating.games`` games with alternating
  colours on the workers, stopped as soon as no remaining game can change the verdict; every
  game is stored (SGF and a ``gating.jsonl`` line) as it ends, so a restart never replays one.
- **anchor**: every new generation plays ``anchor.games`` games against GNU Go through the GTP
  engine (``dlgo.match``); its Elo against the anchor goes to ``elo.csv`` and the plot.

Each match is a function of its context (``GatingContext``, ``AnchorContext``) and the loop's
``PhaseRuntime`` (``dlgo.zero.phase``); it returns its result, and the loop updates its state.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dlgo.parallel import task_seed
from dlgo.zero.loop_config import AnchorSettings, GatingSettings
from dlgo.zero.phase import PhaseRuntime, TaskStep, iteration_dir
from dlgo.zero.report import ELO_CLIP, ELO_COLUMNS, read_csv, write_csv
from dlgo.zero.selfplay import SelfPlaySettings
from dlgo.zero.workers import GatingGame, GatingTask, ModelBlob, play_gating_task

__all__ = [
    "AnchorContext",
    "GatingContext",
    "GatingResult",
    "gate_verdict",
    "gating_games",
    "play_anchor",
    "play_gating",
    "store_gating_game",
]


@dataclass(frozen=True)
class GatingContext:
    """What one iteration's gate needs. ``selfplay`` is the config's ``[selfplay]`` (board, komi,
    search, runtime, clean-up and resign rules), not the calibrated threshold of the state."""

    out: Path  # the run folder: iter-NNNN/ gets the SGFs and gating.jsonl
    iteration: int
    candidate: Path
    best: Path
    gating: GatingSettings
    selfplay: SelfPlaySettings
    seed: int


@dataclass(frozen=True)
class GatingResult:
    games: dict[int, dict[str, Any]]  # every game stored so far, by number
    verdict: bool | None  # None: stopped while open

    @property
    def wins(self) -> int:
        return sum(r["winner"] == 1 for r in self.games.values())

    @property
    def losses(self) -> int:
        return sum(r["winner"] == -1 for r in self.games.values())

    @property
    def draws(self) -> int:
        return len(self.games) - self.wins - self.losses


@dataclass(frozen=True)
class AnchorContext:
    """What one generation's anchor match needs (``[anchor]``, and the state fields its row names)."""

    out: Path  # the run folder: anchor/gen-NNNN/ and elo.csv
    generation: int
    iteration: int
    best: Path  # the generation's network
    anchor: AnchorSettings
    board_size: int
    resign_winrate: float  # the engine's resign.threshold
    workers: int  # games at once
    total_games: int  # the replay so far, for the Elo row
    total_positions: int


def gating_games(out: Path, iteration: int) -> dict[int, dict[str, Any]]:
    """The gating games of ``iteration`` stored so far, by game number."""
    path = out / f"iter-{iteration:04d}" / "gating.jsonl"
    games: dict[int, dict[str, Any]] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            games[int(row["index"])] = row
    return games


def gate_verdict(games: dict[int, dict[str, Any]], gating: GatingSettings) -> bool | None:
    """True/False once no remaining game can change the verdict; None while open.

    ``gating.games == 0`` turns the gate off: every candidate becomes the next generation at once
    (AlphaZero's continual update instead of AlphaGo Zero's 55% gate)."""
    if gating.games == 0:
        return True
    wins = sum(r["winner"] == 1 for r in games.values())
    losses = sum(r["winner"] == -1 for r in games.values())
    left = gating.games - len(games)
    if wins + losses + left == 0:
        return False
    if wins / (wins + losses + left) > gating.accept:
        return True  # accepted even if it lost every remaining game
    if (wins + left) / (wins + losses + left) <= gating.accept:
        return False  # rejected even if it won every remaining game
    return None if left > 0 else wins / max(1, wins + losses) > gating.accept


def store_gating_game(d: Path, game: GatingGame) -> None:
    (d / "games" / f"gate-{game.index:03d}.sgf").write_text(game.sgf, encoding="utf-8")
    row = {
        "index": game.index, "winner": game.winner, "candidate_black": game.candidate_black,
        "result": game.result, "moves": game.moves,
    }  # fmt: skip
    with open(d / "gating.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")
        f.flush()
        os.fsync(f.fileno())


def play_gating(ctx: GatingContext, runtime: PhaseRuntime) -> GatingResult:
    """Play the iteration's missing gating games on the runtime's workers (stopping once the
    verdict is certain or the time is up); returns the games and the verdict (None: open)."""
    it, g, play = ctx.iteration, ctx.gating, ctx.selfplay
    d = iteration_dir(ctx.out, it)
    games = gating_games(ctx.out, it)
    verdict = gate_verdict(games, g)

    def store(game: GatingGame) -> TaskStep:
        nonlocal verdict
        store_gating_game(d, game)
        games[game.index] = {"index": game.index, "winner": game.winner}
        verdict = gate_verdict(games, g)
        w = sum(r["winner"] == 1 for r in games.values())
        lo = sum(r["winner"] == -1 for r in games.values())
        return TaskStep(1, f"candidate {w}-{lo} best", stop=verdict is not None)

    clock = runtime.clock("gate")
    try:
        if verdict is None:
            cand_blob, best_blob = ModelBlob.from_file(ctx.candidate), ModelBlob.from_file(ctx.best)
            tasks = [
                GatingTask.for_game(it, i, task_seed(ctx.seed, it, 1 << 21, i), cand_blob, best_blob, play, g)
                for i in range(g.games)
                if i not in games
            ]
            runtime.run_tasks(
                play_gating_task, tasks, lambda result: store(result[1]), g.games, f"gating it {it}", initial=len(games)
            )
    finally:
        clock.stop()
    return GatingResult(games, verdict)


def play_anchor(ctx: AnchorContext, runtime: PhaseRuntime) -> dict[str, Any]:
    """The generation's games against GNU Go; its Elo row goes to ``elo.csv`` and is returned."""
    from dlgo.match import GameRules, MatchSettings, gnugo_player
    from dlgo.match.players import engine_search_settings, zero_engine_player
    from dlgo.match.runner import run_match
    from dlgo.match.stats import elo_from_rate, elo_interval

    a, gen, size = ctx.anchor, ctx.generation, ctx.board_size
    clock = runtime.clock("anchor")
    search = engine_search_settings(size).replace(rounds=a.visits)
    engine = zero_engine_player(
        ctx.best, search, board_size=size, label=f"zero-gen{gen}", resign_threshold=round(ctx.resign_winrate, 3)
    )
    opponent = gnugo_player(a.level)
    rules = GameRules(size=size, komi=a.komi)
    settings = MatchSettings(engine, opponent, a.games, rules, jobs=ctx.workers)
    try:
        result = run_match(settings, ctx.out / "anchor" / f"gen-{gen:04d}", progress=runtime.progress)
    finally:
        clock.stop()
    s = result.summary
    if result.interrupted:
        raise KeyboardInterrupt
    wins, losses, draws = s["engine_wins"], s["opponent_wins"], s.get("draws", 0)
    games = wins + losses + draws
    score = wins + 0.5 * draws
    rate = score / games if games else 0.0
    lo, hi = elo_interval(score, games)

    def clip(v: float) -> float:
        return round(max(-ELO_CLIP, min(ELO_CLIP, v)), 1)

    row = {
        "generation": gen,
        "iteration": ctx.iteration,
        "anchor": opponent.label,
        "games": games,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "win_rate": round(rate, 4),
        "elo": clip(elo_from_rate(rate)) if games else "",
        "elo_low": clip(lo),
        "elo_high": clip(hi),
        "total_games": ctx.total_games,
        "total_positions": ctx.total_positions,
    }
    elo_rows = [r for r in read_csv(ctx.out / "elo.csv") if int(r["generation"]) != gen] + [row]
    write_csv(ctx.out / "elo.csv", ELO_COLUMNS, elo_rows)
    runtime.say(f"generation {gen} against {opponent.label}: {wins}-{losses} ({rate:.0%}), Elo {row['elo']}")
    return row
