"""The Gymnasium environments (solver/play/gym_env.py): the checker, masks, rewards, regret, seeding,
the same games as simulate and match, and a random masked agent over 10,000 steps."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from solver.core.dice import Dice  # noqa: E402
from solver.core.errors import IllegalMoveError, UsageError  # noqa: E402
from solver.core.position import Position  # noqa: E402
from solver.play.bots import get_bot  # noqa: E402
from solver.play.gym_env import (  # noqa: E402
    ENV_ID,
    N_KEEP_ACTIONS,
    RL_HINT,
    STOP,
    VS_BOT_ENV_ID,
    YahtzeeEnv,
    YahtzeeVsBotEnv,
    box_action,
    keep_action,
)
from solver.play.match import play_match_game  # noqa: E402
from solver.play.simulate import game_rng, play_game  # noqa: E402


@pytest.fixture(scope="module")
def env(tables_dir):
    tables_dir.table("yahtzee")
    return YahtzeeEnv("yahtzee", tables_dir=tables_dir)


@pytest.mark.slow  # seconds: CI runs it, the fast loop leaves it out
def test_check_env_passes(tables_dir):
    tables_dir.table("yahtzee")
    for observation in ("dict", "flat"):  # made through the registry: the checker also renders
        check_env(gym.make(ENV_ID, tables_dir=tables_dir, observation=observation).unwrapped)
    check_env(gym.make(VS_BOT_ENV_ID, opponent="greedy", tables_dir=tables_dir).unwrapped)
    check_env(
        gym.make(VS_BOT_ENV_ID, rules="yatzy", opponent="random", regret=False, observation="flat").unwrapped
    )


def test_registered_ids_make_the_envs(tables_dir):
    tables_dir.table("yahtzee")
    env = gym.make(f"solver.play.gym_env:{ENV_ID}", tables_dir=tables_dir)
    assert isinstance(env.unwrapped, YahtzeeEnv)
    obs, info = env.reset(seed=1)
    assert obs in env.observation_space
    vs = gym.make(VS_BOT_ENV_ID, opponent="frequent", tables_dir=tables_dir)
    assert isinstance(vs.unwrapped, YahtzeeVsBotEnv)
    assert "opponent_scores" in vs.reset(seed=2)[0]


def play_as(env, bot, rng):
    """Play the env's game with ``bot``'s decisions (``rng`` as the bot's); returns the infos."""
    infos = []
    while True:
        card, dice, rolls_left = env.card, Dice(env.dice), env.rolls_left
        if rolls_left > 0:
            action = keep_action(dice.values, bot.choose_keep(card, dice, rolls_left, rng))
        else:
            action = box_action(env.rules, bot.choose_box(card, dice, rng))
        assert env.action_masks()[action]
        _, reward, terminated, truncated, info = env.step(action)
        infos.append((reward, info))
        assert not truncated
        if terminated:
            return infos


@pytest.mark.parametrize("rules", ["yahtzee", "yatzy+all-rolls"])
def test_a_bot_playing_through_the_env_plays_simulates_games(tables_dir, rules):
    """Game g under seed S has simulate's dice: a bot's moves give its simulate game, and the
    rewards add up to the final total; the optimal bot's steps lose nothing."""
    tables_dir.table(rules)
    env = YahtzeeEnv(rules, tables_dir=tables_dir)
    for name in ("optimal", "greedy"):
        bot = get_bot(name, rules, tables_dir)
        for game in (0, 3):
            env.reset(seed=11, options={"game": game})
            infos = play_as(env, bot, game_rng(11, game))
            want = play_game(env.rules, bot, 11, game)
            assert env.card == want
            assert sum(r for r, _ in infos) == want.total
            regrets = [i["regret"] for _, i in infos]
            assert min(regrets) >= 0.0
            if name == "optimal":
                assert max(regrets) <= 1e-9
            else:
                assert sum(regrets) > 0  # greedy play loses, somewhere in two games


def test_regret_is_the_advisors_loss_of_the_chosen_option(env):
    advisor = env.advisor
    rng = np.random.default_rng(5)
    env.reset(seed=3)
    checked = {"keep": 0, "box": 0}
    for _ in range(400):
        card, dice, rolls_left = env.card, Dice(env.dice), env.rolls_left
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        advice = advisor.advise(Position(card, dice, rolls_left))
        _, _, terminated, _, info = env.step(action)
        if action < N_KEEP_ACTIONS:
            kept = tuple(d for i, d in enumerate(dice.values) if action >> i & 1)
            option = advice.option_for(keep=kept)
            checked["keep"] += 1
        else:
            option = advice.option_for(category=env.rules.box_names[action - N_KEEP_ACTIONS])
            checked["box"] += 1
        assert info["regret"] == pytest.approx(option.regret, abs=1e-12)
        best = advice.options[0]
        want = (
            keep_action(dice.values, best.keep) if best.keep is not None else box_action("yahtzee", best.box)
        )
        assert info["best_action"] == want
        if terminated:
            env.reset()
    assert checked["keep"] > 100 and checked["box"] > 50


def test_the_mask_is_the_advisors_options(env):
    """One legal action per option the advisor ranks: the distinct keeps, then the legal boxes."""
    rng = np.random.default_rng(9)
    env.reset(seed=4)
    for _ in range(300):
        mask = env.action_masks()
        advice = env.advisor.advise(Position(env.card, Dice(env.dice), env.rolls_left))
        if env.rolls_left > 0:
            want = {keep_action(env.dice, o.keep) for o in advice.options}
        else:
            want = {box_action("yahtzee", o.category) for o in advice.options}
        assert set(np.flatnonzero(mask).tolist()) == want
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert (info["action_mask"] == env.action_masks()).all()
        if terminated:
            assert not env.action_masks().any()
            env.reset()


def test_stop_then_box_and_score_at_once(env):
    """Keeping all five stops (rolls_left 0, boxes only); scoring with rolls left does the same in one
    step and loses what both steps lose."""
    obs, _ = env.reset(seed=8)
    dice = tuple(obs["dice"])
    card = env.card
    advisor = env.advisor
    keep_all = advisor.advise(Position(card, Dice(dice), 2)).option_for(keep=dice)
    boxes = advisor.advise(Position(card, Dice(dice), 0))
    worst = boxes.options[-1]
    obs, reward, _, _, info = env.step(STOP)
    assert obs["rolls_left"][0] == 0 and reward == 0.0
    assert info["regret"] == pytest.approx(keep_all.regret, abs=1e-12)
    assert not info["action_mask"][:N_KEEP_ACTIONS].any()
    with pytest.raises(IllegalMoveError, match="no rolls left"):
        env.step(0)
    obs, reward, _, _, info = env.step(box_action("yahtzee", worst.category))
    assert reward == worst.score and obs["rolls_left"][0] == 2
    assert info["regret"] == pytest.approx(boxes.options[0].ev - worst.ev, abs=1e-12)
    env.reset(seed=8)
    _, reward, _, _, info = env.step(box_action("yahtzee", worst.category))  # not in the mask, legal
    assert reward == worst.score
    assert info["regret"] == pytest.approx(keep_all.regret + boxes.options[0].ev - worst.ev, abs=1e-9)


def test_duplicate_hold_patterns_keep_the_same_dice(env):
    obs, _ = env.reset(seed=0, options={"game": 2})
    dice = tuple(obs["dice"])
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5) if dice[i] == dice[j]]
    if not pairs:
        pytest.skip("no two equal dice in this roll")  # pragma: no cover - seed 0 game 2 has a pair
    i, j = pairs[0]
    assert env.action_masks()[1 << i] and not env.action_masks()[1 << j]
    first = env.step(1 << i)
    env.reset(seed=0, options={"game": 2})
    second = env.step(1 << j)
    assert (first[0]["dice"] == second[0]["dice"]).all()
    assert first[4]["regret"] == second[4]["regret"]


