"""Reading and writing SGF game records (FF[4]) on top of sgfmill's parser.

``read_game`` turns an SGF file or text into an :class:`SgfGame`: the metadata, a root
``GameState`` after the setup stones and the main line of moves, every move checked against the
rules of ``dlgo.goboard`` (situational superko, no suicide). ``write_game`` and
``save_game`` turn a game back into SGF; what they write reads back identically.

sgfmill's ``sgf_grammar`` does the tokenising, escaping and tree serialising; points and
properties are interpreted here, so rectangular boards (``SZ[19:13]``, columns first as in the
SGF spec) work too. Every problem with a record is an :class:`SgfError` (a ``ValueError``) that
names the file (or ``name=``) and, for a bad move, the move number, colour and vertex.

Conventions when reading:

- ``KM`` missing: 0.0 in a handicap game (``HA`` >= 2), else 7.5. ``KM[650]`` style values
  (some servers store komi * 100, any absolute value above 150) are divided by 100.
- Player to move first: ``PL`` if given; else the colour of the first move of the main line;
  else White when ``HA`` >= 2 and the root has ``AB``; else Black.
- Setup (``AB``/``AW``/``AE``) is allowed in the root and in further nodes before the first
  move (merged into the initial position); setup after a move raises ``SgfError``.
- ``B[]`` is a pass, and so is ``B[tt]`` on boards up to 19x19 (both sides).
- A colour that moves twice in a row is applied as such (see :func:`play_as`); the state's
  history stays one chain.
- Resignation is not a move in SGF: it only shows in ``RE`` (``W+R``); ``moves`` never holds one.
"""

from __future__ import annotations

import codecs
import datetime
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sgfmill import sgf_grammar

from dlgo import __version__
from dlgo.goboard import MAX_SIZE, MIN_SIZE, Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.utils import COLS, coords_from_point

