#!/usr/bin/env python3
"""KaTrain's real window analysing a 19x19 game with a custom engine command, as a screenshot.

    .venv/bin/python scripts/katrain_screenshot.py OUT.png                    # the real KataGo
    .venv/bin/python scripts/katrain_screenshot.py OUT.png --command "$(pwd)/.venv/bin/python -m dlgo_analysis"

KaTrain (pip package ``katrain`` 1.20, in the ``test`` extra) starts as a user starts it, with a
settings file of its own (``python -m katrain CONFIG.json GAME.sgf``, the form KaTrain accepts on
its command line) in which the engine settings are those a user types in General & Engine
settings: tab "Custom command", field "Override Engine Command" = ``--command`` (config
``engine/backend = "custom"``, ``engine/altcommand``), and the visits and time fields. KaTrain
loads the SGF file at start, analyses every move, and the script then goes to the last move and
saves the window (board with the engine's candidate moves and ownership, score graph, info
panel) as a PNG. It prints what KaTrain parsed for each move.

Without a display it runs itself again under ``xvfb-run`` (Debian: ``apt-get install xvfb xauth
libgl1-mesa-dri``). Exit status 0 when every move was analysed and KaTrain logged no error, 1
when the screenshot was taken anyway (time-out or errors: see the output), 2 for a usage error.
Nothing is written outside the output file and a temporary folder, removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KATAGO = ROOT.parent / "shared" / "tools" / "katago"
DEFAULT_COMMAND = shlex.join(
    [
        str(KATAGO / "katago"),
        "analysis",
        "-model",
        str(KATAGO / "g170-b6c96-s175395328-d26788732.bin.gz"),
        "-config",
        str(KATAGO / "analysis.cfg"),
    ]
)
# A short 19x19 game (a common opening, 20 moves), komi 6.5, Japanese rules as KaTrain's default.
DEFAULT_SGF = (
    "(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[6.5]RU[Japanese]PB[Black]PW[White]"
    ";B[pd];W[dp];B[pq];W[dd];B[fq];W[cn];B[jp];W[qf];B[nc];W[rd];B[qc];W[qi];B[cf];W[fc]"
    ";B[db];W[cc];B[ch];W[kd];B[qn];W[dj])"
)
WINDOW = (1300, 1000)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path, help="the PNG file to write")
    parser.add_argument(
        "--command",
        default=DEFAULT_COMMAND,
        help="KaTrain's 'Override Engine Command' (run by the shell); default: the real KataGo in ../shared",
    )
    parser.add_argument("--sgf", type=Path, help="a 19x19 SGF file to open (default: a built-in 20-move game)")
    parser.add_argument("--visits", type=int, default=50, help="KaTrain's max visits and fast visits (default 50)")
    parser.add_argument("--max-time", type=float, default=8.0, help="KaTrain's maximum time per analysis, s")
    parser.add_argument("--timeout", type=float, default=300.0, help="give up waiting for the analysis after this, s")
    parser.add_argument("--debug", action="store_true", help="KaTrain's debug log (queries and answers) on stdout")
    return parser.parse_args(argv)


def rerun_under_xvfb(argv: list[str]) -> int:
    xvfb = shutil.which("xvfb-run")
    if xvfb is None:
        print("no display and no xvfb-run: apt-get install xvfb xauth libgl1-mesa-dri", file=sys.stderr)
        return 2
    screen = f"-screen 0 {WINDOW[0] + 100}x{WINDOW[1] + 100}x24"
    cmd = [xvfb, "-a", "-s", screen, sys.executable, str(Path(__file__).resolve()), *argv]
    return subprocess.call(cmd)


def katrain_config(work: Path, args: argparse.Namespace) -> Path:
    """KaTrain's packaged settings with the engine settings a user would type in."""
    from katrain.core.utils import find_package_resource

    config = json.loads(Path(find_package_resource("katrain/config.json")).read_text())
    config["engine"].update(
        backend="custom",  # the "Custom command" tab
        altcommand=args.command,  # "Override Engine Command"
        max_visits=args.visits,  # "Maximum number of visits in analysis"
        fast_visits=args.visits,  # "... in fast analysis" (a file opened at start is analysed fast)
        max_time=args.max_time,  # "Maximum time for analysis"
    )
    config["general"]["debug_level"] = 1 if args.debug else 0
    config["ui_state"].update(restoresize=True, size=list(WINDOW))
    path = work / "config.json"  # KaTrain takes a first argument ending in config.json as its settings
    path.write_text(json.dumps(config, indent=4))
    return path