def test_illegal_actions_raise(env):
    env.reset(seed=1)
    for bad in (-1, env.action_space.n, True, 2.0, "3"):
        with pytest.raises(IllegalMoveError):
            env.step(bad)
    env.step(STOP)
    with pytest.raises(IllegalMoveError, match="no rolls left"):
        env.step(3)
    box = int(np.flatnonzero(env.action_masks())[0])
    env.step(box)
    env.step(STOP)
    with pytest.raises(IllegalMoveError, match="already filled"):
        env.step(box)


def test_all_rolls_refuses_stopping_early(tables_dir):
    tables_dir.table("yatzy+all-rolls")
    env = YahtzeeEnv("yatzy+all-rolls", tables_dir=tables_dir)
    env.reset(seed=1)
    assert not env.action_masks()[STOP] and not env.action_masks()[N_KEEP_ACTIONS:].any()
    with pytest.raises(IllegalMoveError, match="all three rolls"):
        env.step(STOP)
    with pytest.raises(IllegalMoveError, match="all three rolls"):
        env.step(N_KEEP_ACTIONS)


def test_seeding_and_game_indices(env):
    first, info = env.reset(seed=123)
    assert (info["seed"], info["game"]) == (123, 0)
    nxt, info = env.reset()
    assert info["game"] == 1
    again, _ = env.reset(seed=123, options={"game": 1})
    assert all((nxt[k] == again[k]).all() for k in nxt)
    assert (env.reset(seed=123)[0]["dice"] == first["dice"]).all()
    assert tuple(first["dice"]) == tuple(sorted(play_first_roll(123, 0)))
    unseeded = YahtzeeEnv("yahtzee", regret=False)
    _, info = unseeded.reset()
    assert 0 <= info["seed"] < 2**64 and info["game"] == 0
    for bad in ({"game": -1}, {"game": 2**63}, {"game": 1.0}, {"other": 1}):
        with pytest.raises(UsageError):
            env.reset(seed=1, options=bad)
    with pytest.raises(UsageError):
        env.reset(seed=2**64)
    numpy_ints, _ = env.reset(seed=np.int64(123), options={"game": np.int64(1)})
    assert all((nxt[k] == numpy_ints[k]).all() for k in nxt)


