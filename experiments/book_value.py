"""What an opening book gives: the points its moves give away against the match search's moves
at the same positions, judged by KataGo.

    .venv/bin/python experiments/book_value.py weights/book-9x9.json --visits 800 --out runs/book-value.json

For every position of the book (``dlgo.search.book``), our engine (``--config``, no book, variety
off) searches at ``--visits``, as a move of the matches would; KataGo's analysis engine (a
measure only: nothing is trained on it, and the book holds our own searches) scores the
position after each move the variety draw of ``--variety`` could pick from the search's result
and from the book's. Per position, the points given away against KataGo's best there, from the
mover's side: the best move's, and the draw's expectation. Summed with each position's weight
(the builder's estimate of how often a game reaches it) they are points per game.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.match.katago_judge import KataGoJudge
from dlgo.play.agents import AgentPool
from dlgo.play.config import load_config
from dlgo.search.base import SearchBudget, SearchResult
from dlgo.search.book import OpeningBook, canonical_key, load_book
from dlgo.search.variety import VarietySettings, draw_probabilities
from dlgo.utils import move_to_text, point_from_coords


def line_of(key: str, size: int) -> list[list[str]]:
    """Moves that reach the stones of a book key from the empty board: Black's and White's
    stones taken in turn (a book position comes from alternate play without captures)."""
    stones: dict[str, list[str]] = {"x": [], "o": []}
    for i, ch in enumerate(key[:-1]):
        if ch != ".":
            stones[ch].append(move_to_text(Move.play(Point(size - i // size, i % size + 1))))
    line = []
    for i in range(len(stones["x"]) + len(stones["o"])):
        colour, own = ("B", stones["x"]) if i % 2 == 0 else ("W", stones["o"])
        line.append([colour, own[i // 2]])
    return line


def state_after(line: list[list[str]], size: int, komi: float) -> GameState:
    state = GameState.new_game(size, komi)
    for _, vertex in line:
        state = state.apply_move(Move.play(point_from_coords(vertex)))
    return state


def expected_loss(result: SearchResult, variety: VarietySettings, loss: dict[str, float]) -> float:
    return sum(p * loss[move_to_text(c.move)] for c, p in draw_probabilities(result, variety))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("book")
    p.add_argument("--visits", type=int, default=800, help="the match search's visits")
    p.add_argument("--config", default="configs/engine/default.toml")
    p.add_argument("--engine-set", action="append", default=[], help="a KEY=VALUE override of the config")
    p.add_argument("--katago", help="KataGo's folder (default: ../shared/tools/katago)")
    p.add_argument("--katago-visits", type=int, default=400)
    p.add_argument("--variety", default="0.02/0.5/0.1", help="the draw: win-rate window/temperature/visits fraction")
    p.add_argument("--limit", type=int, default=0, help="the this many most-reached positions only (0: all)")
    p.add_argument("--out", help="every position's moves and losses as JSON")
    args = p.parse_args(argv)

    book: OpeningBook = load_book(args.book)
    size, komi = book.board_size, book.komi
    window, temperature, fraction = (float(x) for x in args.variety.split("/"))
    variety = VarietySettings(10, temperature, window, fraction)
    overrides = [
        "variety.opening_moves=0",
        "resign.enabled=false",
        "engine.preload=false",
        f"size.{size}.book.file=",
        f"size.{size}.zero.rounds={args.visits}",
        *args.engine_set,
    ]
    _, _, agent = AgentPool(load_config(args.config, overrides)).get(size, size)
    judge = KataGoJudge(args.katago, size, komi, args.katago_visits)
    rows = []
    try:
        ranked = sorted(book.positions.items(), key=lambda kv: -kv[1].weight)[: args.limit or None]
        for n, (key, stored) in enumerate(ranked, 1):
            line = line_of(key, size)
            state = state_after(line, size, komi)
            assert canonical_key(state)[0] == key, key
            searched = agent.search(state, SearchBudget(max_visits=args.visits))
            getattr(agent, "clear_tree", lambda: None)()
            booked = book.lookup(state)
            assert booked is not None
            moves = {move_to_text(c.move) for r in (searched, booked) for c, _ in draw_probabilities(r, variety)}
            texts = sorted(moves)
            colour = "B" if state.next_player == Player.black else "W"
            side = 1.0 if colour == "B" else -1.0
            answers = judge.leads_after([line] + [[*line, [colour, t]] for t in texts])
            before = side * answers[0][0]
            loss = {t: before - side * lead for t, (lead, _) in zip(texts, answers[1:])}
            row = {
                "key": key,
                "weight": stored.weight,
                "to_move": colour,
                "stones": len(line),
                "katago_best": answers[0][1],
                "search_best": move_to_text(searched.candidates[0].move),
                "book_best": move_to_text(booked.candidates[0].move),
                "loss": loss,
                "search_best_loss": loss[move_to_text(searched.candidates[0].move)],
                "book_best_loss": loss[move_to_text(booked.candidates[0].move)],
                "search_draw_loss": expected_loss(searched, variety, loss),
                "book_draw_loss": expected_loss(booked, variety, loss),
            }
            rows.append(row)
            print(
                f"{n}/{len(ranked)} weight {stored.weight:.3f} {colour} ({len(line)} stones): search "
                f"{row['search_best']} {row['search_best_loss']:+.2f}, book {row['book_best']} "
                f"{row['book_best_loss']:+.2f} (KataGo {row['katago_best']})",
                file=sys.stderr,
                flush=True,
            )
    finally:
        judge.close()
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    report(rows)
    return 0


def report(rows: list[dict]) -> None:
    """Per colour: a position's weight is the chance that a game of ours with that colour
    reaches it, so the weighted sums are points per game as Black and per game as White."""
    differ = sum(r["search_best"] != r["book_best"] for r in rows)
    print(f"{len(rows)} book positions; the book's best move differs from the match search's in {differ}")
    print("| points given away against KataGo's best | as Black: search | book | as White: search | book |")
    print("|---|---|---|---|---|")
    for name, key in (("best move, per game", "best_loss"), ("variety draw, per game", "draw_loss")):
        cells = []
        for colour in "BW":
            mine = [r for r in rows if r["to_move"] == colour]
            cells += [f"{sum(r['weight'] * r[f'{side}_{key}'] for r in mine):.2f}" for side in ("search", "book")]
        print(f"| {name} | " + " | ".join(cells) + " |")
    for name, key in (("best move, mean per position", "best_loss"), ("variety draw, mean per position", "draw_loss")):
        cells = []
        for colour in "BW":
            mine = [r for r in rows if r["to_move"] == colour] or [{}]
            for side in ("search", "book"):
                cells.append(f"{sum(r.get(f'{side}_{key}', 0.0) for r in mine) / len(mine):.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
