"""Matches between GTP engines: a referee with clocks, scoring with a GNU Go cross-check, statistics.

- :mod:`dlgo.match.gtp_client`: a GTP subprocess with a timeout on every command;
- :mod:`dlgo.match.players`: who plays (our engine with a config, GNU Go, Pachi, any command);
- :mod:`dlgo.match.referee_clock`: the referee's clocks (GTP ``time_settings`` semantics);
- :mod:`dlgo.match.referee`: one game, every move checked, failures recorded as losses;
- :mod:`dlgo.match.gnugo_count`: area count after the dead-stone lists, GNU Go's ``final_score``;
- :mod:`dlgo.match.record`: a finished game as JSON and SGF;
- :mod:`dlgo.match.stats` and :mod:`dlgo.match.summary`: win rate, Elo, p-value, the report;
- :mod:`dlgo.match.runner`: N games in parallel, resumable, with progress.
- :mod:`dlgo.match.katago_judge`: KataGo's analysis engine scoring positions, for experiments (a measure only).

Command lines over it: :mod:`dlgo.match.duel` (``dlgo-duel``: one match) and :mod:`dlgo.match.strength`
(``dlgo-strength``: the gauntlet behind docs/strength.md).
"""

from dlgo.match.players import PlayerSpec, command_player, dlgo_player, gnugo_player, pachi_player, player_from_text
from dlgo.match.record import GameRecord
from dlgo.match.referee import GameRules, play_game
from dlgo.match.referee_clock import ClockSettings
from dlgo.match.runner import MatchError, MatchResult, MatchSettings, run_match

__all__ = [
    "ClockSettings",
    "PlayerSpec",
    "command_player",
    "dlgo_player",
    "gnugo_player",
    "pachi_player",
    "player_from_text",
    "GameRecord",
    "GameRules",
    "play_game",
    "MatchError",
    "MatchResult",
    "MatchSettings",
    "run_match",
]
