"""The web page in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by Selenium plays whole 9x9 games against the random and MCTS bots
through the page's own board, undoes, and downloads the SGF.

Skipped, with the reason, where Chromium, its driver or Selenium is missing;
``scripts/run_tests.sh`` installs them.
"""

from __future__ import annotations

import shutil
import threading
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the web server needs Flask (pip install -e .)")
webdriver = pytest.importorskip("selenium.webdriver", reason="needs Selenium (pip install -e '.[test]')")

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from dlgo_web import create_app, load_bots  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None)
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER), reason="needs Debian's chromium and chromium-driver (scripts/run_tests.sh installs them)"
)
CONFIGS = [str(ROOT / "configs/engine/random.toml"), str(ROOT / "configs/engine/mcts.toml")]
QUICK = ["mcts.rounds=100", "time.default_seconds=0", "pass.playouts=100", "scoring.playouts=200"]


@pytest.fixture(scope="module")
def server():
    """The web server on an ephemeral port of 127.0.0.1, in this process."""
    app = create_app(load_bots(CONFIGS, QUICK))
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    downloads = tmp_path_factory.mktemp("downloads")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900"):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads)})
    try:
        driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    except WebDriverException as e:
        pytest.skip(f"Chromium does not start here: {e.msg}")
    driver.downloads = downloads
    yield driver
    driver.quit()


def start_game(browser, url: str, bot: str, size: int = 9, colour: str = "black") -> None:
    browser.get(url)
    WebDriverWait(browser, 20).until(lambda d: len(Select(d.find_element(By.ID, "bot")).options) >= 2)
    Select(browser.find_element(By.ID, "bot")).select_by_value(bot)
    Select(browser.find_element(By.ID, "size")).select_by_value(str(size))
    Select(browser.find_element(By.ID, "colour")).select_by_value(colour)
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".shudan-vertex")) == size * size)
    wait_idle(browser)


def wait_idle(browser, seconds: float = 60) -> None:
    """Until it is the player's turn (or the game is over) and the bot is not thinking."""

    def ready(d) -> bool:
        turn = d.find_element(By.ID, "to-move").text
        return not d.find_element(By.ID, "stop").is_enabled() and (turn.startswith("you") or turn == "game over")

    WebDriverWait(browser, seconds).until(ready)


def moved(browser, action, seconds: float = 60) -> None:
    """Do ``action`` (a click) and wait until the move count changed and the bot has answered."""
    before = browser.find_element(By.ID, "move-count").text
    action()
    WebDriverWait(browser, seconds).until(lambda d: d.find_element(By.ID, "move-count").text != before)
    wait_idle(browser, seconds)


def stones(browser) -> int:
    return len(browser.find_elements(By.CSS_SELECTOR, ".shudan-vertex.shudan-sign_1, .shudan-vertex.shudan-sign_-1"))


def click(browser, x: int, y: int) -> None:
    browser.find_element(By.CSS_SELECTOR, f'.shudan-vertex[data-x="{x}"][data-y="{y}"]').click()


def play_whole_game(browser) -> str:
    """A few moves on the board by clicking, then passes until the game is counted."""
    for x, y in ((4, 4), (2, 2), (6, 6)):
        vertex = browser.find_element(By.CSS_SELECTOR, f'.shudan-vertex[data-x="{x}"][data-y="{y}"]')
        if "shudan-sign_0" in vertex.get_attribute("class"):
            moved(browser, vertex.click)
    for _ in range(150):
        result = browser.find_element(By.ID, "result").text
        if result:
            return result
        moved(browser, browser.find_element(By.ID, "pass").click)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("bot", ["random", "mcts"])
def test_a_whole_9x9_game_in_the_browser(browser, server, bot):
    start_game(browser, server, bot)
    assert stones(browser) == 0
    moved(browser, lambda: click(browser, 4, 4))  # E5
    assert stones(browser) == 2, browser.find_element(By.ID, "error").text
    if bot == "mcts":
        assert browser.find_elements(By.CSS_SELECTOR, "#candidates tbody tr"), "no candidates shown"
        assert "win rate" in browser.find_element(By.ID, "winrate-text").text
    result = play_whole_game(browser)
    assert result.startswith("Result: ") and ("B+" in result or "W+" in result)
    assert browser.find_element(By.ID, "to-move").text == "game over"


def test_an_illegal_click_is_explained_and_undo_takes_back(browser, server):
    start_game(browser, server, "random")
    moved(browser, lambda: click(browser, 4, 4))
    click(browser, 4, 4)  # occupied
    WebDriverWait(browser, 10).until(lambda d: "occupied" in d.find_element(By.ID, "error").text)
    assert stones(browser) == 2
    browser.find_element(By.ID, "undo").click()
    WebDriverWait(browser, 10).until(lambda d: stones(d) == 0)
    assert browser.find_element(By.ID, "move-count").text == "0"


def test_the_sgf_downloads_from_the_page(browser, server):
    start_game(browser, server, "random")
    moved(browser, lambda: click(browser, 2, 6))  # C3
    href = browser.find_element(By.ID, "download").get_attribute("href")
    with urllib.request.urlopen(href, timeout=10) as response:
        text = response.read().decode("utf-8")
    assert text.startswith("(;") and "SZ[9]" in text and ";B[cg]" in text
    browser.find_element(By.ID, "download").click()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not list(browser.downloads.glob("*.sgf")):
        time.sleep(0.2)
    files = list(browser.downloads.glob("*.sgf"))
    assert files and ";B[cg]" in files[0].read_text(encoding="utf-8")
