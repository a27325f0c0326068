"""The web app in a real browser (headless Chromium through Selenium): an advisor query clicked
through and a whole solo game of 13 turns, checked against the solver and the saved game.

Skipped, saying why, when Chromium, chromedriver or selenium is missing (``.ci/run`` installs
the browser).  With ``YAHTZEE_SCREENSHOTS=DIR`` the tests also save the screenshots of the
README (``YAHTZEE_SCREENSHOTS=docs python -m pytest tests/test_web_browser.py``).
"""

from __future__ import annotations

import time

import pytest
from webserver import SHOTS, Client, need_web, open_page, serve, set_viewport, shot, wait

need_web()
pytestmark = pytest.mark.browser

from solver.core.card import box_label  # noqa: E402
from solver.web.app import create_app  # noqa: E402
from solver.web.service import Service  # noqa: E402


def test_advisor_query(browser, site, tables_dir):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    from solver.core.position import Position

    base, _ = site
    d = browser
    open_page(d, base + "/")
    die = lambda i: d.find_element(By.ID, f"die-{i}")  # noqa: E731
    assert [die(i).get_attribute("data-face") for i in range(1, 6)] == ["1", "2", "3", "4", "5"]
    # 1 2 3 4 5 -> 3 3 4 5 6: clicks count a die up, a digit typed on a die sets it
    die(1).click()
    die(1).click()
    for i in (2, 3, 4):
        die(i).click()
    die(5).send_keys("6")
    assert [die(i).get_attribute("data-face") for i in range(1, 6)] == ["3", "3", "4", "5", "6"]
    assert d.find_element(By.ID, "dice-text").get_attribute("value") == "33456"
    d.find_element(By.CSS_SELECTOR, 'input[name="rolls"][value="1"]').click()
    # the card: one box pasted in our notation, one picked from the box's legal scores
    d.find_element(By.ID, "card-text").send_keys("ones=3")
    d.find_element(By.ID, "apply-card").click()
    wait(lambda: Select(d.find_element(By.ID, "box-ones")).first_selected_option.text == "3", "ones=3")
    fours = Select(d.find_element(By.ID, "box-fours"))
    assert [o.text for o in fours.options] == ["open", "0", "4", "8", "12", "16", "20"]
    fours.select_by_visible_text("12")
    d.find_element(By.ID, "advise").click()

    advice = tables_dir.advisor("yahtzee").advise(Position.parse("ones=3,fours=12", "33456", 1))
    best = advice.options[0]
    wait(
        lambda: d.find_element(By.ID, "best").text.startswith(f"Best: {best.describe(box_label)}"),
        "the advice",
    )
    rows = wait(lambda: d.find_elements(By.CSS_SELECTOR, "#options tbody tr"), "the options")
    wait(
        lambda: len(d.find_elements(By.CSS_SELECTOR, "#options tbody tr")) == len(advice.options),
        "all options",
    )
    rows = d.find_elements(By.CSS_SELECTOR, "#options tbody tr")
    for row, option in zip(rows[:5], advice.options[:5], strict=True):
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        assert cells[1] == option.describe(box_label)
        assert cells[2] == f"{option.expected_final:.2f}"
        assert cells[3] == ("best" if option.best else f"\u2212{option.regret:.3f}")
    value = tables_dir.advisor("yahtzee").card_value("ones=3,fours=12")
    assert f"{15 + value:.2f} expected final points" in d.find_element(By.ID, "card-value").text

    # the position is in the URL: opening the link shows the same advice
    link = d.find_element(By.ID, "share-link").get_attribute("href")
    assert "dice=33456" in link and "rolls=1" in link and "card=ones%3D3%2Cfours%3D12" in link
    open_page(d, link)
    wait(
        lambda: d.find_element(By.ID, "best").text.startswith(f"Best: {best.describe(box_label)}"),
        "the linked advice",
    )
    assert Select(d.find_element(By.ID, "box-fours")).first_selected_option.text == "12"

    # typed dice and a box to choose
    field = d.find_element(By.ID, "dice-text")
    field.clear()
    field.send_keys("44444")
    d.find_element(By.CSS_SELECTOR, 'input[name="rolls"][value="0"]').click()
    score = tables_dir.advisor("yahtzee").advise(Position.parse("ones=3,fours=12", "44444", 0)).options[0]
    wait(
        lambda: d.find_element(By.ID, "best").text.startswith(f"Best: {score.describe(box_label)}"),
        "the box advice",
    )

    # an impossible card is refused with the server's reason
    card = d.find_element(By.ID, "card-text")
    card.clear()
    card.send_keys("ones=7", Keys.ENTER)
    error = wait(
        lambda: d.find_element(By.ID, "error").is_displayed() and d.find_element(By.ID, "error"), "error"
    )
    assert "ones=7 is a score ones can never hold" in error.text


