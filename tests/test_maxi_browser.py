"""Maxi Yatzy on the play page in a real browser (headless Chromium): a whole game of twenty
turns with six dice on the table (the sixth held with its digit key), checked against the saved
game; at a phone's width the six dice fit without sideways scrolling.  Table-free (the maxi
table takes minutes): with ``YAHTZEE_MAXI_TABLES`` naming a folder that holds it, the page's
hint is shown too.  With ``YAHTZEE_SCREENSHOTS=DIR`` the screenshots of docs/playing.md are saved
there (play-maxi.png at 1280x800, play-maxi-phone.png at 390x844)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from test_web_browser import preview_of
from test_web_play import DESKTOP, PHONE, start, state_of, viewport
from webserver import need_web, serve, shot, wait

need_web()
pytestmark = pytest.mark.browser

MAXI_TABLES = os.environ.get("YAHTZEE_MAXI_TABLES")
HAS_TABLE = bool(MAXI_TABLES and (Path(MAXI_TABLES) / "maxi.npy").is_file())


@pytest.fixture(scope="module")
def maxi_site(tmp_path_factory):
    """A web server on tables of its own (empty: nothing built; or the maxi table's folder) and
    a data folder of its own: ``(base URL, data folder)``."""
    from solver.web.app import create_app
    from solver.web.service import Service

    tables = MAXI_TABLES if HAS_TABLE else str(tmp_path_factory.mktemp("tables"))
    data = tmp_path_factory.mktemp("maxidata")
    with serve(create_app(service=Service(tables, data, progress=False))) as base:
        yield base, data


def test_a_whole_maxi_game_in_the_browser(browser, maxi_site):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    from solver.play.records import load_game, stored_games

    base, data = maxi_site
    d = browser
    start(d, base, "solo", rules="maxi", seed=2026)
    keys = ActionChains(d)
    assert d.find_element(By.ID, "pdie-6").is_displayed()
    for turn in range(1, 21):
        wait(
            lambda t=turn: (
                state_of(d) == f"r{t}-3" and f"turn {t} of 20" in d.find_element(By.ID, "status").text
            ),
            "turn",
        )
        keys.send_keys("r").perform()
        wait(lambda t=turn: state_of(d) == f"r{t}-2", "the first roll")
        faces = [d.find_element(By.ID, f"pdie-{i}").get_attribute("data-face") for i in range(1, 7)]
        assert all(f and f in "123456" for f in faces), faces
        if turn % 2:  # hold die 6 with its digit key, roll the five others again
            keys.send_keys("6").perform()
            wait(
                lambda: d.find_element(By.ID, "pdie-6").get_attribute("aria-pressed") == "true", "die 6 held"
            )
            keys.send_keys("r").perform()
            wait(lambda t=turn: state_of(d) == f"r{t}-1", "the second roll")
            assert d.find_element(By.ID, "pdie-6").get_attribute("data-face") == faces[5]
        boxes = [b for b in d.find_elements(By.CSS_SELECTOR, ".box-btn") if b.is_enabled()]
        assert len(boxes) == 21 - turn
        max(boxes, key=preview_of).click()  # the most points: no "score 0?" to confirm
    wait(lambda: state_of(d) == "over" and d.find_element(By.ID, "end").is_displayed(), "the end")
    total = int(d.find_element(By.ID, "final").text.removeprefix("Final score: "))
    (saved,) = [g for g in stored_games(data) if g["status"] == "finished"]
    game = load_game(saved["path"])
    assert game.rules.id == "maxi" and game.cards[0].total == total and game.info.seed == 2026
    assert all(len(r.dice) == 6 for t in game.turns for r in t.rolls)
    review = d.find_element(By.ID, "review").text
    assert ("The review needs the maxi table" in review) != HAS_TABLE


@pytest.mark.parametrize("size, phone", [(DESKTOP, False), (PHONE, True)], ids=["desktop", "phone"])
def test_six_dice_fit_the_screen(browser, maxi_site, size, phone):
    """At 1280x800 and on a 390x844 phone, after a roll (and the hint, with the table), the six
    dice are on screen side by side and nothing scrolls sideways."""
    from selenium.webdriver.common.by import By

    base, _ = maxi_site
    d = browser
    viewport(d, size, phone)
    try:
        start(d, base, "vs-computer", rules="maxi", level="medium", seed=44)
        d.find_element(By.ID, "roll").click()
        wait(lambda: state_of(d) == "r1-2", "the roll")
        d.find_element(By.ID, "pdie-2").click()
        wait(lambda: d.find_element(By.ID, "pdie-2").get_attribute("aria-pressed") == "true", "die 2 held")
        if HAS_TABLE:
            d.find_element(By.ID, "hint").click()
            wait(lambda: len(d.find_elements(By.CSS_SELECTOR, "#hint-box li")) == 3, "the hint")
        time.sleep(0.5)  # the roll's tumble over
        dice = [d.find_element(By.ID, f"pdie-{i}") for i in range(1, 7)]
        rects = [d.execute_script("return arguments[0].getBoundingClientRect().toJSON()", e) for e in dice]
        tops = [r["top"] for r in rects]  # one row of six (a held die is raised a little)
        assert max(tops) - min(tops) < min(r["height"] for r in rects) / 2, rects
        height, width = d.execute_script("return [innerHeight, document.documentElement.scrollWidth]")
        assert width <= size[0] and all(r["right"] <= size[0] and r["bottom"] <= height for r in rects)
        assert len(d.find_elements(By.CSS_SELECTOR, ".box-btn")) == 20
        shot(d, "play-maxi-phone.png" if phone else "play-maxi.png", *size)
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
