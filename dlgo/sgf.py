"""Reading and writing SGF game records (FF[4]) on top of sgfmill's parser.

``read_game`` turns an SGF file or text into an :class:`SgfGame`: the metadata, a root
``GameState`` after the setup stones and the main line of moves. ``write_game`` and
``save_game`` turn a game back into SGF; what they write reads back identically.

sgfmill's ``sgf_grammar`` does the tokenising, escaping and tree serialising; points and
properties are interpreted here, so rectangular boards (``SZ[19:13]``, columns first as in the
SGF spec) work too. A record that cannot be read at all is an :class:`SgfError` (a
``ValueError``) that names the file (or ``name=``).

A record is history, so it is read the way a viewer (or GNU Go's ``loadsgf``) reads it: what
was played is replayed, under the record's own rules (``RU``), and what a strict reader would
reject is repaired and reported, never silently: each repair is a :class:`Repair` in
``SgfGame.repairs`` and a warning on the ``dlgo.sgf`` logger.

- ``truncated``: the text ends before its closing ``)`` (a cut download, an unreadable tail):
  the nodes before the cut are read.
- ``setup``: ``AB``/``AW``/``AE`` after the first move (a teacher's or server's edit): applied
  to the position at that point (see :class:`Setup`).
- ``both_colours``: a node with both ``B`` and ``W``: played as two moves, in the node's order.
- ``rules``: a move that breaks the record's own rules but can be put on the board (a ko taken
  back at once, a repetition under superko rules, a suicide where the rules forbid it): played
  as written, as GNU Go does (a suicide takes its own string off the board).
- ``stopped``: a move that cannot be put on the board at all (an occupied point, a point off the
  board, a value that is no point): the main line ends before it, as in GNU Go.

Ko by the record's rules: ``RU`` naming Japanese or Korean rules means simple ko, so a triple
or quadruple ko that repeats the position is legal history (a note, not a repair); Chinese, AGA,
New Zealand, Tromp-Taylor and Ing rules forbid repetition (superko, checked as dlgo's
situational superko), so a repetition there is a ``rules`` repair. With no ``RU`` (or one not
recognised) only simple ko is assumed. A ko taken back at once breaks every rule set.

Files: only regular files are read (never a FIFO, a device such as ``/dev/zero`` or
``/dev/stdin``, or a directory: those are an ``SgfError`` at once), and at most
:data:`MAX_FILE_BYTES` (8 MiB; the largest real records, commented joseki collections, are a
few MB).

Conventions when reading:

- ``KM`` missing: 0.0 in a handicap game (``HA`` >= 2), else 7.5. ``KM[650]`` style values
  (some servers store komi * 100, any absolute value above 150) are divided by 100.
- Player to move first: ``PL`` if given; else the colour of the first move of the main line;
  else White when ``HA`` >= 2 and the root has ``AB``; else Black.
- Setup (``AB``/``AW``/``AE``) in the root and in further nodes before the first move is merged
  into the initial position; setup later is a ``setup`` repair (above).
- ``B[]`` is a pass, and so is ``B[tt]`` on boards up to 19x19 (both sides).
- A colour that moves twice in a row is applied as such (see :func:`play_as`); the state's
  history stays one chain.
- Resignation is not a move in SGF: it only shows in ``RE`` (``W+R``); ``moves`` never holds one.
"""

from __future__ import annotations

import codecs
import datetime
import logging
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sgfmill import sgf_grammar

from dlgo import __version__
from dlgo.goboard import MAX_SIZE, MIN_SIZE, Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.utils import COLS, coords_from_point

__all__ = [
    "MAX_FILE_BYTES",
    "REPAIR_KINDS",
    "Repair",
    "Setup",
    "SgfError",
    "SgfGame",
    "read_game",
    "write_game",
    "save_game",
    "play_as",
]

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 8 * 1024 * 1024  # larger files are refused unread (see the module docstring)
REPAIR_KINDS = ("truncated", "setup", "both_colours", "rules", "stopped")

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_COLOUR = {Player.black: "B", Player.white: "W"}
_SETUP = ("AB", "AW", "AE")


