/* The review page: a saved game's decisions beside the best (/api/review: `yahtzee review --json`),
   picked from the finished games (/api/saved-games?status=finished) or named in the address. */
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const RATING_CLASS = {"perfect play": "perfect", excellent: "excellent", good: "good", fair: "fair", "room to improve": "room"};

  function showError(message) {
    $("error").textContent = message;
    $("error").hidden = !message;
  }

  const fixed = (x, n) => (x === null || x === undefined ? "\u2013" : x.toFixed(n));
  const pct = (p) => `${(100 * p).toFixed(1)}%`;

  function gameWords(g) {
    return [YZ.savedAt(g.saved_at), g.title || g.rules, YZ.modeWords(g),
            g.players.map((p, i) => `${p}: ${g.scores[i]}`).join(", ")].filter(Boolean).join(" \u00b7 ");
  }

  function summary(r) {
    const items = [
      ["Score", `${r.score}${r.complete ? "" : " (so far)"}`],
      ["Decisions", String(r.n_decisions)],
      ["Mistakes", String(r.mistakes)],
      ["Expected loss (points)", fixed(r.total_loss, 2)],
      ["Mean loss per decision", fixed(r.average_loss, 3)],
      ["Verdict", r.rating || "no decisions"],
    ];
    const dl = YZ.el("dl", {class: "summary"});
    for (const [k, v] of items) {
      const dd = YZ.el("dd", {text: v});
      if (k === "Verdict" && r.rating) dd.className = `rating-${RATING_CLASS[r.rating] || "fair"}`;
      dl.append(YZ.el("div", {}, YZ.el("dt", {text: k}), dd));
    }
    return dl;
  }

  function decisionsTable(r, report) {
    const win = new Map((report.p_win_by_turn || []).map((w) => [w.turn, w]));
    const target = r.decisions.some((d) => d.p_target_choice !== undefined) ? report.target : null;
    const heads = ["Turn, dice", "Your choice", "Best choice", "Loss"];
    if (target) heads.push(`P(\u2265${target})`);
    if (win.size) heads.push("P(win)");
    const table = YZ.el("table", {class: "decisions"},
      YZ.el("caption", {text: `${r.name}: every decision (expected final score under each; loss in expected points)`}),
      YZ.el("thead", {}, YZ.el("tr", {}, ...heads.map((h) => YZ.el("th", {scope: "col", class: /^(Loss|P\()/.test(h) ? "num" : null, text: h})))));
    const body = YZ.el("tbody");
    let lastTurn = null;
    for (const d of r.decisions) {
      const mistake = d.loss > 1e-6;
      const when = d.kind === "box" ? "box" : `roll ${d.roll}`;
      const cls = [mistake ? "mistake" : "fine", d.turn !== lastTurn ? "turn-start" : ""].filter(Boolean).join(" ");
      lastTurn = d.turn;
      const tr = YZ.el("tr", {class: cls},
        YZ.el("td", {}, `${d.round} \u00b7 ${when}`, YZ.el("span", {class: "dice-text", text: d.dice.split("").join(" ")})),
        YZ.el("td", {}, mine(d), YZ.el("span", {class: "ev", text: `expected ${fixed(d.expected_final_choice, 2)}`})),
        mistake
          ? YZ.el("td", {}, d.best, YZ.el("span", {class: "ev", text: `expected ${fixed(d.expected_final_best, 2)}`}))
          : YZ.el("td", {}, YZ.el("span", {class: "mark", text: "\u2713 best"})),
        YZ.el("td", {class: "num loss", text: mistake ? `\u2212${fixed(d.loss, 2)}` : "0"}));
      if (target) tr.append(YZ.el("td", {class: "num", text: d.p_target_choice === undefined ? "" : `${pct(d.p_target_choice)} (best ${pct(d.p_target_best)})`}));
      if (win.size) {
        const w = d.kind === "box" ? win.get(d.turn) : null;
        tr.append(YZ.el("td", {class: "num", text: w ? `${pct(w.before)} \u2192 ${pct(w.after)}` : ""}));
      }
      body.append(tr);
    }
    table.append(body);
    return table;
  }

  /** The player's choice in words: a stop names no box (the box is the next row's). */
  function mine(d) {
    return d.kind === "keep" && d.choice.startsWith("stop") ? "stop rolling" : d.choice;
  }

  function biggest(r) {
    const worst = r.decisions.reduce((a, d) => (a === null || d.loss > a.loss ? d : a), null);
    if (!worst || worst.loss <= 1e-6) return null;
    return `Biggest loss: turn ${worst.round}, dice ${worst.dice.split("").join(" ")}: ${mine(worst)} instead of ${worst.best} (\u2212${fixed(worst.loss, 2)}).`;
  }

  async function render(report, entry) {
    const out = $("report");
    out.replaceChildren();
    const g = entry || {rules: report.rules, mode: report.mode, level: report.level, date: report.date, saved_at: report.saved_at, players: [], scores: []};
    let title = g.title;
    if (!title) {
      try { title = (await YZ.api(`/api/rules?rules=${encodeURIComponent(report.rules)}`)).title; } catch (e) { title = report.rules; }
    }
    const dice = report.dice === "seeded" && report.seed !== undefined ? `, seed ${report.seed}` : report.dice === "real" ? ", real dice" : "";
    out.append(YZ.el("h2", {text: `${title}: ${YZ.modeWords(report)}${dice}`}));
    const facts = `Saved ${YZ.savedAt(report.saved_at)}; ${report.finished ? "finished" : `not finished (${report.status}): the decisions made so far`}.`;
    out.append(YZ.el("p", {class: "help", text: facts}));
    if (report.note) out.append(YZ.el("p", {class: "help", text: `Compared with ${report.note}.`}));
    if (report.p_win_by_turn) out.append(YZ.el("p", {class: "help", text: "P(win): your chance to win (a tie counts half) before each turn and after its box."}));
    if (report.players.some((r) => r.decisions.some((d) => d.p_target_choice !== undefined))) out.append(YZ.el("p", {class: "help", text: `P(\u2265${report.target}): your chance of reaching ${report.target} after each choice, and after the best choice for it.`}));
    if (!report.players.length) out.append(YZ.el("p", {text: "No person played in this game: nothing to review."}));
    const only = YZ.el("input", {type: "checkbox", id: "only-mistakes"});
    if (report.players.some((r) => r.decisions.length)) {
      out.append(YZ.el("p", {}, YZ.el("label", {for: "only-mistakes"}, only, " Show only the mistakes")));
    }
    for (const r of report.players) {
      const section = YZ.el("section", {class: "player-review", "aria-label": `${r.name}'s review`});
      section.append(YZ.el("h3", {text: `${r.name}: ${r.score} points`}), summary(r));
      const big = biggest(r);
      if (big) section.append(YZ.el("p", {text: big}));
      if (r.decisions.length) section.append(decisionsTable(r, report));
      out.append(section);
    }
    only.addEventListener("change", () => {
      for (const tr of out.querySelectorAll("tr.fine")) tr.hidden = only.checked;
    });
    document.title = `Yahtzee solver: review of ${report.name}`;
  }

  let finished = [];

  async function show(name) {
    showError("");
    $("report").replaceChildren(YZ.el("p", {class: "help", text: "Reviewing every decision\u2026"}));
    document.body.dataset.report = "loading";
    try {
      const report = await YZ.api(`/api/review?game=${encodeURIComponent(name)}`);
      await render(report, finished.find((g) => g.name === name));
      document.body.dataset.report = report.name;
    } catch (e) {
      $("report").replaceChildren();
      showError(`This game cannot be reviewed: ${e.message}`);
      if (e.build) $("error").append(" ", YZ.buildButton(e.build, () => show(name)));
      document.body.dataset.report = "error";
    }
  }

  async function start() {
    // a "+" typed unencoded in a link reads as a space: saved games' names have none
    const name = (new URLSearchParams(location.search).get("game") || "").replace(/ /g, "+") || null;
    try {
      finished = (await YZ.api("/api/saved-games?status=finished")).games;
    } catch (e) {
      showError(`The saved games cannot be listed: ${e.message}`);
    }
    const pick = $("game-pick");
    if (name && !finished.some((g) => g.name === name)) pick.append(YZ.el("option", {value: name, text: name}));
    for (const g of finished) pick.append(YZ.el("option", {value: g.name, text: gameWords(g)}));
    if (!pick.options.length) {
      pick.append(YZ.el("option", {value: "", text: "no finished game yet"}));
      pick.disabled = true;
      $("show").disabled = true;
      $("report").replaceChildren(YZ.el("p", {}, "No finished game to review yet: ", YZ.el("a", {href: "/play", text: "play one"}), "."));
    }
    if (name) pick.value = name;
    $("pick").addEventListener("submit", (event) => {
      event.preventDefault();
      if (!pick.value) return;
      const url = new URL(location.href);
      url.searchParams.set("game", pick.value);
      history.pushState(null, "", url);
      show(pick.value);
    });
    window.addEventListener("popstate", () => {
      const again = new URLSearchParams(location.search).get("game");
      if (again) { pick.value = again; show(again); }
    });
    if (name) await show(name);
    document.body.dataset.ready = "1";
  }

  start();
})();
