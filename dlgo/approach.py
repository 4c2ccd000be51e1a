"""Strings the opponent cannot approach: every liberty it could fill is a self-atari taken back.

Random playouts fill shared liberties that no player would fill, so they lose strings that
live in seki or win a capturing race. A string survives the opponent's attack when, for each of
its liberties, the opponent's stone there is illegal, or joins an opponent string that is then
left with one liberty, which the owner captures at once, keeping two liberties or more. That
is the mark of a seki or a lost capturing race: the attacker's own string is short of
liberties. A stone or two in atari are not (``MIN_SHORT_STRING``) when the attacker can first add
the liberty they lack; where adding it joins them to a string that the approach then leaves in
atari (the attacker's own eye filled, next to a seki), the string is still safe. A throw-in into
a two-point eye, taken back, leaves the string one liberty, so a string that a nakade kills
still counts as approachable.

The check is static (the position as it stands); the dead-stone count (``dlgo.deadstones``)
asks it only of strings that the playouts left in doubt.
"""

from __future__ import annotations

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point

__all__ = ["cannot_be_approached", "captured_at_once", "MIN_SHORT_STRING"]

# The smallest attacker string whose shortage of liberties protects a string. Smaller ones are
# stones the attacker can sacrifice or strengthen first: with 2, two of 400 counted KGS games
# had dead stones revived (python -m dlgo.bench.deadstones).
MIN_SHORT_STRING = 3


def cannot_be_approached(state: GameState, stone: Point) -> bool:
    """Can the string at ``stone`` not be captured by the opponent filling its liberties?

    False for an empty point and for a string with fewer than two liberties.
    """
    string = state.board.get_go_string(stone)
    if string is None or string.num_liberties < 2:
        return False
    owner = string.color
    attacker_turn = GameState.from_position(state.board, owner.other, state.komi)
    for liberty in sorted(string.liberties):
        if not _approach_fails(attacker_turn, stone, liberty):
            return False
    return True


def _approach_fails(attacker_turn: GameState, stone: Point, liberty: Point, may_add_first: bool = True) -> bool:
    """Does the attacker's stone at ``liberty`` get captured back, the string at ``stone`` left
    with two liberties or more? When it leaves a stone or two in atari, the attacker may first
    play at their missing liberty (``may_add_first``) and approach after: the string is safe only
    if that approach fails too."""
    approach = Move.play(liberty)
    if not attacker_turn.is_valid_move(approach):
        return True
    after = attacker_turn.apply_move(approach)
    target = after.board.get_go_string(stone)
    if target is None:
        return False  # the approach captured the string
    played = after.board.get_go_string(liberty)
    if played is None or played.num_liberties != 1:
        return False  # a real approach, not a self-atari
    if len(played.stones) < MIN_SHORT_STRING:
        # A stone or two: the attacker may first add the liberty they lack, and approach after.
        if not may_add_first:
            return False
        lacking = next(iter(played.liberties))
        before = attacker_turn.board.get_go_string(stone)
        if before is not None and lacking in before.liberties:
            return False  # adding it is the other approach, which the caller asks on its own
        add = Move.play(lacking)
        if attacker_turn.is_valid_move(add):
            # e.g. the attacker's own eye, filled: the approach then puts the whole string in atari
            added = attacker_turn.apply_move(add)
            again = GameState.from_position(added.board, attacker_turn.next_player, attacker_turn.komi)
            return _approach_fails(again, stone, liberty, may_add_first=False)
    take_back = Move.play(next(iter(played.liberties)))
    if not after.is_valid_move(take_back):
        return False
    answered = after.apply_move(take_back)
    survivor = answered.board.get_go_string(stone)
    return survivor is not None and survivor.num_liberties >= 2


def captured_at_once(state: GameState, stone: Point) -> bool:
    """Is the string at ``stone`` in atari, and can the opponent capture it with a move that is
    not taken back with more stones (a snapback)? A capture that the owner could only answer by
    retaking a ko counts: at the end of a game no ko threats are left to win it back.

    False for an empty point and for a string with two liberties or more.
    """
    string = state.board.get_go_string(stone)
    if string is None or string.num_liberties != 1:
        return False
    liberty = next(iter(string.liberties))
    attacker_turn = GameState.from_position(state.board, string.color.other, state.komi)
    capture = Move.play(liberty)
    if not attacker_turn.is_valid_move(capture):
        return False
    after = attacker_turn.apply_move(capture)
    capturer = after.board.get_go_string(liberty)
    if capturer is None or capturer.num_liberties >= 2:
        return True
    retake = Move.play(next(iter(capturer.liberties)))
    if not after.is_valid_move(retake):
        return True  # the ko: the owner may not retake at once
    retaken = after.apply_move(retake)
    attacker = 1 if string.color is Player.black else 0  # its index in stone_counts()
    taken_back = after.board.stone_counts()[attacker] - retaken.board.stone_counts()[attacker]
    return taken_back < 2  # a snapback takes two stones or more back
