"""The play page in a real browser (headless Chromium): one screen at desktop and phone sizes,
hot-seat, real dice with the coach, undo, the "score 0?" confirmation, the hint's "Do this"
buttons, the Joker rule's one line, the all-rolls rule's word, the coach remembered.  Each is
checked against the server's game (the API) or the saved file, not against the page alone.

With ``YAHTZEE_SCREENSHOTS=DIR`` the README's play screenshots are saved there.
"""

from __future__ import annotations

import json

import pytest
from test_web_browser import preview_of
from webserver import Client, need_web, open_page, shot, wait

need_web()
pytestmark = pytest.mark.browser


DESKTOP = (1280, 800)
PHONE = (390, 844)


def viewport(d, size, phone: bool = False) -> None:
    """The page's viewport exactly ``size`` CSS pixels (a phone's: touch, no window chrome)."""
    width, height = size
    d.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": phone},
    )


def state_of(d) -> str:
    return d.execute_script("return document.body.dataset.state || ''")


def version_of(d) -> str:
    return d.execute_script("return document.body.dataset.version || ''")


def game_id(d) -> str:
    return d.execute_script("return new URLSearchParams(location.search).get('game')")


def start(d, base: str, mode: str, **fields) -> None:
    """A new game of ``mode`` from the setup form (``rules``, ``seed``, ``players``, ``level``)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_page(d, base + "/play")
    d.find_element(By.CSS_SELECTOR, f'input[name="mode"][value="{mode}"]').click()
    for key, value in fields.items():
        element = d.find_element(By.ID, key)
        if key == "level":
            Select(element).select_by_value(value)
        else:
            element.clear()
            element.send_keys(str(value))
    d.find_element(By.ID, "start").click()
    wait(lambda: state_of(d) == "r1-3", f"the {mode} game")


@pytest.mark.parametrize("size, phone", [(DESKTOP, False), (PHONE, True)], ids=["desktop", "phone"])
def test_dice_open_boxes_and_the_hint_on_one_screen(browser, site, size, phone):
    """At 1280x800 and on a 390x844 phone, after a roll and a hint, the dice, every open box and
    the whole hint are on screen without scrolling, and nothing scrolls sideways."""
    from selenium.webdriver.common.by import By

    base, _ = site
    d = browser
    viewport(d, size, phone)
    try:
        start(d, base, "solo", seed=31)
        d.find_element(By.ID, "roll").click()
        wait(lambda: state_of(d) == "r1-2", "the roll")
        d.find_element(By.ID, "hint").click()
        wait(lambda: len(d.find_elements(By.CSS_SELECTOR, "#hint-box li")) == 3, "the hint")
        boxes = d.find_elements(By.CSS_SELECTOR, ".box-btn")
        assert len(boxes) == 13
        parts = [*(d.find_element(By.ID, f"pdie-{i}") for i in range(1, 6)), *boxes]
        parts += d.find_elements(By.CSS_SELECTOR, "#hint-box li")
        height, width = d.execute_script("return [innerHeight, document.documentElement.scrollWidth]")
        assert width <= size[0]
        for element in parts:
            rect = d.execute_script("return arguments[0].getBoundingClientRect().toJSON()", element)
            assert rect["top"] >= 0 and rect["bottom"] <= height, (element.get_attribute("id"), rect, height)
        assert d.execute_script("return scrollY") == 0
        shot(d, "play-phone.png" if phone else "play.png", *size)
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_hot_seat_game(browser, site):
    """Two people on one device: each turn names whose it is, the sheet has a column each, the
    saved game has both."""
    from selenium.webdriver.common.by import By

    base, data = site
    d = browser
    start(d, base, "hot-seat", players="Ann, Ben", seed=5)
    heads = [th.text for th in d.find_elements(By.CSS_SELECTOR, "#card thead th")]
    assert heads == ["Box", "Ann", "Ben"]
    for turn, who in enumerate(["Ann", "Ben", "Ann"]):
        if turn:  # the device passed: a screen naming who plays next, the dice hidden until then
            wait(lambda w=who: d.find_element(By.ID, "pass").is_displayed(), "the pass screen")
            assert who in d.find_element(By.ID, "pass-line").text
            assert not d.find_element(By.ID, "roll").is_displayed()
            d.find_element(By.ID, "pass-go").click()
        assert d.find_element(By.ID, "status").text.startswith(f"{who}: turn {turn // 2 + 1} of 13")
        heads = d.find_elements(By.CSS_SELECTOR, "#card thead th.active")
        assert [th.text for th in heads] == [who]  # the column of the player to move
        d.find_element(By.ID, "roll").click()
        wait(lambda t=turn: state_of(d) == f"r{t // 2 + 1}-2", "the roll")
        box = max((b for b in d.find_elements(By.CSS_SELECTOR, ".box-btn") if b.is_enabled()), key=preview_of)
        label = box.get_attribute("aria-label").partition(":")[0]
        box.click()
        wait(lambda w=who, lb=label: f"{w} scores " in d.find_element(By.ID, "messages").text, "the score")
        assert f" in {label}:" in d.find_element(By.ID, "messages").text
    state = Client(base).get(f"/api/games/{game_id(d)}").json()
    assert [sum(s is not None for s in p["scores"]) for p in state["players"]] == [2, 1]
    assert [p["name"] for p in state["players"]] == ["Ann", "Ben"] and state["player"] == "Ben"
    saved = json.loads(next((data / "games").glob("*hot-seat*")).read_text())
    assert [p["name"] for p in saved["players"]] == ["Ann", "Ben"]


def test_real_dice_with_the_coach(browser, site):
    """Real dice: the five faces typed, a die held by a click, the rerolled dice typed; the coach
    (on by default here) judges the keep; a Joker roll gets one line that says why."""
    from selenium.webdriver.common.by import By

    base, _ = site
    d = browser
    start(d, base, "real-dice")
    assert not d.find_element(By.ID, "roll").is_displayed()
    entry = d.find_element(By.ID, "real-dice")
    entry.send_keys("22222\n")
    wait(lambda: state_of(d) == "r1-2", "the typed roll")
    assert [d.find_element(By.ID, f"pdie-{i}").get_attribute("data-face") for i in range(1, 6)] == ["2"] * 5
    d.find_element(By.ID, "box-yahtzee").click()
    wait(lambda: state_of(d) == "r2-3", "the Yahtzee scored")
    coach = d.find_element(By.ID, "messages").text
    # one stop-and-score, one line (not the keep's verdict and the box's)
    assert "Coach: stop and score Yahtzee (50): best move" in coach and coach.count("Coach:") == 1
    d.find_element(By.ID, "real-dice").send_keys("22222\n")
    wait(lambda: state_of(d) == "r2-2", "the second Yahtzee")
    note = d.find_element(By.ID, "note")
    assert note.is_displayed() and note.text.startswith("Joker rule") and "Twos" in note.text
    assert len(d.find_elements(By.CSS_SELECTOR, ".box-btn")) == 1  # Twos only; no reason repeated per box
    assert "Joker rule" not in d.find_element(By.ID, "card").text
    assert d.find_element(By.ID, "box-twos").text == "10+100"
    d.find_element(By.ID, "pdie-1").click()
    wait(lambda: d.find_element(By.ID, "pdie-1").get_attribute("aria-pressed") == "true", "die 1 held")
    assert d.find_element(By.ID, "real-label").text == "The 4 dice rolled"
    d.find_element(By.ID, "real-dice").send_keys("3456\n")
    wait(lambda: state_of(d) == "r2-1", "the rerolled dice")
    faces = sorted(d.find_element(By.ID, f"pdie-{i}").get_attribute("data-face") for i in range(1, 6))
    assert faces == ["2", "3", "4", "5", "6"]
    assert "Coach: keep 2 cost" in d.find_element(By.ID, "messages").text  # 22222 left the Joker's 110
    state = Client(base).get(f"/api/games/{game_id(d)}").json()
    assert state["real_dice"] and state["coach_on"] and state["dice"] == [2, 3, 4, 5, 6]


def test_undo_zero_confirmation_and_do_this(browser, site):
    """A 0 where the dice score elsewhere asks once more (nothing sent before); Undo takes the box
    back; a hint's "Do this" plays its move: the best box, or the keep held and the rest rolled."""
    from selenium.webdriver.common.by import By

    base, data = site
    d = browser
    start(d, base, "solo", seed=77)
    api = Client(base)
    d.find_element(By.ID, "roll").click()
    wait(lambda: state_of(d) == "r1-2", "the roll")
    zero = next(b for b in d.find_elements(By.CSS_SELECTOR, ".box-btn") if preview_of(b) == 0)
    zero_id = zero.get_attribute("id")
    version = version_of(d)
    zero.click()
    wait(lambda: d.find_element(By.ID, zero_id).text == "0?", "the question")
    assert "Score 0 in" in d.find_element(By.ID, "note").text and version_of(d) == version
    d.find_element(By.ID, zero_id).click()
    wait(lambda: state_of(d) == "r2-3", "the 0 scored")
    assert not d.find_element(By.ID, "undo").get_attribute("hidden")
    d.find_element(By.ID, "undo").click()
    wait(lambda: state_of(d) == "r1-2", "the box taken back")
    assert "undone: 0 in" in d.find_element(By.ID, "messages").text
    assert d.find_element(By.ID, "undo").get_attribute("hidden")
    # the hint's best keep is marked on the dice; "Do this" holds it and rolls the rest
    d.find_element(By.ID, "hint").click()
    buttons = wait(lambda: d.find_elements(By.CSS_SELECTOR, "#hint-box .do-this"), "the hint")
    hint = api.get(
        "/api/hint",
        params={
            "dice": "".join(map(str, api.get(f"/api/games/{game_id(d)}").json()["dice"])),
            "rolls_left": 2,
        },
    ).json()
    best = hint["options"][0]
    suggested = [
        i for i in range(1, 6) if "suggested" in d.find_element(By.ID, f"pdie-{i}").get_attribute("class")
    ]
    if "keep" in best and 0 < len(best["keep"]) < 5:
        assert sorted(d.find_element(By.ID, f"pdie-{i}").get_attribute("data-face") for i in suggested) == [
            str(f) for f in best["keep"]
        ]
    buttons[0].click()
    wait(lambda: state_of(d) in ("r1-1", "r2-3"), "the hint's move")
    state = api.get(f"/api/games/{game_id(d)}").json()
    if "keep" in best and len(best["keep"]) < 5:
        held = sorted(f for f, h in zip(state["dice"], state["held"], strict=True) if h)
        assert state["rolls_left"] == 1 and held == best["keep"]
    if state["round"] == 1:  # a box filled, so that the game is saved again
        box = max((b for b in d.find_elements(By.CSS_SELECTOR, ".box-btn") if b.is_enabled()), key=preview_of)
        box.click()
        wait(lambda: state_of(d) == "r2-3", "the box")
    saved = json.loads(max((data / "games").glob("*solo*"), key=lambda p: p.stat().st_mtime).read_text())
    assert saved["assisted"] == ["undo", "hint"]


