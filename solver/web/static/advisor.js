/* The advisor page: dice, rolls left, card and an optional target in, /api/hint and /api/value out
   (with a target, /api/hint's P(reach target) per option); the position in the URL. */
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const state = {dice: [1, 2, 3, 4, 5], rules: null, card: {}, bonus: 0};
  let timer = null;
  let sequence = 0;

  function diceText() {
    return state.dice.join("");
  }

  function rollsLeft() {
    return document.querySelector('input[name="rolls"]:checked').value;
  }

  function cardText() {
    if (!state.rules) return "";
    const parts = [];
    for (const box of state.rules.box_details) {
      const v = state.card[box.name];
      if (v !== undefined && v !== "") parts.push(`${box.name}=${v}`);
    }
    if (state.bonus) parts.push(`yahtzee_bonus=${state.bonus}`);
    return parts.join(",");
  }

  function showDice() {
    state.dice.forEach((face, i) => {
      const b = $(`die-${i + 1}`);
      YZ.drawDie(b, face, `die ${i + 1}: ${face}`);
    });
    if (document.activeElement !== $("dice-text")) $("dice-text").value = diceText();
  }

  function setDie(i, face) {
    state.dice[i] = face;
    showDice();
    changed();
  }

  /** The card's form: one select per box with "open" and the box's possible scores. */
  function buildCard() {
    const holder = $("card-boxes");
    holder.replaceChildren();
    const rules = state.rules;
    for (const box of rules.box_details) {
      const id = `box-${box.name}`;
      const select = YZ.el("select", {id, name: box.name, onchange: () => {
        state.card[box.name] = select.value;
        $("card-text").value = cardText();
        changed();
      }});
      select.append(YZ.el("option", {value: "", text: "open"}));
      for (const s of box.scores) select.append(YZ.el("option", {value: String(s), text: String(s)}));
      select.value = state.card[box.name] || "";
      holder.append(YZ.el("div", {class: "box-field" + (box.upper ? " upper" : "")},
        YZ.el("label", {for: id, text: YZ.label(box.name), title: box.rule}), select));
    }
    if (rules.yahtzee_bonus) {
      const select = YZ.el("select", {id: "box-yahtzee_bonus", onchange: () => {
        state.bonus = Number(select.value);
        $("card-text").value = cardText();
        changed();
      }});
      for (let k = 0; k <= 12; k++) {
        select.append(YZ.el("option", {value: String(k * rules.yahtzee_bonus), text: String(k * rules.yahtzee_bonus)}));
      }
      select.value = String(state.bonus);
      holder.append(YZ.el("div", {class: "box-field"},
        YZ.el("label", {for: "box-yahtzee_bonus", text: "Yahtzee bonus"}), select));
    }
  }

  /** Read a card in our notation into the form (the server checks it when advising). */
  function applyCardText(text) {
    state.card = {};
    state.bonus = 0;
    const names = new Set(state.rules.box_details.map((b) => b.name));
    for (const entry of text.split(/[,;]/)) {
      if (!entry.trim()) continue;
      const [rawKey, rawValue] = entry.split(/[=:]/);
      const key = (rawKey || "").trim().toLowerCase().replace(/[ -]/g, "_");
      const value = (rawValue || "").trim();
      if (key === "yahtzee_bonus") state.bonus = Number(value) || 0;
      else if (names.has(key)) state.card[key] = value;
    }
    buildCard();
  }

  /** A pasted card: checked by the server first, then shown in the form (an error says what is wrong). */
  async function useCardText(text) {
    let value;
    try {
      value = await YZ.api("/api/value", {rules: state.rules.id, card: text});
    } catch (e) {
      showError(e.message, e.build);
      return false;
    }
    applyCardText(value.card);
    $("card-text").value = value.card;
    changed();
    return true;
  }

  async function loadRules(spec) {
    const rules = await YZ.api(`/api/rules?rules=${encodeURIComponent(spec)}`);
    const keepText = state.rules ? cardText() : null;
    state.rules = rules;
    $("rules").value = rules.id;
    if (keepText !== null) applyCardText(keepText);
    else buildCard();
  }

  function showError(message, build) {
    $("error").textContent = message;
    if (build) $("error").append(" ", YZ.buildButton(build, () => location.reload()));
    $("error").hidden = false;
    $("best").textContent = "";
    $("card-value").textContent = "";
    $("target-result").hidden = true;
    $("options").hidden = true;
  }

  /** The target typed in (a whole number of 1 or more), or null. */
  function target() {
    const text = $("target").value.trim();
    return /^[0-9]+$/.test(text) && Number(text) >= 1 ? Number(text) : null;
  }

  function percent(p) {
    return typeof p === "number" ? `${(100 * p).toFixed(3)}%` : "\u2013";
  }

  /** An option's identity in both rankings: the dice kept, or the box scored. */
  function optionKey(o) {
    return o.keep !== undefined ? `keep ${o.keep.join("")}` : `box ${o.category}`;
  }

  function updateUrl() {
    const params = new URLSearchParams({rules: state.rules.id, dice: diceText(), rolls: rollsLeft()});
    const card = cardText();
    if (card) params.set("card", card);
    if (target() !== null) params.set("target", String(target()));
    const url = `/?${params}`;
    history.replaceState(null, "", url);
    $("share-link").href = url;
  }

  async function advise() {
    const mine = ++sequence;
    if (!state.rules) return;
    const query = {rules: state.rules.id, dice: diceText(), rolls_left: Number(rollsLeft()), card: cardText()};
    updateUrl();
    const goal = target();
    // the target's answer on its own: a missing target table leaves the expected-score advice shown
    const aimed = goal === null ? Promise.resolve(null) :
      YZ.api("/api/hint", {...query, target: goal}).catch((e) => ({error: e.message}));
    let hint, value, targeted;
    try {
      [hint, value, targeted] = await Promise.all([
        YZ.api("/api/hint", query),
        YZ.api("/api/value", {rules: query.rules, card: query.card}),
        aimed,
      ]);
    } catch (e) {
      if (mine === sequence) showError(e.message, e.build);
      return;
    }
    if (mine !== sequence) return;  // a newer question is on its way
    const chances = new Map();
    const shown = $("target-result");
    if (targeted === null) {
      shown.hidden = true;
    } else if (targeted.error) {
      shown.textContent = `P(reach ${goal}) is not available: ${targeted.error}`;
      shown.className = "error";
      shown.hidden = false;
    } else {
      for (const o of targeted.options) chances.set(optionKey(o), o.p_target);
      const top = targeted.options[0];
      shown.textContent = `To reach ${goal}: ${YZ.describe(top)}, P(reach ${goal}) = ` +
        `${(100 * top.p_target).toFixed(3)}% (playing for the target from here on).`;
      shown.className = "best-target";
      shown.hidden = false;
    }
    $("target-col").hidden = chances.size === 0;
    $("target-col").textContent = goal === null ? "P(reach target)" : `P(reach ${goal})`;
    $("error").hidden = true;
    const best = hint.options.filter((o) => o.best);
    $("best").textContent = `Best: ${YZ.describe(best[0])}` +
      (best.length > 1 ? ` (equally good: ${best.slice(1).map(YZ.describe).join("; ")})` : "");
    $("card-value").textContent = `Before this turn's first roll the card was worth ${value.expected_final.toFixed(2)} ` +
      `expected final points (${value.ev.toFixed(2)} still to come).`;
    const body = $("options").querySelector("tbody");
    body.replaceChildren();
    hint.options.forEach((o, i) => {
      body.append(YZ.el("tr", {class: o.best ? "is-best" : null},
        YZ.el("td", {text: String(i + 1)}),
        YZ.el("td", {text: YZ.describe(o)}),
        YZ.el("td", {class: "num", text: o.expected_final.toFixed(2)}),
        YZ.el("td", {class: "num", text: o.best ? "best" : `\u2212${o.regret.toFixed(3)}`}),
        chances.size ? YZ.el("td", {class: "num", text: percent(chances.get(optionKey(o)))}) : null));
    });
    $("options").hidden = false;
  }

  function changed() {
    clearTimeout(timer);
    timer = setTimeout(advise, 150);
  }

  /** The position in the page's address; what cannot be used is named (and the default kept),
   *  never silently rewritten: `?dice=99999&rolls=7` says so. */
  function readUrl() {
    const params = new URLSearchParams(location.search);
    const bad = [];
    const dice = params.get("dice");
    if (dice !== null) {
      const faces = dice.replace(/[\s,]/g, "");
      if (/^[1-6]{5}$/.test(faces)) state.dice = faces.split("").map(Number);
      else bad.push(`dice=${dice} (five faces from 1 to 6, such as 33456)`);
    }
    const rolls = params.get("rolls");
    if (rolls !== null) {
      if (["0", "1", "2"].includes(rolls)) document.querySelector(`input[name="rolls"][value="${rolls}"]`).checked = true;
      else bad.push(`rolls=${rolls} (0, 1 or 2 rolls left)`);
    }
    const goal = (params.get("target") || "").trim();
    if (/^[0-9]+$/.test(goal)) $("target").value = goal;
    else if (goal) bad.push(`target=${goal} (a score)`);
    return {rules: params.get("rules") || "yahtzee", card: params.get("card") || "", bad};
  }

  async function start() {
    const wanted = readUrl();
    showDice();
    for (let i = 0; i < 5; i++) {
      const b = $(`die-${i + 1}`);
      b.addEventListener("click", () => setDie(i, state.dice[i] % 6 + 1));
      b.addEventListener("keydown", (e) => {
        if (e.key >= "1" && e.key <= "6") {
          e.preventDefault();
          setDie(i, Number(e.key));
          if (i < 4) $(`die-${i + 2}`).focus();
        }
      });
    }
    $("dice-text").addEventListener("input", () => {
      const faces = $("dice-text").value.replace(/[^0-9]/g, "");
      if (/^[1-6]{5}$/.test(faces)) {
        state.dice = faces.split("").map(Number);
        showDice();
        changed();
      } else if (faces.length >= 5) {
        showError(`dice ${$("dice-text").value} are not five faces from 1 to 6`);
      }
    });
    for (const radio of document.querySelectorAll('input[name="rolls"]')) radio.addEventListener("change", changed);
    $("target").addEventListener("input", changed);
    $("target").addEventListener("change", changed);
    $("rules").addEventListener("change", async () => {
      try {
        await loadRules($("rules").value.trim() || "yahtzee");
        changed();
      } catch (e) {
        showError(e.message, e.build);
      }
    });
    $("apply-card").addEventListener("click", () => useCardText($("card-text").value));
    $("card-text").addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); useCardText($("card-text").value); }
    });
    $("clear-card").addEventListener("click", () => { applyCardText(""); $("card-text").value = ""; changed(); });
    $("position").addEventListener("submit", (e) => { e.preventDefault(); clearTimeout(timer); advise(); });
    try {
      const list = await YZ.api("/api/rules");
      const names = new Set([...Object.keys(list.bases), ...Object.keys(list.named), ...Object.keys(list.aliases)]);
      for (const name of names) $("rule-names").append(YZ.el("option", {value: name}));
      await loadRules(wanted.rules);
      if (await useCardText(wanted.card)) {
        clearTimeout(timer);
        await advise();
      }
      if (wanted.bad.length) {  // said, with the advice of the position shown kept in view
        $("error").textContent = `This link's ${wanted.bad.join("; ")} cannot be used: the position shown keeps the page's own.`;
        $("error").hidden = false;
      }
    } catch (e) {
      showError(e.message, e.build);
    }
    document.body.dataset.ready = "1";
  }

  start();
})();