def test_solo_game_of_13_turns(browser, site):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    from solver.play.records import load_game, solo_best, stored_games

    base, data = site
    d = browser
    open_page(d, base + "/play")
    state = lambda: d.execute_script("return document.body.dataset.state || ''")  # noqa: E731
    d.find_element(By.CSS_SELECTOR, 'input[name="mode"][value="solo"]').click()
    d.find_element(By.ID, "seed").send_keys("2026")
    d.find_element(By.ID, "start").click()
    keys = ActionChains(d)
    for turn in range(1, 14):
        status = wait(
            lambda t=turn: f"turn {t} of 13" in d.find_element(By.ID, "status").text and state(), "turn"
        )
        assert status == f"r{turn}-3"
        assert not d.find_elements(By.CSS_SELECTOR, ".box-btn")  # no box before the first roll
        if turn % 2:
            d.find_element(By.ID, "roll").click()
        else:
            keys.send_keys("r").perform()  # the keyboard alone
        wait(lambda t=turn: state() == f"r{t}-2", "the first roll")
        faces = [d.find_element(By.ID, f"pdie-{i}").get_attribute("data-face") for i in range(1, 6)]
        assert all(f in "123456" for f in faces)
        if turn % 3 == 1:  # hold die 1 with its digit key, roll the other four again
            keys.send_keys("1").perform()
            wait(
                lambda: d.find_element(By.ID, "pdie-1").get_attribute("aria-pressed") == "true", "die 1 held"
            )
            keys.send_keys("r").perform()
            wait(lambda t=turn: state() == f"r{t}-1", "the second roll")
            assert (
                d.find_element(By.ID, "pdie-1").get_attribute("data-face") == faces[0]
            )  # the held die stayed
        if turn == 2:
            d.find_element(By.ID, "hint").click()
            items = wait(lambda: d.find_elements(By.CSS_SELECTOR, "#hint-box li"), "the hint")
            assert "expected final" in items[0].text and "(best)" in items[0].text
            version = d.execute_script("return document.body.dataset.version")
            d.find_element(By.ID, "coach").click()
            # the coach is a move: the page redraws once the server has it (no box click before)
            wait(
                lambda v=version: d.execute_script("return document.body.dataset.version") != v,
                "the coach on",
            )
        boxes = [b for b in d.find_elements(By.CSS_SELECTOR, ".box-btn") if b.is_enabled()]
        assert boxes, "an open box to score"
        box = max(boxes, key=preview_of)  # the most points: no "score 0?" to confirm
        name = box.get_attribute("aria-label").partition(":")[0]
        box.click()
        if turn < 13:
            wait(lambda t=turn: state() == f"r{t + 1}-3", "the next turn")
            messages = d.find_element(By.ID, "messages").text
            assert "You score " in messages and f" in {name}:" in messages  # named for people
            assert ("Coach:" in messages) == (turn >= 2)  # the coach was switched on in turn 2
    wait(lambda: state() == "over" and d.find_element(By.ID, "end").is_displayed(), "the end of the game")
    final = d.find_element(By.ID, "final").text
    assert final.startswith("Final score: ")
    total = int(final.removeprefix("Final score: "))
    games = [g for g in stored_games(data) if g["status"] == "finished"]
    assert len(games) == 1 and games[0]["scores"] == [total] and games[0]["mode"] == "solo"
    game = load_game(games[0]["path"])
    assert game.is_over and game.cards[0].total == total and game.info.seed == 2026
    # where it is saved in words, not the data folder's path (the review command names it)
    assert d.find_element(By.ID, "review-cmd").text == "yahtzee review --last"
    assert str(data) not in d.find_element(By.ID, "end").text
    assert f"You: {total} points" in d.find_element(By.ID, "review").text
    # the hint and the coach of turn 2 cost the record, as in the terminal (README)
    assert (
        d.find_element(By.ID, "record").text
        == f"{total} points (assisted: hint, coach): not counted for your record"
    )
    assert solo_best("yahtzee", data) is None
    card_total = d.find_element(By.CSS_SELECTOR, "#card tr.total td").text
    assert card_total == str(total)


def preview_of(button) -> int:
    """The points a box's button previews (``13``, ``★ 13``, ``10+100``: its score)."""
    return int(button.text.replace("\u2605", "").strip().split("+")[0])


def played_on_the_table(d) -> None:
    """Wait while the computer's turn is played on the table (its words come after it)."""
    wait(lambda: not d.execute_script("return document.body.dataset.replaying"), "the computer's turn played")


