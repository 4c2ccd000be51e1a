"""Strength report: a fixed gauntlet of the shipped engine configs against GNU Go (and Pachi).

Run as ``dlgo-strength`` (the console script) or ``python -m dlgo.match.strength``::

    dlgo-strength                                  # the full gauntlet, then runs/strength/report.md
    dlgo-strength --games9 4 --games19 2 --sizes 9 # smaller
    dlgo-strength --report-only                    # rewrite the report from finished games
    dlgo-strength --ladder --games9 40 --games19 20 # the strength ladder of the default config

``--ladder`` plays the default config against a ladder of opponents per board size: on 9x9 at
komi 7 and 1 s/move GNU Go levels 1, 5 and 10, Pachi at 1,000, 5,000 and 20,000 playouts (one
thread) and KataGo at 1, 8 and 64 visits (its small public network, one thread: an opponent only,
never training data); on 13x13 at komi 7.5 and 1.5 s/move GNU Go level 10 and Pachi at 5,000; on
19x19 at komi 7.5 and 2 s/move GNU Go level 10 and Pachi at 1,000, 5,000 and 20,000.
``--opponents`` names any such list (``gnugo-lN``, ``pachi-N``, ``katago-N``) for every size.
Pachi is found on PATH or given with ``--pachi``; KataGo in ``../shared/tools/katago`` beside the
checkout or the folder ``--katago`` names (``katago``, its ``.bin.gz`` network, ``gtp.cfg``).

Every pairing is a duel (dlgo.match) in its own folder under ``--out`` (default runs/strength),
so an interrupted gauntlet resumes where it stopped, and a rerun with more games extends it.
The report (``report.md`` and ``report.png`` in ``--out``, or the page ``--report`` names, e.g.
``docs/strength-ladder.md``) has a table, a win-rate plot, the exact commands, the machine and the
date; it is written inside the run's folder unless asked, because docs/strength.md is the
project's curated history and a gauntlet must not overwrite it. The plot needs matplotlib
(``pip install -e '.[report]'``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from dlgo.match import GameRules, MatchError, MatchSettings, dlgo_player, gnugo_player, pachi_player
from dlgo.match.players import katago_player
from dlgo.match.record import load_records
from dlgo.match.runner import run_match
from dlgo.match.summary import summarise

ROOT = Path(__file__).resolve().parents[2]  # the checkout: configs/, docs/ and runs/ are relative to it

CONFIGS = ("random", "mcts", "default")  # the shipped configs, weakest first
LADDER_9 = (
    "gnugo-l1", "gnugo-l5", "gnugo-l10", "pachi-1000", "pachi-5000", "pachi-20000", "katago-1", "katago-8", "katago-64",
)  # fmt: skip
LADDER_13 = ("gnugo-l10", "pachi-5000")
LADDER_19 = ("gnugo-l10", "pachi-1000", "pachi-5000", "pachi-20000")
LADDERS = {9: LADDER_9, 13: LADDER_13, 19: LADDER_19}
LADDER_SECONDS = {9: 1.0, 13: 1.5, 19: 2.0}  # per move


@dataclass
class Pairing:
    config: str
    opponent: str  # label: gnugo-lN, pachi-N or katago-N
    size: int
    games: int
    seconds: float
    folder: Path
    command: list[str]  # the equivalent dlgo.match.duel command
    komi: float = 7.5


def opponent_kind(label: str) -> tuple[str, int]:
    """("gnugo", level), ("pachi", playouts) or ("katago", visits) of a label; ValueError otherwise."""
    for prefix, kind in (("gnugo-l", "gnugo"), ("pachi-", "pachi"), ("katago-", "katago")):
        if label.startswith(prefix) and label[len(prefix) :].isdigit():
            return kind, int(label[len(prefix) :])
    raise ValueError(
        f"unknown opponent {label!r}: gnugo-lN (GNU Go level N), pachi-N (N playouts) or katago-N (N visits)"
    )


def find_pachi(path: str | None) -> str | None:
    """The Pachi binary: ``path``, else on PATH, else the shared tools beside the checkout."""
    if path:
        return path
    shared = ROOT.parent / "shared" / "tools" / "pachi" / "pachi"
    return shutil.which("pachi") or (str(shared) if shared.is_file() else None)


def find_katago(folder: str | None) -> tuple[str, str, str]:
    """KataGo's binary, network and GTP config: in ``folder``, else the shared tools beside the checkout."""
    where = Path(folder) if folder else ROOT.parent / "shared" / "tools" / "katago"
    networks = sorted(where.glob("*.bin.gz"))
    model = networks[0] if networks else where / "model.bin.gz"
    return str(where / "katago"), str(model), str(where / "gtp.cfg")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dlgo-strength", description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--configs",
        nargs="+",
        default=[c for c in CONFIGS if (ROOT / "configs" / "engine" / f"{c}.toml").is_file()],
        help="engine configs (names in configs/engine/)",
    )
    p.add_argument("--sizes", nargs="+", type=int, default=[9, 19], choices=[9, 13, 19])
    p.add_argument("--games9", type=int, default=10, help="games per pairing on 9x9")
    p.add_argument("--games13", type=int, help="games per pairing on 13x13 (default: --games19)")
    p.add_argument("--games19", type=int, default=4, help="games per pairing on 19x19")
    p.add_argument("--seconds9", type=float, help="seconds per move on 9x9 (default 1)")
    p.add_argument("--seconds13", type=float, help="seconds per move on 13x13 (as 19x19; 1.5 with --ladder)")
    p.add_argument("--seconds19", type=float, help="seconds per move on 19x19 (default 0.5; 2 with --ladder)")
    p.add_argument("--level", type=int, default=10, help="GNU Go level")
    p.add_argument("--no-pachi", action="store_true", help="leave Pachi out even when it is installed")
    p.add_argument("--ladder", action="store_true", help="the default config against the strength ladder")
    p.add_argument("--opponents", nargs="+", help="opponent labels (gnugo-lN, pachi-N, katago-N) for every size")
    p.add_argument("--pachi", help="the Pachi binary (default: on PATH, or ../shared/tools/pachi/pachi)")
    p.add_argument(
        "--katago", help="KataGo's folder: katago, a .bin.gz network, gtp.cfg (default: ../shared/tools/katago)"
    )
    p.add_argument("--komi9", type=float, help="komi on 9x9 (default 7.5; 7 with --ladder)")
    p.add_argument(
        "--engine-set", action="append", default=[], metavar="KEY=VALUE",
        help="a config key for our engine in every pairing (repeatable), e.g. zero.threads=1 with -j 2",
    )  # fmt: skip
    p.add_argument("-j", "--jobs", type=int, default=2, help="games at once")
    p.add_argument("--out", default="runs/strength", help="folder of the duels (resumable)")
    p.add_argument("--report", help="the report to write (default: report.md in --out)")
    p.add_argument("--report-only", action="store_true", help="only rewrite the report from finished games")
    p.add_argument("--note", action="append", default=[], help="a note for the report (kept for later rewrites)")
    return p


