"""Writing games as SGF (FF[4], UTF-8): what ``write_game`` writes reads back identically."""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from sgfmill import sgf_grammar

from dlgo import __version__
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.scoring import compute_game_result
from dlgo.sgf.record import COLOUR_LETTER, SGF_LETTERS, Setup, SgfGame, default_first_player

__all__ = ["write_game", "save_game"]


def _sgf_point(point: Point, rows: int) -> bytes:
    return (SGF_LETTERS[point.col - 1] + SGF_LETTERS[rows - point.row]).encode("ascii")


def _text(value: str) -> bytes:
    return sgf_grammar.escape_text(value.encode("utf-8"))


def _komi_text(komi: float) -> bytes:
    komi = float(komi)
    return (str(int(komi)) if komi == int(komi) else repr(komi)).encode("ascii")


def _setup_node(setup: Setup, rows: int) -> dict[str, list[bytes]]:
    node: dict[str, list[bytes]] = {}
    for ident, points in (("AB", setup.black), ("AW", setup.white), ("AE", setup.empty)):
        if points:
            node[ident] = [_sgf_point(p, rows) for p in points]
    if setup.player is not None:
        node["PL"] = [COLOUR_LETTER[setup.player].encode()]
    return node


_IDENT = re.compile(r"[A-Z]+")


def _extra_properties(node: dict[str, list[bytes]], extra: Mapping[str, Sequence[str]] | None, where: str) -> None:
    """Add ``extra`` to ``node``: each value escaped as SGF text (points and numbers have nothing
    to escape), the writer's own properties kept as they are."""
    for ident, values in (extra or {}).items():
        if not _IDENT.fullmatch(ident):
            raise ValueError(f"{where}: {ident!r} is no SGF property identifier (capital letters)")
        if isinstance(values, str) or not values:
            raise ValueError(f"{where}: property {ident} needs a list of one or more values")
        node.setdefault(ident, [_text(v) for v in values])


def _moves_of(state: GameState) -> list[tuple[Player, Move]]:
    """Moves from the root to ``state`` with who made each.

    The mover is the opposite of the player to move after the move: that also holds for a
    colour that played twice in a row (``GameState.play_as``), where the previous state's player is wrong.
    """
    out = []
    while state.previous_state is not None and state.last_move is not None:
        out.append((state.next_player.other, state.last_move))
        state = state.previous_state
    out.reverse()
    return out