def start_against_the_computer(d, base: str, level: str, rules: str | None = None):
    """A new game against the computer at ``level`` (of ``rules``) on the play page, its first
    turn shown; returns a function reading the page's state (``r1-3``: round 1, 3 rolls left)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_page(d, base + "/play")
    state = lambda: d.execute_script("return document.body.dataset.state || ''")  # noqa: E731
    d.find_element(By.CSS_SELECTOR, 'input[name="mode"][value="vs-computer"]').click()
    Select(d.find_element(By.ID, "level")).select_by_value(level)
    if rules is not None:
        d.find_element(By.ID, "rules").clear()
        d.find_element(By.ID, "rules").send_keys(rules)
    d.find_element(By.ID, "start").click()
    wait(lambda: state() == "r1-3", "the game")
    return state


def test_vs_computer_and_daily_setup(browser, site):
    """Against the computer: after your box, the computer's turn is shown and its column filled;
    the daily challenge starts on the chosen date's dice and can be quit (saved as abandoned)."""
    from selenium.webdriver.common.by import By

    from solver.play.game import Game

    base, data = site
    d = browser
    state = start_against_the_computer(d, base, "perfect")
    heads = [th.text for th in d.find_elements(By.CSS_SELECTOR, "#card thead th")]
    assert heads == ["Box", "You", "Computer (perfect)"]
    d.find_element(By.ID, "roll").click()
    wait(lambda: state() == "r1-2", "the roll")
    max(d.find_elements(By.CSS_SELECTOR, ".box-btn"), key=preview_of).click()
    wait(lambda: state() == "r2-3", "the computer's turn")
    played_on_the_table(d)
    assert "Computer (perfect) scores" in d.find_element(By.ID, "messages").text
    totals = [td.text for td in d.find_elements(By.CSS_SELECTOR, "#card tr.total td")]
    assert len(totals) == 2 and all(t.isdigit() for t in totals)

    d.find_element(By.ID, "quit").click()
    wait(lambda: d.find_element(By.ID, "setup").is_displayed(), "the setup again")
    d.find_element(By.CSS_SELECTOR, 'input[name="mode"][value="daily"]').click()
    date = d.find_element(By.ID, "date")
    d.execute_script("arguments[0].value = '2026-05-04'", date)
    d.find_element(By.ID, "start").click()
    wait(lambda: state() == "r1-3", "the daily game")
    d.find_element(By.ID, "roll").click()
    wait(lambda: state() == "r1-2", "the daily roll")
    want = Game.new("yahtzee", ["You"], date="2026-05-04")
    want.roll()
    faces = [d.find_element(By.ID, f"pdie-{i}").get_attribute("data-face") for i in range(1, 6)]
    assert faces == [str(f) for f in want.dice]  # the day's dice, the same for everyone

    # the page keeps the game in its address: finish it through the API, reload, see the end
    game_id = d.execute_script("return new URLSearchParams(location.search).get('game')")
    api = Client(base)
    answer = api.get(f"/api/games/{game_id}").json()
    while not answer["over"]:
        if answer["dice"] is None:
            answer = api.post(f"/api/games/{game_id}/roll", json={}).json()
        box = next(b["name"] for b in answer["boxes"] if b["allowed"])
        answer = api.post(f"/api/games/{game_id}/score", json={"box": box}).json()
    open_page(d, f"{base}/play?game={game_id}")
    wait(lambda: d.find_element(By.ID, "share-box").is_displayed(), "the daily result")
    share = d.find_element(By.ID, "share").text
    assert share.startswith("Yahtzee daily 2026-05-04: You ") and share == answer["share"]
    # the result banner: the score and the best player's on the same dice, before the review
    assert f"best player scores {answer['optimal']} on the same dice" in d.find_element(By.ID, "result").text
    d.find_element(By.ID, "copy").click()
    wait(lambda: d.find_element(By.ID, "copied").text, "the copy button's answer")


