"""The opening book (``dlgo.search.book``): its keys under the board's symmetries, its file, its
builder's order and resumption, and the engine playing from it."""

from __future__ import annotations

import json
import subprocess

import pytest
from gtp_client import PYTHON, ROOT, InProcessEngine

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.play.book_builder import BuildSettings, build_book
from dlgo.search.base import CandidateInfo, SearchResult
from dlgo.search.book import BookError, BookPosition, OpeningBook, canonical_key, load_book
from dlgo.search.variety import VarietySettings
from dlgo.utils import move_to_text, point_from_coords


def play(*vertices: str, size: int = 9, komi: float = 7.5) -> GameState:
    state = GameState.new_game(size, komi)
    for v in vertices:
        state = state.apply_move(Move.play(point_from_coords(v)))
    return state


def result_of(*rows: tuple[str, int, float]) -> SearchResult:
    moves = [(Move.play(point_from_coords(v)), n, w) for v, n, w in rows]
    cands = [CandidateInfo(m, n, w, prior=0.1, lcb=w - 0.01, pv=[m]) for m, n, w in moves]
    return SearchResult(cands, sum(c.visits for c in cands), cands[0].winrate, 1.0)


def moves_of(result: SearchResult | None) -> list[str]:
    assert result is not None
    return [move_to_text(c.move) for c in result.candidates]


def test_a_position_and_its_mirror_images_share_one_key_and_its_moves_turn_with_the_board() -> None:
    book = OpeningBook(9, 7.5)
    book.add(play("C3"), result_of(("G7", 900, 0.55), ("C7", 100, 0.54)))
    # C3 turned a quarter (and mirrored) is G3, G7, C7: the same position for the book
    assert {canonical_key(play(v))[0] for v in ("C3", "G3", "G7", "C7", "C3")} == {canonical_key(play("C3"))[0]}
    assert moves_of(book.lookup(play("C3"))) == ["G7", "C7"]
    same = book.lookup(play("C3"))
    assert same is not None and same.candidates[0].winrate == 0.55 and same.visits == 1000
    for first in ("G3", "G7", "C7"):
        answer = book.lookup(play(first))
        assert answer is not None
        best = answer.candidates[0].move.point
        stone = point_from_coords(first)
        # the answer keeps its place relative to the stone: the diagonally opposite 3-3 point
        assert (best.row, best.col) == (10 - stone.row, 10 - stone.col)
    assert book.lookup(play("D3")) is None and book.lookup(play("C3", "G7")) is None


def test_the_book_answers_only_its_size_and_komi_and_only_legal_moves() -> None:
    book = OpeningBook(9, 7.5)
    book.add(play(), result_of(("E5", 500, 0.5), ("C3", 300, 0.49)))
    assert moves_of(book.lookup(play(komi=7.0))) == ["E5", "C3"]  # within the half point
    assert book.lookup(play(komi=6.0)) is None
    assert book.lookup(play(komi=6.0), komi_tolerance=2.0) is not None
    assert book.lookup(play(size=13)) is None
    # a stored move that is occupied in the game is left out (a position reached with other stones
    # cannot match, so build the clash by hand)
    key = canonical_key(play("E5"))[0]
    taken = CandidateInfo(Move.play(Point(5, 5)), 10, 0.5, pv=[Move.play(Point(5, 5))])
    book.positions[key] = BookPosition(10, 0.5, [taken])
    assert book.lookup(play("E5")) is None


def test_the_file_round_trips_and_a_bad_one_names_the_file_and_field(tmp_path) -> None:
    book = OpeningBook(9, 7.5, built={"visits": 100})
    book.add(play("E5"), result_of(("C4", 60, 0.51), ("G4", 40, 0.5)))
    path = tmp_path / "book.json"
    book.save(path)
    again = load_book(path)
    assert again.built == {"visits": 100} and moves_of(again.lookup(play("E5"))) == moves_of(book.lookup(play("E5")))

    data = json.loads(path.read_text())
    key = next(iter(data["positions"]))

    def with_candidate(row: list) -> dict:
        return dict(data, positions={key: {"visits": 100, "winrate": 0.5, "candidates": [row]}})

    cases = {
        "format": dict(data, format="something else"),
        "version": dict(data, version=2),
        "board_size": dict(data, board_size=40),
        "komi": dict(data, komi="seven"),
        "positions": dict(data, positions=[]),
        f"positions['{key[:-1]}x']": dict(data, positions={key[:-1] + "x": data["positions"][key]}),
        f"positions['{key}'].visits": dict(data, positions={key: dict(data["positions"][key], visits=0)}),
        f"positions['{key}'].winrate": dict(data, positions={key: dict(data["positions"][key], winrate=2)}),
        f"positions['{key}'].candidates": dict(data, positions={key: dict(data["positions"][key], candidates=[])}),
        f"positions['{key}'].candidates[0]: visits": with_candidate(["C4", -1, 0.5, 0.5, 0.1, ["C4"]]),
        f"positions['{key}'].candidates[0]: winrate": with_candidate(["C4", 1, 1.5, 0.5, 0.1, ["C4"]]),
        f"positions['{key}'].candidates[0]: 'Z9'": with_candidate(["Z9", 1, 0.5, 0.5, 0.1, ["Z9"]]),
        f"positions['{key}'].candidates[0]: pv": with_candidate(["C4", 1, 0.5, 0.5, 0.1, ["D4"]]),
    }
    for i, (where, content) in enumerate(cases.items()):
        bad = tmp_path / f"bad-{i}.json"
        bad.write_text(json.dumps(content))
        with pytest.raises(BookError) as caught:
            load_book(bad)
        message = str(caught.value)
        assert message.startswith(f"{bad}: {where}"), (where, message)
    (tmp_path / "text.json").write_text("not json")
    with pytest.raises(BookError, match="not JSON"):
        load_book(tmp_path / "text.json")
    with pytest.raises(BookError, match="no opening book there"):
        load_book(tmp_path / "missing.json")


