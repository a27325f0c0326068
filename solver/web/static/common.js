/* Shared by the advisor and play pages: the API call, options in words, small DOM helpers. */
"use strict";

const YZ = {
  /** GET (no body) or POST (a JSON body) to the API; throws an Error with the server's message.
   *  `signal` (an AbortController's) cancels it: then the AbortError itself is thrown. */
  async api(path, body, signal) {
    const options = body === undefined ? {} : {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify(body),
    };
    if (signal) options.signal = signal;
    let response;
    try {
      response = await fetch(path, options);
    } catch (e) {
      if (e.name === "AbortError") throw e;
      throw new Error("the server does not answer: is yahtzee serve still running?");
    }
    let data;
    try {
      data = await response.json();
    } catch (e) {
      data = {error: `the server answered ${response.status} without JSON`};
    }
    if (!response.ok) {
      const error = new Error(data.error || `the server answered ${response.status}`);
      error.build = data.build;  // a rule set whose table is missing: it can be built (POST /api/tables)
      error.state = data.state;  // a move on an out-of-date page: the game as it is now
      throw error;
    }
    return data;
  },

  /** A button that builds the table of `rules` on the server (one explicit POST), then calls `done`. */
  buildButton(rules, done) {
    const button = YZ.el("button", {type: "button", class: "build", text: `Build the table of ${rules}`});
    button.addEventListener("click", async () => {
      button.disabled = true;
      button.textContent = `Building the table of ${rules}\u2026`;
      try {
        await YZ.api("/api/tables", {rules});
        done();
      } catch (e) {
        button.disabled = false;
        button.textContent = `Build the table of ${rules} (failed: ${e.message}; try again)`;
      }
    });
    return button;
  },

  /** An option in words, as the CLI's describe() writes it, boxes named for people (``dice``:
   * how many dice are rolled, five or six: a keep of them all stops). */
  describe(o, dice = 5) {
    if (o.keep === undefined) {
      const where = o.column !== undefined ? ` of column ${o.column}` : "";
      return `score ${o.score} in ${YZ.label(o.category)}${where}` + (o.bonus ? ` (+${o.bonus} Yahtzee bonus)` : "");
    }
    const n = dice - o.keep.length;
    if (n === 0) {
      const where = o.stop_and_score ? ` ${o.stop_and_score.score} in ${YZ.label(o.stop_and_score.category)}` : "";
      return `keep ${o.keep.join(" ")} \u2014 stop and score${where}`;
    }
    if (o.keep.length === 0) return `reroll all ${dice === 6 ? "six" : "five"} dice`;
    const words = {1: "one die", 2: "two dice", 3: "three dice", 4: "four dice", 5: "five dice"};
    return `keep ${o.keep.join(" ")}, reroll ${words[n]}`;
  },

  /** A box name for people: full_house -> Full house; a triple card's fours@3 -> Fours (column 3). */
  label(name) {
    const [box, column] = String(name).split("@");
    const text = box.replace(/_/g, " ");
    return text.charAt(0).toUpperCase() + text.slice(1) + (column ? ` (column ${column})` : "");
  },

  /** Draw `face` (1-6, or null: not rolled) on a die button as pips: a 3x3 grid of spots, the
   * face also in `data-face` and in the button's label for screen readers and tests. */
  drawDie(button, face, label) {
    const spots = {1: [4], 2: [2, 6], 3: [2, 4, 6], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8]};
    const grid = YZ.el("span", {class: "pips", "aria-hidden": "true"});
    for (let k = 0; k < 9; k++) grid.append(YZ.el("span", {class: (spots[face] || []).includes(k) ? "pip on" : "pip"}));
    button.replaceChildren(grid);
    button.dataset.face = face === null ? "" : String(face);
    button.setAttribute("aria-label", label);
  },

  el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child);
    }
    return node;
  },

  /** Whether a key press belongs to a text field (then it is not a shortcut). */
  typing(event) {
    const t = event.target;
    return event.ctrlKey || event.metaKey || event.altKey ||
      (t && (t.tagName === "INPUT" && !["checkbox", "radio", "button"].includes(t.type) ||
             t.tagName === "SELECT" || t.tagName === "TEXTAREA"));
  },
};

/* Saved games in words (the play page's saved games, the review and stats pages). */
Object.assign(YZ, {
  MODES: {solo: "solo", "vs-computer": "against the computer", daily: "daily challenge", "hot-seat": "hot-seat"},

  /** A saved game's mode in words: "against the computer (hard)", "daily challenge 2026-03-01". */
  modeWords(g) {
    let text = YZ.MODES[g.mode] || g.mode || "game";
    if (g.mode === "vs-computer" && g.level) text += ` (${g.level})`;
    if (g.mode === "daily" && g.date) text += ` ${g.date}`;
    if (g.dice === "real") text += " on real dice";
    return text;
  },

  /** A saved time as written ("2026-03-01T14:05:09+0100") -> "2026-03-01 14:05". */
  savedAt(text) {
    const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)/.exec(text || "");
    return m ? `${m[1]} ${m[2]}` : "";
  },
});