def test_keyboard_alone(browser, site):
    """Tab to the start button, Enter; R rolls; Tab to a box, Space scores it; on the advisor,
    digits typed on the focused dice set them one after the other."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    base, _ = site
    d = browser
    keys = lambda *k: ActionChains(d).send_keys(*k).perform()  # noqa: E731
    active = lambda: d.switch_to.active_element  # noqa: E731
    state = lambda: d.execute_script("return document.body.dataset.state || ''")  # noqa: E731

    def tab_to(test, what: str) -> None:
        for _ in range(60):
            keys(Keys.TAB)
            if test(active()):
                return
        raise AssertionError(f"Tab never reached {what}")

    open_page(d, base + "/play")
    tab_to(lambda e: e.get_attribute("id") == "start", "the start button")
    keys(Keys.ENTER)
    wait(lambda: state() == "r1-3", "the game")
    keys("r")
    wait(lambda: state() == "r1-2", "the roll")
    tab_to(lambda e: "box-btn" in (e.get_attribute("class") or "") and preview_of(e) > 0, "a box that scores")
    keys(Keys.SPACE)
    wait(lambda: state() == "r2-3", "the box scored")
    # S puts the focus on a box to score, the arrows go from box to box, Enter scores it
    keys("r")
    wait(lambda: state() == "r2-2", "the second turn's roll")
    keys("s")
    first = active().get_attribute("id")
    assert first.startswith("box-")
    keys(Keys.ARROW_DOWN)
    second = active().get_attribute("id")
    assert second.startswith("box-") and second != first
    keys(Keys.ENTER)
    asks = lambda: d.find_elements(By.ID, second) and d.find_element(By.ID, second).text == "0?"  # noqa: E731
    wait(lambda: state() == "r3-3" or asks(), "the box chosen")
    if state() != "r3-3":  # a 0 where the dice score elsewhere: Enter once more confirms it
        assert active().get_attribute("id") == second
        keys(Keys.ENTER)
    wait(lambda: state() == "r3-3", "the box scored by the keyboard")

    open_page(d, base + "/")
    tab_to(lambda e: e.get_attribute("id") == "die-1", "the first die")
    keys("6", "5", "4", "3", "2")
    assert [d.find_element(By.ID, f"die-{i}").get_attribute("data-face") for i in range(1, 6)] == [
        "6",
        "5",
        "4",
        "3",
        "2",
    ]
    wait(lambda: "dice=65432" in d.current_url, "the advice for the typed dice")


def test_phone_width_and_200_percent_zoom_have_no_sideways_scrolling(browser, site):
    """At a phone's width and at 200% zoom the pages reflow (no sideways scrolling): the advisor
    with its options, the play page with a game against the computer under way."""
    from selenium.webdriver.common.by import By

    base, _ = site
    d = browser
    size = d.get_window_size()

    def overflow(path: str, zoom: str) -> int:
        open_page(d, base + path)
        d.execute_script(f"document.documentElement.style.zoom = '{zoom}'")
        if path == "/play":
            d.find_element(By.CSS_SELECTOR, 'input[name="mode"][value="vs-computer"]').click()
            d.find_element(By.ID, "start").click()
            wait(lambda: d.execute_script("return document.body.dataset.state") == "r1-3", "the game")
            d.find_element(By.ID, "roll").click()
            wait(lambda: d.execute_script("return document.body.dataset.state") == "r1-2", "the roll")
        else:
            wait(lambda: d.find_elements(By.CSS_SELECTOR, "#options tbody tr"), "the options")
        time.sleep(0.2)
        return d.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )

    try:
        for width, zoom in ((390, "1"), (1000, "2")):
            d.set_window_size(width, 900)
            for path in ("/?dice=12345&rolls=2&card=ones%3D3", "/play"):
                extra = overflow(path, zoom)
                assert extra <= 0, f"{path} is {extra}px too wide at {width}px, zoom {zoom}"
        if SHOTS:  # the README's, as a phone shows it: the dice, the best move and the card
            d.set_window_size(390, 900)
            card = "ones%3D3%2Cfours%3D12%2Csixes%3D24%2Cfull_house%3D25%2Cchance%3D22"
            open_page(d, base + f"/?dice=33456&rolls=1&card={card}")
            wait(lambda: d.find_element(By.ID, "best").text, "the advice")
            shot(d, "advisor-phone.png", 390, 844)
    finally:
        d.set_window_size(size["width"], size["height"])


def test_advisor_target(browser, site, tmp_path_factory):
    """With a target, each option shows P(reach target) as the target advisor gives it; without
    the rule set's target table, the page says how to build it and keeps the expected-score advice."""
    from urllib.parse import quote

    from selenium.webdriver.common.by import By

    from solver.advice.objectives import AtLeast
    from solver.cli.hint import target_advisor
    from solver.core.position import Position
    from solver.engine.target import build_target

    d = browser
    small = "yatzy+lower-only"
    folder = tmp_path_factory.mktemp("target-tables")
    build_target(small, folder, t_max=200, progress=False)
    service = Service(str(folder), tmp_path_factory.mktemp("target-data"), progress=False)
    position = Position.parse("chance=20", "66655", 1, small)
    advice = target_advisor(position.rules, str(folder)).advise(position, AtLeast(150))
    p_of = {(o.keep, o.category): o.p_target for o in advice.options}
    ev_advice = target_advisor(position.rules, str(folder)).advisor.advise(position)
    chances = {o.describe(box_label): p_of[o.keep, o.category] for o in ev_advice.options}  # the rows' words
    with serve(create_app(service=service)) as base:
        open_page(d, f"{base}/?rules={quote(small)}&dice=66655&rolls=1&card=chance%3D20&target=150")
        assert d.find_element(By.ID, "target").get_attribute("value") == "150"
        wait(lambda: d.find_element(By.ID, "target-col").is_displayed(), "the target column")
        assert d.find_element(By.ID, "target-col").text == "P(reach 150)"
        result = d.find_element(By.ID, "target-result").text
        assert result.startswith(f"To reach 150: {advice.options[0].describe(box_label)}, P(reach 150) = ")
        assert f"{100 * advice.options[0].p_target:.3f}%" in result
        rows = d.find_elements(By.CSS_SELECTOR, "#options tbody tr")
        assert len(rows) == len(advice.options)
        for row in rows:
            cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
            assert cells[4] == f"{100 * chances[cells[1]]:.3f}%"
        assert "target=150" in d.find_element(By.ID, "share-link").get_attribute("href")
        shot(d, "advisor-target.png")
        # beyond the card's reach (20 + 189 points at most): 0%, no error
        target_field = d.find_element(By.ID, "target")
        target_field.clear()
        target_field.send_keys("400")
        wait(lambda: "400" in d.find_element(By.ID, "target-col").text, "the target of 400")
        result = d.find_element(By.ID, "target-result").text
        assert result == "To reach 400: 0%, out of reach from this position."
        assert not d.find_element(By.ID, "error").is_displayed()
        # beyond the table's 200 points from the empty card, within its reach: the bound, said so
        open_page(d, f"{base}/?rules={quote(small)}&dice=66655&rolls=1&target=210")
        empty = Position.parse("", "66655", 1, small)
        capped = target_advisor(empty.rules, str(folder)).advise(empty, AtLeast(210))
        assert capped.capped_at == 200
        wait(lambda: d.find_element(By.ID, "target-col").text == "P(reach 210) at most", "the capped column")
        result = d.find_element(By.ID, "target-result").text
        assert result.startswith(
            f"To reach 210: P(reach 210) is at most {100 * capped.options[0].p_target:.3f}%"
        )
        assert "the target table holds final scores up to 200 from this card" in result
        assert not d.find_element(By.ID, "error").is_displayed()

    base, _ = site  # yahtzee: no target table on this server
    open_page(d, base + "/?dice=33456&rolls=2&target=300")
    message = wait(lambda: d.find_element(By.ID, "target-result").text, "the missing table's message")
    assert "P(reach 300) is not available" in message
    assert "yahtzee tables build --rules yahtzee --target" in message
    assert d.find_element(By.ID, "best").text.startswith("Best: ")
    assert not d.find_element(By.ID, "target-col").is_displayed()
    from selenium.webdriver.common.keys import Keys

    d.find_element(By.ID, "target").send_keys(Keys.BACKSPACE * 3)
    wait(lambda: not d.find_element(By.ID, "target-result").is_displayed(), "the message gone")
    assert "target=" not in d.current_url


