"""Tic-tac-toe, the small game the book's game-tree searches are first tried on (book 4.2)."""

from dlgo.ttt.tttboard import Board, GameState, Move
from dlgo.ttt.ttttypes import Player, Point

__all__ = ["Board", "GameState", "Move", "Player", "Point"]
