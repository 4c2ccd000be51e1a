"""Agents: ``select_move(game_state)`` (book 3.4). Neural agents live in their own modules.

``TerminationAgent`` is loaded on first use: it pulls in the compiled playout kernel, which
costs start-up time for code that only needs the interface.
"""

from dlgo.agent.base import Agent
from dlgo.agent.helpers import is_point_an_eye
from dlgo.agent.naive import RandomBot
from dlgo.lazy import lazy_names

__all__ = ["Agent", "RandomBot", "TerminationAgent", "is_point_an_eye"]


__getattr__ = lazy_names(__name__, {"TerminationAgent": "dlgo.agent.termination"})
