"""The Zero loop's matches: gating (candidate against best) and anchor games against GNU Go.

- **gating** (book 14.4; AlphaGo Zero's evaluator): ``gating.games`` games with alternating
  colours on the workers, stopped as soon as no remaining game can change the verdict; every
  game is stored (SGF and a ``gating.jsonl`` line) as it ends, so a restart never replays one.
- **anchor**: every new generation plays ``anchor.games`` games against GNU Go through the GTP
  engine (``dlgo.match``); its Elo against the anchor goes to ``elo.csv`` and the plot.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dlgo.parallel import task_seed
from dlgo.zero.loop_config import GatingSettings
from dlgo.zero.report import ELO_CLIP, ELO_COLUMNS, read_csv, write_csv
from dlgo.zero.workers import GatingGame, GatingTask, ModelBlob, gating_resign, play_gating_task

if TYPE_CHECKING:
    from dlgo.zero.training_loop import ZeroLoop

__all__ = ["gate_verdict", "gating_games", "play_gating", "store_gating_game", "play_anchor"]


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


def play_gating(loop: ZeroLoop, candidate: Path) -> tuple[dict[int, dict[str, Any]], bool | None]:
    """Play the iteration's missing gating games on the loop's workers (stopping once the
    verdict is certain or the time is up); returns the games and the verdict (None: open)."""
    it = loop.state["iteration"]
    g = loop.config.gating
    d = loop.iteration_dir(it)
    games = gating_games(loop.out, it)
    clock = loop.start_clock("gate")
    verdict = gate_verdict(games, g)
    if verdict is None:
        cand_blob, best_blob = ModelBlob.from_file(candidate), ModelBlob.from_file(loop.best_path)
        tasks = [
            GatingTask(
                it,
                i,
                task_seed(loop.config.loop.seed, it, 1 << 21, i),
                cand_blob,
                best_blob,
                loop.config.selfplay.board_size,
                loop.config.selfplay.komi,
                g.visits,
                g.temperature_moves,
                loop.config.selfplay.c_puct,
                loop.config.selfplay.batch_size,
                loop.config.selfplay.runtime,
                loop.config.selfplay.cleanup_playouts,
                gating_resign(loop.config.selfplay),
            )  # fmt: skip
            for i in range(g.games)
            if i not in games
        ]
        bar = loop.progress_bar(g.games, f"gating it {it}", initial=len(games))
        try:
            results = loop.run_on_workers(play_gating_task, tasks)
            for _, game in results:
                store_gating_game(d, game)
                games[game.index] = {"index": game.index, "winner": game.winner}
                if bar is not None:
                    w = sum(r["winner"] == 1 for r in games.values())
                    lo = sum(r["winner"] == -1 for r in games.values())
                    bar.update(1)
                    bar.set_postfix_str(f"candidate {w}-{lo} best")
                verdict = gate_verdict(games, g)
                if verdict is not None or loop.time_up():
                    results.close()
                    break
        finally:
            if bar is not None:
                bar.close()
    clock.stop()
    return games, verdict


def play_anchor(loop: ZeroLoop) -> None:
    """The best generation's games against GNU Go; its Elo row goes to ``elo.csv``."""
    from dlgo.match import GameRules, MatchSettings, dlgo_player, gnugo_player
    from dlgo.match.runner import run_match
    from dlgo.match.stats import elo_from_rate, elo_interval

    a = loop.config.anchor
    gen = loop.state["generation"]
    size = loop.config.selfplay.board_size
    clock = loop.start_clock("anchor")
    engine = dlgo_player(
        None, label=f"zero-gen{gen}",
        sets=(
            "agent=zero", f"zero.model={loop.best_path}", f"zero.rounds={a.visits}", "zero.threads=1",
            "time.default_seconds=0", f"engine.board_size={size}", f"resign.threshold={loop.resign_winrate:.3f}",
        ),
    )  # fmt: skip
    opponent = gnugo_player(a.level)
    rules = GameRules(size=size, komi=a.komi)
    settings = MatchSettings(engine, opponent, a.games, rules, jobs=loop.config.loop.workers)
    try:
        result = run_match(settings, loop.out / "anchor" / f"gen-{gen:04d}", progress=loop.progress)
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
        "iteration": loop.state["iteration"],
        "anchor": opponent.label,
        "games": games,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "win_rate": round(rate, 4),
        "elo": clip(elo_from_rate(rate)) if games else "",
        "elo_low": clip(lo),
        "elo_high": clip(hi),
        "total_games": loop.replay_games(),
        "total_positions": loop.replay.positions(),
    }
    elo_rows = [r for r in read_csv(loop.out / "elo.csv") if int(r["generation"]) != gen] + [row]
    write_csv(loop.out / "elo.csv", ELO_COLUMNS, elo_rows)
    loop.state["anchored"].append(gen)
    loop.save_state()
    loop.say(f"generation {gen} against {opponent.label}: {wins}-{losses} ({rate:.0%}), Elo {row['elo']}")
    loop.write_plot()