class SgfError(ValueError):
    """A record that cannot be read: not SGF, not Go, no such file, an unsupported board.

    ``str(error)`` starts with the file's label; ``reason`` is the message without it.
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason if reason is not None else message


@dataclass(frozen=True)
class Repair:
    """Something a strict reader would reject and what was done instead (see the module doc)."""

    kind: str  # one of REPAIR_KINDS
    message: str  # names the move number, colour and vertex where there is one

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Setup:
    """Setup stones after a move: points made Black, White or empty, and a new player to move."""

    black: tuple[Point, ...] = ()
    white: tuple[Point, ...] = ()
    empty: tuple[Point, ...] = ()
    player: Player | None = None  # PL in the setup node; None keeps the player to move

    def apply(self, state: GameState) -> GameState:
        """The state after this setup, one step after ``state`` in its history (no move)."""
        stones = dict(state.board.stones())
        for p in self.empty:
            stones.pop(p, None)
        for p in self.black:
            stones[p] = Player.black
        for p in self.white:
            stones[p] = Player.white
        board = Board(state.board.num_rows, state.board.num_cols)
        for p, colour in stones.items():
            board.place_stone(colour, p)  # no captures when every string has a liberty at the end
        player = self.player or state.next_player
        return GameState(board, player, state, None, state.komi)


@dataclass
class SgfGame:
    """One game read from SGF: metadata, the position after setup and the main line."""

    board_size: tuple[int, int]  # (rows, cols)
    komi: float
    handicap: int
    result: str | None  # RE as given
    winner: Player | None
    black_name: str | None
    white_name: str | None
    rules: str | None
    date: str | None
    initial_state: GameState
    moves: list[tuple[Player, Move]]
    comments: list[str | None] = field(default_factory=list)  # C[] of each move node
    name: str | None = None  # file name, for messages
    # Setup after move i (1 <= i <= len(moves)), applied before move i + 1.
    setups: dict[int, Setup] = field(default_factory=dict)
    repairs: list[Repair] = field(default_factory=list)  # what was repaired, in order
    notes: list[str] = field(default_factory=list)  # legal under the record's rules, worth a word
    _states: list[GameState] = field(default_factory=list, repr=False, compare=False)

    def states(self) -> list[GameState]:
        """The initial state and the state after every move (and any setup after it), in order."""
        if len(self._states) != len(self.moves) + 1:
            states = [self.initial_state]
            for i, (player, move) in enumerate(self.moves, 1):
                state = play_as(states[-1], player, move)
                if i in self.setups:
                    state = self.setups[i].apply(state)
                states.append(state)
            self._states = states
        return list(self._states)

    @property
    def final_state(self) -> GameState:
        """The state after the last move of the main line."""
        return self.states()[-1]

    def repaired(self, *kinds: str) -> bool:
        """Was anything of these kinds repaired (any kind when none is named)?"""
        return any(not kinds or r.kind in kinds for r in self.repairs)


# --- the record's rules ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Rules:
    text: str | None  # RU as given
    superko: bool | None  # None: not known (no RU, or one not recognised)
    suicide: bool

    def label(self) -> str:
        return f"RU[{self.text}]" if self.text else "no RU"


_SIMPLE_KO = re.compile(r"japan|korea|\bjp\b|\bja\b|\bkr\b|nihon|kiin")
_SUPERKO = re.compile(r"chin|\bcn\b|aga|american|bga|british|new ?zealand|\bnz\b|tromp|\btt\b|\bing\b|goe|french")
_SUICIDE = re.compile(r"new ?zealand|\bnz\b|tromp|\btt\b|\bing\b|goe")


def _rules_of(text: str | None) -> _Rules:
    low = (text or "").lower()
    if _SIMPLE_KO.search(low):
        return _Rules(text, False, False)
    if _SUPERKO.search(low):
        return _Rules(text, True, bool(_SUICIDE.search(low)))
    return _Rules(text, None, False)


# --- files -----------------------------------------------------------------------------------


def _read_file(path: str | os.PathLike, label: str) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES; anything else fails at once.

    Opened without blocking (a FIFO with no writer would wait forever) and checked with fstat on
    the open descriptor, so a path swapped between the check and the read changes nothing.
    """

    def fail(reason: str) -> SgfError:
        return SgfError(f"{label}: {reason}", reason)

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise fail(f"cannot read: {e.strerror or e}") from e
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise fail(f"not a regular file ({_file_kind(info.st_mode)})")
        if info.st_size > MAX_FILE_BYTES:
            raise fail(f"too large ({info.st_size} bytes; the limit is {MAX_FILE_BYTES})")
        chunks, total = [], 0
        while total <= MAX_FILE_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_FILE_BYTES + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_FILE_BYTES:  # it grew while we read
            raise fail(f"too large (more than {MAX_FILE_BYTES} bytes)")
        return b"".join(chunks)
    except OSError as e:
        raise fail(f"cannot read: {e.strerror or e}") from e
    finally:
        os.close(fd)