def play_first_roll(seed, game):
    from solver.core.streams import SeededStream

    return SeededStream(seed, game).next_five()


def test_observations(env):
    flat = YahtzeeEnv("yahtzee", regret=False, observation="flat")
    obs, _ = env.reset(seed=6)
    flat_obs, _ = flat.reset(seed=6)
    assert flat_obs.shape == flat.observation_space.shape
    assert (flat_obs == np.concatenate([obs[k] for k in obs])).all()
    assert (obs["scores"] == -1).all() and obs["total"][0] == 0
    env.step(STOP)
    box = int(np.flatnonzero(env.action_masks())[0])
    obs, reward, *_ = env.step(box)
    b = box - N_KEEP_ACTIONS
    assert obs["scores"][b] == env.card.scores[b] == reward
    assert obs["total"][0] == env.card.total
    assert env.render() is None
    ansi = YahtzeeEnv("yahtzee", regret=False, render_mode="ansi")
    ansi.reset(seed=6)
    assert "rolls left" in ansi.render()


def test_bonuses_are_in_the_reward(tables_dir):
    """An episode's rewards add up to the total, bonuses included: the optimal bot's games where
    the upper bonus and a Yahtzee bonus are earned."""
    tables_dir.table("yahtzee")
    env = YahtzeeEnv("yahtzee", tables_dir=tables_dir, regret=False)
    bot = get_bot("optimal", "yahtzee", tables_dir)
    seen_upper = seen_bonus = False
    for game in range(60):
        env.reset(seed=2, options={"game": game})
        infos = play_as(env, bot, game_rng(2, game))
        assert sum(r for r, _ in infos) == env.card.total
        seen_upper |= env.card.upper_bonus > 0
        seen_bonus |= env.card.yahtzee_bonus_count > 0
        if seen_upper and seen_bonus:
            break
    assert seen_upper and seen_bonus


