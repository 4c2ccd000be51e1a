"""The web page in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by Selenium plays whole 9x9 games against the random and MCTS bots
through the page's own board, undoes, and downloads the SGF; and the page's own rules: the board
and its buttons fit the window, the bot's visit counts show on the board only while it thinks,
the win rate reads the same in the bar and the table in readable colours, new settings start a
game at once or wait visibly for New game, a bot is offered only on its sizes, and a failed
search leaves a way out.

Skipped, with the reason, where Chromium, its driver or Selenium is missing;
``scripts/run_tests.sh`` installs them.
"""

from __future__ import annotations

import re
import shutil
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the web server needs Flask (pip install -e .)")
webdriver = pytest.importorskip("selenium.webdriver", reason="needs Selenium (pip install -e '.[test]')")

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from dlgo import agent_registry as registry  # noqa: E402
from dlgo_web import BotPool, create_app, load_bots  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None)
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER), reason="needs Debian's chromium and chromium-driver (scripts/run_tests.sh installs them)"
)
CONFIGS = [str(ROOT / "configs/engine/random.toml"), str(ROOT / "configs/engine/mcts.toml")]
QUICK = ["mcts.rounds=100", "time.default_seconds=0", "pass.playouts=100", "scoring.playouts=200"]
# MCTS that searches until the page's stop button (or 20 s): its live search is there to see
SLOW = ["mcts.rounds=10000000", "time.default_seconds=20", "pass.playouts=100", "scoring.playouts=200"]
NINE_ONLY = 'agent = "alphabeta"\n\n[size.9]\nagent = "random"\n'  # game-tree search plays up to 7x7


BROKEN_AGENT = "web-test-9x9-network"


def _build_broken(params, size: int):
    """A 9x9 network's agent as it was before its sizes were checked: offered on every size, it
    fails to build on the others when the search starts (the page stopped on "the bot failed")."""
    if size != 9:
        raise ValueError(f"the model plays 9x9 only, not {size}x{size}")
    return registry.build_agent("random", {}, size)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The web server on an ephemeral port of 127.0.0.1, in this process. Bots: random and mcts
    (quick), slow (an MCTS search to stop by hand), nine (plays 9x9 only) and broken (a random
    player whose search fails off 9x9)."""
    registry.register(registry.AgentType(BROKEN_AGENT, "fails off 9x9", {}, _build_broken, searches=False))
    folder = tmp_path_factory.mktemp("configs")
    (folder / "slow.toml").write_text((ROOT / "configs/engine/mcts.toml").read_text(encoding="utf-8"))
    (folder / "nine.toml").write_text(NINE_ONLY)
    (folder / "broken.toml").write_text(f'agent = "{BROKEN_AGENT}"\n')
    pools = [
        load_bots(CONFIGS, QUICK),
        load_bots([str(folder / "slow.toml")], SLOW),
        load_bots([str(folder / "nine.toml"), str(folder / "broken.toml")], QUICK),
    ]
    app = create_app(BotPool(bot for pool in pools for bot in pool.bots.values()))
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    del registry.REGISTRY[BROKEN_AGENT]


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


def open_page(browser, url: str) -> None:
    browser.get(url)
    WebDriverWait(browser, 20).until(lambda d: len(Select(d.find_element(By.ID, "bot")).options) >= 2)
    wait_started(browser)


def wait_started(browser, seconds: float = 30) -> None:
    """Until no new game is on its way from the server (a changed setting may start one)."""
    form = browser.find_element(By.ID, "new-game")
    WebDriverWait(browser, seconds).until(lambda d: form.get_attribute("aria-busy") is None)


def vertices(browser) -> int:
    return len(browser.find_elements(By.CSS_SELECTOR, ".shudan-vertex"))


def start_game(browser, url: str, bot: str, size: int = 9, colour: str = "black") -> None:
    open_page(browser, url)
    Select(browser.find_element(By.ID, "bot")).select_by_value(bot)
    Select(browser.find_element(By.ID, "size")).select_by_value(str(size))
    Select(browser.find_element(By.ID, "colour")).select_by_value(colour)
    wait_started(browser)  # each change above may have started a game: then one more, known to be last
    browser.find_element(By.ID, "start").click()
    wait_started(browser)
    WebDriverWait(browser, 30).until(lambda d: vertices(d) == size * size)
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


# --- the page's layout and what it shows ------------------------------------------------------
@contextmanager
def viewport(browser, width: int, height: int) -> Iterator[None]:
    """The page's viewport (window.innerWidth x innerHeight) at ``width`` x ``height`` for a while."""
    before = browser.get_window_rect()
    browser.set_window_rect(width=width, height=height)
    for _ in range(10):  # the window's frame taken off; a loaded machine resizes late, so measure again
        time.sleep(0.1)
        inner_w, inner_h = browser.execute_script("return [innerWidth, innerHeight]")
        if (inner_w, inner_h) == (width, height):
            break
        outer = browser.get_window_rect()
        browser.set_window_rect(width=outer["width"] + width - inner_w, height=outer["height"] + height - inner_h)
    try:
        yield
    finally:
        browser.set_window_rect(width=before["width"], height=before["height"])


