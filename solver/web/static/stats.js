/* The stats page: `yahtzee stats --json` (/api/stats) per rule set, a histogram of the scores
   drawn as inline SVG, the daily results and the streak. */
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const DAILY_ROWS = 30;

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const rate = (x) => (x === null || x === undefined ? "\u2013" : `${Math.round(100 * x)}%`);
  const num = (x, n) => (x === null || x === undefined ? "\u2013" : n === undefined ? String(x) : x.toFixed(n));

  function facts(items) {
    const dl = YZ.el("dl", {class: "summary"});
    for (const [k, v] of items) dl.append(YZ.el("div", {}, YZ.el("dt", {text: k}), YZ.el("dd", {text: v})));
    return dl;
  }

  /** The histogram (bins "lo-hi" of equal width -> count) as an SVG bar chart, empty bins shown. */
  function histogram(bins, label, room) {
    const entries = Object.entries(bins).map(([k, n]) => [Number(k.split("-")[0]), Number(k.split("-")[1]), n]);
    entries.sort((a, b) => a[0] - b[0]);
    const width = entries[0][1] - entries[0][0] + 1;
    const lo = entries[0][0], hi = entries[entries.length - 1][0];
    const counts = new Map(entries.map((e) => [e[0], e[2]]));
    const all = [];
    for (let x = lo; x <= hi; x += width) all.push([x, counts.get(x) || 0]);
    const top = Math.max(...all.map((e) => e[1]));
    // drawn at the width it gets (text stays 12 px on a phone), 320 to 640 units
    const W = Math.round(Math.max(320, Math.min(640, room || 640))), H = 230, left = 8, bottom = 40, head = 22;
    const step = (W - 2 * left) / all.length;
    const ranges = all.length * 56 <= W;  // room for "50-74" under each bar, else the lower ends
    const every = Math.ceil(all.length / Math.floor(W / (ranges ? 56 : 40)));
    const words = all.filter((e) => e[1]).map(([x, n]) => `${x}-${x + width - 1}: ${n} game${n === 1 ? "" : "s"}`).join(", ");
    const chart = svg("svg", {viewBox: `0 0 ${W} ${H}`, class: "histogram", role: "img", "aria-label": `${label}: ${words}`});
    chart.append(svg("title", {}, `${label}: ${words}`));
    chart.append(svg("line", {x1: left, x2: W - left, y1: H - bottom, y2: H - bottom, class: "axis"}));
    all.forEach(([x, n], i) => {
      const h = top ? (H - bottom - head) * n / top : 0;
      const bx = left + i * step + step * 0.1;
      if (n) {
        chart.append(svg("rect", {x: bx.toFixed(1), y: (H - bottom - h).toFixed(1), width: (step * 0.8).toFixed(1), height: h.toFixed(1), class: "bar"},
          undefined));
        chart.append(svg("text", {x: (bx + step * 0.4).toFixed(1), y: (H - bottom - h - 5).toFixed(1), "text-anchor": "middle"}, String(n)));
      }
      if (i % every === 0) {
        chart.append(svg("text", {x: (left + i * step + step / 2).toFixed(1), y: H - bottom + 16, "text-anchor": "middle"}, ranges ? `${x}\u2013${x + width - 1}` : String(x)));
      }
    });
    chart.append(svg("text", {x: W / 2, y: H - 4, "text-anchor": "middle"}, `final score (bins of ${width} points)`));
    return chart;
  }

  function ruleSet(id, s, title) {
    const section = YZ.el("section", {class: "rule-stats", "data-rules": id, "aria-labelledby": `rules-${id}`});
    section.append(YZ.el("h2", {id: `rules-${id}`, text: title ? `${title} (${id})` : id}));
    if (!s.games) {
      section.append(YZ.el("p", {text: "No finished game of this rule set yet."}));
      return section;
    }
    const modes = Object.entries(s.by_mode).filter(([, n]) => n).map(([m, n]) => `${n} ${YZ.MODES[m] || m}`).join(", ");
    section.append(facts([
      ["Games", String(s.games)],
      ["Average", num(s.average, 1)],
      ["Unassisted average", num(s.unassisted_average, 1)],
      ["Best", num(s.best)],
      ["Record (solo)", num(s.record)],
      ["Upper bonus", rate(s.upper_bonus_rate)],
      ["Five of a kind", rate(s.five_of_a_kind_rate)],
    ]));
    const notes = [modes];
    if (s.assisted) notes.push(`${s.assisted} assisted (hint, coach or undo)`);
    if (s.replays) notes.push(`${s.replays} replays`);
    if (s.real_dice) notes.push(`${s.real_dice} on real dice`);
    section.append(YZ.el("p", {class: "help", text: `${notes.join("; ")}. The unassisted average leaves out assisted games, replays and real dice; the best, replays and real dice.`}));
    section.append(YZ.el("h3", {text: "Scores"}), histogram(s.histogram, `scores of ${id}`, $("stats").clientWidth));
    return section;
  }

  function daily(d) {
    const section = YZ.el("section", {id: "daily", "aria-labelledby": "daily-title"});
    section.append(YZ.el("h2", {id: "daily-title", text: "Daily challenge"}));
    if (!d.played) {
      section.append(YZ.el("p", {}, "No daily challenge played yet: ", YZ.el("a", {href: "/play", text: "play today's"}), "."));
      return section;
    }
    section.append(facts([
      ["Days played", String(d.played)],
      ["Streak", `${d.streak} day${d.streak === 1 ? "" : "s"}`],
      ["Last run", `${d.last_streak} day${d.last_streak === 1 ? "" : "s"}`],
    ]));
    const rows = d.history.slice(-DAILY_ROWS).reverse();
    const table = YZ.el("table", {class: "daily"},
      YZ.el("caption", {text: `Daily results (the latest ${rows.length}, newest first)`}),
      YZ.el("thead", {}, YZ.el("tr", {}, ...["Date", "Rule set", "Score", "Optimal", "Gap"].map((h, i) => YZ.el("th", {scope: "col", class: i >= 2 ? "num" : null, text: h})))));
    const body = YZ.el("tbody");
    for (const r of rows) {
      const gap = r.optimal === null ? "\u2013" : (r.score - r.optimal).toFixed(0).replace("-", "\u2212");
      body.append(YZ.el("tr", {}, YZ.el("td", {class: "nowrap", text: r.date}), YZ.el("td", {text: r.rules}),
        YZ.el("td", {class: "num", text: String(r.score)}), YZ.el("td", {class: "num", text: num(r.optimal, 0)}),
        YZ.el("td", {class: "num", text: gap})));
    }
    table.append(body);
    section.append(table);
    return section;
  }

  async function start() {
    const out = $("stats");
    try {
      const result = await YZ.api("/api/stats");
      const ids = Object.keys(result.rules);
      if (!ids.length) out.append(YZ.el("p", {}, "No finished games yet: ", YZ.el("a", {href: "/play", text: "play one"}), "."));
      for (const id of ids) {
        let title = null;
        try { title = (await YZ.api(`/api/rules?rules=${encodeURIComponent(id)}`)).title; } catch (e) { /* the id says it */ }
        out.append(ruleSet(id, result.rules[id], title));
      }
      out.append(daily(result.daily));
    } catch (e) {
      $("error").textContent = `The statistics cannot be read: ${e.message}`;
      $("error").hidden = false;
    }
    document.body.dataset.ready = "1";
  }

  start();
})();
