"""The GTP command table: every command's name and its handler, grouped by concern.

Each group is a module of handler functions ``handler(engine, cmd) -> str | None`` (see
``base.Handler``); the engine looks a command up here and nowhere else. The table's order is
what ``list_commands`` answers.
"""

from __future__ import annotations

from gtp_engine.commands import analysis, core, counting, extensions, handicap, sgf_files, timing
from gtp_engine.commands.base import Handler

__all__ = ["COMMANDS", "Handler"]

COMMANDS: dict[str, Handler] = {
    "protocol_version": core.protocol_version,
    "name": core.name,
    "version": core.version,
    "known_command": core.known_command,
    "list_commands": core.list_commands,
    "quit": core.quit_,
    "boardsize": core.boardsize,
    "clear_board": core.clear_board,
    "komi": core.komi,
    "play": core.play,
    "genmove": core.genmove,
    "fixed_handicap": handicap.fixed_handicap,
    "place_free_handicap": handicap.place_free_handicap,
    "set_free_handicap": handicap.set_free_handicap,
    "undo": core.undo,
    "time_settings": timing.time_settings,
    "kgs-time_settings": timing.kgs_time_settings,
    "kata-list_time_settings": timing.kata_list_time_settings,
    "kata-time_settings": timing.kata_time_settings,
    "time_left": timing.time_left,
    "final_score": counting.final_score,
    "final_status_list": counting.final_status_list,
    "loadsgf": sgf_files.loadsgf,
    "printsgf": sgf_files.printsgf,
    "reg_genmove": core.reg_genmove,
    "showboard": core.showboard,
    "kgs-genmove_cleanup": core.kgs_genmove_cleanup,
    "kgs-rules": extensions.kgs_rules,
    "kata-set-rules": extensions.kata_set_rules,
    "kata-get-rules": extensions.kata_get_rules,
    "cputime": extensions.cputime,
    "gomill-cpu_time": extensions.gomill_cpu_time,
    "gomill-describe_engine": extensions.gomill_describe_engine,
    "gomill-explain_last_move": extensions.gomill_explain_last_move,
    "genmove_analyze": analysis.genmove_analyze,
    "lz-genmove_analyze": analysis.genmove_analyze,
    "kata-genmove_analyze": analysis.kata_genmove_analyze,
    "analyze": analysis.analyze,
    "lz-analyze": analysis.analyze,
    "kata-analyze": analysis.kata_analyze,
    "gogui-analyze_commands": analysis.gogui_analyze_commands,
    "gogui-interrupt": analysis.gogui_interrupt,
    "dlgo-ownership": analysis.dlgo_ownership,
    "dlgo-visits": analysis.dlgo_visits,
    "dlgo-pv": analysis.dlgo_pv,
}