def box(browser, selector: str) -> dict[str, float]:
    return browser.execute_script(
        "return document.querySelector(arguments[0]).getBoundingClientRect().toJSON()", selector
    )


@pytest.mark.parametrize(
    "width, height, size",
    [(1300, 707, 9), (1300, 707, 13), (1300, 707, 19), (1024, 600, 19), (1920, 1080, 9), (480, 800, 19)],
)
def test_the_board_and_its_buttons_fit_the_window(browser, server, width, height, size):
    with viewport(browser, width, height):
        start_game(browser, server, "random", size)
        assert browser.execute_script("return [innerWidth, innerHeight]") == [width, height]
        assert browser.execute_script("return window.scrollY") == 0
        for selector in (".shudan-goban", "#pass", "#undo", "#resign", "#stop"):
            rect = box(browser, selector)
            assert rect["top"] >= 0 and rect["left"] >= 0, selector
            assert rect["bottom"] <= height and rect["right"] <= width, (selector, rect, (width, height))
        # it fits by using the room there is, not by shrinking: the board is most of the smaller side
        board = box(browser, ".shudan-goban")
        room = min(width, height - box(browser, "header")["bottom"])
        assert board["height"] >= 0.6 * room, (board, room)


def test_the_board_makes_room_for_the_next_games_settings(browser, server):
    with viewport(browser, 1300, 707):
        start_game(browser, server, "random", 9)
        before = box(browser, ".shudan-goban")["height"]
        moved(browser, lambda: click(browser, 4, 4))
        Select(browser.find_element(By.ID, "size")).select_by_value("13")
        WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "pending").is_displayed())
        WebDriverWait(browser, 10).until(lambda d: box(d, ".shudan-goban")["height"] < before)  # the header grew
        assert box(browser, "#pass")["bottom"] <= 707 and box(browser, "#resign")["bottom"] <= 707


def heat_labels(browser) -> list[str]:
    """The visit counts on the board's points (Shudan's heat map)."""
    script = "return [...document.querySelectorAll('.shudan-heatlabel')].map(e => e.textContent.trim())"
    return [text for text in browser.execute_script(script) if text]  # read at once: the board redraws


