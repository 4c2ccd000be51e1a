"""Games as SGF: ``loadsgf`` replays a record, ``printsgf`` writes the game."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from dlgo import __version__
from dlgo.play.game import Game
from gtp_engine.commands.counting import count_game
from gtp_engine.protocol import CANNOT_LOAD, SYNTAX_ERROR, Command, GtpError, color_name, parse_int

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

log = logging.getLogger(__name__)


def _cannot_load(reason: str) -> str:
    """``cannot load file: <reason>``: the canonical text clients test for, then why, on one line."""
    reason = " ".join(reason.split())
    return f"{CANNOT_LOAD}: {reason[:300]}" if reason else CANNOT_LOAD


def _cannot_save(reason: str) -> str:
    """``cannot save file: <reason>``, as ``loadsgf`` answers ``cannot load file: <reason>``."""
    return f"cannot save file: {' '.join(reason.split())[:300]}"


def loadsgf(engine: Engine, cmd: Command) -> str:
    if len(cmd.args) not in (1, 2):
        raise GtpError(SYNTAX_ERROR)
    until = parse_int(cmd.args[1], minimum=1) if len(cmd.args) == 2 else None
    from dlgo.sgf import SgfError, read_game

    # Only a regular file, at most dlgo.sgf.MAX_FILE_BYTES, is read; a FIFO or a device fails
    # at once. What had to be repaired is logged by dlgo.sgf; the game is replayed as the
    # record's own rules allow (dlgo.sgf's module doc), not under this engine's superko.
    try:
        record = read_game(Path(cmd.args[0]))
    except SgfError as e:
        log.warning("loadsgf: %s", e)
        raise GtpError(_cannot_load(e.reason)) from None
    except (OSError, ValueError) as e:
        log.warning("loadsgf: %s", e)
        raise GtpError(_cannot_load(str(e))) from None
    rows, cols = record.board_size
    if engine.agents.resolve(rows, cols) is None:
        log.warning("loadsgf: no agent plays %dx%d", rows, cols)
        raise GtpError(_cannot_load(f"no agent plays {rows}x{cols}"))
    last = len(record.moves) if until is None else min(len(record.moves), until - 1)
    states = record.states()
    # Setup stones after a move start the game afresh there, as in GNU Go: undo stops at them
    # and printsgf writes that position as its setup (the history before still counts for ko).
    start = max((i for i in record.setups if i <= last), default=0)
    if start:
        log.warning("loadsgf: setup stones after move %d: the game starts from that position", start)
    game = Game(rows, cols, record.komi, engine.game.handicap_compensation)
    game.load(states[start], record.moves[start:last], record.handicap, states=states[start + 1 : last + 1])
    engine.session.set_game(game)
    engine.new_game()
    return color_name(game.state.next_player)


def printsgf(engine: Engine, cmd: Command) -> str:
    if len(cmd.args) > 1:
        raise GtpError(SYNTAX_ERROR)
    from dlgo.sgf import write_game

    result = str(count_game(engine).result) if engine.game.state.is_over() else None
    text = write_game(
        engine.game.moves,
        engine.game.initial,
        result=result,
        handicap=engine.game.handicap,
        komi=engine.game.komi,
        application=f"{engine.config.get('engine.name')}:{__version__}",
    )
    if cmd.args:
        try:
            _write_record(cmd.args[0], text.encode("utf-8"))
        except OSError as e:
            log.warning("printsgf: %s", e)
            raise GtpError(_cannot_save(f"{cmd.args[0]}: {e.strerror or e}")) from None
        except ValueError as e:
            log.warning("printsgf: %s", e)
            raise GtpError(_cannot_save(str(e))) from None
        return ""
    return text


def _open_files(but: int) -> set[tuple[int, int]]:
    """(device, inode) of every file this process holds open but through ``but``: its GTP
    streams among them."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: the standard streams at least
        fds = [0, 1, 2]
    out = set()
    for fd in fds:
        if fd == but:
            continue
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        out.add((info.st_dev, info.st_ino))
    return out


def _write_record(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``, a regular file (made if absent): a FIFO, a device or a socket
    is refused at once rather than blocking the engine (the open never waits: O_NONBLOCK), and
    so is any file the engine holds open, such as its own GTP output (``/proc/self/fd/N``)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path}: not a regular file")
        if (info.st_dev, info.st_ino) in _open_files(but=fd):
            raise ValueError(f"{path}: a file the engine has open (its own input or output?)")
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