@pytest.mark.slow
def test_random_masked_agent_10000_steps(env, capsys):
    rng = np.random.default_rng(2026)
    obs, info = env.reset(seed=99)
    totals, episode_reward, regrets = [], 0.0, []
    start = time.perf_counter()
    for _ in range(10_000):
        legal = np.flatnonzero(env.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        assert obs in env.observation_space
        episode_reward += reward
        regrets.append(info["regret"])
        if terminated:
            assert episode_reward == env.card.total
            totals.append(episode_reward)
            episode_reward = 0.0
            env.reset()
    seconds = time.perf_counter() - start
    with capsys.disabled():
        print(f"\nrandom masked agent: 10,000 steps in {seconds:.2f} s ({10_000 / seconds:,.0f} steps/s)")
    assert min(regrets) >= 0.0 and np.mean(regrets) > 1.0  # random play loses, every step >= 0
    assert 200 < len(totals) < 400
    assert 30 < np.mean(totals) < 65  # the random bot's mean is 46.5


@pytest.mark.parametrize("opponent", [pytest.param("greedy", marks=pytest.mark.slow), "frequent"])
def test_vs_bot_plays_match_games(tables_dir, opponent):
    """Game g is game g of `match --bots AGENT,OPPONENT`: seats rotate, each seat its own dice."""
    tables_dir.table("yahtzee")
    env = YahtzeeVsBotEnv("yahtzee", opponent, tables_dir=tables_dir)
    agent = get_bot("heuristic", "yahtzee")
    other = get_bot(opponent, "yahtzee")
    from solver.play.match import seat_seed

    outcomes = set()
    for game in range(4):
        obs, _ = env.reset(seed=21, options={"game": game})
        assert env.agent == game % 2
        if env.agent == 1:  # the opponent has played its first turn already
            assert (obs["opponent_scores"] >= 0).sum() == 1
        seat_rng = game_rng(seat_seed(21, env.agent, game % 2), game // 2)
        infos = play_as(env, agent, seat_rng)
        want = play_match_game(env.rules, [agent, other], 21, game)
        assert env.card == want[0]
        assert env.game.cards[1 - env.agent] == want[1]
        reward, info = infos[-1]
        a, b = want[0].total, want[1].total
        assert reward == (1.0 if a > b else 0.5 if a == b else 0.0)
        assert info["outcome"] == ("win" if a > b else "tie" if a == b else "loss")
        assert all(r == 0.0 for r, _ in infos[:-1])
        outcomes.add(info["outcome"])
    points = YahtzeeVsBotEnv("yahtzee", opponent, tables_dir=tables_dir, reward="points", regret=False)
    points.reset(seed=21)
    infos = play_as(points, agent, game_rng(seat_seed(21, 0, 0), 0))
    assert sum(r for r, _ in infos) == points.card.total


def rollout(env, actions_of, steps: int) -> list:
    """``steps`` steps (or to the end) of ``env``, each action ``actions_of(env)``: what each gave."""
    out = []
    for _ in range(steps):
        action = actions_of(env)
        obs, reward, terminated, _, info = env.step(action)
        obs = {k: v.tolist() for k, v in obs.items()}
        out.append((action, obs, reward, terminated, {k: np.asarray(v).tolist() for k, v in info.items()}))
        if terminated:
            break
    return out


def first_legal(env) -> int:
    return int(np.flatnonzero(env.action_masks())[-1])  # the last legal action: keeps, then boxes


@pytest.mark.parametrize("vs_bot", [False, True])
def test_a_clone_continues_as_the_original_would(tables_dir, vs_bot):
    """``clone()`` mid-game: the clone stepped with the same actions gives the same observations,
    rewards and info as the original (its dice, the opponent's random choices), and stepping
    the clone leaves the original where it was; unseeded resets draw the same seeds."""
    tables_dir.table("yahtzee")
    env = (
        YahtzeeVsBotEnv("yahtzee", "random", tables_dir=tables_dir)
        if vs_bot
        else YahtzeeEnv("yahtzee", tables_dir=tables_dir)
    )
    env.reset(seed=17, options={"game": 3 if vs_bot else 0})
    rollout(env, first_legal, 10)
    before = (env.card, env.dice, env.rolls_left, env.game.cards[:], len(env.game.turns))
    twin = env.clone()
    assert twin is not env and twin.advisor is env.advisor  # the table shared, not copied
    theirs = rollout(twin, first_legal, 500)  # the clone plays to the end
    assert (
        twin.game.is_over
        and (env.card, env.dice, env.rolls_left, env.game.cards, len(env.game.turns)) == before
    )
    assert rollout(env, first_legal, 500) == theirs  # the original goes on as its clone did
    fresh = YahtzeeEnv("yahtzee", tables_dir=tables_dir, regret=False)
    fresh.reset()  # never seeded: the seed from np_random
    copy = fresh.clone()
    assert fresh.np_random.integers(1 << 62) == copy.np_random.integers(1 << 62)  # its own generator
    if vs_bot:
        env.close()
        assert twin._owns_opponent is False  # the original ends a bot program, once


def test_bad_arguments(tables_dir):
    with pytest.raises(UsageError, match="triple"):
        YahtzeeEnv("yahtzee+triple", regret=False)
    with pytest.raises(UsageError, match="observation"):
        YahtzeeEnv("yahtzee", regret=False, observation="image")
    with pytest.raises(UsageError, match="reward"):
        YahtzeeVsBotEnv("yahtzee", "random", regret=False, reward="money")
    with pytest.raises(UsageError, match="unknown bot"):
        YahtzeeVsBotEnv("yahtzee", "nobody", regret=False)
    env = YahtzeeEnv("yahtzee", regret=False)
    with pytest.raises(UsageError, match="reset"):
        env.step(0)


def test_without_gymnasium_one_line_hint_and_no_numba(tables_dir):
    """Without gymnasium the import names the extra; with it, playing never imports numba."""
    tables_dir.table("yahtzee")
    blocked = "import sys; sys.modules['gymnasium'] = None\ntry:\n import solver.play.gym_env\nexcept ImportError as e:\n print(e)"
    out = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == RL_HINT
    play = (
        "import sys, numpy as np\nfrom solver.play.gym_env import YahtzeeEnv\n"
        f"env = YahtzeeEnv('yahtzee', tables_dir={str(tables_dir)!r})\nenv.reset(seed=1)\n"
        "for _ in range(100):\n"
        " _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))\n"
        " done and env.reset()\n"
        "print(any(m.split('.')[0] == 'numba' for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", play], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
