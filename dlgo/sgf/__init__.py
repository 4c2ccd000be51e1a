"""Reading and writing SGF game records (FF[4]) on top of sgfmill's parser.

``read_game`` turns an SGF file or text into an :class:`SgfGame`: the metadata, a root
``GameState`` after the setup stones and the main line of moves. ``write_game`` and
``save_game`` turn a game back into SGF; what they write reads back identically.

sgfmill's ``sgf_grammar`` does the tokenising, escaping and tree serialising; points and
properties are interpreted here, so rectangular boards (``SZ[19:13]``, columns first as in the
SGF spec) work too. A record that cannot be read at all is an :class:`SgfError` (a
``ValueError``) that names the file (or ``name=``).

A record is history, so it is read the way a viewer (or GNU Go's ``loadsgf``) reads it: what
was played is replayed, under the record's own rules (``RU``), and what a strict reader would
reject is repaired and reported, never silently: each repair is a :class:`Repair` in
``SgfGame.repairs`` and a warning on the ``dlgo.sgf`` logger.

- ``truncated``: the text ends before its closing ``)`` (a cut download, an unreadable tail):
  the nodes before the cut are read.
- ``setup``: ``AB``/``AW``/``AE`` after the first move (a teacher's or server's edit): applied
  to the position at that point (see :class:`Setup`).
- ``both_colours``: a node with both ``B`` and ``W``: played as two moves, in the node's order.
- ``rules``: a move that breaks the record's own rules but can be put on the board (a ko taken
  back at once, a repetition under superko rules, a suicide where the rules forbid it): played
  as written, as GNU Go does (a suicide takes its own string off the board).
- ``stopped``: a move that cannot be put on the board at all (an occupied point, a point off the
  board, a value that is no point): the main line ends before it, as in GNU Go.

Ko by the record's rules: ``RU`` naming Japanese or Korean rules means simple ko, so a triple
or quadruple ko that repeats the position is legal history (a note, not a repair); Chinese, AGA,
New Zealand, Tromp-Taylor and Ing rules forbid repetition (superko, checked as dlgo's
situational superko), so a repetition there is a ``rules`` repair. With no ``RU`` (or one not
recognised) only simple ko is assumed. A ko taken back at once breaks every rule set.

Files: only regular files are read (never a FIFO, a device such as ``/dev/zero`` or
``/dev/stdin``, or a directory: those are an ``SgfError`` at once), and at most
:data:`MAX_FILE_BYTES` (8 MiB; the largest real records, commented joseki collections, are a
few MB). The work is bounded too: at most :data:`MAX_NODES` nodes (counted before parsing) and
:data:`MAX_MAIN_LINE_MOVES` on the main line, so a small file of a million empty nodes is refused
at once instead of parsing for 20 seconds.

Conventions when reading:

- ``KM`` missing: 0.0 in a handicap game (``HA`` >= 2), else 7.5. ``KM[650]`` style values
  (some servers store komi * 100, any absolute value above 150) are divided by 100.
- Player to move first: ``PL`` if given; else the colour of the first move of the main line;
  else White when ``HA`` >= 2 and the root has ``AB``; else Black.
- Setup (``AB``/``AW``/``AE``) in the root and in further nodes before the first move is merged
  into the initial position; setup later is a ``setup`` repair (above).
- ``B[]`` is a pass, and so is ``B[tt]`` on boards up to 19x19 (both sides).
- A colour that moves twice in a row is applied as such (see ``GameState.play_as``); the state's
  history stays one chain.
- Resignation is not a move in SGF: it only shows in ``RE`` (``W+R``); ``moves`` never holds one.

The package: :mod:`dlgo.sgf.reader` (files, parsing, properties), :mod:`dlgo.sgf.replay` (the
main line under the record's rules), :mod:`dlgo.sgf.writer`, and :mod:`dlgo.sgf.record` (what a
record holds).
"""

from dlgo.sgf.reader import MAX_FILE_BYTES, MAX_MAIN_LINE_MOVES, MAX_NODES, read_game
from dlgo.sgf.record import REPAIR_KINDS, Repair, Setup, SgfError, SgfGame
from dlgo.sgf.writer import save_game, write_game

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_NODES",
    "MAX_MAIN_LINE_MOVES",
    "REPAIR_KINDS",
    "Repair",
    "Setup",
    "SgfError",
    "SgfGame",
    "read_game",
    "write_game",
    "save_game",
]
