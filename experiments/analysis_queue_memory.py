"""Peak memory of ``dlgo-analysis`` with many long, distinct records waiting in its queue.

    .venv/bin/python experiments/analysis_queue_memory.py [--records 1000] [--moves 400] [--size 19]

Starts ``python -m dlgo_analysis`` with one search thread, sends one query that searches for a
long time (so that everything after it waits), then ``--records`` records of ``--moves`` random
legal moves, each asking for its last turn, made distinct by their komi (no two share a
replay); reads the process's peak resident memory (``VmHWM``) once every query is answered as
queued or refused, and terminates the analysis. Prints one JSON object: the records sent, those
refused (the queue's bounds), and the peak in MB.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import threading
import time

from dlgo.goboard import GameState
from dlgo.utils import coords_from_point


def random_record(size: int, moves: int, rng: random.Random) -> list[list[str]]:
    state = GameState.new_game(size)
    out = []
    while len(out) < moves:
        plays = [m for m in state.legal_moves() if m.is_play]
        move = rng.choice(plays)
        out.append(["B" if state.next_player.value == 1 else "W", coords_from_point(move.point)])
        state = state.apply_move(move)
    return out


def peak_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=1000)
    p.add_argument("--moves", type=int, default=400)
    p.add_argument("--size", type=int, default=19)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    rng = random.Random(args.seed)
    base = random_record(args.size, args.moves, rng)
    proc = subprocess.Popen(
        [sys.executable, "-m", "dlgo_analysis", "--threads", "1", "--max-queued", str(args.records + 1)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    answers: list[dict] = []
    reader = threading.Thread(target=lambda: answers.extend(json.loads(line) for line in proc.stdout), daemon=True)
    reader.start()

    def send(query: dict) -> None:
        proc.stdin.write((json.dumps(query) + "\n").encode())
        proc.stdin.flush()

    common = {"rules": "chinese", "komi": 7.5, "boardXSize": args.size, "boardYSize": args.size}
    send({"id": "busy", "moves": [], "maxVisits": 1_000_000, **common})
    time.sleep(2.0)
    started = time.monotonic()
    for i in range(args.records):
        # Distinct records: the same moves under another komi share no replay (komi is part of
        # a position), as records of different games would not.
        komi = -250.0 + 0.5 * (i % 1000)
        query = {**common, "komi": komi}
        send({"id": f"r{i}", "moves": base, "analyzeTurns": [args.moves], "maxVisits": 1, **query})
    send({"id": "ask", "action": "query_version"})
    while not any(a.get("id") == "ask" for a in answers):
        time.sleep(0.2)
    peak = peak_mb(proc.pid)
    refused = sum(1 for a in answers if "error" in a and str(a.get("id", "")).startswith("r"))
    illegal = sum(1 for a in answers if "error" in a and "Illegal" in a.get("error", ""))
    send({"id": "stop", "action": "terminate_all"})
    proc.stdin.close()
    proc.wait(timeout=600)
    result = {
        "records": args.records,
        "moves": args.moves,
        "size": args.size,
        "refused": refused,
        "illegal_records": illegal,
        "peak_rss_mb": round(peak, 1),
        "seconds_to_queue": round(time.monotonic() - started, 1),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