def test_missing_table_offers_a_build_button(browser, tmp_path_factory):
    """A rule set without its table: the advisor says so and offers the build (one explicit POST);
    once built, the advice is shown.  Opening the page built nothing."""
    from urllib.parse import quote

    from selenium.webdriver.common.by import By

    d = browser
    small = "yatzy+lower-only"
    folder = tmp_path_factory.mktemp("build-tables")
    service = Service(str(folder), tmp_path_factory.mktemp("build-data"), progress=False)
    with serve(create_app(service=service)) as base:
        open_page(d, f"{base}/?rules={quote(small)}&dice=66655&rolls=1")
        error = wait(lambda: d.find_element(By.ID, "error").is_displayed() and d.find_element(By.ID, "error"),
                     "the missing-table message")  # fmt: skip
        assert f"no table for {small}" in error.text
        assert not list(folder.iterdir())
        button = error.find_element(By.CSS_SELECTOR, "button.build")
        assert button.text == f"Build the table of {small}"
        shot(d, "missing-table")
        button.click()
        wait(
            lambda: d.find_element(By.ID, "best").text.startswith("Best: "), "the advice after the build", 60
        )
        assert not d.find_element(By.ID, "error").is_displayed()
        assert any(p.name.startswith(small) for p in folder.iterdir())


def test_triple_card_game(browser, site):
    """The triple card on the play page: its 39 boxes named BOX@COLUMN, a box scored by a click,
    the computer's turn after it, the totals weighted."""
    from selenium.webdriver.common.by import By

    base, data = site
    d = browser
    state = start_against_the_computer(d, base, "hard", rules="triple")
    assert "turn 1 of 39" in d.find_element(By.ID, "status").text
    d.find_element(By.ID, "roll").click()
    wait(lambda: state() == "r1-2", "the roll")
    boxes = [b for b in d.find_elements(By.CSS_SELECTOR, ".box-btn") if b.is_enabled()]
    names = [b.get_attribute("id").removeprefix("box-") for b in boxes]
    assert len(names) == 39 and all("@" in n for n in names)
    chance = next(b for b in boxes if b.get_attribute("id") == "box-chance@3")
    chance.click()
    wait(lambda: state() == "r2-3", "the computer's turn")
    played_on_the_table(d)
    messages = d.find_element(By.ID, "messages").text
    assert (
        "You score " in messages
        and " in Chance (column 3), x3 = " in messages
        and "Computer (hard) scores" in messages
    )
    totals = [td.text for td in d.find_elements(By.CSS_SELECTOR, "#card tr.total td")]
    you = int(totals[0])
    assert you % 3 == 0 and you > 0  # column 3 counts three times
    shot(d, "play-triple.png")