def test_all_rolls_rule_says_why_nothing_is_allowed(browser, site, tables_dir):
    from selenium.webdriver.common.by import By

    tables_dir.table("yatzy+all-rolls")
    base, _ = site
    d = browser
    start(d, base, "solo", rules="yatzy+all-rolls", seed=3)
    d.find_element(By.ID, "roll").click()
    wait(lambda: state_of(d) == "r1-2", "the roll")
    assert "roll again before you score" in d.find_element(By.ID, "note").text
    assert all(not b.is_enabled() for b in d.find_elements(By.CSS_SELECTOR, ".box-btn"))
    for i in range(1, 6):
        d.find_element(By.ID, f"pdie-{i}").click()
        wait(lambda k=i: d.find_element(By.ID, f"pdie-{k}").get_attribute("aria-pressed") == "true", "held")
    # the page renders the note and the roll button after the last die's press shows: wait for both
    wait(
        lambda: (
            not d.find_element(By.ID, "roll").is_enabled()
            and "release at least one die" in d.find_element(By.ID, "note").text
        ),
        "the roll refused with every die held",
    )


def test_the_coach_is_remembered(browser, site):
    from selenium.webdriver.common.by import By

    base, _ = site
    d = browser
    open_page(d, base + "/play")
    box = d.find_element(By.ID, "setup-coach")
    if box.is_selected():
        box.click()
    box.click()  # on
    open_page(d, base + "/play")  # a new visit
    assert d.find_element(By.ID, "setup-coach").is_selected()
    d.find_element(By.ID, "start").click()
    wait(lambda: state_of(d) == "r1-3", "the game")
    assert d.find_element(By.ID, "coach").is_selected()
    assert Client(base).get(f"/api/games/{game_id(d)}").json()["coach_on"]
    d.find_element(By.ID, "coach").click()  # off in the game: remembered off
    wait(lambda: not d.find_element(By.ID, "coach").is_selected() and version_of(d) == "1", "the coach off")
    open_page(d, base + "/play")
    assert not d.find_element(By.ID, "setup-coach").is_selected()