def _file_kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO or pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a plain file"


# --- parsing, with truncated text closed -----------------------------------------------------

_START = re.compile(rb"\(\s*;")
_TOKEN = re.compile(rb"\s*(?:(\[[^\\\]]*(?:\\.[^\\\]]*)*\])|([A-Za-z]{1,64})|([;()]))", re.DOTALL)


def _close_truncated(data: bytes) -> tuple[bytes, int, bool] | None:
    """``data`` cut after its last complete token and closed with ``)``s, when it lacks them.

    Returns (closed text, bytes kept, whether anything but white space was dropped), or None when
    the text is not an unclosed game (no game at all, or its parentheses balance).
    """
    start = _START.search(data)
    if start is None:
        return None
    i, depth = start.start(), 0
    tokens: list[tuple[str, int]] = []  # (kind, end offset): V value, I identifier, or the delimiter
    while True:
        m = _TOKEN.match(data, i)
        if m is None:
            break
        kind = "V" if m.group(1) else "I" if m.group(2) else m.group(3).decode()
        if kind == "(":
            depth += 1
        elif kind == ")":
            depth -= 1
            if depth == 0:
                return None  # a complete game: whatever is wrong with it is no truncation
        tokens.append((kind, m.end()))
        i = m.end()
    dropped = bool(data[i:].strip())
    # An identifier whose value was cut, or a variation that never got a node, cannot end a game.
    while tokens and tokens[-1][0] in ("I", "("):
        if tokens.pop()[0] == "(":
            depth -= 1
        dropped = True
    if not tokens or depth <= 0:
        return None
    kept = tokens[-1][1]
    return data[:kept] + b")" * depth, kept, dropped


# --- reading ---------------------------------------------------------------------------------


def read_game(source: str | bytes | os.PathLike, name: str | None = None, *, log_repairs: bool = True) -> SgfGame:
    """Read the main line of a game from a path, or from SGF text (``str`` or ``bytes``).

    A ``str`` is SGF text when it starts with ``(`` (after white space or a BOM), else a path. ``name``
    labels messages (it defaults to the path; for text, ``<sgf>``). What was repaired is in the
    game's ``repairs`` and, unless ``log_repairs`` is false, logged as warnings.
    """
    if isinstance(source, bytes | bytearray):
        data, label = bytes(source), name or "<sgf>"
        forced_encoding = None
    elif isinstance(source, str) and source.lstrip("\ufeff \t\r\n").startswith("("):
        data, label = source.lstrip("\ufeff").encode("utf-8"), name or "<sgf>"
        forced_encoding = "utf-8"
    elif isinstance(source, str | os.PathLike):
        label = name or os.fspath(source)
        data = _read_file(source, label)
        forced_encoding = None
    else:
        label = name or "<sgf>"
        reason = f"expected a path, str or bytes, got {type(source).__name__}"
        raise SgfError(f"{label}: {reason}", reason)
    try:
        game = _Reader(label, data, forced_encoding).read()
    except SgfError:
        raise
    except (ValueError, LookupError, IndexError, KeyError, TypeError, AssertionError) as e:
        # A guard: anything unforeseen in a record still comes out as an SgfError.
        raise SgfError(f"{label}: cannot read SGF: {e}", f"cannot read SGF: {e}") from e
    if log_repairs:
        for repair in game.repairs:
            log.warning("%s: %s", label, repair.message)
        for note in game.notes:
            log.info("%s: %s", label, note)
    return game


