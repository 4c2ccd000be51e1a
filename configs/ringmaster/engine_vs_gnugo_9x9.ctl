# gomill ringmaster control file: the dlgo GTP engine against GNU Go 3.8 on 9x9.
#
# gomill 0.8.3 runs on Python 2.7 only; scripts/ringmaster.sh finds one, installs gomill into .gomill/
# and runs ringmaster:
#
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_9x9.ctl run      # play (resumable; -j N in parallel)
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_9x9.ctl show     # results so far
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_9x9.ctl report   # write the .report file
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_9x9.ctl reset    # forget all results
#
# ringmaster writes its state, log, report and SGF games next to this file
# (engine_vs_gnugo_9x9.status/.log/.hist/.report and engine_vs_gnugo_9x9.games/).
#
# Ringmaster has no clock, so the engine plays a fixed number of MCTS rounds (visits) per move.
# Environment overrides (all optional):
#   DLGO_ROOT    repository root (default '../..', relative to this file; scripts/ringmaster.sh exports it)
#   DLGO_PYTHON  Python 3 running the engine (default .venv/bin/python in DLGO_ROOT)
#   DLGO_CONFIG  engine config, relative to DLGO_ROOT (default configs/mcts.toml)
#   DLGO_VISITS  MCTS rounds per move (default 3000, as in configs/mcts.toml)
#   DLGO_GAMES   number of games (default 20; one game takes about 20 seconds)
#   GNUGO        GNU Go executable (default: gnugo on PATH, else /usr/games/gnugo)
#   GNUGO_LEVEL  GNU Go's --level (default 10)
#
# Paths: ringmaster gives control files no __file__, but it resolves a player's 'cwd' (and a command's
# first word when it contains a '/') relative to this file's directory, so cwd='../..' is the repository
# root wherever ringmaster is started from. It does not make them absolute, though, and the child
# changes directory before the command is looked up, so the engine is started through `sh -c` from
# inside the repository root: DLGO_PYTHON and DLGO_CONFIG may be relative to that root or absolute.
# With the package installed (pip install -e .), the console script works the same way:
#   Player(['dlgo-gtp', '--config', 'configs/mcts.toml', '--set', 'mcts.rounds=3000',
#           '--set', 'time.default_seconds=0'], cwd=ROOT)

# ringmaster requires competition_type to be the first line that is not a comment.
competition_type = 'playoff'

import os
from distutils.spawn import find_executable

ROOT = os.environ.get('DLGO_ROOT', '../..')
PYTHON = os.environ.get('DLGO_PYTHON', '.venv/bin/python')
CONFIG = os.environ.get('DLGO_CONFIG', 'configs/mcts.toml')
VISITS = int(os.environ.get('DLGO_VISITS', '3000'))
GAMES = int(os.environ.get('DLGO_GAMES', '20'))
GNUGO = (os.environ.get('GNUGO') or find_executable('gnugo')
         or find_executable('gnugo', '/usr/games:/usr/local/games') or 'gnugo')
GNUGO_LEVEL = int(os.environ.get('GNUGO_LEVEL', '10'))

description = 'dlgo (MCTS, %d rounds per move) against GNU Go level %d, 9x9' % (VISITS, GNUGO_LEVEL)
record_games = True
stderr_to_log = True

players = {
    'dlgo': Player(['sh', '-c', 'exec "$0" -m gtp_engine "$@"', PYTHON,
                    '--config', CONFIG,
                    # fixed rounds per move; time.default_seconds=0 turns off the per-move time default
                    '--set', 'mcts.rounds=%d' % VISITS, '--set', 'time.default_seconds=0'],
                   cwd=ROOT),
    'gnugo': Player([GNUGO, '--mode', 'gtp', '--level', str(GNUGO_LEVEL), '--chinese-rules']),
    # Pachi is not packaged in Debian (Debian's 'pachi' is another game): build it from
    # https://github.com/pasky/pachi and add a matchup below, e.g. Matchup('dlgo', 'pachi', ...).
    # 'pachi': Player(['pachi', '-t', '=5000', 'threads=1']),
}

board_size = 9
komi = 7

matchups = [
    Matchup('dlgo', 'gnugo', alternating=True, scorer='players', number_of_games=GAMES),
    # Matchup('dlgo', 'pachi', alternating=True, scorer='players', number_of_games=GAMES),
]
