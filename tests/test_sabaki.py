"""Sabaki: the engine driven by Sabaki's own GTP client library, @sabaki/gtp (see tests/sabaki/).

tests/sabaki/sabaki_test.mjs spawns the engine through @sabaki/gtp's Controller and replays what Sabaki
does: start-up probes, syncing by komi/boardsize/clear_board + plays (and by undo + plays), genmove and
genmove_analyze, lz-analyze / kata-analyze / analyze interrupted by `protocol_version`, and quit. It checks
every answer and the parsed analysis lines, and exits non-zero with the GTP transcript on any failure.

The npm dependency is installed into tests/sabaki/node_modules (git-ignored) with `npm ci` the first time.
Skipped when node/npm are missing or when the npm registry cannot be reached.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SABAKI_DIR = ROOT / "tests" / "sabaki"
SCRIPT = SABAKI_DIR / "sabaki_test.mjs"
# A small fixed budget: genmove must be quick, analysis runs until interrupted anyway.
ENGINE = [
    sys.executable,
    "-m",
    "gtp_engine",
    "--config",
    "configs/engine/mcts.toml",
    "--set",
    "mcts.rounds=200",
    "--set",
    "time.default_seconds=0",
]
NETWORK_ERRORS = (
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "ENETUNREACH",
    "EHOSTUNREACH",
    "ERR_SOCKET_TIMEOUT",
    "network",
    "proxy",
    "getaddrinfo",
)


def _installed() -> bool:
    return (SABAKI_DIR / "node_modules" / "@sabaki" / "gtp" / "package.json").is_file()


def _npm_install() -> None:
    """`npm ci` (or `npm install` without a lock file) in tests/sabaki, once; skip when offline."""
    if _installed():
        return
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm not found: install Node.js 18+ with npm to run the Sabaki test")
    lock_path = Path(tempfile.gettempdir()) / "dlgo-sabaki-npm-install.lock"
    with open(lock_path, "w") as lock:  # several pytest workers may get here at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if _installed():
                return
            command = "ci" if (SABAKI_DIR / "package-lock.json").is_file() else "install"
            try:
                result = subprocess.run(
                    [npm, command, "--no-audit", "--no-fund", "--loglevel=error"],
                    cwd=SABAKI_DIR,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
            except subprocess.TimeoutExpired:
                pytest.skip(f"`npm {command}` in tests/sabaki took more than 300 s (npm registry unreachable?)")
            output = result.stdout + result.stderr
            if result.returncode != 0:
                if any(marker in output for marker in NETWORK_ERRORS):
                    pytest.skip(f"`npm {command}` could not reach the npm registry:\n{output[-2000:]}")
                pytest.fail(f"`npm {command}` in tests/sabaki failed:\n{output[-4000:]}")
            assert _installed(), f"`npm {command}` did not install @sabaki/gtp:\n{output[-2000:]}"
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def test_sabaki_drives_the_engine():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found: install Node.js 18+ (with npm) to run the Sabaki test")
    _npm_install()
    env = dict(os.environ, SABAKI_ENGINE_CWD=str(ROOT))
    started = time.monotonic()
    result = subprocess.run(
        [node, str(SCRIPT), *ENGINE], cwd=SABAKI_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    elapsed = time.monotonic() - started
    assert result.returncode == 0, (
        f"the Sabaki test failed (exit {result.returncode}, {elapsed:.1f} s):\n{result.stdout}\n{result.stderr}"
    )
    assert "all Sabaki checks passed" in result.stdout, result.stdout