class _Stop(Exception):
    """The main line ends before this move (a ``stopped`` repair)."""


class _Reader:
    def __init__(self, label: str, data: bytes, forced_encoding: str | None) -> None:
        self.label = label
        self.data = data
        self.forced_encoding = forced_encoding
        self.encoding = "utf-8"
        self.rows = self.cols = 19
        self.repairs: list[Repair] = []
        self.notes: list[str] = []

    def error(self, message: str) -> SgfError:
        return SgfError(f"{self.label}: {message}", message)

    def repair(self, kind: str, message: str) -> None:
        self.repairs.append(Repair(kind, message))

    # --- raw values --------------------------------------------------------------------------
    def _decode(self, raw: bytes) -> str:
        if self.encoding == "":  # no CA: UTF-8 when it is, else the spec's Latin-1
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                return raw.decode("latin-1")
        try:
            return raw.decode(self.encoding, errors="replace")
        except (UnicodeError, LookupError):  # a codec that is no text encoding
            return raw.decode("latin-1")

    def simpletext(self, props: dict, ident: str) -> str | None:
        values = props.get(ident)
        if not values:
            return None
        return self._decode(sgf_grammar.simpletext_value(values[0])).strip()

    def text(self, props: dict, ident: str) -> str | None:
        values = props.get(ident)
        if not values:
            return None
        return self._decode(sgf_grammar.text_value(values[0]))

    def point(self, raw: bytes, ident: str) -> Point:
        """A Point from SGF ``ab`` letters (column, then row from the top); may be off the board."""
        if len(raw) != 2 or chr(raw[0]) not in _LETTERS or chr(raw[1]) not in _LETTERS:
            raise self.error(f"bad point {ident}[{raw.decode('latin-1')}]")
        return Point(self.rows - (raw[1] - ord("a")), raw[0] - ord("a") + 1)

    def point_list(self, props: dict, ident: str) -> list[Point]:
        """Points of an AB/AW/AE property, with compressed ``aa:cc`` rectangles expanded."""
        points: list[Point] = []
        for raw in props.get(ident, []):
            first, colon, second = raw.strip().partition(b":")
            a = self.on_board(self.point(first, ident), ident)
            b = self.on_board(self.point(second, ident), ident) if colon else a
            for row in range(min(a.row, b.row), max(a.row, b.row) + 1):
                for col in range(min(a.col, b.col), max(a.col, b.col) + 1):
                    points.append(Point(row, col))
        return points

    def on_board(self, point: Point, ident: str) -> Point:
        if not (1 <= point.row <= self.rows and 1 <= point.col <= self.cols):
            raise self.error(f"{ident} point {_vertex(point)} is off the {self.rows}x{self.cols} board")
        return point

    # --- the game ----------------------------------------------------------------------------
    def _parse(self) -> sgf_grammar.Coarse_game_tree:
        try:
            return sgf_grammar.parse_sgf_game(self.data)
        except ValueError as e:
            error = self.error(f"malformed SGF: {e}")
        closed = _close_truncated(self.data)
        if closed is None:
            raise error
        text, kept, dropped = closed
        try:
            tree = sgf_grammar.parse_sgf_game(text)
        except ValueError:
            raise error from None
        if dropped:
            what = f"unreadable or cut off after byte {kept} of {len(self.data)}"
        else:
            what = "missing its closing ')'"
        self.repair("truncated", f"the SGF text is {what}: read the nodes before that and closed the game")
        return tree

    def read(self) -> SgfGame:
        tree = self._parse()
        nodes = list(sgf_grammar.main_sequence_iter(tree))
        root = nodes[0]
        self._set_encoding(root)
        gm = root.get("GM")
        if gm and gm[0].strip() not in (b"1", b""):
            raise self.error(f"not a game of Go (GM[{self._decode(gm[0])}])")
        self._set_size(root)
        handicap = self._handicap(root)
        komi = self._komi(root, handicap)
        result = self.simpletext(root, "RE")
        rules_text = self.simpletext(root, "RU")

        # Setup: the root and any node before the first move.
        stones: dict[Point, Player] = {}
        first_move_node = len(nodes)
        player_to_move: Player | None = None
        for i, props in enumerate(nodes):
            if "B" in props or "W" in props:
                first_move_node = i
                break
            self._apply_setup(props, stones)
            if "PL" in props:
                player_to_move = self._colour(props["PL"][0], "PL")

        move_nodes = nodes[first_move_node:]
        if move_nodes and any(ident in move_nodes[0] for ident in _SETUP):
            # Setup in the first move's own node (the spec wants separate nodes) comes before it.
            self._apply_setup(move_nodes[0], stones)
            move_nodes[0] = {k: v for k, v in move_nodes[0].items() if k not in _SETUP}
        if player_to_move is None:
            if move_nodes:
                player_to_move = Player.black if _node_moves(move_nodes[0])[0] == "B" else Player.white
            else:
                has_ab = any(p is Player.black for p in stones.values())
                player_to_move = _default_first_player(handicap, has_ab)

        board = Board(self.rows, self.cols)
        for point, player in stones.items():
            board.place_stone(player, point)
        bad = _point_without_liberty(board, stones)
        if bad is not None:
            raise self.error(f"setup stone at {_vertex(bad)} has no liberty")
        initial = GameState.from_position(board, player_to_move, komi)
        replay = _Replay(self, initial, _rules_of(rules_text))
        try:
            for props in move_nodes:
                replay.node(props)
        except _Stop:
            pass
        replay.finish()
        return SgfGame(
            board_size=(self.rows, self.cols),
            komi=komi,
            handicap=handicap,
            result=result,
            winner=_winner_from_result(result),
            black_name=self.simpletext(root, "PB"),
            white_name=self.simpletext(root, "PW"),
            rules=rules_text,
            date=self.simpletext(root, "DT"),
            initial_state=initial,
            moves=replay.moves,
            comments=replay.comments,
            name=self.label,
            setups=replay.setups,
            repairs=self.repairs,
            notes=self.notes,
            _states=replay.states,
        )

    def _set_encoding(self, root: dict) -> None:
        if self.forced_encoding:
            self.encoding = self.forced_encoding
            return
        ca = root.get("CA")
        if not ca:
            self.encoding = ""
            return
        try:
            self.encoding = codecs.lookup(ca[0].decode("ascii", "replace").strip()).name
        except (LookupError, ValueError):
            self.encoding = ""

    def _set_size(self, root: dict) -> None:
        values = root.get("SZ")
        if not values:
            self.rows = self.cols = 19
            return
        text = values[0].decode("latin-1").strip()
        cols_text, colon, rows_text = text.partition(":")
        try:
            cols = int(cols_text)
            rows = int(rows_text) if colon else cols
        except ValueError:
            raise self.error(f"bad board size SZ[{text}]") from None
        if not (MIN_SIZE <= rows <= MAX_SIZE and MIN_SIZE <= cols <= MAX_SIZE):
            raise self.error(f"board size SZ[{text}] is not supported (sizes {MIN_SIZE} to {MAX_SIZE})")
        self.rows, self.cols = rows, cols

    def _handicap(self, root: dict) -> int:
        values = root.get("HA")
        if not values:
            return 0
        text = values[0].decode("latin-1").strip()
        try:
            handicap = int(float(text)) if text else 0
        except ValueError:
            raise self.error(f"bad handicap HA[{text}]") from None
        if handicap < 0:
            raise self.error(f"bad handicap HA[{text}]")
        return handicap

    def _komi(self, root: dict, handicap: int) -> float:
        values = root.get("KM")
        text = values[0].decode("latin-1").strip() if values else ""
        if not text:
            return 0.0 if handicap >= 2 else 7.5
        try:
            komi = float(text.replace(",", "."))
        except ValueError:
            raise self.error(f"bad komi KM[{text}]") from None
        if komi != komi or abs(komi) == float("inf"):
            raise self.error(f"bad komi KM[{text}]")
        if abs(komi) > 150:  # stored as komi * 100
            komi /= 100
        return komi

    def _colour(self, raw: bytes, ident: str) -> Player:
        text = raw.decode("latin-1").strip().upper()
        if text in ("B", "BLACK", "1"):
            return Player.black
        if text in ("W", "WHITE", "2"):
            return Player.white
        raise self.error(f"bad colour {ident}[{raw.decode('latin-1')}]")

    def _apply_setup(self, props: dict, stones: dict[Point, Player]) -> None:
        black = self.point_list(props, "AB")
        white = self.point_list(props, "AW")
        both = set(black) & set(white)
        if both:
            raise self.error(f"setup point {_vertex(min(both))} is in both AB and AW")
        for point in self.point_list(props, "AE"):
            stones.pop(point, None)
        for point in black:
            stones[point] = Player.black
        for point in white:
            stones[point] = Player.white

    def move_of(self, ident: str, values: list[bytes], number: int) -> Move:
        """The move of a ``B``/``W`` property; ``number`` is its 1-based move number (for messages)."""
        if len(values) != 1:
            raise _Stop(f"move {number}: {len(values)} values for {ident}")
        raw = values[0].strip()
        if raw == b"" or (raw == b"tt" and self.rows <= 19 and self.cols <= 19):
            return Move.pass_turn()
        if len(raw) != 2 or chr(raw[0]) not in _LETTERS or chr(raw[1]) not in _LETTERS:
            raise _Stop(f"move {number} ({ident} [{raw.decode('latin-1')}]) is not a point")
        return Move.play(self.point(raw, ident))


