"""Audit finished games: does our bot, once its opponent has passed, ever play inside its own
territory? And how does the game count by area and by territory?

    .venv/bin/python experiments/after_pass_audit.py FOLDER_OR_SGF ... [--bot dlgo] [--ask CONFIG]

Every record (``.sgf``, searched recursively) is replayed into GNU Go. Our bot's colour is the one
whose player name (PB/PW) contains ``--bot``. At each move of ours that answers a pass of the
opponent, GNU Go's ``final_status_list <colour>_territory`` of the position before the move is the
referee: a play on one of those points is a move inside our own territory. For games that ended
by two passes, the final position is counted by GNU Go under Chinese and Japanese rules
(``final_score``) and by dlgo (``dlgo.deadstones`` and ``dlgo.territory``). Prints one JSON
object: games, wins and losses of the bot (the recorded result, and GNU Go's Japanese count of the
games counted), the answers to passes by kind
(pass, resign, play outside, play inside), every play inside with its record and move number,
and the counts that differ.

``--ask CONFIG`` (with ``--ask-set KEY=VALUE``): each position where our bot answered a pass is
put again to the engine as configured now (``genmove``, then ``undo``), and its answers are
judged the same way (``asked``): the check that a change to the end of the game answers a
match's positions, without playing the match again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sgfmill import sgf

from dlgo.deadstones import count
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.match.gtp_client import GtpProcess
from dlgo.match.players import find_gnugo
from dlgo.territory import territory_result
from dlgo.utils import coords_from_point, point_from_coords


def _records(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        found.extend(sorted(path.rglob("*.sgf")) if path.is_dir() else [path])
    return found


def _gnugo(path: str, rules: str) -> GtpProcess:
    gtp = GtpProcess([path, "--mode", "gtp", f"--{rules}-rules", "--level", "1"], label=f"GNU Go {rules}")
    gtp.start()
    return gtp


def _judge(vertex: str, colour: str, chinese: GtpProcess) -> str:
    """pass, resign, outside or inside: where an answer to a pass lands, by GNU Go's territory."""
    if vertex.lower() in ("pass", "resign"):
        return vertex.lower()
    name = "black" if colour == "b" else "white"
    territory = set(chinese.send(f"final_status_list {name}_territory").upper().split())
    return "inside" if vertex.upper() in territory else "outside"


