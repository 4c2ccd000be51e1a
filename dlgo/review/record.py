"""The reviewed record as SGF text: the game, its review, and what the record had besides.

``read_game`` keeps the moves, their comments and the main game information; a review keeps
the rest of the record's root that a reader shows too: its comment and the game information
``write_game`` does not write itself (event, round, place, ranks, time system, ...).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from sgfmill import sgf, sgf_grammar

from dlgo import __version__
from dlgo.review.analysis import TurnAnalysis
from dlgo.review.annotate import Annotations, annotate
from dlgo.sgf import SgfGame, write_game

__all__ = ["GAME_INFO_KEPT", "RecordRoot", "record_root", "reviewed_sgf", "APPLICATION"]

log = logging.getLogger(__name__)

APPLICATION = f"dlgo-review:{__version__}"
# FF[4] game-info properties that write_game leaves to its caller.
GAME_INFO_KEPT = ("GN", "EV", "RO", "PC", "BR", "WR", "BT", "WT", "TM", "OT", "SO", "US", "AN", "GC", "ON", "CP")


class RecordRoot:
    """The root comment and the kept game information of a record (empty when unreadable)."""

    def __init__(self, comment: str | None = None, properties: dict[str, list[str]] | None = None) -> None:
        self.comment = comment
        self.properties = properties or {}


def record_root(path: str | os.PathLike) -> RecordRoot:
    """What ``path``'s root has that ``read_game`` does not keep. Best effort: a record that
    ``read_game`` repairs may be one sgfmill refuses, and then nothing extra is kept."""
    try:
        with open(path, "rb") as f:
            root = sgf.Sgf_game.from_bytes(f.read()).get_root()
    except (OSError, ValueError):
        return RecordRoot()
    properties = {}
    for ident in GAME_INFO_KEPT:
        if not root.has_property(ident):
            continue
        try:
            value = root.get(ident)
        except ValueError:  # a value its type does not allow: written as it was
            value = None
        if not isinstance(value, str):
            value = root.get_raw(ident).decode("latin-1")
        if value.strip():
            properties[ident] = [value]
    return RecordRoot(_comment(root, path), properties)


def _comment(root: sgf.Tree_node, path: str | os.PathLike) -> str | None:
    """The root comment; bytes that its charset (CA) cannot decode become replacement
    characters, as ``read_game`` reads the move comments, rather than ending the review."""
    if not root.has_property("C"):
        return None
    try:
        return root.get("C")
    except ValueError:
        log.warning("%s: the root comment is not %s; its undecodable bytes are replaced", path, root.get_encoding())
        return sgf_grammar.text_value(root.get_raw("C")).decode(root.get_encoding(), errors="replace")


def reviewed_sgf(
    game: SgfGame,
    analyses: Sequence[TurnAnalysis],
    *,
    header: str = "",
    root: RecordRoot | None = None,
) -> tuple[str, Annotations]:
    """The SGF text of ``game`` with its review (``analyses`` from ``analyze_game`` on
    ``review_positions(game)``), and the annotations written. ``root``: the record's own root
    comment and game information, kept (``record_root``)."""
    root = root or RecordRoot()
    notes = annotate(
        game.moves,
        analyses,
        game.board_size,
        comments=game.comments,
        root_comment=root.comment,
        header=header,
        names=(game.black_name, game.white_name),
    )
    text = write_game(
        game,
        comments=notes.comments,
        node_properties=notes.node_properties,
        root_comment=notes.root_comment,
        root_properties={**root.properties, **notes.root_properties},
        komi=game.komi,
        application=APPLICATION,
    )
    return text, notes
