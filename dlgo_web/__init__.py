"""Play the engine in a web browser (book 8.2): ``python -m dlgo_web`` or ``dlgo-web``.

A local server on 127.0.0.1 serves a page with a Go board (Sabaki's Shudan component, bundled in
``static/``: no network needed) and the book's ``POST /select-move/<bot>`` endpoint. Each engine
config (``configs/engine/*.toml``) is one bot, played exactly as the GTP engine plays it.

A front end beside ``gtp_engine``: both stand on the library's play layer (``dlgo.play``: the
config, the agents, the game, the move and the count), neither imports the other, and ``dlgo``
imports neither.
"""

from dlgo.lazy import lazy_names

__all__ = ["create_app", "load_bots", "Bot", "BotPool"]

# Flask (the web extra) loads with the app, so that a missing extra is dlgo-web's one clear line.
__getattr__ = lazy_names(__name__, {"create_app": ".app", "load_bots": ".bots", "Bot": ".bots", "BotPool": ".bots"})