def dice_tops(d) -> list[float]:
    """Where the dice row and each die's slot are on the page (a held die's lift not counted)."""
    return d.execute_script(
        "const r = (e) => e.getBoundingClientRect().top + scrollY;"
        "return [r(document.getElementById('dice')),"
        " ...[1, 2, 3, 4, 5].map((i) => r(document.getElementById('pdie-' + i).parentElement))]"
    )


def test_the_computers_turn_is_played_on_the_table(browser, site):
    """Against the computer: its rolls come onto the table as dice (each roll the server played,
    then its box filled and highlighted); a click or a key skips it; a note never moves the dice
    and previews never grow the card's rows; the end opens on the result banner, in view."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    base, _ = site
    d = browser
    api = Client(base)
    viewport(d, DESKTOP)
    try:
        start(d, base, "vs-computer", level="hard", seed=12)
        card_height = lambda: d.execute_script("return document.getElementById('card').offsetHeight")  # noqa: E731
        for turn in range(1, 14):
            wait(
                lambda t=turn: (
                    state_of(d) == f"r{t}-3"
                    and not d.execute_script("return document.body.dataset.replaying")
                ),
                "your turn",
            )
            before = card_height()
            d.find_element(By.ID, "roll").click()
            wait(lambda t=turn: state_of(d) == f"r{t}-2", "the roll")
            assert card_height() == before, "the previews made the card's rows taller"
            boxes = [b for b in d.find_elements(By.CSS_SELECTOR, ".box-btn") if b.is_enabled()]
            zero = next((b for b in boxes if preview_of(b) == 0), None)
            if turn <= 2 and zero is not None and any(preview_of(b) > 0 for b in boxes):
                assert "zero" in (zero.get_attribute("class") or "")  # a 0 is dimmed
                tops = dice_tops(d)
                zero.click()  # "Score 0 in ...?": a note
                wait(lambda: d.find_element(By.ID, "note").is_displayed(), "the note")
                assert dice_tops(d) == tops, "the note moved the dice"
                boxes = [b for b in d.find_elements(By.CSS_SELECTOR, ".box-btn") if b.is_enabled()]
            box = max(boxes, key=lambda b: 0 if b.text == "0?" else preview_of(b))
            version = version_of(d)
            box.click()
            wait(lambda v=version: version_of(d) != v, "the box scored")
            moves = api.get(f"/api/games/{game_id(d)}").json()["moves"]
            rolls = ["".join(map(str, m["dice"])) for m in moves if m["kind"] == "rolled" and m["is_bot"]]
            scored = [m for m in moves if m["kind"] == "scored" and m["is_bot"]]
            assert rolls and len(scored) == 1
            if turn <= 2:  # watched to the end: every roll of the computer's shown as dice on the table
                seen = set()
                while d.execute_script("return document.body.dataset.replaying"):
                    frame, faces = d.execute_script(
                        "return [document.body.dataset.replay || '', [1, 2, 3, 4, 5].map((i) =>"
                        " document.getElementById('pdie-' + i).dataset.face).join('')]"
                    )
                    if frame:
                        seen.add((frame.split(":")[1], frame.split(":")[2], faces))
                    if turn == 2 and "shot" not in seen:
                        seen.add("shot")
                        shot(d, "play-computer.png", *DESKTOP)
                    if len(seen) > 60:
                        break
                for dice in rolls:
                    assert ("roll", dice, dice) in seen, (dice, sorted(seen))
                assert any(f[0] == "score" for f in seen if f != "shot")
                cell = d.find_element(
                    By.CSS_SELECTOR, f'#card td[data-player="1"][data-box="{scored[0]["box"]}"]'
                )
                assert "just-scored" in cell.get_attribute("class") and cell.text == str(scored[0]["points"])
            elif turn % 2:  # skipped with a key
                d.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
                wait(lambda: not d.execute_script("return document.body.dataset.replaying"), "skipped")
            else:  # skipped with a click
                d.find_element(By.ID, "status").click()
                wait(lambda: not d.execute_script("return document.body.dataset.replaying"), "skipped")
        wait(lambda: d.find_element(By.ID, "end").is_displayed(), "the end", timeout=30)
        final = d.find_element(By.ID, "final").text
        assert "You " in final and "Computer (hard) " in final and "(hard) wins" not in final
        rect = d.execute_script("return document.getElementById('result').getBoundingClientRect().toJSON()")
        height = d.execute_script("return innerHeight")
        assert rect["top"] >= 0 and rect["bottom"] <= height, rect
        assert d.switch_to.active_element.get_attribute("id") == "end-title"
        shot(d, "play-end.png", *DESKTOP)
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("size, phone", [(DESKTOP, False), (PHONE, True)], ids=["desktop", "phone"])
def test_start_screen_of_big_choices(browser, site, size, phone):
    """The modes as big choices, a line each (none running into another on a phone), the rule set
    picked from a list with a line each; a first ``win`` game says what it waits for."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    base, _ = site
    d = browser
    viewport(d, size, phone)
    try:
        open_page(d, base + "/play")
        cards = d.find_elements(By.CSS_SELECTOR, ".mode-card")
        assert [c.find_element(By.CSS_SELECTOR, "input").get_attribute("value") for c in cards] == [
            "solo", "vs-computer", "hot-seat", "daily", "real-dice"
        ]  # fmt: skip
        rects = [d.execute_script("return arguments[0].getBoundingClientRect().toJSON()", c) for c in cards]
        for a, b in zip(rects, rects[1:], strict=False):  # apart: no two choices share a line's space
            assert b["top"] >= a["bottom"] or b["left"] >= a["right"], (a, b)
        assert all(r["height"] >= 44 and r["right"] <= size[0] for r in rects)  # a finger's target
        assert all(c.find_element(By.CSS_SELECTOR, ".mode-line").text for c in cards)
        cards[1].click()
        level = Select(d.find_element(By.ID, "level"))
        level.select_by_value("win")
        assert "beat you" in d.find_element(By.ID, "level-line").text
        pick = Select(d.find_element(By.ID, "rules-pick"))
        assert pick.first_selected_option.get_attribute("value") == "yahtzee"
        assert all(": " in o.text for o in pick.options[:-1])  # a line each
        pick.select_by_value("yatzy")
        assert d.find_element(By.ID, "rules").get_attribute("value") == "yatzy"
        pick.select_by_value("yahtzee")
        level.select_by_value("medium")
        shot(d, "play-start-phone.png" if phone else "play-start.png", *size)
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_die_clicks_while_a_hold_is_on_its_way_are_kept(browser, site):
    """Three dice clicked at once (the later clicks while the first hold request is pending): all
    three are held on the server, none dropped."""
    from selenium.webdriver.common.by import By

    base, _ = site
    d = browser
    start(d, base, "solo", seed=8)
    d.find_element(By.ID, "roll").click()
    wait(lambda: state_of(d) == "r1-2", "the roll")
    d.execute_script("for (const i of [1, 3, 5]) document.getElementById('pdie-' + i).click()")
    api = Client(base)
    wait(
        lambda: api.get(f"/api/games/{game_id(d)}").json()["held"] == [True, False, True, False, True], "held"
    )
    wait(lambda: not d.execute_script("return document.querySelectorAll('.die[aria-pressed=\"true\"]').length - 3"),
         "shown held")  # fmt: skip


