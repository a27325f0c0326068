"""The saved games, review and stats pages in a real browser (headless Chromium through
Selenium): a game resumed after the server restarted, a game quit and reloaded, the review of a
game from its end screen, the statistics with their histogram.  Each page is looked at on a
1280x800 screen and a 390x844 phone: no sideways scrolling (with ``YAHTZEE_SCREENSHOTS=DIR``
the screenshots are saved there).

Skipped, saying why, when Chromium, chromedriver or selenium is missing.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_web_browser import preview_of
from webserver import SHOTS, Client, need_web, open_page, serve, wait

need_web()
pytestmark = pytest.mark.browser

from solver.web.app import create_app  # noqa: E402
from solver.web.service import Service  # noqa: E402

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def look(driver, name: str) -> None:
    """The page at each of :data:`SIZES`: it fits the width (no sideways scrolling); saved as
    ``NAME-desktop.png`` and ``NAME-phone.png`` under $YAHTZEE_SCREENSHOTS when set."""
    size = driver.get_window_size()
    try:
        for kind, (width, height) in SIZES.items():
            driver.set_window_size(width, height)
            time.sleep(0.3)
            extra = driver.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert extra <= 0, f"{name} is {extra}px too wide at {width}px"
            if SHOTS:
                Path(SHOTS).mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(Path(SHOTS) / f"{name}-{kind}.png"))
    finally:
        driver.set_window_size(size["width"], size["height"])


def state(d) -> str:
    return d.execute_script("return document.body.dataset.state || ''")


def play_turn(d, turn: int) -> None:
    """Roll once and score the open box of the most points (the page at turn ``turn``)."""
    from selenium.webdriver.common.by import By

    wait(lambda: state(d) == f"r{turn}-3", f"turn {turn}")
    d.find_element(By.ID, "roll").click()
    wait(lambda: state(d) == f"r{turn}-2", "the roll")
    boxes = [b for b in d.find_elements(By.CSS_SELECTOR, ".box-btn") if b.is_enabled()]
    max(boxes, key=preview_of).click()  # a box of the most points (a 0 would ask first)


def play_api(client: Client, game_id: str, turns: int = 99) -> dict:
    state = client.get(f"/api/games/{game_id}").json()
    for _ in range(turns):
        if state["over"]:
            break
        state = client.post(f"/api/games/{game_id}/roll", json={}).json()
        box = max((b for b in state["boxes"] if b["allowed"]), key=lambda b: b["preview"])["name"]
        state = client.post(f"/api/games/{game_id}/score", json={"box": box}).json()
    return state


def test_a_game_resumed_after_the_server_restarted(browser, tables, tmp_path):
    """Two turns played, the server restarted: the page's link says the game is not on this
    server, the saved games list it; Resume goes on where it stopped.  Quit, then reload: the
    game shows as abandoned, not live, and is listed to resume."""
    from selenium.webdriver.common.by import By

    from solver.play.records import load_game

    d = browser
    data = tmp_path / "data"
    with serve(create_app(service=Service(tables, data, progress=False))) as base:
        open_page(d, base + "/play")
        assert not d.find_element(By.ID, "saved").is_displayed()  # nothing saved yet
        d.find_element(By.ID, "seed").send_keys("2031")
        d.find_element(By.ID, "start").click()
        play_turn(d, 1)
        play_turn(d, 2)
        wait(lambda: state(d) == "r3-3", "turn 3")
        total = d.find_element(By.CSS_SELECTOR, "#card tr.total td").text
        game_id = d.execute_script("return new URLSearchParams(location.search).get('game')")
    with serve(create_app(service=Service(tables, data, progress=False))) as base:
        open_page(d, f"{base}/play?game={game_id}")
        notice = d.find_element(By.ID, "notice")
        assert notice.is_displayed() and "cannot be shown" in notice.text and "resume it" in notice.text
        assert not d.find_element(By.ID, "table").is_displayed()
        wait(lambda: d.execute_script("return document.body.dataset.saved") == "1", "the saved games")
        [item] = d.find_elements(By.CSS_SELECTOR, "#saved-list li")
        assert "solo \u00b7 turn 3 of 13" in item.text and f"You: {total}" in item.text
        look(d, "saved-games")
        item.find_element(By.CSS_SELECTOR, "button.resume").click()
        wait(lambda: state(d) == "r3-3", "the resumed game")
        assert d.execute_script("return new URLSearchParams(location.search).get('game')") != game_id
        assert "turn 3 of 13" in d.find_element(By.ID, "status").text
        assert d.find_element(By.CSS_SELECTOR, "#card tr.total td").text == total
        assert "resumed from" in d.find_element(By.ID, "messages").text
        assert not d.find_element(By.ID, "saved").is_displayed()  # not over a game in play
        assert not d.find_element(By.ID, "notice").is_displayed()
        play_turn(d, 3)
        wait(lambda: state(d) == "r4-3", "turn 4")
        [path] = (data / "games").glob("*.json")
        assert sum(t.is_complete for t in load_game(path).turns) == 3  # the same file goes on

        d.find_element(By.ID, "quit").click()
        wait(lambda: d.find_element(By.ID, "setup").is_displayed(), "the new-game form")
        wait(lambda: "abandoned" in d.find_element(By.ID, "saved-list").text, "the quit game listed")
        d.refresh()
        wait(lambda: d.execute_script("return document.body.dataset.ready") == "1", "the reload")
        notice = d.find_element(By.ID, "notice")
        assert notice.is_displayed() and "abandoned on turn 4" in notice.text, notice.text
        assert not d.find_element(By.ID, "table").is_displayed()
        assert d.find_element(By.ID, "start").is_displayed()
        assert "turn 4 of 13" in d.find_element(By.ID, "saved-list").text


def test_review_page_from_the_end_of_a_game_and_the_stats_page(browser, tables, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    d = browser
    data = tmp_path / "data"
    with serve(create_app(service=Service(tables, data, progress=False))) as base:
        c = Client(base)
        games = [
            c.post("/api/games", json={"mode": "vs-computer", "level": "hard", "seed": 91}).json(),
            c.post("/api/games", json={"mode": "solo", "seed": 92}).json(),
            c.post("/api/games", json={"mode": "daily", "date": "2026-04-02"}).json(),
        ]
        ends = [play_api(c, g["id"]) for g in games]
        end = ends[0]
        report = c.get("/api/review", params={"game": end["saved"]}).json()

        # the end screen links to the review of the game just finished
        open_page(d, f"{base}/play?game={end['id']}")
        link = d.find_element(By.ID, "review-link")
        assert link.is_displayed()
        link.click()
        wait(lambda: d.execute_script("return document.body.dataset.report") == end["saved"], "the report")
        [me] = report["players"]
        [section] = d.find_elements(By.CSS_SELECTOR, ".player-review")
        assert section.find_element(By.TAG_NAME, "h3").text == f"You: {me['score']} points"
        facts = dict(
            zip(
                (e.text for e in section.find_elements(By.CSS_SELECTOR, ".summary dt")),
                (e.text for e in section.find_elements(By.CSS_SELECTOR, ".summary dd")),
                strict=True,
            )
        )
        assert facts["Decisions"] == str(me["n_decisions"]) and facts["Mistakes"] == str(me["mistakes"])
        assert facts["Mean loss per decision"] == f"{me['average_loss']:.3f}"
        assert facts["Verdict"] == me["rating"]
        rows = section.find_elements(By.CSS_SELECTOR, "table.decisions tbody tr")
        assert len(rows) == me["n_decisions"]
        text = section.find_element(By.CSS_SELECTOR, "table.decisions").text
        assert "_" not in text  # players' names: "Large straight", never large_straight
        box = next(x for x in me["decisions"] if x["kind"] == "box")
        cells = rows[me["decisions"].index(box)].find_elements(By.TAG_NAME, "td")
        assert cells[1].text.startswith(box["choice"].split(" (")[0].replace("_", " ").capitalize())
        assert f"expected {box['expected_final_choice']:.2f}" in cells[1].text
        mistakes = section.find_elements(By.CSS_SELECTOR, "tr.mistake")
        assert len(mistakes) == me["mistakes"]
        d.find_element(By.ID, "only-mistakes").click()
        visible = [
            r for r in section.find_elements(By.CSS_SELECTOR, "table.decisions tbody tr") if r.is_displayed()
        ]
        assert len(visible) == me["mistakes"]
        d.find_element(By.ID, "only-mistakes").click()
        look(d, "review")

        # the picker lists the finished games; another one, then a name that is none
        pick = Select(d.find_element(By.ID, "game-pick"))
        assert {o.get_attribute("value") for o in pick.options} == {e["saved"] for e in ends}
        pick.select_by_value(ends[1]["saved"])
        d.find_element(By.ID, "show").click()
        wait(lambda: d.execute_script("return document.body.dataset.report") == ends[1]["saved"], "the other")
        assert f"game={ends[1]['saved']}" in d.current_url
        open_page(d, f"{base}/review?game=nope.json")
        error = d.find_element(By.ID, "error")
        assert error.is_displayed() and "no saved game nope.json" in error.text

        # the stats: the API's figures, the histogram's bars count the games
        stats = c.get("/api/stats").json()["rules"]["yahtzee"]
        open_page(d, f"{base}/stats")
        section = d.find_element(By.CSS_SELECTOR, 'section[data-rules="yahtzee"]')
        facts = dict(
            zip(
                (e.text for e in section.find_elements(By.CSS_SELECTOR, ".summary dt")),
                (e.text for e in section.find_elements(By.CSS_SELECTOR, ".summary dd")),
                strict=True,
            )
        )
        assert facts["Games"] == "3" and facts["Average"] == f"{stats['average']:.1f}"
        assert facts["Best"] == str(stats["best"])
        bars = section.find_elements(By.CSS_SELECTOR, "svg.histogram rect.bar")
        assert len(bars) == len(stats["histogram"])
        label = section.find_element(By.CSS_SELECTOR, "svg.histogram").get_attribute("aria-label")
        assert all(f"{k}: {n} game" in label for k, n in stats["histogram"].items())
        daily = d.find_element(By.ID, "daily")
        assert "2026-04-02" in daily.text and str(ends[2]["players"][0]["total"]) in daily.text
        look(d, "stats")
