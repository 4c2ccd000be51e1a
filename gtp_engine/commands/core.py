"""The GTP 2 basics: identification, the board, moves and move generation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dlgo import __version__
from dlgo.goboard import MAX_SIZE, MIN_SIZE
from dlgo.gotypes import Player
from dlgo.play.errors import PlayError
from dlgo.utils import board_to_text
from gtp_engine.analysis_formats import gtp_version
from gtp_engine.commands.base import expect_args
from gtp_engine.protocol import (
    SYNTAX_ERROR,
    UNACCEPTABLE_SIZE,
    Command,
    GtpError,
    color_name,
    format_move,
    parse_color,
    parse_float,
    parse_int,
    parse_move,
)

if TYPE_CHECKING:
    from gtp_engine.engine import Engine


def protocol_version(engine: Engine, cmd: Command) -> str:
    return "2"


def name(engine: Engine, cmd: Command) -> str:
    return engine.config.get("engine.name")


def version(engine: Engine, cmd: Command) -> str:
    return gtp_version(__version__)  # Lizzie reads the first word (see analysis.gtp_version)


def known_command(engine: Engine, cmd: Command) -> str:
    (command_name,) = expect_args(cmd, 1)
    return "true" if command_name in engine.commands else "false"


def list_commands(engine: Engine, cmd: Command) -> str:
    return "\n".join(engine.commands)


def quit_(engine: Engine, cmd: Command) -> str:  # quit() is a builtin
    engine.quit_requested = True
    return ""


def boardsize(engine: Engine, cmd: Command) -> str:
    if len(cmd.args) == 1 and ":" in cmd.args[0]:
        args = tuple(cmd.args[0].split(":", 1))
    else:
        args = cmd.args
    if len(args) not in (1, 2):
        raise GtpError(SYNTAX_ERROR)
    cols = parse_int(args[0])
    rows = parse_int(args[1]) if len(args) == 2 else cols
    if not (MIN_SIZE <= rows <= MAX_SIZE and MIN_SIZE <= cols <= MAX_SIZE):
        raise GtpError(UNACCEPTABLE_SIZE)
    if engine.agents.resolve(rows, cols) is None:
        raise GtpError(UNACCEPTABLE_SIZE)
    engine.session.clear(rows, cols)
    engine.new_game()
    try:
        engine.agents.request(rows, cols)  # its agent is built next, before the first genmove
    except PlayError:
        pass  # said at genmove
    return ""


def clear_board(engine: Engine, cmd: Command) -> str:
    engine.session.clear()
    engine.new_game()
    return ""


def komi(engine: Engine, cmd: Command) -> str:
    (text,) = expect_args(cmd, 1)
    value = parse_float(text)
    if abs(value) > 1000:
        raise GtpError(SYNTAX_ERROR)
    engine.session.set_komi(value)
    return ""


def play(engine: Engine, cmd: Command) -> str:
    color_text, vertex = expect_args(cmd, 2)
    player = parse_color(color_text)
    move = parse_move(vertex, engine.game.rows, engine.game.cols)
    engine.session.play(player, move)
    return ""


def genmove(engine: Engine, cmd: Command) -> str:
    (color_text,) = expect_args(cmd, 1)
    return format_move(engine.runner.genmove(parse_color(color_text)).move)


def reg_genmove(engine: Engine, cmd: Command) -> str:
    (color_text,) = expect_args(cmd, 1)
    return format_move(engine.runner.genmove(parse_color(color_text), commit=False).move)


def kgs_genmove_cleanup(engine: Engine, cmd: Command) -> str:
    (color_text,) = expect_args(cmd, 1)
    return format_move(engine.runner.genmove(parse_color(color_text), cleanup=True).move)


def undo(engine: Engine, cmd: Command) -> str:
    expect_args(cmd, 0)
    engine.session.undo()
    return ""


def showboard(engine: Engine, cmd: Command) -> str:
    expect_args(cmd, 0)
    game = engine.game
    state = game.state
    lines = [
        board_to_text(state.board),
        f"next: {color_name(state.next_player)}  moves: {game.num_moves}  komi: {game.komi:g}",
        f"captured by black: {game.captures(Player.white)}  by white: {game.captures(Player.black)}",
    ]
    return "\n" + "\n".join(lines)
