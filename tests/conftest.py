"""Shared fixtures and position builders (``from conftest import state_from``)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from gnugo import GnuGo, find_gnugo
from gtp_client import InProcessEngine

from dlgo.goboard import Board, GameState
from dlgo.gotypes import Player, Point
from dlgo.match import GameRules, PlayerSpec, command_player

FAKE_ENGINE = Path(__file__).resolve().parent / "fake_gtp_engine.py"
QUICK = GameRules(size=9, move_timeout=2.0, command_timeout=10.0)  # match rules that fail fast


def fake_player(mode: str, label: str | None = None) -> PlayerSpec:
    """A referee's player running tests/fake_gtp_engine.py in ``mode`` (pass, crash, hang, ...)."""
    return command_player([sys.executable, str(FAKE_ENGINE), mode], label or f"fake-{mode}")


# --- position builders --------------------------------------------------------------------------
def board_from(diagram: str, cols: int | None = None) -> Board:
    """A board from a diagram, top row first: ``X`` black, ``O`` white, ``.`` empty."""
    rows = [line.replace(" ", "") for line in diagram.strip().splitlines()]
    num_rows, num_cols = len(rows), cols or len(rows[0])
    assert all(len(r) == num_cols for r in rows), "ragged diagram"
    board = Board(num_rows, num_cols)
    for i, line in enumerate(rows):
        row = num_rows - i
        for col, ch in enumerate(line, start=1):
            if ch in "XO":
                captured = board.place_stone(Player.black if ch == "X" else Player.white, Point(row, col))
                assert not captured, "diagram has a string without liberties"
    return board


def state_from(diagram: str, to_move: Player = Player.black, komi: float = 7.5) -> GameState:
    """A position set up from a diagram (see :func:`board_from`), ``to_move`` to play."""
    return GameState.from_position(board_from(diagram), to_move, komi)


# A finished 9x9 game's last position (dlgo against Pachi, 2026-12-05): White's bottom strings win
# their capturing race against Black's C1-E2 (GNU Go counts W+2 with C1 D1 E1 E2 dead).
CAPTURING_RACE = """
...XOOOO.
..XXXXXOO
...XOOOO.
..XXXXOOO
.X.XOXXOO
.XXOO.XXX
XXOO.OOOX
XOOOXOOXX
XOXXXOOXX
"""


def position(
    size: int,
    black: Iterable[tuple[int, int]],
    white: Iterable[tuple[int, int]],
    to_move: Player,
    komi: float = 7.5,
) -> GameState:
    """A ``size`` x ``size`` position from (row, col) lists of stones, ``to_move`` to play."""
    board = Board(size, size)
    for r, c in black:
        board.place_stone(Player.black, Point(r, c))
    for r, c in white:
        board.place_stone(Player.white, Point(r, c))
    return GameState.from_position(board, to_move, komi)


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def gnugo():
    """A GNU Go process in GTP mode (Chinese rules, level 1), shared by the session."""
    path = find_gnugo()
    if path is None:
        pytest.skip("GNU Go not found: install gnugo (apt-get install gnugo) or put it on PATH")
    engine = GnuGo(path)
    yield engine
    engine.close()


@pytest.fixture
def eng(request: pytest.FixtureRequest) -> Iterator[InProcessEngine]:
    """An in-process engine on 9x9 with the test module's ``FAST`` settings (``--set`` lines)."""
    e = InProcessEngine(*getattr(request.module, "FAST", ()))
    e.ok("boardsize 9")
    yield e
    e.close()


# --- tiny networks on disk ----------------------------------------------------------------------


def save_tiny_zero(path: Path, seed: int = 1, blocks: int = 1, filters: int = 8) -> Path:
    """A randomly initialised 9x9 Zero network saved with its card at ``path`` (Keras loads here)."""
    import keras

    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import save_model
    from dlgo.networks.zero import zero_model

    encoder = get_encoder_by_name("zero", 9)
    keras.utils.set_random_seed(seed)
    save_model(zero_model(encoder.num_planes, blocks=blocks, filters=filters), path, encoder, [9])
    return path


@pytest.fixture
def model_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder for model files, with the user cache of ONNX exports inside ``tmp_path``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "models"
    folder.mkdir()
    return folder