class FakeSearch:
    """A search that rates moves by a fixed table: the best move is always the 3-3 point nearest
    the lower left, priors favour the centre."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def __call__(self, state: GameState, visits: int) -> SearchResult:
        self.calls.append((len(list(_stones(state))), visits))
        cands = []
        for row in range(1, 10):
            for col in range(1, 10):
                move = Move.play(Point(row, col))
                if not state.is_valid_move(move):
                    continue
                centre = 1.0 / (1 + abs(row - 5) + abs(col - 5))
                cands.append(CandidateInfo(move, int(100 * centre), 0.5 + 0.01 * centre, prior=centre, pv=[move]))
        cands.sort(key=lambda c: c.visits, reverse=True)
        return SearchResult(cands, sum(c.visits for c in cands), cands[0].winrate, 0.0)


def _stones(state: GameState):
    board = state.board
    return (p for r in range(1, 10) for c in range(1, 10) if board.get(p := Point(r, c)) is not None)


def test_the_builder_searches_the_likeliest_positions_first_and_goes_on_from_its_file(tmp_path) -> None:
    settings = BuildSettings(
        visits=1000, plies=3, min_weight=0.05, replies=3, reply_visits=10, variety=VarietySettings(max_winrate_loss=0.0)
    )
    search = FakeSearch()
    book = OpeningBook(9, 7.5)
    saved = []
    n = build_book(book, search, settings, save=lambda: saved.append(len(book)))
    deep = [stones for stones, visits in search.calls if visits == 1000]
    assert n == len(book) == len(deep) == len(saved) and saved == list(range(1, n + 1))
    assert deep[0] == 0  # the empty board first (weight 1), then the likeliest first moves and replies
    assert max(deep) <= 3 and all(len(k) == 82 for k in book.positions)
    assert book.lookup(play()) is not None and book.lookup(play("E6")) is not None
    # the engine's own move at the empty board is E5 (the table's best), White's likeliest reply
    # a neighbour: that two-move position is in the book, a far one is not
    assert book.lookup(play("E5", "E6")) is not None and book.lookup(play("E5", "A1")) is None

    path = tmp_path / "book.json"
    book.save(path)
    again = load_book(path)
    search2 = FakeSearch()
    assert build_book(again, search2, settings) == 0  # every position found in the file
    assert all(visits == 10 for _, visits in search2.calls)
    fewer = OpeningBook(9, 7.5)
    assert build_book(fewer, FakeSearch(), settings, max_positions=2) == 2 and len(fewer) == 2


BOOK_CONFIG = """
agent = "random"
[engine]
board_size = 9
preload = false
[size.9.book]
file = "book.json"
"""


def engine_with_book(tmp_path, *sets: str) -> InProcessEngine:
    book = OpeningBook(9, 7.5)
    book.add(play(), result_of(("E5", 900, 0.52), ("D5", 850, 0.515), ("C3", 50, 0.5)))
    book.add(play("C3"), result_of(("G7", 700, 0.49)))
    book.save(tmp_path / "book.json")
    (tmp_path / "book.toml").write_text(BOOK_CONFIG)
    return InProcessEngine(*sets, config=str(tmp_path / "book.toml"))


def test_the_engine_plays_the_books_moves_in_any_orientation_and_searches_past_it(tmp_path) -> None:
    engine = engine_with_book(tmp_path)
    engine.ok("komi 7.5")
    assert engine.ok("genmove b").upper() == "E5"
    assert engine.engine.session.last_choice.reason == "the opening book's move"
    engine.ok("clear_board")
    engine.ok("play b G3")  # C3 turned a quarter: the book's answer G7, turned, is C7
    assert engine.ok("genmove w").upper() == "C7"
    assert engine.engine.session.last_choice.reason == "the opening book's move"
    engine.ok("play b A1")
    engine.ok("genmove w")  # past the book: the agent (random here) plays
    assert engine.engine.session.last_choice.reason != "the opening book's move"
    engine.ok("clear_board")
    engine.ok("komi 0.5")  # another komi: no book
    engine.ok("genmove b")
    assert "book" not in engine.engine.session.last_choice.reason


def test_the_books_variety_draws_among_its_near_best_moves(tmp_path) -> None:
    engine = engine_with_book(tmp_path, "variety.opening_moves=10", "variety.seed=3")
    seen = set()
    for _ in range(30):
        engine.ok("clear_board")
        seen.add(engine.ok("genmove b").upper())
    # D5 (and its images) are within 0.02 of E5 with most of its visits; C3 has too few visits
    assert "E5" in seen and len(seen) > 1 and not seen & {"C3", "C7", "G3", "G7"}


def test_a_missing_or_bad_book_stops_the_engine_with_one_line(tmp_path) -> None:
    (tmp_path / "book.toml").write_text(BOOK_CONFIG)
    run = [PYTHON, "-m", "gtp_engine", "--config", str(tmp_path / "book.toml")]
    proc = subprocess.run(run, input=b"name\n", capture_output=True, timeout=60, cwd=ROOT)
    lines = proc.stderr.decode().strip().split("\n")
    assert proc.returncode == 2 and proc.stdout == b"" and len(lines) == 1
    assert "size.9.book.file" in lines[0] and str(tmp_path / "book.json") in lines[0]
    OpeningBook(13, 7.5).save(tmp_path / "book.json")
    proc = subprocess.run(run, input=b"name\n", capture_output=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 2 and "is a 13x13 book, not 9x9" in proc.stderr.decode()
