"""Reading SGF records: files, parsing (with truncated text closed) and root properties.

sgfmill's ``sgf_grammar`` does the tokenising and escaping; points and properties are read
here, and the main line is replayed by :mod:`dlgo.sgf.replay`. See :mod:`dlgo.sgf` for the
conventions.
"""

from __future__ import annotations

import codecs
import logging
import os
import re
import stat

from sgfmill import sgf_grammar

from dlgo.goboard import MAX_SIZE, MIN_SIZE, Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.sgf.record import (
    SETUP_PROPERTIES,
    SGF_LETTERS,
    Repair,
    SgfError,
    SgfGame,
    default_first_player,
    vertex_text,
)
from dlgo.sgf.replay import MainLineStop, Replay, node_moves, point_without_liberty, rules_of

__all__ = ["MAX_FILE_BYTES", "MAX_NODES", "MAX_MAIN_LINE_MOVES", "read_game", "RecordReader"]

log = logging.getLogger("dlgo.sgf")  # the package's logger, as before the split

MAX_FILE_BYTES = 8 * 1024 * 1024  # larger files are refused unread (see the module docstring)
# The work is bounded too, not only the bytes: 8 MiB of ";B[];W[]" is 1.3 million nodes, which
# took sgfmill 20 s and 1.9 GB to parse. A real record, variations and reviews included, has a few
# thousand nodes, and the longest real games a few hundred moves.
MAX_NODES = 50_000
MAX_MAIN_LINE_MOVES = 5_000
_VALUE = re.compile(rb"\[[^\]\\]*(?:\\.[^\]\\]*)*\]")  # a property value, escapes included (unrolled: fast)


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
        game = RecordReader(label, data, forced_encoding).read()
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


class RecordReader:
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
        if len(raw) != 2 or chr(raw[0]) not in SGF_LETTERS or chr(raw[1]) not in SGF_LETTERS:
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
            raise self.error(f"{ident} point {vertex_text(point)} is off the {self.rows}x{self.cols} board")
        return point

    # --- the game ----------------------------------------------------------------------------
    def _check_size(self) -> None:
        """Refuse, before parsing, a text of more than MAX_NODES nodes (its node markers outside
        property values, counted at C speed; the plain count first, which bounds it)."""
        if self.data.count(b";") <= MAX_NODES:
            return
        nodes = _VALUE.sub(b"", self.data).count(b";")
        if nodes > MAX_NODES:
            raise self.error(f"too many nodes ({nodes}; the limit is {MAX_NODES})")

    def _parse(self) -> sgf_grammar.Coarse_game_tree:
        self._check_size()
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
        if len(nodes) - 1 > MAX_MAIN_LINE_MOVES:
            raise self.error(f"the main line is too long ({len(nodes) - 1} nodes; the limit is {MAX_MAIN_LINE_MOVES})")
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
            self.apply_setup(props, stones)
            if "PL" in props:
                player_to_move = self.colour(props["PL"][0], "PL")

        move_nodes = nodes[first_move_node:]
        if move_nodes and any(ident in move_nodes[0] for ident in SETUP_PROPERTIES):
            # Setup in the first move's own node (the spec wants separate nodes) comes before it.
            self.apply_setup(move_nodes[0], stones)
            move_nodes[0] = {k: v for k, v in move_nodes[0].items() if k not in SETUP_PROPERTIES}
        if player_to_move is None:
            if move_nodes:
                player_to_move = Player.black if node_moves(move_nodes[0])[0] == "B" else Player.white
            else:
                has_ab = any(p is Player.black for p in stones.values())
                player_to_move = default_first_player(handicap, has_ab)

        board = Board(self.rows, self.cols)
        for point, player in stones.items():
            board.place_stone(player, point)
        bad = point_without_liberty(board, stones)
        if bad is not None:
            raise self.error(f"setup stone at {vertex_text(bad)} has no liberty")
        initial = GameState.from_position(board, player_to_move, komi)
        replay = Replay(self, initial, rules_of(rules_text))
        try:
            for props in move_nodes:
                replay.node(props)
        except MainLineStop:
            pass
        replay.finish()
        return SgfGame(
            board_size=(self.rows, self.cols),
            komi=komi,
            handicap=handicap,
            result=result,
            winner=winner_from_result(result),
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
            replayed_states=replay.states,
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

    def colour(self, raw: bytes, ident: str) -> Player:
        text = raw.decode("latin-1").strip().upper()
        if text in ("B", "BLACK", "1"):
            return Player.black
        if text in ("W", "WHITE", "2"):
            return Player.white
        raise self.error(f"bad colour {ident}[{raw.decode('latin-1')}]")

    def apply_setup(self, props: dict, stones: dict[Point, Player]) -> None:
        black = self.point_list(props, "AB")
        white = self.point_list(props, "AW")
        both = set(black) & set(white)
        if both:
            raise self.error(f"setup point {vertex_text(min(both))} is in both AB and AW")
        for point in self.point_list(props, "AE"):
            stones.pop(point, None)
        for point in black:
            stones[point] = Player.black
        for point in white:
            stones[point] = Player.white

    def move_of(self, ident: str, values: list[bytes], number: int) -> Move:
        """The move of a ``B``/``W`` property; ``number`` is its 1-based move number (for messages)."""
        if len(values) != 1:
            raise MainLineStop(f"move {number}: {len(values)} values for {ident}")
        raw = values[0].strip()
        if raw == b"" or (raw == b"tt" and self.rows <= 19 and self.cols <= 19):
            return Move.pass_turn()
        if len(raw) != 2 or chr(raw[0]) not in SGF_LETTERS or chr(raw[1]) not in SGF_LETTERS:
            raise MainLineStop(f"move {number} ({ident} [{raw.decode('latin-1')}]) is not a point")
        return Move.play(self.point(raw, ident))


def winner_from_result(result: str | None) -> Player | None:
    """Black for ``B+...``, White for ``W+...``, else None (draw, void, unknown)."""
    if not result:
        return None
    text = result.strip().upper()
    if text.startswith("B+"):
        return Player.black
    if text.startswith("W+"):
        return Player.white
    return None