def audit(record: Path, bot: str, chinese: GtpProcess, japanese: GtpProcess, engine: GtpProcess | None = None) -> dict:
    game = sgf.Sgf_game.from_bytes(record.read_bytes())
    root = game.get_root()
    names = {c: (root.get(f"P{c.upper()}") if root.has_property(f"P{c.upper()}") else "") for c in "bw"}
    ours = next((c for c in "bw" if bot.lower() in names[c].lower()), None)
    size, komi = game.get_size(), game.get_komi()
    players = [chinese, japanese] + ([engine] if engine is not None else [])
    for gtp in players:
        gtp.send(f"boardsize {size}")
        gtp.send("clear_board")
        gtp.send(f"komi {komi}")
    state = GameState.new_game(size, komi)
    setup_black = root.get("AB") if root.has_property("AB") else set()
    if setup_black:
        board = state.board.copy()
        for row, col in setup_black:
            board.place_stone(Player.black, Point(row + 1, col + 1))
            for gtp in players:
                gtp.send(f"play black {coords_from_point(Point(row + 1, col + 1))}")
        state = GameState.from_position(board, Player.white, komi)
    answers = {"pass": 0, "resign": 0, "outside": 0, "inside": 0}
    asked = dict.fromkeys(answers, 0)
    inside, asked_inside, resigned_asked = [], [], []
    previous = None
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    moves = [(c, m) for c, m in moves if c is not None]
    for number, (colour, move) in enumerate(moves, 1):
        vertex = "pass" if move is None else coords_from_point(Point(move[0] + 1, move[1] + 1))
        if colour == ours and previous == "pass":
            kind = _judge(vertex, colour, chinese)
            answers[kind] += 1
            if kind == "inside":
                inside.append({"record": str(record), "move": number, "vertex": vertex})
            if engine is not None:
                answer = engine.send(f"genmove {colour}").upper()
                if answer != "RESIGN":
                    engine.send("undo")
                kind = _judge(answer, colour, chinese)
                asked[kind] += 1
                if kind == "inside":
                    asked_inside.append({"record": str(record), "move": number, "vertex": answer})
        for gtp in players:
            gtp.send(f"play {colour} {vertex}")
        state = state.apply_move(Move.pass_turn() if move is None else Move.play(point_from_coords(vertex)))
        previous = vertex
    result = root.get("RE") if root.has_property("RE") else ""
    last_colour = moves[-1][0] if moves else None
    if ours is not None and "+R" in result.upper() and result[0].lower() != ours:
        if previous == "pass" and last_colour != ours:
            answers["resign"] += 1  # we resigned in answer to the opponent's pass
            if engine is not None:  # the position we resigned, asked again
                answer = engine.send(f"genmove {ours}").upper()
                kind = _judge(answer, ours, chinese)
                asked[kind] += 1
                out_answer = {"record": str(record), "move": len(moves) + 1, "vertex": answer}
                if kind == "inside":
                    asked_inside.append(out_answer)
                resigned_asked.append(out_answer)
    out = {
        "record": str(record),
        "ours": ours,
        "result": result,
        "won": None if ours is None or not result else result[0].lower() == ours,
        "answers": answers,
        "inside": inside,
    }
    if engine is not None:
        out["asked"], out["asked_inside"], out["resigned_asked"] = asked, asked_inside, resigned_asked
    if len(moves) >= 2 and moves[-1][1] is None and moves[-2][1] is None:
        counted = count(state, 1000)
        seki = [p for group in counted.status.seki for p in group]
        out["counts"] = {
            "gnugo_chinese": chinese.send("final_score"),
            "ours_area": str(counted.result),
            "gnugo_japanese": japanese.send("final_score"),
            "ours_territory": str(territory_result(state, counted.dead_stones(), seki)),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("paths", nargs="+", help="SGF records or folders of them")
    p.add_argument("--bot", default="dlgo", help="a part of our bot's player name (PB/PW)")
    p.add_argument("--ask", metavar="CONFIG", help="an engine config to put each answered position to again")
    p.add_argument("--ask-set", action="append", default=[], metavar="KEY=VALUE", help="a setting of --ask's engine")
    args = p.parse_args(argv)
    path = find_gnugo()
    if path is None:
        p.error("GNU Go not found (apt-get install gnugo)")
    chinese, japanese = _gnugo(path, "chinese"), _gnugo(path, "japanese")
    engine = None
    if args.ask:
        sets = [arg for kv in args.ask_set for arg in ("--set", kv)]
        engine = GtpProcess([sys.executable, "-m", "gtp_engine", "--config", args.ask, *sets], label="asked engine")
        engine.start()
    games = []
    try:
        for record in _records(args.paths):
            games.append(audit(record, args.bot, chinese, japanese, engine))
            print(f"{record}: {games[-1]['result']}", file=sys.stderr)
    finally:
        for gtp in (chinese, japanese, engine):
            if gtp is not None:
                gtp.close()
    answers = {k: sum(g["answers"][k] for g in games) for k in ("pass", "resign", "outside", "inside")}
    counted = [g for g in games if "counts" in g]

    def same(g: dict, a: str, b: str) -> bool:
        return g["counts"][a].replace(".0", "") == g["counts"][b].replace(".0", "")

    def won_by_territory(g: dict) -> bool | None:
        """Our result by GNU Go's Japanese count where the game was counted, else as recorded."""
        if "counts" not in g or g["ours"] is None:
            return g["won"]
        score = g["counts"]["gnugo_japanese"]
        return None if score.startswith("0") else score[0].lower() == g["ours"]

    report = {
        "games": len(games),
        "won": sum(1 for g in games if g["won"]),
        "lost": sum(1 for g in games if g["won"] is False),
        "won_by_territory": sum(1 for g in games if won_by_territory(g)),
        "lost_by_territory": sum(1 for g in games if won_by_territory(g) is False),
        "answers_to_passes": answers,
        "inside": [i for g in games for i in g["inside"]],
        "counted_by_two_passes": len(counted),
        "area_counts_agree": sum(1 for g in counted if same(g, "gnugo_chinese", "ours_area")),
        "territory_counts_agree": sum(1 for g in counted if same(g, "gnugo_japanese", "ours_territory")),
        "counts_that_differ": [
            {"record": g["record"], **g["counts"]}
            for g in counted
            if not (same(g, "gnugo_chinese", "ours_area") and same(g, "gnugo_japanese", "ours_territory"))
        ],
    }
    if engine is not None:
        report["asked"] = {k: sum(g["asked"][k] for g in games) for k in answers}
        report["asked_inside"] = [i for g in games for i in g["asked_inside"]]
        report["resigned_asked"] = [i for g in games for i in g["resigned_asked"]]
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