def _node_moves(props: dict) -> list[str]:
    """The move properties of a node in the order they appear in it (``B``, ``W`` or both)."""
    return [ident for ident in props if ident in ("B", "W")]


def _point_without_liberty(board: Board, stones) -> Point | None:
    for point in stones:
        string = board.get_go_string(point)
        if string is None or string.num_liberties == 0:
            return point
    return None


class _Replay:
    """The main line played node by node under the record's rules, repairs noted on the reader."""

    def __init__(self, reader: _Reader, initial: GameState, rules: _Rules) -> None:
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
        idents = _node_moves(props)
        if any(ident in props for ident in _SETUP):
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
            except _Stop as e:
                self.stop(str(e))
            self.play(player, move, number, reader.text(props, "C") if k == 0 else None)

    def stop(self, why: str) -> None:
        self.reader.repair("stopped", f"{why}: the game is read up to move {len(self.moves)}, the rest is left out")
        raise _Stop(why)

    def setup(self, props: dict) -> None:
        """AB/AW/AE after move ``after``: the position there changes (merged with earlier setup)."""
        reader = self.reader
        after = len(self.moves)
        stones = dict(self.state.board.stones())
        reader._apply_setup(props, stones)
        old = self.setups.get(after)
        base = self.state.previous_state if old is not None else self.state  # right after the move
        assert base is not None
        start = dict(base.board.stones())
        player = reader._colour(props["PL"][0], "PL") if "PL" in props else (old.player if old else None)
        setup = Setup(
            black=tuple(sorted(p for p, c in stones.items() if c is Player.black and start.get(p) is not c)),
            white=tuple(sorted(p for p, c in stones.items() if c is Player.white and start.get(p) is not c)),
            empty=tuple(sorted(p for p in start if p not in stones)),
            player=player,
        )
        new = setup.apply(base)
        bad = _point_without_liberty(new.board, stones)
        if bad is not None:
            raise reader.error(f"setup stone at {_vertex(bad)} has no liberty")
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
        label = f"move {number} ({_COLOUR[player]} {_move_text(move)})"
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
        self.state = play_as(state, player, move)
        self.states.append(self.state)
        self.moves.append((player, move))
        self.comments.append(comment)

    def ko(self, state: GameState, player: Player, move: Move, label: str, number: int) -> None:
        after = _board_after(state.board, player, move)[0].zobrist_hash()
        previous = state.previous_state
        if previous is not None and previous.board.zobrist_hash() == after and previous.next_player is player.other:
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