def _opponents(args: argparse.Namespace, size: int) -> list[str]:
    if args.opponents:
        return list(args.opponents)
    if args.ladder:
        return list(LADDERS[size])
    opponents = [f"gnugo-l{args.level}"]
    if not args.no_pachi and find_pachi(args.pachi):
        opponents.append("pachi-5000")
    return opponents


def _pairings(args: argparse.Namespace) -> list[Pairing]:
    if args.ladder:
        if args.configs == _parser().get_default("configs"):
            args.configs = ["default"]
    seconds_of = {
        9: args.seconds9 if args.seconds9 is not None else 1.0,
        19: args.seconds19 if args.seconds19 is not None else (LADDER_SECONDS[19] if args.ladder else 0.5),
    }
    seconds_of[13] = args.seconds13 if args.seconds13 is not None else (
        LADDER_SECONDS[13] if args.ladder and args.seconds19 is None else seconds_of[19]
    )  # fmt: skip
    games_of = {9: args.games9, 13: args.games13 if args.games13 is not None else args.games19, 19: args.games19}
    komi9 = args.komi9 if args.komi9 is not None else (7.0 if args.ladder else 7.5)
    out = []
    for size in args.sizes:
        games, seconds = games_of[size], seconds_of[size]
        komi = komi9 if size == 9 else 7.5
        for opponent in _opponents(args, size):
            kind, n = opponent_kind(opponent)
            for config in args.configs:
                folder = Path(args.out) / f"{config}-vs-{opponent}-{size}x{size}"
                opp_args = _opponent_args(kind, n, opponent, args)
                sets = [a for kv in args.engine_set for a in ("--engine-set", kv)]
                command = ["python", "-m", "dlgo.match.duel", "--engine", f"configs/engine/{config}.toml",
                           "--engine-name", f"dlgo-{config}", *sets, *opp_args, "--size", str(size),
                           "--komi", f"{komi:g}", "--games", str(games), "-j", str(args.jobs),
                           "--seconds-per-move", f"{seconds:g}", "--out", str(folder)]  # fmt: skip
                out.append(Pairing(config, opponent, size, games, seconds, folder, command, komi))
    return out