def test_a_bad_link_says_what_was_wrong(browser, site):
    """``/?dice=99999&rolls=7``: the advice of the page's own position, and a line naming both values."""
    from selenium.webdriver.common.by import By

    base, _ = site
    open_page(browser, base + "/?dice=99999&rolls=7")
    error = wait(lambda: browser.find_element(By.ID, "error").text, "the link's error")
    assert "dice=99999" in error and "rolls=7" in error and "cannot be used" in error
    assert wait(lambda: browser.find_element(By.ID, "best").text, "the advice shown")


def test_advisor_chart_of_the_final_score(browser, site, tables_dir):
    """The chart: one SVG bar per final score (its probability the distribution JSON's, its
    height in proportion), over all but at most 0.1% of the distribution (the rest is said);
    the bars at or above the target marked and P(final >= target) read off them; a new target
    redraws the marks, a new position asks for its own distribution."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    base, _ = site
    d = browser
    card = "ones=3,fours=12,sixes=24,full_house=25,chance=22"
    open_page(d, f"{base}/?dice=33456&rolls=1&card={card.replace('=', '%3D')}&target=250")
    assert not d.find_elements(By.CSS_SELECTOR, "#dist-chart rect")  # only on request: it is long work
    d.find_element(By.ID, "chart-button").click()
    wait(lambda: d.find_elements(By.CSS_SELECTOR, "#dist-chart rect.bar"), "the chart", 90)
    assert d.find_element(By.ID, "chart-button").get_attribute("aria-pressed") == "true"
    assert "chart=1" in d.current_url
    want = (
        Client(base)
        .post(
            "/api/distribution",
            json={"card": card, "dice": "33456", "rolls_left": 1, "at_least": [250, 300]},
        )
        .json()
    )
    pmf = {int(s): p for s, p in want["pmf"].items()}

    def bars():
        found = d.execute_script(
            "return [...document.querySelectorAll('#dist-chart rect.bar')].map((r) => [Number(r.dataset.score),"
            " Number(r.dataset.p), Number(r.getAttribute('height')), r.classList.contains('reach')])"
        )
        return {s: (p, h, reach) for s, p, h, reach in found}

    drawn = bars()
    assert set(drawn) <= set(pmf) and len(drawn) > 50
    lo, hi = min(drawn), max(drawn)
    assert {s for s in pmf if lo <= s <= hi} == set(drawn)  # every score in the range, once
    top = max(p for p, _, _ in drawn.values())
    tallest = max(h for _, h, _ in drawn.values())
    for s, (p, h, reach) in drawn.items():
        assert p == pmf[s]
        assert h == pytest.approx(p / top * tallest, abs=0.01)
        assert reach == (s >= 250)
    outside = sum(p for s, p in pmf.items() if s < lo or s > hi)
    assert outside <= 0.001 + 1e-12
    reach = d.find_element(By.ID, "dist-reach").text
    assert (
        reach
        == f"P(final \u2265 250) = {100 * want['p_at_least']['250']:.3f}% playing for the expected score (the marked bars)."
    )
    summary = d.find_element(By.ID, "dist-summary").text
    q = want["percentiles"]
    assert summary.startswith(f"Mean {want['mean']:.2f}, standard deviation {want['sd']:.2f}; ")
    assert (
        f"half the games end at or below {q['50']}, 5% at or below {q['5']}, 95% at or below {q['95']}"
        in summary
    )
    svg = d.find_element(By.CSS_SELECTOR, "#dist-chart svg")
    assert svg.get_attribute("role") == "img" and "target 250" in svg.text
    shot(d, "advisor.png", 1280, 800)  # the README's, as a desktop screen shows it

    # a new target: the same distribution, the marks moved (no new question)
    asked = d.execute_script(
        "return performance.getEntriesByName(location.origin + '/api/distribution').length"
    )
    field = d.find_element(By.ID, "target")
    field.send_keys(Keys.BACKSPACE * 3, "300")
    wait(
        lambda: "\u2265 300" in d.find_element(By.ID, "dist-reach").text, "the new target read off the chart"
    )
    assert d.find_element(By.ID, "dist-reach").text.startswith(
        f"P(final \u2265 300) = {100 * want['p_at_least']['300']:.3f}%"
    )
    assert all(reach == (s >= 300) for s, (_, _, reach) in bars().items())
    assert (
        d.execute_script("return performance.getEntriesByName(location.origin + '/api/distribution').length")
        == asked
    )
    # a new position: its own distribution
    d.find_element(By.CSS_SELECTOR, 'input[name="rolls"][value="0"]').click()
    wait(
        lambda: "no rolls left" in d.find_element(By.ID, "dist-status").text,
        "the chart of the new position",
        90,
    )
    zero = (
        Client(base).post("/api/distribution", json={"card": card, "dice": "33456", "rolls_left": 0}).json()
    )
    assert {s: p for s, (p, _, _) in bars().items()}.items() <= {
        int(s): p for s, p in zero["pmf"].items()
    }.items()
    d.find_element(By.ID, "chart-button").click()  # off again
    assert not d.find_elements(By.CSS_SELECTOR, "#dist-chart rect") and "chart=1" not in d.current_url


def test_rule_set_picker(browser, site, tables_dir):
    """The picker lists every base and every house rule with its line of help; ticking them
    composes the spec (shown, with the card it gives, before it is used); a conflict is said
    and cannot be used; a typed spec is still accepted and shown in the picker."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from solver.core.rules import get_rules

    spec = "yatzy+all-rolls+lower-only"
    tables_dir.table(spec)
    base, _ = site
    d = browser
    open_page(d, f"{base}/?dice=33456&rolls=2")
    listing = Service.rules_list()
    assert not d.find_element(By.ID, "rules-picker").is_displayed()
    d.find_element(By.ID, "pick-rules").click()
    picker = d.find_element(By.ID, "rules-picker")
    assert (
        picker.is_displayed() and d.find_element(By.ID, "pick-rules").get_attribute("aria-expanded") == "true"
    )
    bases = d.find_elements(By.CSS_SELECTOR, "#bases label")
    assert [b.text for b in bases] == [f"{id_} {title}" for id_, title in listing["bases"].items()]
    assert d.find_element(By.ID, "base-yahtzee").is_selected()
    mods = d.find_elements(By.CSS_SELECTOR, "#modifiers .pick")
    assert len(mods) == len(listing["modifier_details"])
    for row, m in zip(mods, listing["modifier_details"], strict=True):
        assert row.text.endswith(m["help"])
    # yatzy + all-rolls + lower-only: the spec and the card it gives, in people's words
    d.find_element(By.ID, "base-yatzy").click()
    d.find_element(By.ID, "mod-lower-only").click()
    d.find_element(By.ID, "mod-all-rolls").click()
    wait(lambda: d.find_element(By.ID, "picker-spec").text == spec, "the composed spec")
    rules = get_rules(spec)
    wait(
        lambda: d.find_elements(By.CSS_SELECTOR, "#picker-card .rule-boxes li")[0].text.startswith(
            "One pair"
        ),
        "the card",
    )
    boxes = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#picker-card .rule-boxes li")]
    assert boxes == [f"{box_label(b.name)} {b.scorer.describe()}" for b in rules.boxes]
    lines = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#picker-card .rule-lines li")]
    assert lines == rules.rule_lines() and "rolls: all three every turn" in lines
    shot(d, "advisor-rules.png", 1280, 800)
    assert d.find_element(By.ID, "rules").get_attribute("value") == "yahtzee"  # not used yet
    d.find_element(By.ID, "use-rules").click()
    wait(lambda: d.find_element(By.ID, "rules").get_attribute("value") == spec, "the rules used")
    assert not d.find_element(By.ID, "rules-picker").is_displayed()
    wait(lambda: f"rules={spec}".replace("+", "%2B") in d.current_url, "the advice under the new rules")
    assert d.find_elements(By.ID, "box-one_pair") and not d.find_elements(By.ID, "box-ones")
    assert d.find_element(By.ID, "best").text.startswith("Best: ")
    # a house rule with a value that conflicts with the base: said, not usable
    d.find_element(By.ID, "pick-rules").click()
    assert (
        d.find_element(By.ID, "base-yatzy").is_selected()
        and d.find_element(By.ID, "mod-all-rolls").is_selected()
    )
    d.find_element(By.ID, "base-yahtzee").click()
    d.find_element(By.ID, "mod-extra-bonus").click()
    d.find_element(By.ID, "mod-extra-bonus-value").send_keys("100")
    error = wait(lambda: "conflicts" in d.find_element(By.ID, "picker-error").text and d.find_element(By.ID, "picker-error"),
                 "the conflict")  # fmt: skip
    assert "extra-bonus conflicts with yahtzee" in error.text and error.is_displayed()
    assert not d.find_element(By.ID, "use-rules").is_enabled()
    d.find_element(By.ID, "close-picker").click()
    # a typed spec: used, and the picker shows it
    field = d.find_element(By.ID, "rules")
    field.clear()
    field.send_keys("yahtzee", Keys.TAB)
    wait(lambda: d.find_elements(By.ID, "box-ones"), "the yahtzee card again")
    d.find_element(By.ID, "pick-rules").click()
    assert d.find_element(By.ID, "base-yahtzee").is_selected()
    assert not any(
        d.find_element(By.ID, f"mod-{m['name']}").is_selected() for m in listing["modifier_details"]
    )
    assert d.find_element(By.ID, "picker-spec").text == "yahtzee"
    # a typed spec that is no rule set: said, the advice shown kept
    d.find_element(By.ID, "close-picker").click()
    wait(lambda: d.find_element(By.ID, "best").text.startswith("Best: "), "the advice")
    field.clear()
    field.send_keys("poker", Keys.TAB)
    message = wait(lambda: d.find_element(By.ID, "rules-message").text, "the bad spec's message")
    assert "unknown rule set 'poker'" in message and message.endswith(
        "(the advice shown is still for yahtzee)"
    )
    assert d.find_element(By.ID, "best").text.startswith("Best: ")