def node_line(node: Any) -> str:
    move = node.move.gtp() if node.move else "root"
    if not node.analysis_exists:
        return f"{node.depth:3d} {move:5s} not analysed"
    top = node.candidate_moves[0]
    lost = node.points_lost
    lost_text = f" points lost {lost:5.1f}" if lost is not None else ""
    own = node.ownership
    return (
        f"{node.depth:3d} {move:5s} visits {node.root_visits:4d} winrate(B) {node.winrate:.3f} "
        f"scoreLead(B) {node.score:+6.1f} top {top['move']:4s} candidates {len(node.candidate_moves):3d} "
        f"ownership {len(own) if own else 0} policy {len(node.policy) if node.policy else 0}{lost_text}"
    )


def run_katrain(args: argparse.Namespace) -> int:
    work = Path(tempfile.mkdtemp(prefix="katrain-screenshot-"))
    os.environ["KIVY_HOME"] = str(work / "kivy")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    os.environ["KIVY_NO_ARGS"] = "1"  # KaTrain's own arguments are read from sys.argv below
    if not args.debug:  # Kivy's log: tracebacks for optional libraries a server lacks (libmtdev, xclip)
        os.environ["KIVY_NO_CONSOLELOG"] = "1"
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")  # KaTrain's sounds, with no sound card
    sgf = work / "game.sgf"
    if args.sgf:
        shutil.copyfile(args.sgf, sgf)
    else:
        sgf.write_text(DEFAULT_SGF)
    config = katrain_config(work, args)
    output = args.output.resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    sys.argv = ["katrain", str(config), str(sgf)]  # as: python -m katrain CONFIG.json GAME.sgf

    import katrain.__main__ as katrain_main
    from kivy.app import App
    from kivy.clock import Clock
    from kivy.core.window import Window

    print(f"KaTrain settings: {config}")
    print(f'  engine/backend = "custom" (tab "Custom command"); engine/altcommand = {args.command}')
    started = time.monotonic()
    state: dict[str, Any] = {"phase": "analysing", "at": 0.0, "result": 1}

    def errors(gui: Any) -> list[str]:
        return [s for s in [gui.controls.status.text] if "ERROR" in s]

    def poll(_dt: float) -> None:
        app = App.get_running_app()
        gui = getattr(app, "gui", None)
        game = getattr(gui, "game", None)
        now = time.monotonic()
        if game is None or game.sgf_filename != str(sgf):
            if now - started > args.timeout:
                state["phase"] = "shoot"
            else:
                return
        if state["phase"] == "analysing":
            nodes = game.root.nodes_in_tree
            done = all(n.analysis_complete for n in nodes) and gui.engine.is_idle()
            if done or now - started > args.timeout or not gui.engine.check_alive():
                state["result"] = 0 if done else 1
                gui("redo", 9999)  # to the last move, through KaTrain's message queue
                state.update(phase="settle", at=now)
        elif state["phase"] == "settle" and now - state["at"] > 2.0:
            gui.update_state(redraw_board=True)
            state.update(phase="shoot", at=now)
        elif state["phase"] == "shoot" and now - state["at"] > 1.0:
            shot = Path(Window.screenshot(name=str(work / "shot.png")))
            shutil.move(shot, output)
            if game is not None:
                for node in game.root.nodes_in_tree:
                    print(node_line(node))
            problems = errors(gui) if gui is not None else ["KaTrain did not start"]
            if problems:
                print("KaTrain status:", *problems, sep="\n  ")
                state["result"] = 1
            print(f"screenshot: {output} ({time.monotonic() - started:.0f} s)")
            state["phase"] = "done"
            if gui is not None and gui.engine is not None:
                process = gui.engine.katago_process
                gui.engine.shutdown(finish=None)  # as KaTrain does when its window closes
                if process is not None and process.stdin is not None:
                    process.stdin.close()  # the engine sees the end of its input
            app.stop()

    Clock.schedule_interval(poll, 0.5)
    try:
        katrain_main.run_app()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return state["result"] if state["phase"] == "done" else 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.output.suffix.lower() != ".png":
        print("the output file must end in .png", file=sys.stderr)
        return 2
    if args.sgf and not args.sgf.is_file():
        print(f"no such SGF file: {args.sgf}", file=sys.stderr)
        return 2
    if not os.environ.get("DISPLAY"):
        return rerun_under_xvfb(argv)
    return run_katrain(args)


if __name__ == "__main__":
    sys.exit(main())
