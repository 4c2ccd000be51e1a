"""Take docs/web.png: the page mid-game on 19x19 against MCTS, analysis and ownership shown.

    .venv/bin/python scripts/web_screenshot.py [OUT.png]

Needs Debian's chromium and chromium-driver and Selenium (scripts/run_tests.sh installs them).
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from werkzeug.serving import make_server

from dlgo_web import create_app, load_bots

ROOT = Path(__file__).resolve().parents[1]
MOVES = [(15, 3), (3, 15), (15, 15), (2, 3), (5, 2), (9, 9), (13, 16)]  # Shudan [x, y], y = 0 at the top


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "web.png"
    bots = load_bots([str(ROOT / "configs/engine/mcts.toml")], ["mcts.rounds=4000", "time.default_seconds=3"])
    httpd = make_server("127.0.0.1", 0, create_app(bots), threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1300,950"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"), options=options)
    try:
        driver.get(f"http://127.0.0.1:{httpd.server_port}/")
        WebDriverWait(driver, 20).until(lambda d: Select(d.find_element(By.ID, "bot")).options)
        Select(driver.find_element(By.ID, "size")).select_by_value("19")
        driver.find_element(By.ID, "start").click()
        # a changed size may start a game by itself: play on the last one started
        form = driver.find_element(By.ID, "new-game")
        WebDriverWait(driver, 30).until(lambda d: form.get_attribute("aria-busy") is None)
        WebDriverWait(driver, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".shudan-vertex")) == 361)
        idle = lambda d: not d.find_element(By.ID, "stop").is_enabled()  # noqa: E731
        for x, y in MOVES:
            vertex = driver.find_element(By.CSS_SELECTOR, f'.shudan-vertex[data-x="{x}"][data-y="{y}"]')
            if "shudan-sign_0" in vertex.get_attribute("class"):
                vertex.click()
                time.sleep(0.3)
                WebDriverWait(driver, 60).until(idle)
        row = driver.find_element(By.CSS_SELECTOR, "#candidates tbody tr")
        ActionChains(driver).move_to_element(row).perform()  # the best line on the board
        time.sleep(0.5)
        driver.save_screenshot(str(out))
        print(out)
    finally:
        driver.quit()
        httpd.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