def test_a_rule_change_keeps_what_fits_and_says_what_does_not(browser, site, tables_dir):
    """Changing the rule set with a card the new one cannot hold: one message names the boxes
    left out (with the reasons), what is kept stays on the card and is advised on, and a button
    goes back to the old rule set with the whole card."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    tables_dir.table("yahtzee+lower-only")
    base, _ = site
    d = browser
    card = "ones=3,fours=12,full_house=25,yahtzee=50,yahtzee_bonus=100"
    open_page(d, f"{base}/?dice=33456&rolls=2&card={card.replace('=', '%3D').replace(',', '%2C')}")
    wait(lambda: d.find_element(By.ID, "best").text.startswith("Best: "), "the advice")
    assert not d.find_element(By.ID, "rules-message").is_displayed()
    field = d.find_element(By.ID, "rules")
    field.clear()
    field.send_keys("yahtzee+lower-only", Keys.TAB)
    message = wait(
        lambda: (
            d.find_element(By.ID, "rules-message").is_displayed() and d.find_element(By.ID, "rules-message")
        ),
        "the message",
    )
    kept = "full_house=25,yahtzee=50,yahtzee_bonus=100"
    assert message.text.startswith(
        "yahtzee+lower-only cannot hold Ones = 3 and Fours = 12 of your card: they were left out "
        "(kept: Full house = 25, Yahtzee = 50, Yahtzee bonus = 100)."
    )
    message.find_element(By.TAG_NAME, "summary").click()
    reasons = [li.text for li in message.find_elements(By.CSS_SELECTOR, "li")]
    assert len(reasons) == 2 and all("unknown box" in r for r in reasons)
    assert d.find_element(By.ID, "card-text").get_attribute("value") == kept
    assert Select(d.find_element(By.ID, "box-full_house")).first_selected_option.text == "25"
    assert Select(d.find_element(By.ID, "box-yahtzee_bonus")).first_selected_option.text == "100"
    from solver.core.position import Position

    advice = tables_dir.advisor("yahtzee+lower-only").advise(
        Position.parse(kept, "33456", 2, "yahtzee+lower-only")
    )
    wait(
        lambda: d.find_element(By.ID, "best").text.startswith(
            f"Best: {advice.options[0].describe(box_label)}"
        ),
        "the kept card's advice",
    )
    assert not d.find_element(By.ID, "error").is_displayed()
    assert f"card={kept}".replace("=", "%3D").replace(",", "%2C").replace("card%3D", "card=") in d.current_url
    shot(d, "advisor-rule-change.png", 390, 844)
    # back: the old rules, the whole card, no message
    message.find_element(By.ID, "rules-undo").click()
    wait(lambda: d.find_element(By.ID, "rules").get_attribute("value") == "yahtzee", "the old rules")
    wait(lambda: d.find_element(By.ID, "card-text").get_attribute("value") == card, "the whole card")
    assert not d.find_element(By.ID, "rules-message").is_displayed()
    assert Select(d.find_element(By.ID, "box-fours")).first_selected_option.text == "12"
    wait(lambda: d.find_element(By.ID, "best").text.startswith("Best: "), "the advice again")
    # a change the card fits: no message
    field = d.find_element(By.ID, "rules")
    field.clear()
    field.send_keys("yahtzee-free-joker", Keys.TAB)
    wait(
        lambda: d.find_element(By.ID, "rules").get_attribute("value") == "yahtzee-free-joker", "the new rules"
    )
    assert d.find_element(By.ID, "card-text").get_attribute("value") == card
    assert not d.find_element(By.ID, "rules-message").is_displayed()


def test_dice_best_move_and_card_on_one_screen(browser, site):
    """On a 1280x800 desktop and a 390x844 phone the advisor shows the dice, the best move and
    the whole card without scrolling (with a target whose table is missing, too)."""
    from selenium.webdriver.common.by import By

    base, _ = site
    d = browser
    size = d.get_window_size()
    card = "ones%3D3%2Cfours%3D12%2Cfull_house%3D25"
    try:
        for width, height in ((1280, 800), (390, 844)):
            set_viewport(d, width, height)
            for extra in ("", "&target=300"):
                open_page(d, f"{base}/?dice=33456&rolls=1&card={card}{extra}")
                wait(lambda: d.find_element(By.ID, "best").text.startswith("Best: "), "the advice")
                if extra:
                    wait(lambda: d.find_element(By.ID, "target-result").is_displayed(), "the target's line")
                time.sleep(0.2)
                bottoms = d.execute_script(
                    "return ['dice-set', 'best', 'card-set'].map((id) =>"
                    " document.getElementById(id).getBoundingClientRect().bottom)"
                )
                assert max(bottoms) <= height, f"at {width}x{height}{extra}: bottoms {bottoms}"
    finally:
        d.set_window_size(size["width"], size["height"])
