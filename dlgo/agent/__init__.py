"""Agents: ``select_move(game_state)`` (book 3.4). Neural agents live in their own modules.

``TerminationAgent`` is loaded on first use: it pulls in the compiled playout kernel, which
costs start-up time for code that only needs the interface.
"""

from typing import Any

from dlgo.agent.base import Agent
from dlgo.agent.helpers import is_point_an_eye
from dlgo.agent.naive import RandomBot

__all__ = ["Agent", "RandomBot", "TerminationAgent", "is_point_an_eye"]


def __getattr__(name: str) -> Any:
    if name == "TerminationAgent":
        from dlgo.agent.termination import TerminationAgent

        return TerminationAgent
    raise AttributeError(f"module 'dlgo.agent' has no attribute {name!r}")
