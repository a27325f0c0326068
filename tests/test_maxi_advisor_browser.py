"""The advisor page with six dice (Maxi Yatzy) in a real browser (headless Chromium): a sixth die
on screen for a six-dice rule set (from the link and from typed digits), the advice the CLI's
``hint`` gives, the sixth die gone again under five-dice rules, and no sideways scrolling at a
phone's width.  On a reduced Maxi card (its table builds in about a second)."""

from __future__ import annotations

import time

import pytest
from webserver import need_web, open_page, serve, wait

need_web()
pytestmark = pytest.mark.browser

SMALL = "maxi+without=ones,twos,threes,one_pair,two_pairs,three_pairs,four_of_a_kind,five_of_a_kind,large_straight,full_straight,villa,tower,chance"


@pytest.fixture(scope="module")
def small_site(tmp_path_factory):
    from solver.engine.tables import build_table
    from solver.web.app import create_app
    from solver.web.service import Service

    tables = tmp_path_factory.mktemp("maxi-tables")
    build_table(SMALL, tables, progress=False)
    with serve(
        create_app(service=Service(str(tables), tmp_path_factory.mktemp("data"), progress=False))
    ) as base:
        yield base, str(tables)


def test_the_advisor_page_with_six_dice(browser, small_site):
    from urllib.parse import quote

    from selenium.webdriver.common.by import By

    from solver.advice import load_advisor
    from solver.core.card import box_label
    from solver.core.position import Position

    base, tables = small_site
    d = browser
    faces = lambda: [d.find_element(By.ID, f"die-{i}").get_attribute("data-face") for i in range(1, 7)]  # noqa: E731
    open_page(d, base + f"/?rules={quote(SMALL)}&dice=225566&rolls=1&card=sixes%3D18")
    advice = load_advisor(SMALL, tables).advise(Position.parse("sixes=18", "225566", 1, SMALL))
    best = advice.options[0].describe(box_label)
    wait(lambda: d.find_element(By.ID, "best").text.startswith(f"Best: {best}"), "the six-dice advice")
    assert d.find_element(By.ID, "die-6").is_displayed() and faces() == list("225566")
    assert "six" in d.find_element(By.ID, "dice-help").text
    # six digits typed: the advice of those dice; a die clicked counts it up
    text = d.find_element(By.ID, "dice-text")
    text.clear()
    text.send_keys("111116")
    d.find_element(By.ID, "die-6").click()  # 6 -> 1: six ones
    wait(lambda: faces() == list("111111"), "six ones")
    advice = load_advisor(SMALL, tables).advise(Position.parse("sixes=18", "111111", 1, SMALL))
    best = advice.options[0].describe(box_label)
    wait(lambda: d.find_element(By.ID, "best").text.startswith(f"Best: {best}"), "the advice of six ones")
    # at a phone's width the six dice and the advice fit (no sideways scrolling)
    size = d.get_window_size()
    try:
        d.set_window_size(390, 900)
        time.sleep(0.3)
        extra = d.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert extra <= 0, f"{extra}px too wide at 390px"
        assert d.find_element(By.ID, "die-6").is_displayed()
    finally:
        d.set_window_size(size["width"], size["height"])
    # five-dice rules: the sixth die goes (the link's five-dice position reads as before)
    open_page(d, base + "/?rules=yatzy&dice=33456&rolls=2")
    wait(lambda: d.execute_script("return document.body.dataset.ready") == "1", "the page")
    assert not d.find_element(By.ID, "die-6").is_displayed() and faces()[:5] == list("33456")
