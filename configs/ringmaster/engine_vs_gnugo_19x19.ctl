# gomill ringmaster control file: the dlgo GTP engine against GNU Go 3.8 on 19x19.
#
# gomill 0.8.3 runs on Python 2.7 only; scripts/ringmaster.sh finds one, installs gomill into .gomill/
# and runs ringmaster:
#
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_19x19.ctl run      # play (resumable; -j N in parallel)
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_19x19.ctl show     # results so far
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_19x19.ctl report   # write the .report file
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_19x19.ctl reset    # forget all results
#
# ringmaster writes its state, log, report and SGF games next to this file
# (engine_vs_gnugo_19x19.status/.log/.hist/.report and engine_vs_gnugo_19x19.games/).
#
# Ringmaster has no clock, so the engine plays a fixed number of visits per move, whatever agent its
# config plays on this board (mcts, zero or alphago: DLGO_VISITS sets their `rounds`, per-size
# tables included, and turns the config's per-move time default off).
# Environment overrides (all optional):
#   DLGO_ROOT    repository root (default '../..', relative to this file; scripts/ringmaster.sh exports it)
#   DLGO_PYTHON  Python 3 running the engine (default .venv/bin/python in DLGO_ROOT)
#   DLGO_CONFIG  engine config, relative to DLGO_ROOT (default configs/engine/mcts.toml)
#   DLGO_VISITS  visits per move (default 3000, as in configs/engine/mcts.toml)
#   DLGO_GAMES   number of games (default 10). With the defaults a game uses about 2.5 minutes of
#                CPU (measured: 213 moves, dlgo 67 s, GNU Go 78 s): about 3 minutes on an idle
#                machine, 8.5 minutes when the 2 cores are busy (load 8)
#   GNUGO        GNU Go executable (default: gnugo on PATH, else /usr/games/gnugo)
#   GNUGO_LEVEL  GNU Go's --level (default 10)
# `run` keeps the DLGO_CONFIG, DLGO_VISITS, DLGO_GAMES and GNUGO_LEVEL it used beside this file
# (<name>.dlgo-settings.json), and `show`, `report` and later runs use them when the environment
# does not set them, so `DLGO_GAMES=4 ... run` then a plain `show` says 4/4 games. `reset` forgets them.
#
# Paths: ringmaster gives control files no __file__, but it resolves a player's 'cwd' (and a command's
# first word when it contains a '/') relative to this file's directory, so cwd='../..' is the repository
# root wherever ringmaster is started from. It does not make them absolute, though, and the child
# changes directory before the command is looked up, so the engine is started through `sh -c` from
# inside the repository root: DLGO_PYTHON and DLGO_CONFIG may be relative to that root or absolute.
# With the package installed (pip install -e .), the console script works the same way:
#   Player(['dlgo-gtp', '--config', CONFIG] + VISIT_SETS, cwd=ROOT)

# ringmaster requires competition_type to be the first line that is not a comment.
competition_type = 'playoff'

import json
import os
import sys
from distutils.spawn import find_executable


def _ringmaster_command():
    """(control file, command) from ringmaster's command line: [options] FILE [COMMAND]."""
    words, skip = [], False
    for arg in sys.argv[1:]:
        if skip:
            skip = False
        elif arg in ('-g', '--max-games', '-j', '--parallel'):
            skip = True
        elif not arg.startswith('-'):
            words.append(arg)
    if not words or not words[0].endswith('.ctl'):
        return None, None
    return words[0], (words[1] if len(words) > 1 else 'run')


_CTL, _COMMAND = _ringmaster_command()
_SAVED_PATH = os.path.splitext(_CTL)[0] + '.dlgo-settings.json' if _CTL else None
_SAVED = {}
if _SAVED_PATH and os.path.isfile(_SAVED_PATH):
    try:
        with open(_SAVED_PATH) as f:
            _SAVED = json.load(f)
    except ValueError:
        _SAVED = {}
if _COMMAND == 'reset':
    _SAVED = {}
    if os.path.isfile(_SAVED_PATH):
        os.remove(_SAVED_PATH)
_USED = {}


def setting(name, default):
    """The environment's value, else what `run` used last, else the default."""
    value = os.environ.get(name) or _SAVED.get(name) or default
    _USED[name] = value
    return value


ROOT = os.environ.get('DLGO_ROOT', '../..')
PYTHON = os.environ.get('DLGO_PYTHON', '.venv/bin/python')
CONFIG = setting('DLGO_CONFIG', 'configs/engine/mcts.toml')
VISITS = int(setting('DLGO_VISITS', '3000'))
GAMES = int(setting('DLGO_GAMES', '10'))
GNUGO = (os.environ.get('GNUGO') or find_executable('gnugo')
         or find_executable('gnugo', '/usr/games:/usr/local/games') or 'gnugo')
GNUGO_LEVEL = int(setting('GNUGO_LEVEL', '10'))
if _COMMAND == 'run' and _SAVED_PATH:
    with open(_SAVED_PATH, 'w') as f:
        json.dump(_USED, f, indent=1, sort_keys=True)

# Visits per move for whatever agent the config plays on this board: every agent's `rounds`, at
# the top level and in this size's table (a per-size value would beat a top-level --set).
VISIT_SETS = []
for _agent in ('mcts', 'zero', 'alphago'):
    VISIT_SETS += ['--set', '%s.rounds=%d' % (_agent, VISITS),
                   '--set', 'size.19.%s.rounds=%d' % (_agent, VISITS)]
# and no time default, at either level, so the visits alone decide
VISIT_SETS += ['--set', 'time.default_seconds=0', '--set', 'size.19.time.default_seconds=0']

description = 'dlgo (%s, %d visits per move) against GNU Go level %d, 19x19' % (CONFIG, VISITS, GNUGO_LEVEL)
record_games = True
stderr_to_log = True

players = {
    'dlgo': Player(['sh', '-c', 'exec "$0" -m gtp_engine "$@"', PYTHON, '--config', CONFIG] + VISIT_SETS,
                   cwd=ROOT),
    'gnugo': Player([GNUGO, '--mode', 'gtp', '--level', str(GNUGO_LEVEL), '--chinese-rules']),
    # Pachi is not packaged in Debian (Debian's 'pachi' is another game): build it from
    # https://github.com/pasky/pachi and add a matchup below, e.g. Matchup('dlgo', 'pachi', ...).
    # 'pachi': Player(['pachi', '-t', '=5000', 'threads=1']),
}

board_size = 19
komi = 7

matchups = [
    Matchup('dlgo', 'gnugo', alternating=True, scorer='players', number_of_games=GAMES),
    # Matchup('dlgo', 'pachi', alternating=True, scorer='players', number_of_games=GAMES),
]