def write_game(
    game: GameState | Sequence[tuple[Player, Move]] | SgfGame,
    initial_state: GameState | None = None,
    *,
    black_name: str | None = None,
    white_name: str | None = None,
    result: str | None = None,
    rules: str | None = None,
    date: str | None = None,
    comments: Sequence[str | None] | None = None,
    handicap: int | None = None,
    komi: float | None = None,
    application: str = f"dlgo:{__version__}",
    node_properties: Sequence[Mapping[str, Sequence[str]] | None] | None = None,
    root_comment: str | None = None,
    root_properties: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """SGF text (FF[4], UTF-8) for a game.

    ``game`` is the final ``GameState`` (its root is the start position), a list of
    ``(Player, Move)`` after ``initial_state``, or an :class:`SgfGame` (whose metadata fills in
    any argument left at its default). ``result`` (``RE``) defaults to the winner by resignation
    when the last move is one (``W+R``; the resignation itself is not written), else to the area
    count of a game ended by two passes, else none (an ``SgfGame`` keeps its own ``RE``).
    ``rules`` (``RU``) defaults to ``"Chinese"`` and ``date`` (``DT``) to today (ISO); ``""``
    leaves either out (an ``SgfGame`` passes its own, missing ones left out). ``HA`` and
    ``AB`` are written when the start position has only Black stones (two or more) and White to
    move, else setup stones as ``AB``/``AW`` and ``PL`` when the player to move would not be
    inferred. ``comments`` are aligned with the moves (``C[]``, None for none). ``komi``
    (``KM``) defaults to the start position's komi; pass the declared komi when the state's
    komi includes handicap compensation.
    """
    auto_result = result is None
    setups: dict[int, Setup] = {}
    if isinstance(game, SgfGame):
        auto_result = False  # its RE as it was, even none
        initial_state = game.initial_state
        moves = list(game.moves)
        setups = game.setups
        black_name = black_name if black_name is not None else game.black_name
        white_name = white_name if white_name is not None else game.white_name
        result = result if result is not None else game.result
        rules = rules if rules is not None else (game.rules or "")
        date = date if date is not None else (game.date or "")
        comments = comments if comments is not None else game.comments
        handicap = handicap if handicap is not None else game.handicap
    elif isinstance(game, GameState):
        initial_state = game.root()
        moves = _moves_of(game)
    else:
        if initial_state is None:
            raise ValueError("write_game needs initial_state with a list of moves")
        moves = list(game)
    for i, (_, move) in enumerate(moves[:-1]):
        if move.is_resign:
            raise ValueError(f"move {i + 1} is a resignation but is not the last move")
    if moves and moves[-1][1].is_resign:
        resigner = moves[-1][0]
        moves = moves[:-1]
        if result is None:
            result = f"{COLOUR_LETTER[resigner.other]}+R"
    elif auto_result and len(moves) >= 2 and moves[-1][1].is_pass and moves[-2][1].is_pass:
        final = initial_state
        for player, move in moves:
            final = final.play_as(player, move)
        result = str(compute_game_result(final))
    if comments is not None and len(comments) > len(moves):
        comments = comments[: len(moves)]

    board = initial_state.board
    rows, cols = board.num_rows, board.num_cols
    black = sorted(p for p, c in board.stones() if c is Player.black)
    white = sorted(p for p, c in board.stones() if c is Player.white)
    first = initial_state.next_player
    if handicap is None:
        handicap = len(black) if len(black) >= 2 and not white and first is Player.white else 0

    root: dict[str, list[bytes]] = {
        "GM": [b"1"],
        "FF": [b"4"],
        "CA": [b"UTF-8"],
        "AP": [_text(application)],
        "SZ": [str(cols).encode() if rows == cols else f"{cols}:{rows}".encode()],
        "KM": [_komi_text(initial_state.komi if komi is None else komi)],
    }
    if date is None:
        date = datetime.date.today().isoformat()
    if date:
        root["DT"] = [_text(date)]
    if rules is None:
        rules = "Chinese"
    if rules:
        root["RU"] = [_text(rules)]
    if handicap:
        root["HA"] = [str(handicap).encode()]
    if black_name is not None:
        root["PB"] = [_text(black_name)]
    if white_name is not None:
        root["PW"] = [_text(white_name)]
    if result is not None:
        root["RE"] = [_text(result)]
    if black:
        root["AB"] = [_sgf_point(p, rows) for p in black]
    if white:
        root["AW"] = [_sgf_point(p, rows) for p in white]
    inferred = moves[0][0] if moves else default_first_player(handicap, bool(black))
    if first is not inferred:
        root["PL"] = [COLOUR_LETTER[first].encode()]
    if root_comment is not None:
        root["C"] = [_text(root_comment)]
    _extra_properties(root, root_properties, "root_properties")

    tree = sgf_grammar.Coarse_game_tree()
    tree.sequence.append(root)
    for i, (player, move) in enumerate(moves):
        if move.is_pass:
            value = b""
        else:
            value = _sgf_point(move.point, rows)
        node = {COLOUR_LETTER[player]: [value]}
        if comments is not None and i < len(comments) and comments[i] is not None:
            node["C"] = [_text(comments[i])]
        if node_properties is not None and i < len(node_properties):
            _extra_properties(node, node_properties[i], f"node_properties[{i}]")
        tree.sequence.append(node)
        setup = setups.get(i + 1)
        if setup is not None:
            tree.sequence.append(_setup_node(setup, rows))
    return sgf_grammar.serialise_game_tree(tree, wrap=79).decode("utf-8")


def save_game(
    path: str | os.PathLike, game: GameState | Sequence[tuple[Player, Move]] | SgfGame, *args, **kwargs
) -> None:
    """Write ``write_game(game, ...)`` to ``path`` (UTF-8)."""
    Path(path).write_bytes(write_game(game, *args, **kwargs).encode("utf-8"))