def test_visit_counts_show_on_the_board_only_while_the_bot_thinks(browser, server):
    start_game(browser, server, "slow")
    click(browser, 4, 4)
    # the live search: its visit counts on the board, the side panel says it is live
    WebDriverWait(browser, 30).until(lambda d: heat_labels(d))
    assert all(label.isdigit() for label in heat_labels(browser))
    assert browser.find_element(By.ID, "search-title").text.startswith("Live")
    assert browser.find_element(By.ID, "stop").is_enabled()
    browser.find_element(By.ID, "stop").click()
    wait_idle(browser, 30)
    # the person's turn: nothing on the empty points; the search stays in the table, labelled
    assert heat_labels(browser) == []
    assert not browser.find_elements(By.CSS_SELECTOR, ".shudan-vertex[class*='shudan-heat_']")
    assert browser.find_elements(By.CSS_SELECTOR, "#candidates tbody tr")
    assert stones(browser) == 2  # the bot played the best move found when stopped
    title = browser.find_element(By.ID, "search-title").text
    assert "the bot's last move" in title and "not hints" in title


# The colours behind an element up to the first opaque one, as computed: its text colour and
# background(s) from the element outwards.
COLOURS = """
const element = document.querySelector(arguments[0])
const layers = []
for (let e = element; e; e = e.parentElement) {
  const background = getComputedStyle(e).backgroundColor
  layers.push(background)
  const alpha = background.match(/rgba\\(.*,\\s*([\\d.]+)\\)/)
  if (!alpha || parseFloat(alpha[1]) >= 1) break
}
return [getComputedStyle(element).color, layers]
"""


def _rgba(text: str) -> tuple[float, float, float, float]:
    parts = [float(x) for x in re.findall(r"[\d.]+", text)]
    return (*parts[:3], parts[3] if len(parts) > 3 else 1.0)  # type: ignore[return-value]


def _over(top: tuple[float, ...], bottom: tuple[float, ...]) -> tuple[float, float, float, float]:
    alpha = top[3]
    return (*(alpha * t + (1 - alpha) * b for t, b in zip(top[:3], bottom[:3])), 1.0)  # type: ignore[return-value]


