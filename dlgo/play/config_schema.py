"""The engine's own config keys, the tables that are the same for every agent: each key's type,
default, range and the line ``configs/engine/default.toml`` and the README document it with.
The agents' tables come from ``dlgo.agent_registry``; ``dlgo.play.config`` checks a config
against both."""

from __future__ import annotations

from dlgo.agent_registry import Param
from dlgo.goboard import MAX_SIZE, MIN_SIZE
from dlgo.handicap import COMPENSATION_RULES
from dlgo.rules import RULE_NAMES

__all__ = ["SCHEMA"]

_LEVELS = ("debug", "info", "warning", "error", "critical")

# Tables that are the same for every agent. Agent tables come from the registry.
SCHEMA: dict[str, dict[str, Param]] = {
    "engine": {
        "name": Param(str, "dlgo", "what `name` answers"),
        "board_size": Param(int, 19, "board size at start-up (until `boardsize`)", minimum=MIN_SIZE, maximum=MAX_SIZE),
        "komi": Param(float, 7.5, "komi at start-up (until `komi`)"),
        "handicap_compensation": Param(
            str,
            "chinese",
            "points White gets per handicap stone: chinese = one each (GNU Go, KGS), aga = one fewer, none",
            choices=COMPENSATION_RULES,
        ),
        "rules": Param(
            str,
            "chinese",
            "rules of the count until `kgs-rules` or `kata-set-rules`: area scoring (chinese, aga, "
            "tromp-taylor, ...) or territory scoring (japanese, korean): final_score, passing and resigning",
            choices=RULE_NAMES,
        ),
        "preload": Param(
            bool,
            True,
            "build the agents of every board size the config names in the background from start-up "
            "(false: each when its board size is first used)",
        ),
        "ponder": Param(
            bool, False, "search on the opponent's time after our genmove (searching agents that keep their tree)"
        ),
    },
    "time": {
        "default_seconds": Param(float, 5.0, "seconds per move when no clock is set; 0 = visits only", minimum=0.0),
        "max_seconds": Param(
            float, 60.0, "never think longer than this per move, clock or not; 0 = no cap", minimum=0.0
        ),
        "lag_buffer": Param(
            float,
            0.1,
            "seconds kept back from every clock for the controller's lag: about 0 for a local GUI or "
            "match (0.1 covers a busy machine), a second on OGS",
            minimum=0.0,
        ),
        "min_moves_left": Param(int, 10, "the clock is shared by at least this many more moves of ours", minimum=1),
        "moves_left_factor": Param(float, 0.4, "our moves left ~= this x empty points", minimum=0.01),
        "minimum_seconds": Param(float, 0.02, "the shortest search when the clock is nearly out", minimum=0.001),
        "move_overhead": Param(
            float,
            0.05,
            "the engine's own seconds per move besides its search, at least (it measures them on its last "
            "moves): kept back from each search and, for the moves to come, from main time",
            minimum=0.0,
        ),
        "unsure_factor": Param(
            float,
            1.0,
            "in main time a move may think up to this many times its share while its best move leads the "
            "second by less than unsure_visit_ratio in visits (1 = never longer)",
            minimum=1.0,
        ),
        "unsure_visit_ratio": Param(
            float,
            2.0,
            "the best move is unsure while it has fewer than this many times the second's visits",
            minimum=1.0,
        ),
    },
    "resign": {
        "enabled": Param(bool, True, "resign at all"),
        "threshold": Param(float, 0.1, "resign when the best move's win rate is below this", minimum=0.0, maximum=1.0),
        "min_move": Param(
            int, 0, "never resign before this move number; 0 = a quarter of the board's points", minimum=0
        ),
        "handicap_threshold": Param(float, 0.02, "threshold for White in a handicap game", minimum=0.0, maximum=1.0),
        "handicap_min_move": Param(
            int, 0, "never resign as White in a handicap game before this move; 0 = half the board's points", minimum=0
        ),
        "consecutive_moves": Param(
            int, 3, "resign only when this many of our moves in a row (this one included) are below it", minimum=1
        ),
        "min_score_difference": Param(
            float,
            0.0,
            "never resign while the network's score head says we are behind by fewer points than this "
            "(KataGo's resignMinScoreDifference); 0 = the win rate alone decides; no effect without a score head",
            minimum=0.0,
        ),
    },
    "pass": {
        "playouts": Param(int, 400, "playouts of the dead-stone estimate behind pass decisions", minimum=10),
        "only_when_settled": Param(
            bool, True, "never pass while neutral points (dame) are left to fill, unless the opponent passed"
        ),
    },
    "book": {
        "file": Param(
            str,
            "",
            "an opening book (python -m dlgo.play.book_builder), relative to this file: its positions are "
            "played from it, without a search; empty = none",
        ),
        "komi_tolerance": Param(
            float, 0.5, "the book answers games whose komi is within this of the komi it was searched at", minimum=0.0
        ),
    },
    "variety": {
        "opening_moves": Param(
            int, 0, "draw our move among near-best moves over the game's first this many moves; 0 = off", minimum=0
        ),
        "temperature": Param(float, 0.5, "the draw's weight is visits ** (1 / temperature)", minimum=0.0),
        "max_winrate_loss": Param(
            float, 0.02, "only moves whose win rate is within this of the best's", minimum=0.0, maximum=1.0
        ),
        "min_visits_fraction": Param(
            float, 0.1, "only moves with at least this fraction of the best move's visits", minimum=0.0, maximum=1.0
        ),
        "seed": Param(int, -1, "random seed of the draw; -1 seeds from the system", minimum=-1),
    },
    "scoring": {
        "playouts": Param(
            int, 1000, "playouts of the dead-stone estimate for final_score/final_status_list", minimum=10
        ),
        "seed": Param(int, 1, "seed of that estimate (the same position always scores the same)", minimum=0),
        "dead_stones": Param(
            str,
            "playouts",
            "what finds dead stones: playouts, network (the agent's ownership head), auto (network when it has one)",
            choices=("playouts", "network", "auto"),
        ),
        "network_visits": Param(
            int, 100, "visits of the search whose averaged network ownership finds dead stones", minimum=1
        ),
    },
    "analysis": {
        "max_visits": Param(
            int,
            100000,
            "analysis (lz-analyze ...) stops searching after this many visits (MCTS keeps about 5 KB per visit)",
            minimum=1,
        ),
        "ownership_playouts": Param(
            int, 400, "playouts behind the ownership map of analysis when the network has no ownership head", minimum=10
        ),
        "visits": Param(int, 5000, "visits of the one-shot GoGui analysis commands", minimum=1),
        "seconds": Param(float, 5.0, "seconds limit of the one-shot GoGui analysis commands", minimum=0.0),
    },
    "chat": {
        "enabled": Param(bool, False, "after each genmove, a stderr line with win rate and PV for gtp2ogs"),
        "channel": Param(
            str,
            "malkovich",
            "malkovich (observers' log) or discussion (the game chat)",
            choices=("malkovich", "discussion"),
        ),
        "variations": Param(
            bool,
            False,
            "after each genmove, the search's candidates on stderr in Leela Zero's format, which gtp2ogs "
            "(send_pv_data) shows on OGS as the bot's variations",
        ),
    },
    "log": {
        "level": Param(str, "warning", "logging level on stderr", choices=_LEVELS),
        "file": Param(str, "", "also log (at the same level) to this file; relative to the config file", path=True),
    },
}
