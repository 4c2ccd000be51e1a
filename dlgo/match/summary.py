"""The summary of a match: who won how often, how sure we are, and what went wrong.

``summarise`` turns game records into a JSON-ready dict; ``summary_text`` renders it for people.
Win rate and Elo are the first player's (the "engine"), with 95% Wilson intervals; the p-value
is the exact two-sided binomial test of its decisive games against 50%.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from dlgo.match.record import FORFEITS, GameRecord
from dlgo.match.stats import binomial_p_value, elo_from_rate, elo_interval, wilson_interval

__all__ = ["summarise", "summary_text"]


def _finite(x: float) -> float | None:
    return None if math.isinf(x) or math.isnan(x) else round(x, 1)


def _player_stats(label: str, records: list[GameRecord]) -> dict:
    games = wins = losses = draws = moves = 0
    total_time = 0.0
    longest = 0.0
    colours = {"B": {"games": 0, "wins": 0}, "W": {"games": 0, "wins": 0}}
    faults: Counter[str] = Counter()
    resigned = 0
    for r in records:
        colour = r.colour_of(label)
        if colour is None:
            continue
        games += 1
        colours[colour]["games"] += 1
        if r.winner is None:
            draws += 1
        elif r.winner == colour:
            wins += 1
            colours[colour]["wins"] += 1
        else:
            losses += 1
            if r.reason == "resign":
                resigned += 1
        if r.fault == colour:
            faults[r.reason] += 1
        for (c, _), t in zip(r.moves[r.opening_moves :], r.times[r.opening_moves :]):
            if c == colour:
                moves += 1
                total_time += t
                longest = max(longest, t)
    return {
        "label": label,
        "games": games,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "as_black": colours["B"],
        "as_white": colours["W"],
        "resigned": resigned,
        "losses_by_fault": {reason: faults[reason] for reason in (*FORFEITS, "time") if faults[reason]},
        "moves": moves,
        "avg_move_seconds": round(total_time / moves, 3) if moves else None,
        "max_move_seconds": round(longest, 3) if moves else None,
    }


def summarise(records: Iterable[GameRecord], engine: str, opponent: str, planned: int | None = None) -> dict:
    """The match summary for ``engine`` against ``opponent`` over the finished ``records``."""
    done = sorted(records, key=lambda r: r.index)
    me = _player_stats(engine, done)
    them = _player_stats(opponent, done)
    n = me["games"]
    score = me["wins"] + 0.5 * me["draws"]
    rate = score / n if n else None
    lo, hi = wilson_interval(score, n)
    elo_lo, elo_hi = elo_interval(score, n)
    decisive = me["wins"] + me["losses"]

    disagreements = []
    checked = errors = 0
    for r in done:
        s = r.scoring or {}
        if s.get("agree") is not None:
            checked += 1
            if not s["agree"]:
                disagreements.append(
                    {"game": r.index + 1, "referee": s.get("referee_result"), "gnugo": s.get("gnugo_result")}
                )
        elif s.get("gnugo_error"):
            errors += 1

    return {
        "engine": engine,
        "opponent": opponent,
        "games": n,
        "planned": planned,
        "engine_wins": me["wins"],
        "opponent_wins": me["losses"],
        "draws": me["draws"],
        "win_rate": None if rate is None else round(rate, 4),
        "win_rate_95": [round(lo, 4), round(hi, 4)],
        "elo": None if rate is None else _finite(elo_from_rate(rate)),
        "elo_95": [_finite(elo_lo), _finite(elo_hi)],
        "elo_text": _elo_text(rate, elo_lo, elo_hi),
        "p_value": round(binomial_p_value(me["wins"], decisive), 6),
        "black_wins": sum(1 for r in done if r.winner == "B"),
        "white_wins": sum(1 for r in done if r.winner == "W"),
        "reasons": dict(Counter(r.reason for r in done)),
        "players": {engine: me, opponent: them},
        "scoring": {
            "counted_games": sum(1 for r in done if r.reason in ("score", "move-limit")),
            "gnugo_checked": checked,
            "gnugo_errors": errors,
            "disagreements": disagreements,
        },
    }


def _elo_text(rate: float | None, lo: float, hi: float) -> str:
    if rate is None:
        return "n/a"

    def fmt(x: float) -> str:
        return ("+inf" if x > 0 else "-inf") if math.isinf(x) else f"{x:+.0f}"

    return f"{fmt(elo_from_rate(rate))} [{fmt(lo)}, {fmt(hi)}]"


def summary_text(summary: dict, header: str = "") -> str:
    """A plain-text table of a summary (what the duel script prints and writes to summary.txt)."""
    s = summary
    engine, opponent = s["engine"], s["opponent"]
    lines = [header] if header else []
    planned = f" of {s['planned']}" if s.get("planned") else ""
    lines.append(f"{engine} vs {opponent}: {s['games']}{planned} games")
    if not s["games"]:
        return "\n".join(lines) + "\n"
    lo, hi = s["win_rate_95"]
    lines += [
        f"  score        {engine} {s['engine_wins']} - {s['opponent_wins']} {opponent}"
        + (f", {s['draws']} draws" if s["draws"] else ""),
        f"  win rate     {100 * s['win_rate']:.1f}%  (95% CI {100 * lo:.1f}% - {100 * hi:.1f}%)",
        f"  Elo diff     {s['elo_text']}",
        f"  p-value      {s['p_value']:.4g}  (two-sided binomial test against 50%)",
        f"  by colour    Black won {s['black_wins']}, White won {s['white_wins']}",
        "  endings      " + ", ".join(f"{k} {v}" for k, v in sorted(s["reasons"].items())),
        "",
        f"  {'player':<24} {'games':>5} {'wins':>5} {'as B':>7} {'as W':>7} {'s/move':>7} {'max s':>6}  faults",
    ]
    for label in (engine, opponent):
        p = s["players"][label]
        faults = ", ".join(f"{k} {v}" for k, v in p["losses_by_fault"].items()) or "-"
        avg = f"{p['avg_move_seconds']:.2f}" if p["avg_move_seconds"] is not None else "-"
        longest = f"{p['max_move_seconds']:.1f}" if p["max_move_seconds"] is not None else "-"
        as_b = f"{p['as_black']['wins']}/{p['as_black']['games']}"
        as_w = f"{p['as_white']['wins']}/{p['as_white']['games']}"
        lines.append(
            f"  {label:<24} {p['games']:>5} {p['wins']:>5} {as_b:>7} {as_w:>7} {avg:>7} {longest:>6}  {faults}"
        )
    sc = s["scoring"]
    lines.append("")
    lines.append(
        f"  counting     {sc['counted_games']} games counted; GNU Go cross-check on {sc['gnugo_checked']}"
        + (f", {sc['gnugo_errors']} errors" if sc["gnugo_errors"] else "")
        + f", {len(sc['disagreements'])} disagreements"
    )
    for d in sc["disagreements"]:
        lines.append(f"    game {d['game']}: referee {d['referee']}, GNU Go {d['gnugo']}")
    return "\n".join(lines) + "\n"
