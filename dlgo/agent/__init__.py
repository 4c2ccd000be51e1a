"""Agents: ``select_move(game_state)`` (book 3.4). Neural agents live in their own modules."""

from dlgo.agent.base import Agent
from dlgo.agent.helpers import is_point_an_eye
from dlgo.agent.naive import RandomBot
from dlgo.agent.termination import TerminationAgent

__all__ = ["Agent", "RandomBot", "TerminationAgent", "is_point_an_eye"]
