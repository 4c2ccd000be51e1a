"""A local stand-in for the OGS server (online-go.com), to run the real gtp2ogs against.

``python -m dlgo_ogs --games 2 --size 9 --clock byoyomi:60:10:3 --out runs/ogs -- --config
configs/ogs/gtp2ogs.json5`` serves the WebSocket protocol gtp2ogs 9.x speaks on 127.0.0.1, starts
gtp2ogs as its child, plays the opponent through a GTP engine (GNU Go by default), keeps the clock
on the server as OGS does, scores with GNU Go, and writes one SGF per game and a JSON summary.
docs/ogs.md, "Rehearse before going live".
"""
