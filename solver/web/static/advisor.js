/* The advisor page: dice, rolls left, card and an optional target in; /api/hint and /api/value
   out (with a target, /api/hint's P(reach target) per option); on request the exact distribution
   of the final score (/api/distribution) drawn as an inline SVG chart; a rule-set picker
   (/api/rules). The position is in the URL. */
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  // card: entry key (ones, yahtzee_bonus; on the triple card ones@2, yahtzee_bonus@2) -> score text
  const state = {dice: [1, 2, 3, 4, 5], rules: null, card: {}, chart: false, list: null};
  let timer = null;
  let sequence = 0;
  let urlDice = null;  // the link's dice, kept until the rule set shows how many it rolls

  /** The dice the rule set rolls: five, six in Maxi Yatzy (its n_dice). */
  function nDice() {
    return state.rules && state.rules.n_dice === 6 ? 6 : 5;
  }
  const word = () => (nDice() === 6 ? "six" : "five");

  function diceText() {
    return state.dice.join("");
  }

  function rollsLeft() {
    return document.querySelector('input[name="rolls"]:checked').value;
  }

  /** The card's columns: [""] for a single card, ["@1", "@2", "@3"] for the triple card. */
  function columns() {
    const rules = state.rules;
    return rules && rules.triple ? rules.weights.map((w, i) => `@${i + 1}`) : [""];
  }

  /** Every entry key of the card, in the order the card writes them. */
  function entryKeys() {
    if (!state.rules) return [];
    const keys = [];
    for (const col of columns()) {
      for (const box of state.rules.box_details) keys.push(box.name + col);
      if (state.rules.yahtzee_bonus) keys.push("yahtzee_bonus" + col);
    }
    return keys;
  }

  function cardText() {
    const parts = [];
    for (const key of entryKeys()) {
      const v = state.card[key];
      if (v !== undefined && v !== "" && !(key.startsWith("yahtzee_bonus") && v === "0")) parts.push(`${key}=${v}`);
    }
    return parts.join(",");
  }

  function showDice() {
    $("die-6").hidden = nDice() !== 6;
    $("dice-set").querySelector(".dice").setAttribute("aria-label", `the ${word()} dice`);
    $("dice-help").textContent = `Click a die to count it up, press a digit 1-6 on it, or type all ${word()}.`;
    $("dice-text").placeholder = nDice() === 6 ? "334566" : "33456";
    state.dice.forEach((face, i) => YZ.drawDie($(`die-${i + 1}`), face, `die ${i + 1}: ${face}`));
    if (document.activeElement !== $("dice-text")) $("dice-text").value = diceText();
  }

  function setDie(i, face) {
    state.dice[i] = face;
    showDice();
    changed();
  }

  /** One select: "open" (or 0 for a bonus) and every score the box can hold. */
  function scoreSelect(key, scores, open, label) {
    const select = YZ.el("select", {id: `box-${key}`, name: key, "aria-label": label, onchange: () => {
      state.card[key] = select.value;
      $("card-text").value = cardText();
      changed();
    }});
    if (open) select.append(YZ.el("option", {value: "", text: "open"}));
    for (const s of scores) select.append(YZ.el("option", {value: String(s), text: String(s)}));
    select.value = state.card[key] || (open ? "" : "0");
    return select;
  }

  function bonusScores() {
    return Array.from({length: 13}, (_, k) => k * state.rules.yahtzee_bonus);
  }

  /** The card's form, compact: the upper and the lower boxes side by side, one select each
   *  (the triple card: a table, one column of selects per column of the card). */
  function buildCard() {
    const holder = $("card-boxes");
    holder.replaceChildren();
    const rules = state.rules;
    const ruleOf = (box) => box.rule + (box.joker !== undefined ? ` (Joker: ${box.joker})` : "");
    if (rules.triple) {
      const head = YZ.el("tr", {}, YZ.el("th", {scope: "col", text: "Box"}),
        ...rules.weights.map((w, i) => YZ.el("th", {scope: "col", class: "num", text: `${i + 1} (\u00d7${w})`})));
      const body = YZ.el("tbody");
      const row = (name, title, make) => body.append(YZ.el("tr", {},
        YZ.el("th", {scope: "row", text: YZ.label(name), title}),
        ...columns().map((col) => YZ.el("td", {}, make(col)))));
      for (const box of rules.box_details) {
        row(box.name, ruleOf(box), (col) => scoreSelect(box.name + col, box.scores, true, YZ.label(box.name + col)));
      }
      if (rules.yahtzee_bonus) {
        row("yahtzee_bonus", "", (col) => scoreSelect("yahtzee_bonus" + col, bonusScores(), false, YZ.label("yahtzee_bonus" + col)));
      }
      holder.append(YZ.el("table", {class: "triple-card"}, YZ.el("thead", {}, head), body));
      holder.className = "card-boxes triple";
      return;
    }
    holder.className = "card-boxes";
    const upper = YZ.el("div", {class: "card-col"});
    const lower = YZ.el("div", {class: "card-col"});
    for (const box of rules.box_details) {
      const id = `box-${box.name}`;
      (box.upper ? upper : lower).append(YZ.el("div", {class: "box-field" + (box.upper ? " upper" : "")},
        YZ.el("label", {for: id, text: YZ.label(box.name), title: ruleOf(box)}),
        scoreSelect(box.name, box.scores, true, null)));
    }
    if (rules.yahtzee_bonus) {
      lower.append(YZ.el("div", {class: "box-field"},
        YZ.el("label", {for: "box-yahtzee_bonus", text: "Yahtzee bonus"}),
        scoreSelect("yahtzee_bonus", bonusScores(), false, null)));
    }
    if (upper.childElementCount) holder.append(upper);
    holder.append(lower);
  }

  /** Read a card in our notation into the form (the server checks it when advising). */
  function applyCardText(text) {
    state.card = {};
    const keys = new Set(entryKeys());
    for (const entry of text.split(/[,;]/)) {
      if (!entry.trim()) continue;
      const [rawKey, rawValue] = entry.split(/[=:]/);
      const key = (rawKey || "").trim().toLowerCase().replace(/[ -]/g, "_");
      if (keys.has(key)) state.card[key] = (rawValue || "").trim();
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

  function setRules(info) {
    state.rules = info;
    if (document.activeElement !== $("rules")) $("rules").value = info.id;  // never under the typing
    $("rules-title").textContent = info.title;
    syncPicker(info.id);
    // the dice the rule set rolls: a sixth die added (a 6) or the sixth dropped
    const n = nDice();
    if (urlDice && urlDice.length === n) state.dice = urlDice;
    urlDice = null;
    if (state.dice.length !== n) state.dice = n === 6 ? [...state.dice, 6] : state.dice.slice(0, 5);
    showDice();
  }

  /** The entries of a card for people: "Full house = 25". */
  function entriesInWords(entries) {
    const words = entries.map((e) => `${YZ.label(e.box)} = ${e.score}`);
    if (words.length < 2) return words.join("");
    return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
  }

  /** A new rule set, keeping what of the card it can hold. What it cannot hold is never dropped
   *  silently: one message names it, with the reasons and a way back to the card as it was. */
  async function changeRules(spec) {
    const before = state.rules ? {rules: state.rules.id, card: cardText()} : null;
    const query = new URLSearchParams({rules: spec});
    if (before) query.set("card", before.card);
    const info = await YZ.api(`/api/rules?${query}`);
    setRules(info);
    const kept = info.fit ? info.fit.card : "";
    applyCardText(kept);
    $("card-text").value = kept;
    const message = $("rules-message");
    message.replaceChildren();
    const gone = info.fit ? info.fit.left_out : [];
    if (gone.length) {
      const keptWords = kept ? `kept: ${kept.split(",").map((e) => {
        const [k, v] = e.split("=");
        return `${YZ.label(k)} = ${v}`;
      }).join(", ")}` : "nothing else was on the card";
      message.append(
        YZ.el("p", {}, YZ.el("strong", {text: `${info.id} cannot hold ${entriesInWords(gone)} of your card: `}),
          `${gone.length === 1 ? "it was" : "they were"} left out (${keptWords}). `,
          YZ.el("button", {type: "button", id: "rules-undo", text: `Back to ${before.rules} with the whole card`,
            onclick: () => restore(before)})),
        YZ.el("details", {}, YZ.el("summary", {text: "Why"}),
          YZ.el("ul", {}, ...gone.map((e) => YZ.el("li", {text: e.reason})))));
      message.hidden = false;
    } else {
      message.hidden = true;
    }
    changed();
  }

  async function restore(before) {
    try {
      setRules(await YZ.api(`/api/rules?${new URLSearchParams({rules: before.rules})}`));
      applyCardText(before.card);
      $("card-text").value = before.card;
      $("rules-message").hidden = true;
      changed();
    } catch (e) {
      showError(e.message, e.build);
    }
  }

  // --- the rule-set picker ---------------------------------------------------------------
  /** The picker's spec: the base and each ticked house rule (NAME or NAME=VALUE). */
  function pickedSpec() {
    const base = document.querySelector('input[name="base"]:checked');
    const parts = [base ? base.value : "yahtzee"];
    for (const m of state.list.modifier_details) {
      if (!$(`mod-${m.name}`).checked) continue;
      parts.push(m.takes_value ? `${m.name}=${$(`mod-${m.name}-value`).value.trim()}` : m.name);
    }
    return parts.join("+");
  }

  /** A house rule's value given: the house rule is wanted (its box ticked). */
  function valueGiven(event) {
    $(event.target.id.replace(/-value$/, "")).checked = true;
    previewPicked();
  }

  function buildPicker(list) {
    const bases = $("bases");
    for (const [id, title] of Object.entries(list.bases)) {
      bases.append(YZ.el("label", {class: "pick"},
        YZ.el("input", {type: "radio", name: "base", value: id, id: `base-${id}`, onchange: previewPicked}),
        YZ.el("span", {}, YZ.el("code", {text: id}), " ", title)));
    }
    const mods = $("modifiers");
    for (const m of list.modifier_details) {
      const [, valueSyntax] = m.syntax.split("=");
      let value = null;
      if (m.takes_value) {
        const choices = valueSyntax.includes("|") ? valueSyntax.split("|") : null;
        value = choices ?
          YZ.el("select", {id: `mod-${m.name}-value`, "aria-label": `${m.name}: value`, onchange: valueGiven},
            ...choices.map((c) => YZ.el("option", {value: c, text: c}))) :
          YZ.el("input", {id: `mod-${m.name}-value`, "aria-label": `${m.name}: ${valueSyntax}`, placeholder: valueSyntax,
            spellcheck: "false", oninput: valueGiven});
      }
      mods.append(YZ.el("div", {class: "pick"},
        YZ.el("input", {type: "checkbox", id: `mod-${m.name}`, value: m.name, onchange: previewPicked}),
        YZ.el("label", {for: `mod-${m.name}`}, YZ.el("code", {text: m.takes_value ? `${m.name}=` : m.name})),
        value, YZ.el("span", {class: "muted", text: ` ${m.help}`})));
    }
  }

  /** The picker shows the rule set `id` (canonical: BASE+MOD+MOD=VALUE...). */
  function syncPicker(id) {
    if (!state.list) return;
    const [base, ...mods] = id.split("+");
    const radio = $(`base-${base}`);
    if (radio) radio.checked = true;
    const given = new Map(mods.map((m) => {
      const at = m.indexOf("=");
      return at < 0 ? [m, null] : [m.slice(0, at), m.slice(at + 1)];
    }));
    for (const m of state.list.modifier_details) {
      $(`mod-${m.name}`).checked = given.has(m.name);
      if (m.takes_value && given.get(m.name)) $(`mod-${m.name}-value`).value = given.get(m.name);
    }
    $("picker-spec").textContent = id;
  }

  let previewSequence = 0;
  /** The card the picked rules give, shown in the picker before it is used. */
  async function previewPicked() {
    const spec = pickedSpec();
    const mine = ++previewSequence;
    $("picker-spec").textContent = spec;
    let info;
    try {
      info = await YZ.api(`/api/rules?${new URLSearchParams({rules: spec})}`);
    } catch (e) {
      if (mine !== previewSequence) return;
      $("picker-error").textContent = e.message;
      $("picker-error").hidden = false;
      $("picker-card").replaceChildren();
      $("use-rules").disabled = true;
      return;
    }
    if (mine !== previewSequence) return;
    $("picker-error").hidden = true;
    $("use-rules").disabled = false;
    $("picker-spec").textContent = info.id;
    showCardOf(info);
  }

  function showCardOf(info) {
    const list = YZ.el("ol", {class: "rule-boxes"}, ...info.box_details.map((b) =>
      YZ.el("li", {}, YZ.el("strong", {text: YZ.label(b.name)}), ` ${b.rule}` +
        (b.joker !== undefined ? ` (Joker: ${b.joker})` : ""))));
    const value = info.reference_value ? `; optimal play averages ${info.reference_value.toFixed(2)} points` : "";
    $("picker-card").replaceChildren(
      YZ.el("p", {}, YZ.el("strong", {text: info.title}), `: ${info.box_details.length} boxes` +
        (info.triple ? ` in ${info.weights.length} columns weighted ${info.weights.map((w) => `\u00d7${w}`).join(", ")}` : "") + value),
      list,
      YZ.el("ul", {class: "rule-lines"}, ...info.rule_lines.map((line) => YZ.el("li", {text: line}))));
  }

  function openPicker(open) {
    $("rules-picker").hidden = !open;
    $("pick-rules").setAttribute("aria-expanded", String(open));
    if (open) {
      syncPicker(state.rules.id);
      showCardOf(state.rules);
      $("picker-error").hidden = true;
      $("use-rules").disabled = false;
      const checked = document.querySelector('input[name="base"]:checked');
      if (checked) checked.focus();
    }
  }

  // --- advice --------------------------------------------------------------------------
  function showError(message, build) {
    $("error").textContent = message;
    if (build) $("error").append(" ", YZ.buildButton(build, () => location.reload()));
    $("error").hidden = false;
    $("best").textContent = "";
    $("card-value").textContent = "";
    $("target-result").hidden = true;
    $("advice-note").hidden = true;
    $("options").hidden = true;
  }

  /** The target typed in (a whole number of 1 or more), or null. */
  function target() {
    const text = $("target").value.trim();
    return /^[0-9]{1,6}$/.test(text) && Number(text) >= 1 ? Number(text) : null;
  }

  function percent(p, digits = 3) {
    return typeof p === "number" ? `${(100 * p).toFixed(digits)}%` : "\u2013";
  }

  /** An option's identity in both rankings: the dice kept, or the box scored. */
  function optionKey(o) {
    return o.keep !== undefined ? `keep ${o.keep.join("")}` : `box ${o.category}@${o.column || ""}`;
  }

  function updateUrl() {
    const params = new URLSearchParams({rules: state.rules.id, dice: diceText(), rolls: rollsLeft()});
    const card = cardText();
    if (card) params.set("card", card);
    if (target() !== null) params.set("target", String(target()));
    if (state.chart) params.set("chart", "1");
    const url = `/?${params}`;
    history.replaceState(null, "", url);
    $("share-link").href = url;
  }

  /** P(reach T) under target play, in words: exact, 0 out of reach, or a bound beyond the table. */
  function targetWords(goal, targeted) {
    const top = targeted.options[0];
    if (targeted.capped_at !== undefined) {
      const bound = top.p_target < 0.0005 ? `about 0% (at most ${percent(top.p_target, 4)})` : `at most ${percent(top.p_target)}`;
      return `To reach ${goal}: P(reach ${goal}) is ${bound}: the target table holds final scores up to ` +
        `${targeted.capped_at} from this card, and that is the chance of ${targeted.capped_at} (best for it: ${YZ.describe(top, nDice())}).`;
    }
    if (top.p_target === 0) return `To reach ${goal}: 0%, out of reach from this position.`;
    return `To reach ${goal}: ${YZ.describe(top, nDice())}, P(reach ${goal}) = ${percent(top.p_target)} (playing for the target from here on).`;
  }

  async function advise() {
    const mine = ++sequence;
    if (!state.rules) return;
    const query = {rules: state.rules.id, dice: diceText(), rolls_left: Number(rollsLeft()), card: cardText()};
    updateUrl();
    const goal = target();
    // the target's answer on its own: a missing target table leaves the expected-score advice shown
    // (six dice: no target table yet, so no target advice)
    const aimed = goal === null || state.rules.triple || nDice() === 6 ? Promise.resolve(null) :
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
      shown.className = "muted target-missing";
      shown.hidden = false;
    } else {
      for (const o of targeted.options) chances.set(optionKey(o), o.p_target);
      shown.textContent = targetWords(goal, targeted);
      shown.className = "best-target";
      shown.hidden = false;
    }
    $("target-col").hidden = chances.size === 0;
    $("target-col").textContent = goal === null ? "P(reach target)" :
      (targeted && targeted.capped_at !== undefined ? `P(reach ${goal}) at most` : `P(reach ${goal})`);
    $("error").hidden = true;
    const best = hint.options.filter((o) => o.best);
    $("best").textContent = `Best: ${YZ.describe(best[0], nDice())}` +
      (best.length > 1 ? ` (equally good: ${best.slice(1).map((o) => YZ.describe(o, nDice())).join("; ")})` : "");
    $("card-value").textContent = `Expected final ${best[0].expected_final.toFixed(2)} with the best move ` +
      `(the card: ${value.expected_final.toFixed(2)} expected final points before this turn's first roll).`;
    $("advice-note").textContent = hint.note ? `Note: ${hint.note}` : "";  // the triple card's: what the advice is
    $("advice-note").hidden = !hint.note;
    const body = $("options").querySelector("tbody");
    body.replaceChildren();
    hint.options.forEach((o, i) => {
      body.append(YZ.el("tr", {class: o.best ? "is-best" : null},
        YZ.el("td", {class: "num", text: String(i + 1)}),
        YZ.el("td", {text: YZ.describe(o, nDice())}),
        YZ.el("td", {class: "num", text: o.expected_final.toFixed(2)}),
        YZ.el("td", {class: "num", text: o.best ? "best" : `\u2212${o.regret.toFixed(3)}`}),
        chances.size ? YZ.el("td", {class: "num", text: percent(chances.get(optionKey(o)))}) : null));
    });
    $("options").hidden = false;
    chartChanged();
  }

  function changed() {
    clearTimeout(timer);
    timer = setTimeout(advise, 150);
  }

  // --- the chart of the final score --------------------------------------------------------
  let chartTimer = null;
  let chartAbort = null;
  let chartSequence = 0;
  let shownDist = null;  // {key, dist}: the distribution drawn, and the position it is for

  function positionKey() {
    return [state.rules.id, cardText(), diceText(), rollsLeft()].join("|");
  }

  function chartChanged() {
    if (!state.chart) return;
    if (shownDist && shownDist.key === positionKey()) {  // the same position: only the target moved
      drawChart(shownDist.dist, target());
      return;
    }
    clearTimeout(chartTimer);
    chartTimer = setTimeout(loadDistribution, 300);
  }

  function setChart(on) {
    state.chart = on;
    $("chart-button").setAttribute("aria-pressed", String(on));
    $("chart-button").textContent = on ? "Hide the chart" : "Chart the final score";
    if (!on) {
      if (chartAbort) chartAbort.abort();
      $("dist-chart").replaceChildren();
      $("dist-reach").hidden = true;
      $("dist-summary").hidden = true;
      $("dist-status").textContent = "The exact distribution of the final score from this position, playing for " +
        "the expected score (from an early card it takes up to half a minute).";
      shownDist = null;
    }
    if (state.rules) updateUrl();
    if (on) chartChanged();
  }

  async function loadDistribution() {
    if (chartAbort) chartAbort.abort();  // the server stops the job of a question nobody waits for
    const controller = new AbortController();
    chartAbort = controller;
    const mine = ++chartSequence;
    const key = positionKey();
    const body = {rules: state.rules.id, card: cardText(), dice: diceText(), rolls_left: Number(rollsLeft())};
    $("dist-status").textContent = "Computing the exact distribution\u2026";
    $("chart-button").disabled = false;
    let dist;
    try {
      dist = await YZ.api("/api/distribution", body, controller.signal);
    } catch (e) {
      if (e.name === "AbortError" || mine !== chartSequence) return;
      $("dist-status").textContent = `No chart: ${e.message}`;
      $("dist-chart").replaceChildren();
      $("dist-reach").hidden = true;
      $("dist-summary").hidden = true;
      shownDist = null;
      return;
    }
    if (mine !== chartSequence || !state.chart) return;
    shownDist = {key, dist};
    const rolls = {0: "no rolls left", 1: "1 roll left", 2: "2 rolls left"}[body.rolls_left];
    $("dist-status").textContent = `Exact, from this position (dice ${state.dice.join(" ")}, ${rolls}, ` +
      `${body.card ? "this card" : "the empty card"}), playing for the expected score from here on.`;
    drawChart(dist, target());
  }

  /** A round step for about `n` ticks over `span`. */
  function niceStep(span, n) {
    const raw = span / n;
    const power = 10 ** Math.floor(Math.log10(raw));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= raw) return m * power;
    return 10 * power;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /** The distribution `dist` (distribution --json) as bars, one per final score, over the
   *  range that holds all but 0.1% of it (what lies outside is said below the chart); the
   *  bars at or above `goal` are marked, and P(final >= goal) is read off them. */
  function drawChart(dist, goal) {
    const pmf = Object.entries(dist.pmf).map(([s, p]) => [Number(s), p]).sort((a, b) => a[0] - b[0]);
    let cum = 0;
    let lo = pmf[0][0];
    let hi = pmf[pmf.length - 1][0];
    let foundLo = false;
    for (const [s, p] of pmf) {
      cum += p;
      if (!foundLo && cum > 0.0005) { lo = s; foundLo = true; }
      if (cum >= 0.9995) { hi = s; break; }
    }
    lo = Math.max(pmf[0][0], Math.floor(lo / 10) * 10);
    hi = Math.min(pmf[pmf.length - 1][0], Math.ceil(hi / 10) * 10);
    if (hi <= lo) hi = lo + 1;
    const drawn = pmf.filter(([s]) => s >= lo && s <= hi);
    const below = pmf.filter(([s]) => s < lo).reduce((a, [, p]) => a + p, 0);
    const above = pmf.filter(([s]) => s > hi).reduce((a, [, p]) => a + p, 0);
    const top = Math.max(...drawn.map(([, p]) => p));
    // drawn at the size it is shown (its text as large as the page's small print)
    const W = Math.round(Math.min(Math.max($("dist-chart").clientWidth || 640, 300), 900));
    const H = Math.round(Math.min(Math.max(W * 0.36, 190), 260)), L = 48, R = 10, T = 34, B = 34;  // T: room above the bars for the marks' labels
    const pw = W - L - R, ph = H - T - B;
    const slot = pw / (hi - lo + 1);
    const x = (s) => L + (s - lo) * slot;
    const y = (p) => T + ph - (p / top) * ph;
    const chart = svg("svg", {viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "dist-svg-title dist-svg-desc",
      class: "dist-svg", preserveAspectRatio: "xMidYMid meet"});
    chart.append(svg("title", {id: "dist-svg-title"}, "Distribution of the final score"));
    chart.append(svg("desc", {id: "dist-svg-desc"},
      `Final scores ${lo} to ${hi}; mean ${dist.mean.toFixed(1)}, median ${dist.percentiles["50"]}.`));
    // the value axis: a few round percentages
    const yStep = niceStep(top, 4);
    for (let v = 0; v <= top + 1e-15; v += yStep) {
      chart.append(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid"}));
      chart.append(svg("text", {x: L - 6, y: y(v) + 4, class: "tick", "text-anchor": "end"},
        `${(100 * v).toFixed(yStep < 0.001 ? 2 : 1)}%`));
    }
    const bars = svg("g", {class: "bars"});
    for (const [s, p] of drawn) {
      const bar = svg("rect", {x: x(s).toFixed(2), width: Math.max(slot * 0.92, 0.6).toFixed(2),
        y: y(p).toFixed(2), height: Math.max(T + ph - y(p), 0).toFixed(2),
        class: goal !== null && s >= goal ? "bar reach" : "bar", "data-score": s, "data-p": p});
      bar.append(svg("title", {}, `${s}: ${percent(p, 3)}`));
      bars.append(bar);
    }
    chart.append(bars);
    // the score axis
    chart.append(svg("line", {x1: L, x2: W - R, y1: T + ph, y2: T + ph, class: "axis"}));
    const xStep = niceStep(hi - lo, Math.max(3, Math.floor(pw / 70)));
    for (let s = Math.ceil(lo / xStep) * xStep; s <= hi; s += xStep) {
      chart.append(svg("line", {x1: x(s) + slot / 2, x2: x(s) + slot / 2, y1: T + ph, y2: T + ph + 4, class: "axis"}));
      chart.append(svg("text", {x: x(s) + slot / 2, y: T + ph + 17, class: "tick", "text-anchor": "middle"}, String(s)));
    }
    chart.append(svg("text", {x: L + pw / 2, y: H - 2, class: "axis-title", "text-anchor": "middle"}, "final score"));
    const mark = (s, cls, label, row) => {  // a vertical line, its label in its own row
      if (s < lo || s > hi + 1) return;
      const at = x(s);
      const right = at > W - R - 90;  // near the right edge: the label on the line's left
      chart.append(svg("line", {x1: at, x2: at, y1: T - 22 + 13 * row, y2: T + ph, class: cls}));
      // the label above the bars (never over them): the target's row on top, the mean's below it
      chart.append(svg("text", {x: right ? at - 4 : at + 4, y: T - 22 + 13 * row + 8, class: `${cls}-label`,
        "text-anchor": right ? "end" : "start"}, label));
    };
    mark(dist.mean, "mean", `mean ${dist.mean.toFixed(1)}`, 1);
    if (goal !== null) mark(goal, "goal", `target ${goal}`, 0);
    $("dist-chart").replaceChildren(chart);

    const reach = $("dist-reach");
    if (goal !== null) {
      // read off the bars: the sum over every final score of at least the target (drawn or not)
      const p = pmf.filter(([s]) => s >= goal).reduce((a, [, q]) => a + q, 0);
      reach.textContent = `P(final \u2265 ${goal}) = ${percent(p)} playing for the expected score (the marked bars).`;
      reach.hidden = false;
    } else {
      reach.textContent = "Type a target to read P(final \u2265 target) off the chart.";
      reach.hidden = false;
    }
    const q = dist.percentiles;
    const outside = below + above > 0 ?
      ` Not drawn: ${below > 0 ? `below ${lo} (${percent(below)})` : ""}${below > 0 && above > 0 ? " and " : ""}` +
      `${above > 0 ? `above ${hi} (${percent(above)})` : ""}.` : "";
    $("dist-summary").textContent = `Mean ${dist.mean.toFixed(2)}, standard deviation ${dist.sd.toFixed(2)}; ` +
      `half the games end at or below ${q["50"]}, 5% at or below ${q["5"]}, 95% at or below ${q["95"]} ` +
      `(25%: ${q["25"]}, 75%: ${q["75"]}, 99%: ${q["99"]}).${outside}`;
    $("dist-summary").hidden = false;
  }

  // --- start ---------------------------------------------------------------------------
  /** The position in the page's address; what cannot be used is named (and the default kept),
   *  never silently rewritten: `?dice=99999&rolls=7` says so. */
  function readUrl() {
    const params = new URLSearchParams(location.search);
    const bad = [];
    const dice = params.get("dice");
    if (dice !== null) {
      const faces = dice.replace(/[\s,]/g, "");
      if (/^[1-6]{5,6}$/.test(faces)) urlDice = faces.split("").map(Number);  // six: Maxi Yatzy's
      else bad.push(`dice=${dice} (five faces from 1 to 6, such as 33456; six in Maxi Yatzy)`);
      if (urlDice && urlDice.length === 5) state.dice = urlDice;
    }
    const rolls = params.get("rolls");
    if (rolls !== null) {
      if (["0", "1", "2"].includes(rolls)) document.querySelector(`input[name="rolls"][value="${rolls}"]`).checked = true;
      else bad.push(`rolls=${rolls} (0, 1 or 2 rolls left)`);
    }
    const goal = (params.get("target") || "").trim();
    if (/^[0-9]{1,6}$/.test(goal)) $("target").value = goal;
    else if (goal) bad.push(`target=${goal} (a score)`);
    return {rules: params.get("rules") || "yahtzee", card: params.get("card") || "", chart: params.get("chart") === "1", bad};
  }

  async function start() {
    const wanted = readUrl();
    showDice();
    for (let i = 0; i < 6; i++) {
      const b = $(`die-${i + 1}`);
      b.addEventListener("click", () => setDie(i, state.dice[i] % 6 + 1));
      b.addEventListener("keydown", (e) => {
        if (e.key >= "1" && e.key <= "6") {
          e.preventDefault();
          setDie(i, Number(e.key));
          if (i < nDice() - 1) $(`die-${i + 2}`).focus();
        }
      });
    }
    $("dice-text").addEventListener("input", () => {
      const faces = $("dice-text").value.replace(/[^0-9]/g, "");
      if (faces.length === nDice() && /^[1-6]+$/.test(faces)) {
        state.dice = faces.split("").map(Number);
        showDice();
        changed();
      } else if (faces.length >= nDice()) {
        showError(`dice ${$("dice-text").value} are not ${word()} faces from 1 to 6`);
      }
    });
    for (const radio of document.querySelectorAll('input[name="rolls"]')) radio.addEventListener("change", changed);
    $("target").addEventListener("input", changed);
    $("target").addEventListener("change", changed);
    $("rules").addEventListener("change", async () => {
      const spec = $("rules").value.trim();
      if (!spec) return;  // cleared to type another: nothing to change yet
      try {
        await changeRules(spec);
      } catch (e) {  // the typed spec stays, to be mended; the advice shown stays that of the rules before
        const message = $("rules-message");
        const still = state.rules ? ` (the advice shown is still for ${state.rules.id})` : "";
        message.replaceChildren(YZ.el("p", {text: `${e.message}${still}`}));
        message.hidden = false;
      }
    });
    $("pick-rules").addEventListener("click", () => openPicker($("rules-picker").hidden));
    $("close-picker").addEventListener("click", () => { openPicker(false); $("pick-rules").focus(); });
    $("use-rules").addEventListener("click", async () => {
      try {
        await changeRules(pickedSpec());
        openPicker(false);
      } catch (e) {
        $("picker-error").textContent = e.message;
        $("picker-error").hidden = false;
      }
    });
    $("chart-button").addEventListener("click", () => setChart(!state.chart));
    let resized = null;
    window.addEventListener("resize", () => {  // the chart drawn again at its new size
      clearTimeout(resized);
      resized = setTimeout(() => { if (state.chart && shownDist) drawChart(shownDist.dist, target()); }, 200);
    });
    $("apply-card").addEventListener("click", () => useCardText($("card-text").value));
    $("card-text").addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); useCardText($("card-text").value); }
    });
    $("clear-card").addEventListener("click", () => { applyCardText(""); $("card-text").value = ""; changed(); });
    $("position").addEventListener("submit", (e) => { e.preventDefault(); clearTimeout(timer); advise(); });
    try {
      const list = await YZ.api("/api/rules");
      state.list = list;
      buildPicker(list);
      const names = new Set([...Object.keys(list.bases), ...Object.keys(list.named), ...Object.keys(list.aliases)]);
      for (const name of names) $("rule-names").append(YZ.el("option", {value: name}));
      const linkDice = urlDice;
      setRules(await YZ.api(`/api/rules?${new URLSearchParams({rules: wanted.rules})}`));
      if (linkDice && linkDice.length !== nDice()) wanted.bad.push(`dice=${linkDice.join("")} (${word()} faces for ${state.rules.id})`);
      buildCard();
      if (wanted.chart) setChart(true);
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