def test_reduced_motion_shows_the_computers_turn_at_once(browser, site):
    """Under prefers-reduced-motion the computer's turn is not played frame by frame: its box is
    filled and highlighted at once."""
    from selenium.webdriver.common.by import By

    base, _ = site
    d = browser
    d.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}
    )
    try:
        start(d, base, "vs-computer", level="easy", seed=4)
        d.find_element(By.ID, "roll").click()
        wait(lambda: state_of(d) == "r1-2", "the roll")
        max(d.find_elements(By.CSS_SELECTOR, ".box-btn"), key=preview_of).click()
        wait(lambda: state_of(d) == "r2-3", "the computer's turn")
        assert not d.execute_script("return document.body.dataset.replaying || document.body.dataset.replay")
        assert d.find_elements(By.CSS_SELECTOR, '#card td[data-player="1"].just-scored')
        assert "Computer (easy) scores" in d.find_element(By.ID, "messages").text
    finally:
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_a_win_game_starts_before_its_tables_are_read(browser, tmp_path, monkeypatch):
    """The first ``win`` game of a rule set starts at once: the line of the chances says the
    computer plays for points while its table loads; once read, the computer's next turn says it
    plays to win and the chances to win take that line."""
    import threading

    from selenium.webdriver.common.by import By
    from webserver import serve

    from solver.core.rules import get_rules
    from solver.engine.tables import build_table
    from solver.engine.target import build_target
    from solver.web.app import create_app
    from solver.web.service import Service

    rules = "yatzy+lower-only"
    folder = tmp_path / "tables"
    build_table(rules, folder, progress=False)
    build_target(rules, folder, t_max=200, progress=False)
    release = threading.Event()
    read = Service._win_tables

    def slow(self, r):
        assert release.wait(120)
        return read(self, r)

    monkeypatch.setattr(Service, "_win_tables", slow)
    service = Service(str(folder), tmp_path / "data", progress=False)
    d = browser
    viewport(d, DESKTOP)
    with serve(create_app(service=service)) as base:
        start(d, base, "vs-computer", level="win", seed=5, rules=rules)
        chances = d.find_element(By.ID, "chances")
        assert chances.is_displayed() and "plays for points while its win table loads" in chances.text
        assert (
            "plays for the best expected score until its win table is loaded"
            in d.find_element(By.ID, "messages").text
        )
        release.set()
        later = service.tables.win_later(get_rules(rules))
        assert later is None or later.wait(60)
        d.find_element(By.ID, "roll").click()
        wait(lambda: state_of(d) == "r1-2", "the roll")
        next(b for b in d.find_elements(By.CSS_SELECTOR, ".box-btn") if b.is_enabled()).click()
        wait(lambda: state_of(d) == "r2-3", "the computer's turn")
        said = "Computer (win)'s win table is ready: it plays to win from its first turn"
        wait(lambda: said in d.find_element(By.ID, "messages").text, "the switch said")
        assert d.find_element(By.ID, "chances").text.startswith("Chances to win: ")