def _vertex(point: Point) -> str:
    """GTP letters where they exist (A-Z without I, rows from 1), else (row, col)."""
    if 1 <= point.col <= len(COLS) and point.row >= 1:
        return coords_from_point(point)
    return f"(row {point.row}, col {point.col})"


def _move_text(move: Move) -> str:
    if move.is_pass:
        return "pass"
    if move.is_resign:
        return "resign"
    return _vertex(move.point)


def _winner_from_result(result: str | None) -> Player | None:
    """Black for ``B+...``, White for ``W+...``, else None (draw, void, unknown)."""
    if not result:
        return None
    text = result.strip().upper()
    if text.startswith("B+"):
        return Player.black
    if text.startswith("W+"):
        return Player.white
    return None


def _default_first_player(handicap: int, has_black_setup: bool) -> Player:
    return Player.white if handicap >= 2 and has_black_setup else Player.black


# --- applying moves --------------------------------------------------------------------------


def _board_after(board: Board, player: Player, move: Move) -> tuple[Board, list[int]]:
    new = board.copy()
    captured = new.place_stone(player, move.point)
    return new, captured


def play_as(state: GameState, player: Player, move: Move) -> GameState:
    """The state after ``player`` plays ``move``, even when it is not ``player``'s turn.

    For the player to move this is ``state.apply_move``. Otherwise (SGF records may have a
    colour move twice) the new state is built directly with ``GameState``'s constructor:
    the stone goes on a copy of the board, the other colour is to move next, the history
    (``previous_state``, superko hashes) stays one chain. A suicide (which records may hold, see
    the module doc) takes its own string off the board. Legality is the caller's job.
    """
    if move.is_play and state.is_move_self_capture(player, move):
        board = state.board.copy()
        idx = board._geo.index(move.point)
        board._place(player, idx)
        board._remove_string(board._strings[idx])
        return GameState(board, player.other, state, move, state.komi)
    if player is state.next_player:
        return state.apply_move(move)
    if not move.is_play:
        return GameState(state.board, player.other, state, move, state.komi)
    board, captured = _board_after(state.board, player, move)
    ko = 0
    if len(captured) == 1:
        string = board.get_go_string(move.point)
        if string is not None and len(string.stones) == 1 and string.num_liberties == 1:
            ko = captured[0]
    return GameState(board, player.other, state, move, state.komi, ko)