__all__ = ["SgfError", "SgfGame", "read_game", "write_game", "save_game", "play_as"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_COLOUR = {Player.black: "B", Player.white: "W"}
_SETUP = ("AB", "AW", "AE")


class SgfError(ValueError):
    """A record that cannot be read: malformed SGF, unsupported content or an illegal move."""


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
    _states: list[GameState] = field(default_factory=list, repr=False, compare=False)

    def states(self) -> list[GameState]:
        """The initial state and the state after every move, in order."""
        if len(self._states) != len(self.moves) + 1:
            states = [self.initial_state]
            for player, move in self.moves:
                states.append(play_as(states[-1], player, move))
            self._states = states
        return list(self._states)

    @property
    def final_state(self) -> GameState:
        """The state after the last move of the main line."""
        return self.states()[-1]


# --- reading ---------------------------------------------------------------------------------


def read_game(source: str | bytes | os.PathLike, name: str | None = None) -> SgfGame:
    """Read the main line of a game from a path, or from SGF text (``str`` or ``bytes``).

    A ``str`` is SGF text when it starts with ``(`` (after white space or a BOM), else a path. ``name``
    labels error messages (it defaults to the path; for text, ``<sgf>``).
    """
    if isinstance(source, bytes | bytearray):
        data, label = bytes(source), name or "<sgf>"
        forced_encoding = None
    elif isinstance(source, str) and source.lstrip("\ufeff \t\r\n").startswith("("):
        data, label = source.lstrip("\ufeff").encode("utf-8"), name or "<sgf>"
        forced_encoding = "utf-8"
    elif isinstance(source, str | os.PathLike):
        label = name or os.fspath(source)
        try:
            data = Path(source).read_bytes()
        except OSError as e:
            raise SgfError(f"{label}: cannot read: {e.strerror or e}") from e
        forced_encoding = None
    else:
        raise SgfError(f"{name or '<sgf>'}: expected a path, str or bytes, got {type(source).__name__}")
    try:
        return _Reader(label, data, forced_encoding).read()
    except SgfError:
        raise
    except (ValueError, LookupError, IndexError, KeyError, TypeError, AssertionError) as e:
        # A guard: anything unforeseen in a record still comes out as an SgfError.
        raise SgfError(f"{label}: cannot read SGF: {e}") from e


class _Reader:
    def __init__(self, label: str, data: bytes, forced_encoding: str | None) -> None:
        self.label = label
        self.data = data
        self.forced_encoding = forced_encoding
        self.encoding = "utf-8"
        self.rows = self.cols = 19

    def error(self, message: str) -> SgfError:
        return SgfError(f"{self.label}: {message}")

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
    def read(self) -> SgfGame:
        try:
            tree = sgf_grammar.parse_sgf_game(self.data)
        except ValueError as e:
            raise self.error(f"malformed SGF: {e}") from e
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
        if player_to_move is None:
            if move_nodes:
                player_to_move = Player.black if "B" in move_nodes[0] else Player.white
            else:
                has_ab = any(p is Player.black for p in stones.values())
                player_to_move = _default_first_player(handicap, has_ab)

        board = Board(self.rows, self.cols)
        for point, player in stones.items():
            board.place_stone(player, point)
        for point, player in stones.items():
            string = board.get_go_string(point)
            if board.get(point) is not player or string is None or string.num_liberties == 0:
                raise self.error(f"setup stone at {_vertex(point)} has no liberty")
        state = GameState.from_position(board, player_to_move, komi)
        initial = state

        moves: list[tuple[Player, Move]] = []
        comments: list[str | None] = []
        states = [state]
        for props in move_nodes:
            number = len(moves) + 1
            if any(ident in props for ident in _SETUP):
                raise self.error(
                    f"setup stones ({'/'.join(i for i in _SETUP if i in props)}) after move {number - 1}"
                    " are not supported (only before the first move)"
                )
            played = self._move(props, number)
            if played is None:  # a node without a move (comments only)
                continue
            player, move = played
            reason = _illegal_reason(state, player, move)
            if reason:
                raise self.error(f"move {number} ({_COLOUR[player]} {_move_text(move)}) is illegal: {reason}")
            state = play_as(state, player, move)
            states.append(state)
            moves.append((player, move))
            comments.append(self.text(props, "C"))

        return SgfGame(
            board_size=(self.rows, self.cols),
            komi=komi,
            handicap=handicap,
            result=result,
            winner=_winner_from_result(result),
            black_name=self.simpletext(root, "PB"),
            white_name=self.simpletext(root, "PW"),
            rules=self.simpletext(root, "RU"),
            date=self.simpletext(root, "DT"),
            initial_state=initial,
            moves=moves,
            comments=comments,
            name=self.label,
            _states=states,
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

    def _move(self, props: dict, number: int) -> tuple[Player, Move] | None:
        """The move of a node (None: no B/W); ``number`` is its 1-based move number."""
        if "B" in props and "W" in props:
            raise self.error(f"move {number}: node has both B and W")
        for ident, player in (("B", Player.black), ("W", Player.white)):
            values = props.get(ident)
            if values is None:
                continue
            if len(values) != 1:
                raise self.error(f"move {number}: {len(values)} values for {ident}")
            raw = values[0].strip()
            if raw == b"" or (raw == b"tt" and self.rows <= 19 and self.cols <= 19):
                return player, Move.pass_turn()
            if len(raw) != 2 or chr(raw[0]) not in _LETTERS or chr(raw[1]) not in _LETTERS:
                text = raw.decode("latin-1")
                raise self.error(f"move {number} ({ident} [{text}]) is illegal: not a point")
            return player, Move.play(self.point(raw, ident))
        return None


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


def _illegal_reason(state: GameState, player: Player, move: Move) -> str | None:
    """Why ``player`` may not play ``move`` in ``state`` (None: legal). Ignores game over."""
    if not move.is_play:
        return None if move.is_pass else "resignation is not a move"
    board = state.board
    if not board.is_on_grid(move.point):
        return f"off the {board.num_rows}x{board.num_cols} board"
    if board.get(move.point) is not None:
        return "point is occupied"
    if state.is_move_self_capture(player, move):
        return "suicide"
    if state.does_move_violate_ko(player, move):
        after = _board_after(state.board, player, move)[0].zobrist_hash()
        previous = state.previous_state
        if previous is not None and previous.board.zobrist_hash() == after and previous.next_player is player.other:
            return "ko"
        return "superko"
    return None


def _board_after(board: Board, player: Player, move: Move) -> tuple[Board, list[int]]:
    new = board.copy()
    captured = new.place_stone(player, move.point)
    return new, captured


def play_as(state: GameState, player: Player, move: Move) -> GameState:
    """The state after ``player`` plays ``move``, even when it is not ``player``'s turn.

    For the player to move this is ``state.apply_move``. Otherwise (SGF records may have a
    colour move twice) the new state is built directly with ``GameState``'s constructor:
    the stone goes on a copy of the board, the other colour is to move next, the history
    (``previous_state``, superko hashes) stays one chain. Legality is the caller's job (see
    ``_illegal_reason``, which checks the same way ``is_valid_move`` does, for any colour).
    """
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
    if isinstance(game, SgfGame):
        auto_result = False  # its RE as it was, even none
        initial_state = game.initial_state
        moves = list(game.moves)
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
    return sgf_grammar.serialise_game_tree(tree, wrap=79).decode("utf-8")


def save_game(
    path: str | os.PathLike, game: GameState | Sequence[tuple[Player, Move]] | SgfGame, *args, **kwargs
) -> None:
    """Write ``write_game(game, ...)`` to ``path`` (UTF-8)."""
    Path(path).write_bytes(write_game(game, *args, **kwargs).encode("utf-8"))
