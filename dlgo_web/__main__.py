"""``python -m dlgo_web`` / ``dlgo-web``: start the local web server and print its URL.

    dlgo-web                                    # every shipped config in configs/engine/ is a bot
    dlgo-web --config configs/engine/mcts.toml --config configs/engine/random.toml --port 8080
    dlgo-web --set mcts.rounds=2000             # override a key in every config, as dlgo-gtp --set

The server listens on 127.0.0.1 only: it is for the person at this machine.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import webbrowser

from dlgo.extras import require_extra
from dlgo.play.config import ConfigError
from dlgo_web.bots import load_bots

HOST = "127.0.0.1"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="dlgo-web", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="an engine config to offer as a bot (repeatable; default: every configs/engine/*.toml)",
    )
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a config key")
    parser.add_argument("--port", type=int, default=5000, help="port on 127.0.0.1 (default 5000, the book's; 0: any)")
    parser.add_argument("--open", action="store_true", help="open the page in the default browser")
    parser.add_argument("--log-level", default="warning", choices=("debug", "info", "warning", "error"))
    return parser.parse_args(argv)


WEB_VARIETY_MOVES = 10


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    require_extra("web", "dlgo-web")
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    try:
        # Variety in the bots' openings (dlgo.search.variety): on here, where people replay games
        # against the same bot; a --set variety.opening_moves=0 turns it off.
        bots = load_bots(args.config, [f"variety.opening_moves={WEB_VARIETY_MOVES}", *args.set], skip_unusable=True)
    except (ConfigError, ValueError) as e:
        print(f"dlgo-web: {e}", file=sys.stderr)
        return 2
    try:
        from werkzeug.serving import make_server  # Flask's server: the web extra, checked above

        from dlgo_web.app import create_app

        server = make_server(HOST, args.port, create_app(bots), threaded=True)
    except OSError as e:
        print(f"dlgo-web: cannot listen on {HOST}:{args.port}: {e.strerror or e}", file=sys.stderr)
        return 2
    url = f"http://{HOST}:{server.server_port}/"
    print(f"dlgo-web: bots {', '.join(bots.names())}", flush=True)
    print(f"dlgo-web: open {url}  (Ctrl-C stops the server)", flush=True)
    if args.open:
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
