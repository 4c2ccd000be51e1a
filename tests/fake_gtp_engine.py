"""A misbehaving GTP engine for the duel tests (not a test module).

    python tests/fake_gtp_engine.py MODE

It answers the setup commands like any engine, then on its first ``genmove`` does what MODE says:

- ``pass``: passes (every time; a well-behaved, very weak engine);
- ``slow:S``: waits S seconds, then passes;
- ``crash``: exits with status 3 without answering;
- ``hang``: never answers;
- ``nonsense``: prints a line that is not GTP;
- ``badmove``: answers ``= banana`` (GTP, but not a move);
- ``illegal``: plays on the last stone the opponent played (off the board if there is none);
- ``refuse``: answers ``? I refuse``;
- ``rejectplay``: passes, but answers ``play`` with ``? illegal move``.
"""

from __future__ import annotations

import sys
import time


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "pass"
    last_opponent_vertex: str | None = None
    out = sys.stdout

    def reply(text: str = "", ok: bool = True) -> None:
        out.write(("= " if ok else "? ") + text + "\n\n")
        out.flush()

    for raw in sys.stdin:
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        cmd, args = words[0].lower(), words[1:]
        if cmd == "quit":
            reply()
            return 0
        if cmd == "name":
            reply(f"fake-{mode}")
        elif cmd == "version":
            reply("1")
        elif cmd == "protocol_version":
            reply("2")
        elif cmd == "list_commands":
            reply("\n".join(["name", "version", "boardsize", "clear_board", "komi", "play", "genmove", "quit"]))
        elif cmd == "play":
            if mode == "rejectplay":
                reply("illegal move", ok=False)
                continue
            if len(args) == 2 and args[1].lower() != "pass":
                last_opponent_vertex = args[1].upper()
            reply()
        elif cmd == "genmove":
            if mode == "crash":
                return 3
            if mode == "hang":
                time.sleep(3600)
                return 0
            if mode == "nonsense":
                out.write("I am thinking very hard about this\n\n")
                out.flush()
                continue
            if mode == "badmove":
                reply("banana")
            elif mode == "illegal":
                reply(last_opponent_vertex or "T20")
            elif mode == "refuse":
                reply("I refuse", ok=False)
            else:
                if mode.startswith("slow:"):
                    time.sleep(float(mode.split(":", 1)[1]))
                reply("pass")
        elif cmd in ("boardsize", "clear_board", "komi", "time_settings", "time_left"):
            reply()
        else:
            reply("unknown command", ok=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