def _opponent_args(kind: str, n: int, label: str, args: argparse.Namespace) -> list[str]:
    """The duel's opponent arguments for one ladder label."""
    if kind == "gnugo":
        return ["--opponent", "gnugo", "--level", str(n)]
    if kind == "pachi":
        return ["--opponent-cmd", f"{find_pachi(args.pachi) or 'pachi'} -t ={n} threads=1", "--opponent-name", label]
    exe, model, config = find_katago(args.katago)
    command = f"{exe} gtp -model {model} -config {config} -override-config maxVisits={n}"
    return ["--opponent-cmd", command, "--opponent-name", label, "--no-time-commands"]


def _settings(
    pairing: Pairing, jobs: int, pachi: str | None = None, sets: tuple[str, ...] = (), katago: str | None = None
) -> MatchSettings:
    engine = dlgo_player(ROOT / "configs" / "engine" / f"{pairing.config}.toml", f"dlgo-{pairing.config}", sets)
    kind, n = opponent_kind(pairing.opponent)
    if kind == "gnugo":
        opponent = gnugo_player(n)
    elif kind == "pachi":
        opponent = pachi_player(n, label=pairing.opponent, path=find_pachi(pachi))
    else:
        opponent = katago_player(n, *find_katago(katago), label=pairing.opponent)
    rules = GameRules(size=pairing.size, komi=pairing.komi, seconds_per_move=pairing.seconds)
    return MatchSettings(engine, opponent, pairing.games, rules, jobs=jobs)


def _state_file(out: Path) -> Path:
    return out / "gauntlet.json"


def _load_state(out: Path) -> dict:
    """What the playing runs left: the command line and the wall time per pairing."""
    try:
        state = json.loads(_state_file(out).read_text())
    except (OSError, json.JSONDecodeError):
        state = {}
    state.setdefault("wall_seconds", {})
    state.setdefault("command", None)
    return state