# --- writing ---------------------------------------------------------------------------------


def _sgf_point(point: Point, rows: int) -> bytes:
    return (_LETTERS[point.col - 1] + _LETTERS[rows - point.row]).encode("ascii")


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
        node["PL"] = [_COLOUR[setup.player].encode()]
    return node


def _moves_of(state: GameState) -> list[tuple[Player, Move]]:
    """Moves from the root to ``state`` with who made each.

    The mover is the opposite of the player to move after the move: that also holds for a
    colour that played twice in a row (``play_as``), where the previous state's player is wrong.
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
            result = f"{_COLOUR[resigner.other]}+R"
    elif auto_result and len(moves) >= 2 and moves[-1][1].is_pass and moves[-2][1].is_pass:
        from dlgo.scoring import compute_game_result

        final = initial_state
        for player, move in moves:
            final = play_as(final, player, move)
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
    inferred = moves[0][0] if moves else _default_first_player(handicap, bool(black))
    if first is not inferred:
        root["PL"] = [_COLOUR[first].encode()]

    tree = sgf_grammar.Coarse_game_tree()
    tree.sequence.append(root)
    for i, (player, move) in enumerate(moves):
        if move.is_pass:
            value = b""
        else:
            value = _sgf_point(move.point, rows)
        node = {_COLOUR[player]: [value]}
        if comments is not None and i < len(comments) and comments[i] is not None:
            node["C"] = [_text(comments[i])]
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
