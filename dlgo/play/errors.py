"""What the play layer refuses, as exceptions: each front end words them in its protocol.

GTP answers ``? illegal move``, the web page an HTTP 409/422 with a sentence, the analysis
engine a JSON error naming the query; the layer only says what went wrong. Every refusal
leaves the game as it was.
"""

from __future__ import annotations

__all__ = [
    "PlayError",
    "IllegalMove",
    "CannotUndo",
    "BoardNotEmpty",
    "BadSetup",
    "UnsupportedSize",
    "AgentBuildError",
    "CannotScore",
    "NoAnalysis",
    "MoveAbandoned",
]


class PlayError(Exception):
    """A request the play layer cannot do; nothing was changed."""


class IllegalMove(PlayError):
    """The move is not legal here (occupied, suicide, ko or superko, or not on the board)."""


class CannotUndo(PlayError):
    """No move to take back."""


class BoardNotEmpty(PlayError):
    """Handicap or setup stones asked for on a board that already has stones."""


class BadSetup(PlayError):
    """A list of setup points that cannot stand: repeated, off the board, or without liberties."""


class UnsupportedSize(PlayError):
    """No agent of the config plays this board size."""


class AgentBuildError(PlayError):
    """The agent for the board could not be built (a missing or broken network, ...)."""


class CannotScore(PlayError):
    """The position could not be counted."""


class NoAnalysis(PlayError):
    """The board's agent does not search, so there is nothing to analyse."""


class MoveAbandoned(PlayError):
    """The game changed (or the move was cancelled) while the move was searched: not played."""
