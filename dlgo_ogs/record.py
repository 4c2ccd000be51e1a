"""What a session leaves behind: one SGF per game and ``summary.json``.

The summary carries, per game, everything a test needs to check the game again: the setup stones
and every move (colour, vertex, who played it, seconds charged), the result and why, the bot's
faults (illegal moves, moves after its time ran out), its chats and the variations it sent."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from dlgo_ogs.coords import PASS, to_gtp, to_ogs
from dlgo_ogs.game import Game

__all__ = ["game_summary", "sgf_text", "write_records"]

_SGF_ESCAPE = str.maketrans({"]": "\\]", "\\": "\\\\"})


def sgf_text(game: Game) -> str:
    st, spec = game.state, game.state.spec
    black, white = st.player("black"), st.player("white")
    date = datetime.datetime.fromtimestamp(st.start_ms / 1000).strftime("%Y-%m-%d")
    props = [
        "GM[1]FF[4]CA[UTF-8]AP[dlgo_ogs]",
        f"SZ[{spec.size}]KM[{spec.game_komi:g}]RU[Chinese]DT[{date}]",
        f"PB[{_esc(black.username)}]PW[{_esc(white.username)}]RE[{game.result_text()}]",
        f"TM[{spec.clock.average_move_seconds():g}]OT[{_esc(spec.clock.spec())}]",
        f"GN[dlgo_ogs game {st.game_id}]GC[{_esc(spec.describe())}; ended by {st.reason or 'nothing'}]",
    ]
    setup = list(st.setup_black)
    moves = st.moves
    if spec.stones:
        props.append(f"HA[{spec.stones}]")
        if spec.free_handicap:  # placed as moves on OGS; the record shows them as setup stones
            setup += [m.point for m in moves[: spec.stones]]
            moves = moves[spec.stones :]
    if setup:
        props.append("AB" + "".join(f"[{to_ogs(p)}]" for p in setup))
    nodes = [";" + "".join(props)]
    for m in moves:
        nodes.append(f";{m.color[0].upper()}[{'' if m.point == PASS else to_ogs(m.point)}]")
    return "(" + "\n".join(nodes) + ")\n"


def game_summary(game: Game, sgf_path: Path | None = None) -> dict:
    st, spec = game.state, game.state.spec
    bot_seconds = [m.ms / 1000 for m in st.moves if m.by == "bot"]
    winner = "bot" if st.winner_color == spec.bot_color else ("opponent" if st.winner_color else None)
    return {
        "game_id": st.game_id,
        "size": spec.size,
        "komi": spec.game_komi,
        "handicap": spec.handicap,
        "free_handicap": spec.free_handicap,
        "bot_color": spec.bot_color,
        "clock": spec.clock.spec(),
        "speed": spec.clock.speed,
        "time_control": spec.clock.to_json(),
        "finished": st.phase == "finished",
        "phase": st.phase,
        "result": game.result_text(),
        "winner": winner,
        "winner_color": st.winner_color,
        "reason": st.reason or None,
        "score": st.score,
        "stone_removal": st.reason == "score",  # both passed, then OGS's stone-removal phase
        "removed": [to_gtp(p, spec.size) for p in st.removed],
        "setup_black": [to_gtp(p, spec.size) for p in st.setup_black],
        "moves": [
            {"color": m.color, "vertex": to_gtp(m.point, spec.size), "by": m.by, "seconds": m.ms / 1000}
            for m in st.moves
        ],
        "bot_longest_move_seconds": max(bot_seconds, default=0.0),
        "failures": game.failures,
        "late_moves": game.late_moves,
        "illegal_moves": [f for f in game.failures if f["kind"] == "illegal"],
        "moves_after_timeout": [f for f in game.failures if f["kind"] == "after_timeout"],
        "bot_lost_on_time": st.reason == "timeout" and winner == "opponent",
        "faults_staged": game.faults_staged,
        "chats": game.chats,
        "analysis": game.analysis,
        "sgf": str(sgf_path.resolve()) if sgf_path else None,
    }


def write_records(out: Path, games: list[Game], session: dict) -> dict:
    """Write ``game-<id>.sgf`` for each game and ``summary.json``; return the summary."""
    out.mkdir(parents=True, exist_ok=True)
    summaries = []
    for game in games:
        path = out / f"game-{game.gid}.sgf"
        path.write_text(sgf_text(game), encoding="utf-8")
        summaries.append(game_summary(game, path))
    problems = []
    for s in summaries:
        if not s["finished"]:
            problems.append(f"game {s['game_id']}: not finished")
        for f in s["failures"]:
            problems.append(f"game {s['game_id']}: {f['kind']} at move {f['move_number']} ({f['move']}): {f['detail']}")
        if s["bot_lost_on_time"]:
            problems.append(f"game {s['game_id']}: the bot lost on time")
    summary = {**session, "ok": not problems and bool(summaries), "problems": problems, "games": summaries}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def _esc(text: str) -> str:
    return text.translate(_SGF_ESCAPE)