def play(pairings: list[Pairing], args: argparse.Namespace) -> bool:
    """Run every pairing; False when interrupted."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    state = _load_state(out)
    state["command"] = _command_line()
    times = state["wall_seconds"]
    for k, pairing in enumerate(pairings, start=1):
        print(f"[{k}/{len(pairings)}] {' '.join(pairing.command)}", file=sys.stderr)
        settings = _settings(pairing, args.jobs, args.pachi, tuple(args.engine_set), args.katago)
        try:
            result = run_match(settings, ROOT / pairing.folder if not pairing.folder.is_absolute() else pairing.folder)
        except MatchError as e:
            print(f"strength: {e}", file=sys.stderr)
            return False
        times[pairing.folder.name] = times.get(pairing.folder.name, 0.0) + result.elapsed
        _state_file(out).write_text(json.dumps(state, indent=2) + "\n")
        if result.interrupted:
            return False
    return True


def _summary(pairing: Pairing, root_out: Path) -> dict | None:
    folder = pairing.folder if pairing.folder.is_absolute() else ROOT / pairing.folder
    records = load_records(folder / "results.jsonl")
    records = {i: r for i, r in records.items() if i < pairing.games}
    if not records:
        return None
    return summarise(records.values(), f"dlgo-{pairing.config}", pairing.opponent, pairing.games)


def _command_line() -> str:
    argv = " ".join(shlex.quote(a) for a in sys.argv[1:] if a != "--report-only")
    return f"python -m dlgo.match.strength{(' ' + argv) if argv else ''}"


def _dates(pairing: Pairing) -> list[str]:
    folder = pairing.folder if pairing.folder.is_absolute() else ROOT / pairing.folder
    return [
        r.started[:10] for i, r in load_records(folder / "results.jsonl").items() if i < pairing.games and r.started
    ]


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    gnugo = "GNU Go not found"
    exe = shutil.which("gnugo") or ("/usr/games/gnugo" if os.path.exists("/usr/games/gnugo") else None)
    if exe:
        try:
            gnugo = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10).stdout.splitlines()[
                0
            ]
        except (OSError, subprocess.SubprocessError, IndexError):
            gnugo = "GNU Go (version unknown)"
    return (
        f"{cpu}, {os.cpu_count()} cores{memory}; {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}; {gnugo}"
    )


def _komis(rows: list) -> str:
    """The komi of each board size played, e.g. "7 (9x9), 7.5 (19x19)"."""
    by_size = {p.size: p.komi for p, _ in rows}
    if len(set(by_size.values())) == 1:
        return f"{next(iter(by_size.values())):g}"
    return ", ".join(f"{komi:g} ({size}x{size})" for size, komi in sorted(by_size.items()))


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _plot(rows: list[tuple[Pairing, dict]], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("strength: matplotlib not installed (pip install -e '.[report]'): no plot", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(max(7.0, 1.1 * len(rows)), 3.6), dpi=110)
    labels, rates, lows, highs = [], [], [], []
    for pairing, s in rows:
        labels.append(f"{pairing.config}\n{pairing.size}x{pairing.size}\nvs {pairing.opponent}")
        rates.append(100 * s["win_rate"])
        lows.append(100 * (s["win_rate"] - s["win_rate_95"][0]))
        highs.append(100 * (s["win_rate_95"][1] - s["win_rate"]))
    xs = list(range(len(rows)))
    colour_of = {9: "#4C72B0", 13: "#55A868", 19: "#DD8452"}
    colours = [colour_of[p.size] for p, _ in rows]
    ax.bar(xs, rates, color=colours, width=0.6)
    ax.errorbar(xs, rates, yerr=[lows, highs], fmt="o", color="black", markersize=4, capsize=4, linewidth=1)
    from matplotlib.patches import Patch

    sizes = sorted({p.size for p, _ in rows})
    handles = [Patch(color=colour_of[size], label=f"{size}x{size}") for size in sizes]
    ax.legend(handles=handles, loc="upper right", bbox_to_anchor=(1.0, 0.86), fontsize=8)
    for x, (_, s) in zip(xs, rows):
        ax.text(x, 102, f"{s['engine_wins']}/{s['games']}", ha="center", va="bottom", fontsize=8)
    ax.axhline(50, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xticks(xs, labels, fontsize=8)
    ax.set_ylim(0, 112)
    ax.set_ylabel("win rate of dlgo (%)")
    ax.set_title("dlgo against its ladder: win rate with 95% Wilson interval", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return True


def _report_path(args: argparse.Namespace) -> Path:
    """``--report``, or ``report.md`` in the run's folder; relative paths from the repository."""
    path = Path(args.report) if args.report else Path(args.out) / "report.md"
    return path if path.is_absolute() else ROOT / path


