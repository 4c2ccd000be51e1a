"""A GTP engine that thinks as slowly as a person on a server: another engine's moves, each
answered no sooner than ``--seconds`` after its ``genmove``, with no CPU spent while it waits.

    python experiments/slow_gtp.py --seconds 5 -- gnugo --mode gtp --level 1

On a server the opponent thinks on another machine, so our engine's pondering has both cores to
itself for as long as the opponent takes; an opponent on the same two cores (Pachi, GNU Go in a
local match) takes those cores instead. With this wrapper a local match measures the server's
case: ``dlgo-duel --opponent-cmd "python experiments/slow_gtp.py --seconds 5 -- gnugo --mode gtp"``,
our engine with ``--engine-set engine.ponder=true|false --engine-set log.level=info``, and
``experiments/search_visits.py`` on the two match folders.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=5.0, help="the least time a genmove takes")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- the engine's command line")
    args = p.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("the engine's command line is missing (after --)")
    engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert engine.stdin is not None and engine.stdout is not None
    try:
        for line in sys.stdin:
            started = time.monotonic()
            engine.stdin.write(line)
            engine.stdin.flush()
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            reply = []
            while True:  # a GTP answer ends with an empty line
                out = engine.stdout.readline()
                if not out:
                    return 1
                reply.append(out)
                if out == "\n":
                    break
            if "genmove" in line.split("#")[0]:
                time.sleep(max(0.0, args.seconds - (time.monotonic() - started)))
            sys.stdout.write("".join(reply))
            sys.stdout.flush()
            if line.split("#")[0].split()[-1:] == ["quit"]:
                break
    finally:
        engine.terminate()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
