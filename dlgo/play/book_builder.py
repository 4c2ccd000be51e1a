"""Fill an opening book (``dlgo.search.book``) with long searches of the engine's own.

    python -m dlgo.play.book_builder --size 9 --komi 7.5 --visits 20000 --plies 4 \\
        --out weights/book-9x9.json

The positions are searched most-reached first, and the book is written after each one, so a run
stopped at any point (``--minutes``, ``--max-positions``, Ctrl-C) leaves a usable book, and the
same command run again goes on from it (positions already in the book are kept; ``--refresh``
searches them again).

Which positions: the empty board (the engine as Black), and from every position in the book,
each of the engine's own near-best moves there (those its variety draw may play) followed by
each opponent reply. An opponent's reply is weighed by the network's prior for it (summed over
the moves the board's symmetries make the same), a short search (``--reply-visits``) giving the
priors of the moves it visits; the engine's own moves keep their position's weight, as any of them may be drawn. The
opponent's first move weighs by the prior at the empty board. A position enters the book when
its weight (the chance an opponent that plays like the network's prior reaches it) is at least
``--min-weight`` and it is within ``--plies`` moves of the start.
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from dlgo.goboard import GameState, Move
from dlgo.search.base import SearchBudget, SearchResult
from dlgo.search.book import BookError, OpeningBook, canonical_key, load_book
from dlgo.search.variety import VarietySettings, near_best_candidates

__all__ = ["BuildSettings", "build_book", "main"]

Search = Callable[[GameState, int], SearchResult]


@dataclass(frozen=True)
class BuildSettings:
    visits: int = 20000  # the book's searches
    plies: int = 4  # positions after at most this many moves
    min_weight: float = 0.01  # positions an opponent reaches less often than this are left out
    replies: int = 12  # the opponent's likeliest replies expanded at each of our moves
    reply_visits: int = 200  # the short search whose priors weigh the opponent's replies
    keep: int = 10  # candidates kept per position
    variety: VarietySettings = VarietySettings()  # our own moves expanded: its near-best


def _replies(state: GameState, result: SearchResult, limit: int) -> list[tuple[Move, float]]:
    """The opponent's likeliest moves at ``state`` (its priors, from ``result``), one per
    symmetry class, with the share of the prior each class holds, likeliest first."""
    by_class: dict[str, tuple[Move, float]] = {}
    for c in result.candidates:
        if not c.move.is_play or c.prior <= 0:
            continue
        key = canonical_key(state.apply_move(c.move))[0]
        move, prior = by_class.get(key, (c.move, 0.0))
        by_class[key] = (move, prior + c.prior)
    # the priors themselves: a short search visits few moves, and its visited moves' priors
    # summed to one would make a likely reply a certain one
    ranked = sorted(by_class.values(), key=lambda mp: mp[1], reverse=True)[:limit]
    return [(m, min(p, 1.0)) for m, p in ranked]


def build_book(
    book: OpeningBook,
    search: Search,
    settings: BuildSettings,
    save: Callable[[], None] = lambda: None,
    deadline: float | None = None,
    max_positions: int | None = None,
    say: Callable[[str], None] = lambda line: None,
    refresh: bool = False,
) -> int:
    """Search the positions ``settings`` names into ``book`` (most-reached first), calling
    ``save`` after each; ``search(state, visits)`` is the engine's search. Returns the number of
    positions searched now: those already in the book are kept (their weight updated) unless
    ``refresh``."""
    empty = GameState.new_game(book.board_size, book.komi)
    queue: list[tuple[float, int, tuple[Move, ...]]] = []  # (-weight, order, moves)
    order = 0
    queued: set[str] = set()

    def push(moves: tuple[Move, ...], weight: float) -> None:
        nonlocal order
        state = _play(empty, moves)
        key = canonical_key(state)[0]
        if weight >= settings.min_weight and len(moves) <= settings.plies and key not in queued:
            queued.add(key)
            order += 1
            heapq.heappush(queue, (-weight, order, moves))

    def deep(state: GameState, weight: float) -> SearchResult:
        stored = book.lookup(state, komi_tolerance=0.0)
        if stored is not None and not refresh:
            book.positions[canonical_key(state)[0]].weight = weight  # this run's estimate
            save()
            return stored
        nonlocal searched
        started = time.monotonic()
        result = search(state, settings.visits)
        book.add(state, result, settings.keep, weight)
        save()
        searched += 1
        best = result.candidates[0]
        say(
            f"book: {len(book)} positions: after {len(_moves_text(state))} moves "
            f"({' '.join(_moves_text(state)) or 'the empty board'}, weight {weight:.3f}): {_text(best.move)} "
            f"{best.winrate:.3f}, {result.visits} visits, {time.monotonic() - started:.0f} s"
        )
        return result

    searched = 0
    push((), 1.0)
    # the opponent's first move, weighed by the prior at the empty board (the engine as White)
    for move, share in _replies(empty, search(empty, settings.reply_visits), settings.replies):
        push((move,), share)
    while queue:
        if (deadline is not None and time.monotonic() >= deadline) or (
            max_positions is not None and searched >= max_positions
        ):
            break
        negative_weight, _, moves = heapq.heappop(queue)
        weight = -negative_weight
        state = _play(empty, moves)
        result = deep(state, weight)
        if len(moves) + 2 <= settings.plies:
            for line, share in _continuations(book, state, result, search, settings):
                push((*moves, *line), weight * share)
    return searched


def _continuations(
    book: OpeningBook, state: GameState, result: SearchResult, search: Search, settings: BuildSettings
) -> list[tuple[tuple[Move, Move], float]]:
    """Each of our near-best moves at ``state`` (``result``) with each likely reply to it, and
    the share of the replies' prior it holds."""
    out = []
    for own in near_best_candidates(result, settings.variety) or result.candidates[:1]:
        if own.move.is_play:
            after = state.apply_move(own.move)
            shown = book.lookup(after, komi_tolerance=0.0) or search(after, settings.reply_visits)
            out += [((own.move, reply), share) for reply, share in _replies(after, shown, settings.replies)]
    return out