def write_report(pairings: list[Pairing], args: argparse.Namespace, wall: float | None) -> Path:
    out = Path(args.out)
    state = _load_state(out if out.is_absolute() else ROOT / out)
    times = state["wall_seconds"]
    command = state["command"] or _command_line()
    if args.note:
        state["notes"] = list(args.note)
        state_path = _state_file(out if out.is_absolute() else ROOT / out)
        state_path.parent.mkdir(parents=True, exist_ok=True)
        state_path.write_text(json.dumps(state, indent=2) + "\n")
    notes = state.get("notes", [])
    rows = [(p, s) for p in pairings if (s := _summary(p, out)) is not None]
    dates = sorted(d for p in pairings for d in _dates(p))
    when = "no games yet" if not dates else dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
    report = _report_path(args)
    plot = report.with_suffix(".png")
    has_plot = bool(rows) and _plot(rows, plot)
    lines = [
        "# Strength report",
        "",
        f"Games played {when} by `{command}`, on this machine:",
        "",
        f"- {_machine()}",
        f"- {args.jobs} games at once; every engine single-threaded (our MCTS has one search thread, GNU Go has one).",
        "- Times are wall-clock seconds per move, told to our engine as `--set time.default_seconds=S` (its",
        "  config's visit cap still applies). GNU Go plays at its fixed `--level` whatever the time.",
        f"- Area scoring, komi {_komis(rows or [(p, None) for p in pairings])}, no handicap, colours alternating"
        " (our engine is Black in odd-numbered games).",
        "  Finished games are counted by the referee after removing both engines' `final_status_list dead`",
        "  stones, cross-checked with GNU Go's `final_score`.",
        "",
        "## Results",
        "",
        "| config | board | komi | s/move | opponent | games | W-L | win rate (95% CI) | Elo diff (95% CI) "
        "| p (vs 50%) | our s/move | endings | count checks | wall time |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    total_wall = 0.0
    for pairing, s in rows:
        me = s["players"][f"dlgo-{pairing.config}"]
        lo, hi = s["win_rate_95"]
        sc = s["scoring"]
        checks = "none counted"
        if sc["gnugo_checked"]:
            checks = f"{sc['gnugo_checked'] - len(sc['disagreements'])}/{sc['gnugo_checked']} agree"
        endings = ", ".join(f"{k} {v}" for k, v in sorted(s["reasons"].items()))
        faults = ", ".join(f"{k} {v}" for k, v in me["losses_by_fault"].items())
        if faults:
            endings += f" (our faults: {faults})"
        seconds = times.get(pairing.folder.name)
        total_wall += seconds or 0.0
        wall_text = f"{seconds / 60:.0f} min" if seconds else "-"
        avg = f"{me['avg_move_seconds']:.2f}" if me["avg_move_seconds"] is not None else "-"
        games = str(s["games"]) if s["games"] == pairing.games else f"{s['games']} of {pairing.games}"
        score = f"{s['engine_wins']}-{s['opponent_wins']}"
        if s["draws"]:
            score += f" ({s['draws']} draws)"
        lines.append(
            f"| {pairing.config} | {pairing.size}x{pairing.size} | {pairing.komi:g} | {pairing.seconds:g} "
            f"| {pairing.opponent} "
            f"| {games} | {score} "
            f"| {_pct(s['win_rate'])} ({_pct(lo)}-{_pct(hi)}) | {s['elo_text']} | {s['p_value']:.3g} "
            f"| {avg} | {endings} | {checks} | {wall_text} |"
        )
    if not rows:
        lines.append("| (no finished games yet) ||||||||||||||")
    lines += [""]
    if has_plot:
        lines += [f"![win rate per pairing]({plot.name})", ""]
    lines += [
        "Reading the table: the win rate's 95% interval is Wilson's, the Elo difference is the win rate's",
        "(400 log10(p / (1 - p))) with the interval mapped the same way, and p tests the decisive games",
        "against a 50% coin. With no game won the Elo estimate is -inf and the interval's upper end is the",
        "useful figure: the engine is at most that strong, with 95% confidence. `our s/move` is the time",
        "our engine really used: a config's visit cap (`mcts.rounds`) can stop the search before the time.",
        "",
    ]
    if notes:
        lines += ["Notes on this run:", ""] + [f"- {note}" for note in notes] + [""]
    wall_line = f"The gauntlet's games took {total_wall / 60:.0f} minutes of wall time in all"
    if wall is not None:
        wall_line += f" (this run of the script: {wall / 60:.0f} min)"
    lines += [wall_line + ".", ""]
    disagreements = [(p, d) for p, s in rows for d in s["scoring"]["disagreements"]]
    if disagreements:
        lines += ["Counts where GNU Go names another winner than the referee (kept in the results, not hidden):", ""]
        for p, d in disagreements:
            lines.append(f"- {p.folder.name} game {d['game']}: referee {d['referee']}, GNU Go {d['gnugo']}")
        lines.append("")
    lines += [
        "## How to rerun",
        "",
        "```sh",
        "scripts/setup_env.sh report        # the venv with matplotlib",
        f"PATH=$PATH:/usr/games .venv/bin/{command}",
        "```",
        "",
        "Each row is one duel; the same games by hand (SGFs, logs and `summary.txt` land in the folder):",
        "",
        "```sh",
        *[" ".join(shlex.quote(a) for a in p.command) for p in pairings],
        "```",
        "",
        "The folders keep `results.jsonl`, so rerunning resumes an interrupted gauntlet and a larger",
        "`--games9`/`--games19` extends it; `--report-only` rewrites this page from the games there.",
        "",
    ]
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")
    return report


def main(argv: list[str] | None = None) -> int:
    return main_with(_parser().parse_args(argv))


def main_with(args: argparse.Namespace) -> int:
    """Play (unless ``--report-only``) and write the report; 130 when interrupted."""
    pairings = _pairings(args)
    began = time.monotonic()
    finished = True
    if not args.report_only:
        finished = play(pairings, args)
    wall = None if args.report_only else time.monotonic() - began
    report = write_report(pairings, args, wall)
    print(f"strength: wrote {report} ({'complete' if finished else 'interrupted: rerun to resume'})", file=sys.stderr)
    return 0 if finished else 130


if __name__ == "__main__":
    sys.exit(main())