def _luminance(rgb: tuple[float, ...]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(browser, selector: str) -> float:
    """WCAG's contrast ratio of the element's text against the background behind it."""
    colour, layers = browser.execute_script(COLOURS, selector)
    background: tuple[float, ...] = (255.0, 255.0, 255.0, 1.0)  # the canvas behind everything
    for layer in reversed(layers):
        background = _over(_rgba(layer), background)
    text = _over(_rgba(colour), background)
    light, dark = sorted((_luminance(text), _luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_is_computed_as_wcag_says(browser, server):
    open_page(browser, server)
    browser.execute_script(
        "document.getElementById('status').style.cssText = 'color: #777; background: #fff'; "
        "document.getElementById('error').style.cssText = 'color: #000; background: #fff'"
    )
    assert contrast(browser, "#status") == pytest.approx(4.48, abs=0.01)  # #777 on white: just too light
    assert contrast(browser, "#error") == pytest.approx(21.0)


def test_the_win_rate_reads_the_same_in_the_bar_and_the_table_and_is_readable(browser, server):
    start_game(browser, server, "mcts")
    moved(browser, lambda: click(browser, 4, 4))
    text = browser.find_element(By.ID, "winrate-text").text
    shown = re.search(r"win rate (\d+\.\d)% for ([A-HJ-T]\d+|pass), the move it played", text)
    assert shown, text
    row = browser.find_element(By.CSS_SELECTOR, "#candidates tbody tr.headline")
    cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
    assert cells[0] == shown.group(2) and cells[2] == f"{shown.group(1)}%"
    width = browser.execute_script("return document.getElementById('winrate-bar').style.width")
    assert float(width.rstrip("%")) == float(shown.group(1))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#candidates tbody tr.headline")) == 1
    # the text is beside the bar, not on it: what is behind it is its own background
    bar, label = box(browser, "#winrate-meter"), box(browser, "#winrate-text")
    assert label["top"] >= bar["bottom"] or label["bottom"] <= bar["top"]
    for selector in ("#winrate-text", "#search-title", "#candidates tbody tr.headline td", "#status", "#bot-info"):
        assert contrast(browser, selector) >= 4.5, selector


def size_options(browser) -> list[str]:
    return [o.get_attribute("value") for o in Select(browser.find_element(By.ID, "size")).options]


def test_a_new_size_starts_at_once_before_the_first_move_and_waits_for_new_game_after_it(browser, server):
    start_game(browser, server, "random", 9)
    Select(browser.find_element(By.ID, "size")).select_by_value("13")
    WebDriverWait(browser, 30).until(lambda d: vertices(d) == 13 * 13)  # no New game pressed
    wait_started(browser)
    start = browser.find_element(By.ID, "start")
    assert "pending" not in start.get_attribute("class")
    assert not browser.find_element(By.ID, "pending").is_displayed()
    moved(browser, lambda: click(browser, 6, 6))
    # a game the person has moved in goes on; the settings wait, shown, for New game
    Select(browser.find_element(By.ID, "size")).select_by_value("19")
    komi = browser.find_element(By.ID, "komi")
    komi.clear()
    komi.send_keys("6.5\t")
    time.sleep(0.5)
    assert vertices(browser) == 13 * 13 and browser.find_element(By.ID, "move-count").text == "2"
    assert "pending" in start.get_attribute("class")
    pending = browser.find_element(By.ID, "pending")
    assert pending.is_displayed() and "Next game: 19x19, komi 6.5." in pending.text and "New game" in pending.text
    assert contrast(browser, "#pending-text") >= 4.5 and contrast(browser, "#start") >= 4.5
    browser.find_element(By.ID, "keep").click()  # changed my mind: the selectors show this game again
    assert Select(browser.find_element(By.ID, "size")).first_selected_option.get_attribute("value") == "13"
    assert komi.get_attribute("value") == "7.5"
    assert not pending.is_displayed() and "pending" not in start.get_attribute("class")
    Select(browser.find_element(By.ID, "size")).select_by_value("19")
    start.click()
    WebDriverWait(browser, 30).until(lambda d: vertices(d) == 19 * 19)
    wait_started(browser)
    assert not pending.is_displayed() and "pending" not in start.get_attribute("class")


def test_each_bot_is_offered_only_on_the_sizes_it_plays(browser, server):
    open_page(browser, server)
    labels = {o.get_attribute("value"): o.text for o in Select(browser.find_element(By.ID, "bot")).options}
    assert labels["nine"] == "nine (9x9 only)" and labels["mcts"] == "mcts"
    Select(browser.find_element(By.ID, "bot")).select_by_value("mcts")
    wait_started(browser)
    assert size_options(browser) == ["9", "13", "19"]
    Select(browser.find_element(By.ID, "size")).select_by_value("19")
    wait_started(browser)
    Select(browser.find_element(By.ID, "bot")).select_by_value("nine")
    wait_started(browser)
    assert size_options(browser) == ["9"]
    assert "13x13" not in browser.find_element(By.ID, "bot-info").text
    WebDriverWait(browser, 30).until(lambda d: vertices(d) == 81)  # nothing played yet: its game starts
    assert browser.find_element(By.ID, "error").text == ""
    Select(browser.find_element(By.ID, "bot")).select_by_value("mcts")
    wait_started(browser)
    assert size_options(browser) == ["9", "13", "19"]


def test_a_failed_search_offers_a_new_game(browser, server):
    start_game(browser, server, "broken", 19)
    click(browser, 3, 3)
    WebDriverWait(browser, 30).until(lambda d: "the bot failed" in d.find_element(By.ID, "error").text)
    recover = browser.find_element(By.ID, "recover")
    assert recover.is_displayed() and recover.text == "New game"
    assert "start a new game, or undo" in browser.find_element(By.ID, "status").text
    assert contrast(browser, "#error-text") >= 4.5
    Select(browser.find_element(By.ID, "size")).select_by_value("9")
    recover.click()
    WebDriverWait(browser, 30).until(lambda d: vertices(d) == 81)
    wait_started(browser)
    assert not recover.is_displayed() and browser.find_element(By.ID, "error").text == ""
    moved(browser, lambda: click(browser, 4, 4))
    assert stones(browser) == 2
