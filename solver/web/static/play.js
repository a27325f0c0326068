/* The play page: a game on the server (/api/games), drawn from the state each move returns. */
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  let game = null;
  let busy = false;
  let missingTable = null;  // the rule set whose table the last refused call needed

  function showError(message) {
    $("error").textContent = message;
    $("error").hidden = !message;
  }

  async function call(path, body) {
    if (busy) return null;
    busy = true;
    try {
      const result = await YZ.api(path, body);
      showError("");
      return result;
    } catch (e) {
      showError(e.message);
      missingTable = e.build || null;
      if (e.state) render(e.state);  // another tab moved: show the game as it is now
      return null;
    } finally {
      busy = false;
    }
  }

  async function move(action, body) {
    // the state this page shows: a move on an older one (another tab moved since) is refused
    const state = await call(`/api/games/${game.id}/${action}`, {...(body || {}), version: game.version});
    if (state) {
      $("hint-box").replaceChildren();
      render(state);
    }
    return state;
  }

  function statusText(s) {
    if (s.over) return `Game over: ${s.players.map((p) => `${p.name} ${p.total}`).join(", ")}`;
    const who = s.players.length > 1 ? `${s.player}: ` : "";
    const left = s.dice === null ? "roll to start the turn" :
      s.rolls_left === 0 ? "no rolls left: choose a box" :
      `${s.rolls_left} roll${s.rolls_left === 1 ? "" : "s"} left`;
    return `${who}turn ${s.round} of ${s.n_rounds}, ${left} (total ${s.players[s.current].total})`;
  }

  function renderDice(s) {
    for (let i = 0; i < 5; i++) {
      const b = $(`pdie-${i + 1}`);
      const face = s.dice ? s.dice[i] : null;
      const held = Boolean(s.dice && s.held[i]);
      b.replaceChildren(face === null ? "\u00a0" : String(face));
      if (held) b.append(YZ.el("span", {class: "tag", text: "held"}));
      b.setAttribute("aria-pressed", held ? "true" : "false");
      b.setAttribute("aria-label", face === null ? `die ${i + 1}: not rolled` : `die ${i + 1}: ${face}${held ? ", held" : ""}`);
      b.disabled = s.over || face === null || s.rolls_left === 0;
    }
  }

  function cell(s, p, box, index) {
    const score = s.players[p].scores[index];
    if (score !== null) return YZ.el("td", {class: "num", text: String(score)});
    if (p !== s.current || s.players[p].kind !== "human" || s.over) return YZ.el("td", {class: "num", text: ""});
    if (s.dice === null) return YZ.el("td", {class: "num", text: "\u00b7"});
    if (box.allowed) {
      // a Yahtzee bonus comes on top of the box's score: shown with it, as scoring adds it
      const extra = box.bonus ? ` + ${box.bonus} bonus` : "";
      const label = `${YZ.label(box.name)}: score ${box.preview}${extra}`;
      const disabled = s.must_use_all_rolls && s.rolls_left > 0;
      return YZ.el("td", {},
        YZ.el("button", {type: "button", class: "box-btn", id: `box-${box.name}`, "aria-label": label,
          disabled, onclick: () => move("score", {box: box.name})}, `(${box.preview}${box.bonus ? `+${box.bonus}` : ""})`));
    }
    return YZ.el("td", {}, YZ.el("span", {class: "reason", text: `not allowed: ${box.reason || "not for these dice"}`}));
  }

  function renderCard(s) {
    const table = $("card");
    table.replaceChildren();
    table.append(YZ.el("caption", {text: `${s.title} (${s.rules})`}));
    const head = YZ.el("tr", {}, YZ.el("th", {scope: "col", text: "Box"}));
    for (const p of s.players) head.append(YZ.el("th", {scope: "col", class: "num", text: p.name}));
    table.append(YZ.el("thead", {}, head));
    const body = YZ.el("tbody");
    const row = (label, values, cls) => {
      const tr = YZ.el("tr", {class: cls}, YZ.el("th", {scope: "row", text: label}));
      for (const v of values) tr.append(YZ.el("td", {class: "num", text: String(v)}));
      body.append(tr);
    };
    let upperDone = false;
    s.boxes.forEach((box, i) => {
      if (!box.upper && !upperDone) {
        upperDone = true;
        if (s.upper_threshold !== null) {
          row("Upper total", s.players.map((p) => `${p.upper_total}/${s.upper_threshold}`), "sum");
          row("Upper bonus", s.players.map((p) => p.upper_bonus), "sum");
        }
      }
      const tr = YZ.el("tr", {}, YZ.el("th", {scope: "row", text: YZ.label(box.name)}));
      s.players.forEach((p, k) => tr.append(cell(s, k, box, i)));
      body.append(tr);
    });
    if (s.players.some((p) => p.yahtzee_bonus)) row("Yahtzee bonus", s.players.map((p) => p.yahtzee_bonus), "sum");
    row("Total", s.players.map((p) => p.total), "total");
    table.append(body);
  }

  function renderMessages(s) {
    const box = $("messages");
    box.replaceChildren();
    for (const line of s.events) box.append(YZ.el("p", {text: line}));
    if ($("coach").checked) {
      for (const c of s.coach) {
        box.append(YZ.el("p", {class: "coach " + (c.mistake ? "mistake" : "fine"),
          text: c.mistake ? `Coach: ${c.choice} cost ${c.loss.toFixed(2)} expected points; best: ${c.best}`
                          : `Coach: ${c.choice}: best move (0 points lost)`}));
      }
    }
    for (const w of s.warnings) box.append(YZ.el("p", {class: "error", text: `warning: ${w}`}));
  }

  function renderEnd(s) {
    $("end").hidden = false;
    $("turn-area").hidden = true;
    const winners = s.winners.length > 1 ? `tie: ${s.winners.join(" and ")}` : `${s.winners[0]} win${s.winners[0] === "You" ? "" : "s"}`;
    $("final").textContent = s.players.length > 1 ?
      `${s.players.map((p) => `${p.name}: ${p.total}`).join(", ")} \u2014 ${winners}!` :
      `Final score: ${s.players[0].total}`;
    $("record").textContent = s.record || "";
    const review = $("review");
    review.replaceChildren(YZ.el("h3", {text: "Review"}));
    for (const r of s.review || []) {
      review.append(YZ.el("p", {class: "verdict", text: r.verdict}));
      const mistakes = r.decisions.filter((d) => d.loss > 1e-6);
      if (!mistakes.length) continue;
      const t = YZ.el("table", {}, YZ.el("caption", {text: "Your mistakes"}),
        YZ.el("thead", {}, YZ.el("tr", {}, ...["Turn", "Dice", "Your choice", "Best", "Loss"].map((h) => YZ.el("th", {scope: "col", text: h})))));
      const tb = YZ.el("tbody");
      for (const d of mistakes) {
        tb.append(YZ.el("tr", {}, YZ.el("td", {text: String(d.round)}), YZ.el("td", {text: d.dice}),
          YZ.el("td", {text: d.choice}), YZ.el("td", {text: d.best}), YZ.el("td", {class: "num", text: d.loss.toFixed(2)})));
      }
      t.append(tb);
      review.append(t);
    }
    $("share-box").hidden = !s.share;
    $("share").textContent = s.share || "";
    $("review-cmd").textContent = s.review_command;
    $("review-link").href = `/review?game=${encodeURIComponent(s.saved)}`;
    $("again").focus();
  }

  function render(s) {
    game = s;
    $("setup").hidden = true;
    $("table").hidden = false;
    $("status").textContent = statusText(s);
    renderDice(s);
    $("roll").disabled = s.over || s.rolls_left === 0 || (s.dice !== null && s.held.every(Boolean));
    $("roll").textContent = s.dice === null ? "Roll" : "Roll again";
    $("hint").disabled = s.over || s.dice === null;
    $("coach").checked = s.coach_on;  // the server's word: after a reload too
    renderCard(s);
    renderMessages(s);
    if (s.over) renderEnd(s);
    document.body.dataset.state = s.over ? "over" : `r${s.round}-${s.rolls_left}`;
    document.body.dataset.version = String(s.version);  // what the page shows (tests wait on it)
  }

  async function toggle(i) {
    if (!game || game.over || game.dice === null || game.rolls_left === 0) return;
    const held = [];
    game.held.forEach((h, k) => { if (k === i ? !h : h) held.push(k + 1); });
    await move("hold", {held});
  }

  /** Which dice positions show the faces of a keep (preferring dice already held, then leftmost). */
  function positionsOf(keep) {
    const order = [0, 1, 2, 3, 4].sort((a, b) => (game.held[b] - game.held[a]) || (a - b));
    const free = [...order];
    const out = [];
    for (const f of keep) {
      const k = free.findIndex((i) => game.dice[i] === f);
      if (k < 0) return [];
      out.push(free[k] + 1);
      free.splice(k, 1);
    }
    return out.sort();
  }

  async function hint() {
    if (!game || game.dice === null || game.over) return;
    // a POST: a hint marks the game assisted; of the position this page shows
    const advice = await call(`/api/games/${game.id}/hint`, {version: game.version});
    if (!advice) return;
    const box = $("hint-box");
    box.replaceChildren(YZ.el("h3", {text: "Hint"}));
    const list = YZ.el("ol");
    for (const o of advice.options.slice(0, 3)) {
      let text = YZ.describe(o);
      if (o.keep !== undefined && o.keep.length > 0 && o.keep.length < 5) text += ` [hold dice ${positionsOf(o.keep).join(" ")}]`;
      text += `: expected final ${o.expected_final.toFixed(2)}` + (o.best ? " (best)" : ` (\u2212${o.regret.toFixed(2)})`);
      list.append(YZ.el("li", {text}));
    }
    box.append(list);
  }

  async function newGame(event) {
    event.preventDefault();
    const mode = document.querySelector('input[name="mode"]:checked').value;
    const body = {mode, rules: $("rules").value.trim() || "yahtzee"};
    if (mode === "vs-computer") body.level = $("level").value;
    if (mode === "daily" && $("date").value) body.date = $("date").value;
    const seed = $("seed").value.trim();
    if (seed && mode !== "daily") {
      if (!/^\d+$/.test(seed)) { showSetupError(`seed ${seed} is not a whole number`); return; }
      body.seed = Number(seed);
    }
    $("start").disabled = true;
    const wantCoach = $("coach").checked;  // the coach stays on for the new game
    const state = await call("/api/games", body);
    $("start").disabled = false;
    if (!state) { showSetupError($("error").textContent); return; }
    $("messages").replaceChildren();
    $("end").hidden = true;
    $("turn-area").hidden = false;
    const url = new URL(location.href);
    url.searchParams.set("game", state.id);
    history.replaceState(null, "", url);
    render(state);
    if (wantCoach) await move("coach", {on: true});
    $("roll").focus();
  }

  function notice(text) { $("notice").textContent = text; $("notice").hidden = !text; }

  function showSetupError(message) {
    let p = $("setup-error");
    if (!p) {
      p = YZ.el("p", {id: "setup-error", class: "error", role: "alert"});
      $("new-game").append(p);
    }
    p.textContent = message;
    if (missingTable) p.append(" ", YZ.buildButton(missingTable, () => $("new-game").requestSubmit()));
  }

  async function copyShare() {
    const text = $("share").textContent;
    try {
      await navigator.clipboard.writeText(text);
      $("copied").textContent = "copied";
    } catch (e) {
      const range = document.createRange();
      range.selectNodeContents($("share"));
      const sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      $("copied").textContent = document.execCommand("copy") ? "copied" : "selected: press Ctrl+C to copy";
    }
  }

  async function start() {
    $("date").value = new Date().toISOString().slice(0, 10);
    $("new-game").addEventListener("submit", newGame);
    for (let i = 0; i < 5; i++) $(`pdie-${i + 1}`).addEventListener("click", () => toggle(i));
    $("roll").addEventListener("click", () => move("roll"));
    $("hint").addEventListener("click", hint);
    $("coach").addEventListener("change", async () => {
      if (!game || game.over) return;
      // on, the coach marks the game assisted (as yahtzee play --coach): the server is told
      const s = await move("coach", {on: $("coach").checked});
      if (!s) $("coach").checked = !$("coach").checked;
    });
    $("quit").addEventListener("click", async () => {
      if (!game || game.over) return;
      const s = await move("quit");
      if (s) { $("setup").hidden = false; $("table").hidden = true; document.dispatchEvent(new Event("yz:saved")); }
    });
    $("again").addEventListener("click", () => {
      $("setup").hidden = false; $("table").hidden = true; $("end").hidden = true; $("start").focus();
    });
    $("copy").addEventListener("click", copyShare);
    document.addEventListener("keydown", (e) => {
      if (!game || game.over || YZ.typing(e) || $("table").hidden) return;
      if (e.key >= "1" && e.key <= "5") { e.preventDefault(); toggle(Number(e.key) - 1); }
      else if (e.key === "r" || e.key === "R") { e.preventDefault(); if (!$("roll").disabled) move("roll"); }
      else if (e.key === "h" || e.key === "H") { e.preventDefault(); hint(); }
    });
    try {
      const list = await YZ.api("/api/rules");
      const names = new Set([...Object.keys(list.bases), ...Object.keys(list.named), ...Object.keys(list.aliases)]);
      for (const name of names) $("rule-names").append(YZ.el("option", {value: name}));
    } catch (e) { /* the list only helps typing */ }
    const id = new URLSearchParams(location.search).get("game");
    if (id) {
      try {
        const s = await YZ.api(`/api/games/${encodeURIComponent(id)}`);
        if (s.status === "abandoned") notice(`This game was abandoned on turn ${s.round}${s.round > 1 || s.dice ? " (saved: resume it below)" : ""}; start a new one.`);
        else render(s);
      } catch (e) { notice(`The game of this link cannot be shown: ${e.message}.`); }
    }
    document.body.dataset.ready = "1";
  }

  start();
})();
