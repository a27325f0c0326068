/* The play page's unfinished saved games (/api/saved-games): each with a Resume button, which
   goes on with it on this server (POST /api/saved-games/NAME/resume) and opens it. */
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  let games = [];

  function describe(g) {
    const mode = YZ.modeWords(g);
    const where = g.round ? `turn ${g.round} of ${g.n_rounds}` : "";
    const scores = g.players.map((p, i) => `${p}: ${g.scores[i]}`).join(", ");
    return [g.title || g.rules, mode, where, scores].filter(Boolean).join(" \u00b7 ");
  }

  function item(g) {
    const button = YZ.el("button", {type: "button", class: "resume", disabled: !g.resumable,
      "aria-label": `Resume: ${describe(g)}`, onclick: () => resume(g, button)}, "Resume");
    const notes = [];
    if (g.status === "abandoned") notes.push("abandoned");
    if (g.playing) notes.push("in play in another tab or window");
    if (g.why) notes.push(g.why);
    return YZ.el("li", {"data-name": g.name},
      YZ.el("span", {class: "saved-what"}, describe(g),
        YZ.el("span", {class: "saved-when", text: `saved ${YZ.savedAt(g.saved_at)}${notes.length ? ` \u2014 ${notes.join("; ")}` : ""}`})),
      button);
  }

  function show() {
    // listed while the page offers a new game (not over a game in play)
    $("saved").hidden = $("setup").hidden || games.length === 0;
    if ($("setup").hidden) $("notice").hidden = true;  // a note about an earlier game: gone with it
  }

  async function load() {
    let answer;
    try {
      answer = await YZ.api("/api/saved-games");
    } catch (e) {
      games = [];
      $("saved-list").replaceChildren(YZ.el("li", {class: "error", text: `The saved games cannot be listed: ${e.message}`}));
      $("saved").hidden = $("setup").hidden;
      return;
    }
    games = answer.games;
    $("saved-list").replaceChildren(...games.map(item));
    show();
    document.body.dataset.saved = String(games.length);  // tests wait on it
  }

  async function resume(g, button) {
    button.disabled = true;
    try {
      const state = await YZ.api(`/api/saved-games/${encodeURIComponent(g.name)}/resume`, {});
      location.assign(`/play?game=${encodeURIComponent(state.id)}`);
    } catch (e) {
      button.disabled = false;
      const li = button.closest("li");
      let p = li.querySelector(".error");
      if (!p) { p = YZ.el("span", {class: "error", role: "alert"}); li.querySelector(".saved-what").append(p); }
      // a path of this site in the message ("review it (/review?game=NAME)") as a link
      const m = /^(.*?)\(?(\/review\?game=[^\s)]+)\)?(.*)$/.exec(e.message);
      if (m) {
        p.replaceChildren(m[1].trim() + " ", YZ.el("a", {href: m[2], text: "open its review"}), m[3]);
        load();  // it is not unfinished any more: the list without it
      } else p.textContent = e.message;
    }
  }

  new MutationObserver(show).observe($("setup"), {attributes: true, attributeFilter: ["hidden"]});
  document.addEventListener("yz:saved", load);  // a game quit just now is saved: list it
  // back to this tab: a game another tab finished (or saved) since is listed as it is now
  window.addEventListener("focus", () => { if (!$("setup").hidden) load(); });
  load();
})();
