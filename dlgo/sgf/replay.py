"""Replaying a record's main line into ``GameState``s under the record's own rules (``RU``).

What a strict reader would reject is repaired and noted on the reader (see :mod:`dlgo.sgf`):
setup after a move, a node with both colours, moves that break the record's rules, and a move
that cannot be put on the board at all, which ends the main line (:class:`MainLineStop`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.sgf.record import COLOUR_LETTER, SETUP_PROPERTIES, Setup, SgfError, move_text, vertex_text

__all__ = ["RecordRules", "rules_of", "MainLineStop", "NodeReader", "Replay", "node_moves", "point_without_liberty"]


@dataclass(frozen=True)
class RecordRules:
    text: str | None  # RU as given
    superko: bool | None  # None: not known (no RU, or one not recognised)
    suicide: bool

    def label(self) -> str:
        return f"RU[{self.text}]" if self.text else "no RU"


_SIMPLE_KO = re.compile(r"japan|korea|\bjp\b|\bja\b|\bkr\b|nihon|kiin")
_SUPERKO = re.compile(r"chin|\bcn\b|aga|american|bga|british|new ?zealand|\bnz\b|tromp|\btt\b|\bing\b|goe|french")
_SUICIDE = re.compile(r"new ?zealand|\bnz\b|tromp|\btt\b|\bing\b|goe")


def rules_of(text: str | None) -> RecordRules:
    low = (text or "").lower()
    if _SIMPLE_KO.search(low):
        return RecordRules(text, False, False)
    if _SUPERKO.search(low):
        return RecordRules(text, True, bool(_SUICIDE.search(low)))
    return RecordRules(text, None, False)


class MainLineStop(Exception):
    """The main line ends before this move (a ``stopped`` repair)."""


def node_moves(props: dict) -> list[str]:
    """The move properties of a node in the order they appear in it (``B``, ``W`` or both)."""
    return [ident for ident in props if ident in ("B", "W")]


def point_without_liberty(board: Board, stones) -> Point | None:
    for point in stones:
        string = board.get_go_string(point)
        if string is None or string.num_liberties == 0:
            return point
    return None


class NodeReader(Protocol):
    """What a replay needs of the record it reads (``dlgo.sgf.reader.RecordReader`` is one): a
    node's values decoded, and where repairs and notes go."""

    notes: list[str]

    def error(self, message: str) -> SgfError: ...
    def repair(self, kind: str, message: str) -> None: ...
    def text(self, props: dict, ident: str) -> str | None: ...
    def colour(self, raw: bytes, ident: str) -> Player: ...
    def apply_setup(self, props: dict, stones: dict[Point, Player]) -> None: ...
    def move_of(self, ident: str, values: list[bytes], number: int) -> Move: ...


class Replay:
    """The main line played node by node under the record's rules, repairs noted on the reader."""

    def __init__(self, reader: NodeReader, initial: GameState, rules: RecordRules) -> None:
        self.reader = reader
        self.rules = rules
        self.state = initial
        self.states = [initial]
        self.moves: list[tuple[Player, Move]] = []
        self.comments: list[str | None] = []
        self.setups: dict[int, Setup] = {}
        self.repeats: list[int] = []  # moves that repeat a position, legal under the rules

    def node(self, props: dict) -> None:
        reader = self.reader
        idents = node_moves(props)
        if any(ident in props for ident in SETUP_PROPERTIES):
            try:
                self.setup(props)
            except SgfError as e:
                self.stop(f"{e.reason} (setup after move {len(self.moves)})")
        if len(idents) > 1:
            number = len(self.moves) + 1
            reader.repair(
                "both_colours",
                f"move {number}: the node has both B and W: played as two moves, {' then '.join(idents)}",
            )
        for k, ident in enumerate(idents):
            player = Player.black if ident == "B" else Player.white
            number = len(self.moves) + 1
            try:
                move = reader.move_of(ident, props[ident], number)
            except MainLineStop as e:
                self.stop(str(e))
            self.play(player, move, number, reader.text(props, "C") if k == 0 else None)

    def stop(self, why: str) -> None:
        self.reader.repair("stopped", f"{why}: the game is read up to move {len(self.moves)}, the rest is left out")
        raise MainLineStop(why)

    def setup(self, props: dict) -> None:
        """AB/AW/AE after move ``after``: the position there changes (merged with earlier setup)."""
        reader = self.reader
        after = len(self.moves)
        stones = dict(self.state.board.stones())
        reader.apply_setup(props, stones)
        old = self.setups.get(after)
        base = self.state.previous_state if old is not None else self.state  # right after the move
        assert base is not None
        start = dict(base.board.stones())
        player = reader.colour(props["PL"][0], "PL") if "PL" in props else (old.player if old else None)
        setup = Setup(
            black=tuple(sorted(p for p, c in stones.items() if c is Player.black and start.get(p) is not c)),
            white=tuple(sorted(p for p, c in stones.items() if c is Player.white and start.get(p) is not c)),
            empty=tuple(sorted(p for p in start if p not in stones)),
            player=player,
        )
        new = setup.apply(base)
        bad = point_without_liberty(new.board, stones)
        if bad is not None:
            raise reader.error(f"setup stone at {vertex_text(bad)} has no liberty")
        changes = ", ".join(
            f"{len(points)} {what}"
            for what, points in (("black", setup.black), ("white", setup.white), ("emptied", setup.empty))
            if points
        )
        reader.repair("setup", f"setup stones after move {after} ({changes or 'no change'}): applied there")
        self.setups[after] = setup
        self.state = self.states[-1] = new

    def play(self, player: Player, move: Move, number: int, comment: str | None) -> None:
        state, rules = self.state, self.rules
        label = f"move {number} ({COLOUR_LETTER[player]} {move_text(move)})"
        if move.is_play:
            board = state.board
            if not board.is_on_grid(move.point):
                self.stop(f"{label} is off the {board.num_rows}x{board.num_cols} board")
            if board.get(move.point) is not None:
                self.stop(f"{label} is on an occupied point")
            if state.is_move_self_capture(player, move):
                if not rules.suicide:
                    who = f"{rules.label()} forbids" if rules.text else "most rules forbid"
                    self.reader.repair(
                        "rules", f"{label} is a suicide, which {who}: played as written, its string taken off the board"
                    )
            elif state.does_move_violate_ko(player, move):
                self.ko(state, player, move, label, number)
        self.state = state.play_as(player, move)
        self.states.append(self.state)
        self.moves.append((player, move))
        self.comments.append(comment)

    def ko(self, state: GameState, player: Player, move: Move, label: str, number: int) -> None:
        previous = state.previous_state
        if previous is not None and state.play_as(player, move).situation_hash() == previous.situation_hash():
            self.reader.repair("rules", f"{label} takes back a ko at once, which no rules allow: played as written")
        else:
            self.repeats.append(number)

    def finish(self) -> None:
        """One word for all the moves that repeat an earlier position (a long ko fight has many)."""
        if not self.repeats:
            return
        shown = ", ".join(str(n) for n in self.repeats[:10]) + (", ..." if len(self.repeats) > 10 else "")
        n = len(self.repeats)
        moves = f"{n} move{'s' if n > 1 else ''} ({shown}) repeat{'' if n > 1 else 's'} an earlier position"
        moves += " (a ko cycle such as triple ko)"
        rules = self.rules
        if rules.superko:
            self.reader.repair(
                "rules", f"{moves}, which {rules.label()} forbids (superko): played as written, as under simple ko"
            )
        else:
            self.reader.notes.append(f"{moves}: legal under simple ko ({rules.label()})")
