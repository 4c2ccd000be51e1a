#!/usr/bin/env bash
# Set up everything the tests need (GNU Go, the venv with test extras) and run lint + tests.
# Extra arguments go to pytest, e.g. scripts/run_tests.sh -m slow
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# Debian packages the tests drive as real programs, installed only when missing: GNU Go (the
# referee; required) and Lizzie 0.7.4 (its own analysis parser; its tests skip without it).
apt_install() {
    local sudo_cmd=""
    if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
    echo "installing Debian packages: $*" >&2
    $sudo_cmd apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$@" >&2
}
if ! command -v gnugo >/dev/null 2>&1 && [ ! -x /usr/games/gnugo ]; then apt_install gnugo; fi
if [ ! -f /usr/share/java/lizzie.jar ]; then
    apt_install liblizzie-java || echo "warning: liblizzie-java not installed; the Lizzie tests skip" >&2
fi
# Headless Chromium and its driver for the web page's browser tests (tests/test_web_browser.py skips without them).
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    apt_install chromium chromium-driver || echo "warning: chromium not installed; the browser tests skip" >&2
fi
# KataGo (../shared/tools/katago, the analysis protocol's reference in the conformance and KaTrain
# tests) needs libzip; those comparisons skip with the reason without it.
if ! ldconfig -p 2>/dev/null | grep -q "libzip\.so\.4"; then
    apt_install libzip4 || echo "warning: libzip4 not installed; the KataGo comparisons skip" >&2
fi
# Node.js runs the real gtp2ogs (../shared/tools/gtp2ogs) against the OGS stand-in in
# tests/test_ogs_gtp2ogs.py; those tests skip without it.
if ! command -v node >/dev/null 2>&1; then
    apt_install nodejs || echo "warning: nodejs not installed; the gtp2ogs tests skip" >&2
fi
export PATH="$PATH:/usr/games"
scripts/setup_env.sh test
.venv/bin/ruff check .
.venv/bin/python -m pytest -q "$@"