def _play(state: GameState, moves: tuple[Move, ...]) -> GameState:
    for move in moves:
        state = state.apply_move(move)
    return state


def _text(move: Move) -> str:
    from dlgo.utils import move_to_text

    return move_to_text(move)


def _moves_text(state: GameState) -> list[str]:
    moves = []
    while state.previous_state is not None:
        moves.append(_text(state.last_move))
        state = state.previous_state
    return moves[::-1]


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    from dlgo.play.agents import AgentPool
    from dlgo.play.config import ConfigError, load_config, model_files

    p = argparse.ArgumentParser(prog="python -m dlgo.play.book_builder", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/engine/default.toml", help="the engine config that searches")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a config override (repeatable)")
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--komi", type=float, default=7.5)
    p.add_argument("--visits", type=int, default=BuildSettings.visits, help="visits of each book position's search")
    p.add_argument("--plies", type=int, default=BuildSettings.plies, help="positions after at most this many moves")
    p.add_argument(
        "--min-weight",
        type=float,
        default=BuildSettings.min_weight,
        help="leave out positions an opponent reaches less often than this",
    )
    p.add_argument("--replies", type=int, default=BuildSettings.replies, help="opponent replies expanded per move")
    p.add_argument("--reply-visits", type=int, default=BuildSettings.reply_visits)
    p.add_argument("--minutes", type=float, help="stop after this many minutes (the book so far is kept)")
    p.add_argument("--max-positions", type=int, help="stop after searching this many positions")
    p.add_argument("--out", required=True, help="the book file (extended if it exists)")
    p.add_argument("--refresh", action="store_true", help="search again the positions the book already holds")
    args = p.parse_args(argv)

    overrides = [
        "variety.opening_moves=0",
        "resign.enabled=false",
        "engine.preload=false",
        f"size.{args.size}.book.file=",
        *args.set,
    ]
    try:
        config = load_config(args.config, overrides)
    except ConfigError as e:
        print(f"book_builder: {e}", file=sys.stderr)
        return 2
    out = Path(args.out)
    if out.exists():
        try:
            book = load_book(out)
        except BookError as e:
            print(f"book_builder: {e}", file=sys.stderr)
            return 2
        if (book.board_size, book.komi) != (args.size, args.komi):
            print(f"book_builder: {out}: a {book.board_size}x{book.board_size} komi {book.komi} book", file=sys.stderr)
            return 2
    else:
        book = OpeningBook(args.size, args.komi)
    files = [(dotted, path) for dotted, path in model_files(config) if path]
    # the networks of this board size (a config names every size's)
    networks = [path for dotted, path in files if dotted.startswith(f"size.{args.size}.")] or [p for _, p in files]
    _, _, agent = AgentPool(config).get(args.size, args.size)

    def search(state: GameState, visits: int) -> SearchResult:
        result = agent.search(state, SearchBudget(max_visits=visits))
        getattr(agent, "clear_tree", lambda: None)()  # each book search starts from nothing
        return result

    settings = BuildSettings(args.visits, args.plies, args.min_weight, args.replies, args.reply_visits)
    book.built = {
        "config": args.config,
        "overrides": args.set,
        "networks": {Path(n).name: _sha256(n)[:16] for n in networks if Path(n).is_file()},
        "visits": args.visits,
        "plies": args.plies,
        "min_weight": args.min_weight,
        "replies": args.replies,
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "command": "python -m dlgo.play.book_builder " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    deadline = None if args.minutes is None else time.monotonic() + 60 * args.minutes
    started = time.monotonic()
    try:
        n = build_book(
            book,
            search,
            settings,
            lambda: book.save(out),
            deadline,
            args.max_positions,
            lambda line: print(line, file=sys.stderr, flush=True),
            args.refresh,
        )
    except KeyboardInterrupt:
        print(f"book_builder: stopped; {out} holds {len(book)} positions", file=sys.stderr)
        return 130
    book.save(out)
    print(
        f"book_builder: {n} positions searched in {time.monotonic() - started:.0f} s; {out} holds {len(book)}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
