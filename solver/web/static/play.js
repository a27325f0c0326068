/* The play page: a game on the server (/api/games), drawn from the state each move returns. */
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const COACH_KEY = "yahtzee-solver.coach";  // the coach remembered between games and visits
  let game = null;
  let busy = false;
  let missingTable = null;  // the rule set whose table the last refused call needed
  let advice = null;  // the hint of the position shown (its best box is marked on the card)
  let confirming = null;  // the box whose 0 waits for a second click
  let holdQueue = [];  // die clicks made while a request was pending: played in order after it
  let replay = null;  // the opponent's turn being played on the table: {frames, at, timer}
  let justScored = [];  // [player, box] of the boxes the last move filled (highlighted)
  let passedTo = null;  // hot-seat: the player who took the device for this turn ("v<version>")
  const still = window.matchMedia("(prefers-reduced-motion: reduce)");
  const PACE = 600;  // ms a frame of the opponent's turn stays on the table
  let nDice = 5;  // the dice on the table: five, six in Maxi Yatzy (the game's n_dice)

  /** The table's dice for a game of ``n``: the sixth die shown only for six, the keys named. */
  function setDiceCount(n) {
    nDice = n === 6 ? 6 : 5;
    $("pdie-6").hidden = nDice !== 6;
    $("dice").setAttribute("aria-label", `dice: click or press 1 to ${nDice} to hold`);
    document.body.dataset.dice = String(nDice);
  }
  const allFree = () => Array.from({length: nDice}, (_, i) => i);
  const word = () => (nDice === 6 ? "six" : "five");

  function showError(message) {
    $("error").textContent = message;
    $("error").hidden = !message;
  }

  function remembered() {
    try { return localStorage.getItem(COACH_KEY) === "1"; } catch (e) { return false; }
  }

  function remember(on) {
    try { localStorage.setItem(COACH_KEY, on ? "1" : "0"); } catch (e) { /* private mode: not kept */ }
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
      if (holdQueue.length) setTimeout(drainHolds, 0);
    }
  }

  async function move(action, body) {
    // the state this page shows: a move on an older one (another tab moved since) is refused
    const state = await call(`/api/games/${game.id}/${action}`, {...(body || {}), version: game.version});
    if (state) {
      advice = null;
      $("hint-box").replaceChildren();
      render(state);
    }
    return state;
  }

  const human = (s) => !s.over && s.players[s.current].kind === "human";

  function statusText(s) {
    if (s.over) return `Game over: ${s.players.map((p) => `${p.name} ${p.total}`).join(", ")}`;
    if (s.status === "abandoned") return "This game was abandoned (quit); start a new one.";
    const who = s.players.length > 1 ? `${s.player}: ` : "";
    const left = s.dice === null ? (s.real_dice ? "roll your dice and type them" : "roll to start the turn") :
      s.rolls_left === 0 ? "no rolls left: choose a box" :
      `${s.rolls_left} roll${s.rolls_left === 1 ? "" : "s"} left`;
    return `${who}turn ${s.round} of ${s.n_rounds}, ${left} (total ${s.players[s.current].total})`;
  }

  /** One line for what the rules forbid now: the Joker rule's reason, or the all-rolls rule. */
  function noteText(s) {
    if (!human(s) || s.dice === null) return "";
    if (s.must_use_all_rolls && s.rolls_left > 0) {
      return s.held.every(Boolean) ?
        "This rule set uses all three rolls: release at least one die to roll again." :
        "This rule set uses all three rolls: roll again before you score.";
    }
    return s.placement_note || "";
  }

  /** The holds the page shows: the server's, with the die clicks still waiting to be sent. */
  function shownHeld(s) {
    const held = s.held.slice();
    for (const i of holdQueue) held[i] = !held[i];
    return held;
  }

  function renderDice(s) {
    const holds = shownHeld(s);
    $("dice").classList.remove("opponent");
    for (let i = 0; i < nDice; i++) {
      const b = $(`pdie-${i + 1}`);
      const face = s.dice ? s.dice[i] : null;
      const held = Boolean(s.dice && holds[i]);
      YZ.drawDie(b, face, face === null ? `die ${i + 1}: not rolled` : `die ${i + 1}: ${face}${held ? ", held" : ""}`);
      if (held) b.append(YZ.el("span", {class: "tag", text: "held"}));
      b.setAttribute("aria-pressed", held ? "true" : "false");
      const keep = Boolean(advice && advice.hold && advice.hold.includes(i + 1));
      b.classList.toggle("suggested", keep);
      if (keep && !held) b.append(YZ.el("span", {class: "tag mark", text: "keep"}));
      b.disabled = !human(s) || s.status !== "in_progress" || face === null || s.rolls_left === 0;
    }
  }

  /** Dice roll: the dice that changed tumble a moment (none under prefers-reduced-motion). */
  function tumble(before, after, held) {
    if (still.matches || !after) return;
    for (let i = 0; i < nDice; i++) {
      if (held && held[i]) continue;
      if (before && before === after) continue;
      const b = $(`pdie-${i + 1}`);
      b.classList.remove("rolling");
      void b.offsetWidth;  // restart the animation
      b.classList.add("rolling");
    }
  }

  // --- the opponent's turn, played on the table from the events of the last move ---------------

  /** The frames of the computers' turns in ``moves``: each roll's dice (the dice it then keeps
   * raised), then the box it fills. */
  function opponentFrames(s) {
    const frames = [];
    let rolls = [];
    for (const m of s.moves || []) {
      if (m.kind === "rolled" && m.is_bot) rolls.push(m);
      else if (m.kind === "scored" && m.is_bot) {
        rolls.forEach((r, k) => {
          const next = rolls[k + 1];
          const held = [false, false, false, false, false];
          frames.push({kind: "roll", player: m.player, name: m.name, dice: r.dice, held: keptHeld(r, rolls[k - 1]),
            roll: r.roll, of: rolls.length});
          if (next) {
            const free = [0, 1, 2, 3, 4];
            for (const f of next.kept) {
              const j = free.findIndex((i) => r.dice[i] === f);
              if (j >= 0) { held[free[j]] = true; free.splice(j, 1); }
            }
            frames.push({kind: "hold", player: m.player, name: m.name, dice: r.dice, held, roll: r.roll, of: rolls.length,
              kept: next.kept});
          }
        });
        frames.push({kind: "score", player: m.player, name: m.name, dice: rolls.length ? rolls[rolls.length - 1].dice : null,
          held: [false, false, false, false, false], box: m.box, points: m.points + (m.bonus || 0)});
        rolls = [];
      }
    }
    return frames;
  }

  /** The positions a roll kept from the one before (raised while the others were rolled). */
  function keptHeld(r, before) {
    const held = allFree().map(() => false);
    if (!before) return held;
    const free = allFree();
    for (const f of r.kept) {
      const j = free.findIndex((i) => r.dice[i] === f && before.dice[i] === f);
      if (j >= 0) { held[free[j]] = true; free.splice(j, 1); }
    }
    return held;
  }

  function drawFrame(f) {
    $("dice").classList.add("opponent");
    for (let i = 0; i < nDice; i++) {
      const b = $(`pdie-${i + 1}`);
      const face = f.dice ? f.dice[i] : null;
      YZ.drawDie(b, face, face === null ? `${f.name}'s die ${i + 1}` : `${f.name}'s die ${i + 1}: ${face}${f.held[i] ? ", kept" : ""}`);
      if (f.held[i]) b.append(YZ.el("span", {class: "tag", text: "kept"}));
      b.setAttribute("aria-pressed", f.held[i] ? "true" : "false");
      b.classList.remove("suggested");
      b.disabled = true;
    }
    const text = f.kind === "roll" ? `${f.name} rolls (${f.roll} of ${f.of})` :
      f.kind === "hold" ? `${f.name} keeps ${f.kept.length ? f.kept.join(" ") : "nothing"}` :
      `${f.name} scores ${f.points} in ${YZ.label(f.box)}`;
    $("status").textContent = text;  // in the status line's place: nothing below it moves
    document.body.dataset.replay = `${f.player}:${f.kind}:${f.dice ? f.dice.join("") : ""}`;
    showCardUpTo(f);
  }

  /** The card as it was when the frame was on the table: the boxes the computers fill later hidden. */
  function showCardUpTo(f) {
    const later = replay.frames.slice(replay.at + (f.kind === "score" ? 1 : 0)).filter((x) => x.kind === "score");
    for (const td of document.querySelectorAll("#card td[data-box]")) {
      const waiting = later.some((x) => String(x.player) === td.dataset.player && x.box === td.dataset.box);
      td.classList.toggle("waiting", waiting);
      if (waiting) td.classList.remove("just-scored");
      const hit = f.kind === "score" && String(f.player) === td.dataset.player && f.box === td.dataset.box;
      if (hit) td.classList.add("just-scored");
      td.classList.toggle("active", td.dataset.player === String(f.player));
    }
    for (const th of document.querySelectorAll("#card thead th[data-player]")) {
      th.classList.toggle("active", th.dataset.player === String(f.player));
    }
  }

  function runReplay() {
    document.body.dataset.replaying = "1";
    $("messages").classList.add("later");  // the turn's words once it has been played on the table
    const step = () => {
      const f = replay.frames[replay.at];
      const before = replay.at ? replay.frames[replay.at - 1] : null;
      drawFrame(f);
      if (f.kind === "roll") tumble(null, f.dice, f.held);
      replay.at += 1;
      if (replay.at >= replay.frames.length) replay.timer = setTimeout(endReplay, PACE);
      else replay.timer = setTimeout(step, before && before.kind === "score" ? PACE * 1.5 : PACE);
    };
    step();
  }

  function stopReplay() {
    if (replay && replay.timer) clearTimeout(replay.timer);
    replay = null;
    delete document.body.dataset.replaying;
    $("messages").classList.remove("later");
  }

  /** The opponent's turn over (or skipped): the table as it is now, its boxes highlighted. */
  function endReplay() {
    if (!replay) return;
    stopReplay();
    if (game) paint(game);
  }

  // --- hot-seat: the device passed between people --------------------------------------------

  function needsPass(s) {
    const people = s.players.filter((p) => p.kind === "human").length;
    if (people < 2 || !human(s) || s.dice !== null || s.status !== "in_progress") return false;
    if (s.round === 1 && s.current === 0) return false;  // the first player has the device
    return passedTo !== `${s.current}:${s.round}`;
  }

  function renderRealEntry(s) {
    const entry = $("real-entry");
    entry.hidden = !(s.real_dice && human(s) && s.status === "in_progress" && s.rolls_left > 0 &&
                     (s.dice === null || !s.held.every(Boolean)));
    if (entry.hidden) return;
    const n = s.dice_to_roll;
    $("real-label").textContent = s.dice === null ? `Your ${word()} dice` : `The ${n} ${n === 1 ? "die" : "dice"} rolled`;
    $("real-dice").placeholder = "642325".slice(0, n);
  }

  function scoreBox(s, box) {
    // scoring 0 where these dice score points elsewhere asks once more (as the terminal does)
    const elsewhere = s.boxes.some((b) => b.allowed && b.preview > 0);
    if (box.preview === 0 && elsewhere && confirming !== box.name) {
      confirming = box.name;
      renderCard(s);
      const again = document.getElementById(`box-${box.name}`);
      if (again) again.focus();  // Enter (or a second click) confirms
      $("note").hidden = false;
      $("note").textContent = `Score 0 in ${box.label}? These dice score points in another box: click it again to confirm.`;
      return;
    }
    confirming = null;
    move("score", {box: box.name});
  }

  function boxCell(s, p, box) {
    const score = s.players[p].scores[s.boxes.indexOf(box)];
    const active = p === s.current && !s.over && s.players.length > 1 ? " active" : "";  // whose turn
    const where = {"data-box": box.name, "data-player": String(p)};
    if (score !== null) {
      const hit = justScored.some(([q, b]) => q === p && b === box.name) ? " just-scored" : "";
      return YZ.el("td", {class: `num filled${active}${hit}`, text: String(score), ...where});
    }
    if (p !== s.current || !human(s) || s.status !== "in_progress") return YZ.el("td", {class: "num" + active, ...where});
    if (s.dice === null) return YZ.el("td", {class: "num open" + active, text: "\u00b7", ...where});
    if (!box.allowed) return YZ.el("td", {class: "num forbidden" + active, title: box.reason || "", text: "\u2013", ...where});
    // the triple card: what the box adds to the weighted total (its points times the column's weight)
    const weight = box.column ? s.weights[box.column - 1] : 1;
    const worth = box.preview * weight + box.bonus;
    const extra = box.bonus ? ` + ${box.bonus} Yahtzee bonus` : "";
    const times = weight > 1 ? ` (${box.preview} \u00d7${weight} = ${box.preview * weight} on the total)` : "";
    const best = advice && advice.box === box.name;
    const label = `${box.label}: score ${box.preview}${times}${extra}${best ? " (the hint's best)" : ""}`;
    const asking = confirming === box.name;
    const disabled = s.must_use_all_rolls && s.rolls_left > 0;
    const cls = "box-btn" + (best ? " best-box" : "") + (asking ? " confirm" : "") + (box.preview === 0 && !box.bonus ? " zero" : "");
    return YZ.el("td", {class: "num" + active, ...where},
      YZ.el("button", {type: "button", class: cls,
        id: `box-${box.name}`, "aria-label": asking ? `${label}: click again to score 0` : label, disabled,
        title: times ? `${box.preview} points \u00d7${weight}` : null,
        onclick: () => scoreBox(s, box)},
        asking ? "0?" : `${best ? "\u2605 " : ""}${worth - box.bonus}${box.bonus ? `+${box.bonus}` : ""}`));
  }

  const phone = window.matchMedia("(max-width: 30rem)");

  /** The score sheet: a row per box, a column per player (per player and column on the triple
   * card); one player's card on a phone is split, the lower section beside the upper one. */
  function renderCard(s) {
    const table = $("card");
    table.replaceChildren();
    const triple = s.players[0].columns !== undefined;
    const columns = triple ? s.weights.length : 1;
    const split = phone.matches && !triple && s.players.length === 1;
    // a phone shows the triple card of the player to move only (the others' totals in the caption)
    const seats = phone.matches && triple && s.players.length > 1 ? [s.current] : s.players.map((p, k) => k);
    table.classList.toggle("split", split);
    const byName = new Map(s.boxes.map((b) => [b.name, b]));
    const names = triple ? [...new Set(s.boxes.map((b) => b.category))] : s.boxes.map((b) => b.name);
    const firstOf = (row) => byName.get(triple ? `${row}@1` : row);
    const others = s.players.filter((p, k) => !seats.includes(k)).map((p) => `${p.name} ${p.total}`);
    table.append(YZ.el("caption", {text: s.title + (others.length ? ` \u2014 ${others.join(", ")}` : "")}));
    const players = seats.map((k) => s.players[k]);
    const head = YZ.el("tr", {}, YZ.el("th", {scope: "col", text: "Box"}));
    seats.forEach((k) => {
      const active = k === s.current && !s.over && s.players.length > 1 ? " active" : "";
      head.append(YZ.el("th", {scope: "col", class: "num" + active, "data-player": String(k),
        colspan: columns > 1 ? String(columns) : null, text: s.players[k].name}));
    });
    if (split) head.append(YZ.el("th", {scope: "col", class: "gap", text: "Box"}), YZ.el("th", {scope: "col", class: "num", text: s.players[0].name}));
    const thead = YZ.el("thead", {}, head);
    if (triple) {
      const weights = YZ.el("tr", {class: "weights"}, YZ.el("th", {scope: "col", text: "column"}));
      for (const p of players) s.weights.forEach((w, k) => weights.append(YZ.el("th", {scope: "col", class: "num", text: `\u00d7${w}`})));
      thead.append(weights);
    }
    table.append(thead);
    const perColumn = (f) => players.flatMap((p) => triple ? p.columns.map(f) : [f(p)]);
    // the rows: [label, cells, class]; boxes, then the sums where the card has them
    const boxRow = (row) => [triple ? YZ.label(row) : firstOf(row).label,
      seats.flatMap((k) => Array.from({length: columns}, (_, c) =>
        boxCell(s, k, triple ? byName.get(`${row}@${c + 1}`) : firstOf(row)))), ""];
    const sumRow = (label, values, cls) => [label, values.map((v) => YZ.el("td", {class: "num", text: String(v)})), cls];
    const upper = names.filter((n) => firstOf(n).upper).map(boxRow);
    const sums = [];
    if (upper.length && (s.upper_threshold !== null || triple)) {
      const threshold = s.upper_threshold || 63;
      sums.push(sumRow("Upper total", perColumn((c) => `${c.upper_total}/${threshold}`), "sum"));
      sums.push(sumRow("Upper bonus", perColumn((c) => c.upper_bonus), "sum"));
    }
    const lower = names.filter((n) => !firstOf(n).upper).map(boxRow);
    const ends = [];
    if (players.some((p) => p.yahtzee_bonus)) ends.push(sumRow("Yahtzee bonus", perColumn((c) => c.yahtzee_bonus), "sum"));
    if (triple) ends.push(sumRow("Column total", perColumn((c) => c.total), "sum"));
    const totals = players.map((p) => YZ.el("td", {class: "num", colspan: columns > 1 ? String(columns) : null, text: String(p.total)}));
    ends.push([triple ? "Total (weighted)" : "Total", totals, "total"]);
    const tr = (cls, ...parts) => {
      const row = YZ.el("tr", {class: cls || null});
      parts.forEach(([label, cells], k) => {
        row.append(YZ.el("th", {scope: "row", class: k ? "gap" : null, text: label}), ...cells);
      });
      return row;
    };
    const body = YZ.el("tbody");
    if (split) {  // upper boxes and their sums on the left, the lower section on the right
      const left = [...upper, ...sums];
      const right = [...lower, ...ends];
      const blank = ["", [YZ.el("td")], ""];
      for (let i = 0; i < Math.max(left.length, right.length); i++) {
        const l = left[i] || blank;
        const r = right[i] || blank;
        body.append(tr(r[2] === "total" ? "total" : "", l, r));
      }
    } else {
      for (const [label, cells, cls] of [...upper, ...sums, ...lower, ...ends]) body.append(tr(cls, [label, cells]));
    }
    table.append(body);
  }

  function renderMessages(s) {
    const box = $("messages");
    box.replaceChildren();
    for (const line of s.events) box.append(YZ.el("p", {text: line}));
    if (s.coach_on) {
      for (const c of mergeStops(s.coach)) {
        box.append(YZ.el("p", {class: "coach " + (c.mistake ? "mistake" : "fine"),
          text: c.mistake ? `Coach: ${c.choice} cost ${c.loss.toFixed(2)} expected points; best: ${c.best}`
                          : `Coach: ${c.choice}: best move (0 points lost)`}));
      }
    }
    for (const w of s.warnings) box.append(YZ.el("p", {class: "error", text: `warning: ${w}`}));
  }

  /** A stop-and-score is one decision for people: its keep's verdict and its box's in one line
   * (what the two cost together; the best named by the first that lost points). */
  function mergeStops(coach) {
    const out = [];
    for (let k = 0; k < coach.length; k++) {
      const c = coach[k];
      const next = coach[k + 1];
      if (next && c.decision === "keep" && /^stop/.test(c.choice) && next.decision === "box") {
        const loss = c.loss + next.loss;
        out.push({choice: `stop and score ${next.choice}`, loss, mistake: c.mistake || next.mistake,
          best: c.mistake ? c.best : next.best});
        k += 1;
      } else out.push(c);
    }
    return out;
  }

  function renderChances(s) {
    const p = $("chances");
    // the win level's tables still being read: its line says so where the chances will be
    const waiting = s.win_pending && !s.chances && !s.over;
    p.hidden = !s.chances && !waiting;
    if (s.chances) {
      p.textContent = "Chances to win: " + s.players.map((pl, i) => `${pl.name} ${(100 * s.chances[i]).toFixed(1)}%`).join(", ");
    } else if (waiting) {
      p.textContent = "The computer plays for points while its win table loads, then to win (and the chances to win show here).";
    }
  }

  /** A player as the result names them: "the computer" rather than "Computer (win)". */
  function who(s, name) {
    const p = s.players.find((q) => q.name === name);
    return p && p.kind !== "human" ? name.replace(/\s*\(.*\)$/, "") : name;
  }

  function renderEnd(s) {
    $("end").hidden = false;
    $("turn-area").hidden = true;
    const names = s.winners.map((n) => who(s, n));
    const won = s.winners.includes("You") && s.winners.length === 1;
    $("result").className = "result" + (won ? " won" : "");
    $("end-title").textContent = s.players.length > 1 ? (won ? "You win!" : names.length > 1 ? "A tie!" : `${names[0]} wins`) : "Game over";
    $("final").textContent = s.players.length > 1 ?
      s.players.map((p) => `${p.name} ${p.total}`).join(" \u00b7 ") :
      `Final score: ${s.players[0].total}`;
    $("record").textContent = s.record || "";
    const best = [];
    if (s.optimal !== null && s.optimal !== undefined) best.push(`The best player scores ${s.optimal} on the same dice.`);
    best.push(...(s.same_dice || []));
    $("versus-best").textContent = best.join(" ");
    $("versus-best").hidden = !best.length;
    const review = $("review");
    review.replaceChildren(YZ.el("h3", {text: "Review"}));
    if (s.review === null) {  // six dice: the review waits for the rule set's table
      review.append(YZ.el("p", {text: `The review needs the ${s.rules} table: yahtzee tables build --rules ${s.rules}, then yahtzee review --last.`}));
    }
    for (const r of s.review || []) {
      review.append(YZ.el("p", {class: "verdict", text: r.verdict}));
      const mistakes = r.decisions.filter((d) => d.loss > 1e-6);
      if (!mistakes.length) continue;
      const t = YZ.el("table", {}, YZ.el("caption", {text: `${r.name}: mistakes`}),
        YZ.el("thead", {}, YZ.el("tr", {}, ...["Turn", "Dice", "Choice", "Best", "Loss"].map((h) => YZ.el("th", {scope: "col", text: h})))));
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
    $("review-cmd").textContent = "yahtzee review --last";
    $("saved-as").textContent = s.saved ? ` as ${s.saved}` : "";
    $("review-link").href = `/review?game=${encodeURIComponent(s.saved)}`;
    // the result first: the banner in view and focused (not the New game button below the review)
    $("end-title").focus({preventScroll: true});
    $("result").scrollIntoView({block: "start"});
  }

  function render(s) {
    const before = game && game.id === s.id ? game : null;
    game = s;
    setDiceCount(s.n_dice);
    if (advice && advice.version !== s.version) advice = null;
    if (confirming && (s.dice === null || !s.boxes.some((b) => b.name === confirming && b.allowed))) confirming = null;
    if (!before || before.version !== s.version) {
      justScored = (s.moves || []).filter((m) => m.kind === "scored").map((m) => [m.player, m.box]);
    }
    document.body.dataset.state = s.over ? "over" : s.status !== "in_progress" ? s.status : `r${s.round}-${s.rolls_left}`;
    document.body.dataset.version = String(s.version);  // what the page shows (tests wait on it)
    stopReplay();
    const frames = before && before.version !== s.version ? opponentFrames(s) : [];
    if (frames.length && !still.matches) replay = {frames, at: 0, timer: null};
    paint(s);
    if (replay) runReplay();
    else if (before && (s.moves || []).some((m) => m.kind === "rolled" && !m.is_bot)) tumble(null, s.dice, before.held);
  }

  function paint(s) {
    $("setup").hidden = true;
    $("play-title").hidden = true;  // the game takes the screen
    $("table").hidden = false;
    const passing = !replay && needsPass(s);
    $("pass").hidden = !passing;
    $("turn-area").hidden = passing || (s.over && !replay);
    if (passing) {
      $("pass-line").textContent = `Pass the device to ${s.player}: turn ${s.round} of ${s.n_rounds} is theirs.`;
      $("pass-go").textContent = `I am ${s.player}: start my turn`;
    }
    $("status").textContent = statusText(s);
    const note = noteText(s);
    $("note").textContent = note;
    $("note").hidden = !note;
    renderDice(s);
    renderRealEntry(s);
    renderChances(s);
    const live = human(s) && s.status === "in_progress";
    $("roll").hidden = s.real_dice;
    $("roll").disabled = !live || s.rolls_left === 0 || (s.dice !== null && s.held.every(Boolean));
    $("roll").textContent = s.dice === null ? "Roll" : "Roll again";
    $("hint").disabled = !live || s.dice === null;
    $("undo").hidden = !s.can_undo || s.status !== "in_progress";
    $("quit").disabled = s.status !== "in_progress";
    $("coach").checked = s.coach_on;  // the server's word: after a reload too
    $("keys").textContent = s.real_dice ?
      `Click a die (or 1-${nDice}) to hold it; type the dice you rolled and press Enter; H hints, U undoes; click a box to score (S picks a box, arrows move, Enter scores).` :
      `Click a die (or 1-${nDice}) to hold it; R rolls, H hints, U undoes; click a box to score (S picks a box, arrows move, Enter scores).`;
    renderCard(s);
    renderMessages(s);
    $("end").hidden = true;
    if (s.over && !replay) renderEnd(s);
    if (!phone.onchange) phone.onchange = () => game && renderCard(game);
    if (passing) $("pass-go").focus();
  }

  async function toggle(i) {
    if (!game || !human(game) || game.dice === null || game.rolls_left === 0 || replay) return;
    holdQueue.push(i);
    renderDice(game);  // shown held (or not) at once
    if (!busy) await drainHolds();
  }

  /** The die clicks waiting, sent as one hold request (each on the state the server answered last). */
  async function drainHolds() {
    if (busy || !holdQueue.length || !game || !human(game) || game.dice === null || game.rolls_left === 0) {
      if (!busy) holdQueue = [];
      return;
    }
    const want = shownHeld(game);
    const taken = holdQueue.length;
    const held = [];
    want.forEach((h, k) => { if (h) held.push(k + 1); });
    busy = true;  // the clicks made from here on wait for this answer
    let state = null;
    try {
      state = await YZ.api(`/api/games/${game.id}/hold`, {held, version: game.version});
      showError("");
    } catch (e) {
      showError(e.message);
      if (e.state) { holdQueue = []; busy = false; render(e.state); return; }
    } finally {
      busy = false;
    }
    holdQueue = holdQueue.slice(taken);
    if (state) { advice = null; $("hint-box").replaceChildren(); render(state); }
    else holdQueue = [];
    if (holdQueue.length) await drainHolds();
  }

  /** Which dice positions show the faces of a keep (preferring dice already held, then leftmost). */
  function positionsOf(keep) {
    const order = allFree().sort((a, b) => (game.held[b] - game.held[a]) || (a - b));
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

  /** The box an option scores (``fours@3`` on the triple card; a keep of all the dice: the box stopping
   * implies), or null for a keep that rolls again. */
  function boxOf(o) {
    if (o.keep === undefined) return o.column !== undefined ? `${o.category}@${o.column}` : o.category;
    return o.keep.length === nDice && o.stop_and_score ? o.stop_and_score.category : null;
  }

  /** The hint's option played: a box scored, or the keep held and the rest rolled (typed on real dice). */
  async function doOption(o) {
    const box = boxOf(o);
    if (box !== null) {
      confirming = null;
      await move("score", {box});
      return;
    }
    const s = await move("hold", {held: positionsOf(o.keep)});
    if (s && !s.real_dice) await move("roll");
    else if (s) $("real-dice").focus();
  }

  async function hint() {
    if (!game || game.dice === null || !human(game)) return;
    // a POST: a hint marks the game assisted; of the position this page shows
    const shown = game.version;
    const answer = await call(`/api/games/${game.id}/hint`, {version: shown});
    if (!answer) return;
    const fresh = await call(`/api/games/${game.id}`);  // the hint may have marked the game assisted
    if (fresh) render(fresh);
    const box = $("hint-box");
    box.replaceChildren(YZ.el("h3", {text: "Hint"}));
    const list = YZ.el("ol");
    for (const o of answer.options.slice(0, 3)) {
      let text = YZ.describe(o, nDice);  // dice named by face; the best keep marked on the dice themselves
      text += `: expected final ${o.expected_final.toFixed(2)}` + (o.best ? " (best)" : ` (\u2212${o.regret.toFixed(2)})`);
      list.append(YZ.el("li", {}, YZ.el("span", {text}), " ",
        YZ.el("button", {type: "button", class: "do-this", onclick: () => doOption(o)}, "Do this")));
    }
    box.append(list);
    const best = answer.options[0];
    advice = {version: game.version, box: boxOf(best),
      hold: best.keep !== undefined && best.keep.length < nDice ? positionsOf(best.keep) : null};
    renderDice(game);
    renderCard(game);
  }

  /** Roll: after the die clicks still on their way (a roll right after a click keeps that die). */
  let rollWaiting = false;
  async function roll() {
    if (rollWaiting) return;
    if (holdQueue.length) {
      rollWaiting = true;
      while (holdQueue.length || busy) await new Promise((r) => setTimeout(r, 25));
      rollWaiting = false;
    }
    if (!$("roll").disabled && !$("roll").hidden) await move("roll");
  }

  /** S: the first box to score focused (the hint's best if marked); arrows go from box to box. */
  function boxKeys(e) {
    const boxes = [...document.querySelectorAll("#card .box-btn:not([disabled])")];
    if (!boxes.length) return false;
    if (e.key === "s" || e.key === "S") {
      (boxes.find((b) => b.classList.contains("best-box")) || boxes[0]).focus();
      return true;
    }
    const at = boxes.indexOf(document.activeElement);
    if (at < 0 || !["ArrowUp", "ArrowDown"].includes(e.key)) return false;
    boxes[(at + (e.key === "ArrowDown" ? 1 : boxes.length - 1)) % boxes.length].focus();
    return true;
  }

  async function enterRealDice(event) {
    event.preventDefault();
    const faces = $("real-dice").value.replace(/[^0-9]/g, "").split("").map(Number);
    if (!faces.length || faces.some((f) => f < 1 || f > 6)) {
      showError(`type the faces you rolled, digits 1 to 6 (got ${JSON.stringify($("real-dice").value)})`);
      return;
    }
    const s = await move("roll", {dice: faces});
    if (s) $("real-dice").value = "";
  }

  const LEVELS = {
    easy: "Keeps the face it has most of and scores where it fits: a gentle start.",
    medium: "Takes the most points it can each turn, never planning ahead.",
    hard: "Plays good rules of thumb: aims for the bonus and the big boxes.",
    perfect: "Plays the best expected score, move by move: a strong opponent.",
    win: "Plays to beat you, not for points: it takes risks when behind. Its first game starts at once: it plays for points while its large table loads (up to half a minute), then to win.",
  };

  function showMode() {
    $("level-line").textContent = LEVELS[$("level").value] || "";
    for (const card of document.querySelectorAll(".mode-card")) card.classList.toggle("chosen", card.querySelector("input").checked);
    const mode = document.querySelector('input[name="mode"]:checked').value;
    for (const row of document.querySelectorAll("[data-for]")) {
      const want = row.dataset.for;
      row.hidden = want === "seeded" ? ["daily", "real-dice"].includes(mode) : want !== mode;
    }
  }

  async function newGame(event) {
    event.preventDefault();
    const mode = document.querySelector('input[name="mode"]:checked').value;
    const coach = $("setup-coach").checked || mode === "real-dice";
    const body = {mode, rules: $("rules").value.trim() || "yahtzee", coach};
    if (mode === "vs-computer") body.level = $("level").value;
    if (mode === "hot-seat") body.players = $("players").value;
    if (mode === "daily" && $("date").value) body.date = $("date").value;
    const seed = $("seed").value.trim();
    if (seed && !["daily", "real-dice"].includes(mode)) {
      if (!/^\d+$/.test(seed)) { showSetupError(`seed ${seed} is not a whole number`); return; }
      body.seed = Number(seed);
    }
    $("start").disabled = true;
    // say what is happening while the server prepares the game (a "win" game no longer waits
    // for its table: it is read in the background while the game goes on)
    const began = Date.now();
    const starting = $("starting");
    const tick = () => {
      const s = Math.round((Date.now() - began) / 1000);
      starting.hidden = false;
      starting.textContent = `Preparing the game\u2026 ${s} s`;
    };
    const ticker = setInterval(tick, 1000);
    const state = await call("/api/games", body);
    clearInterval(ticker);
    starting.hidden = true;
    $("start").disabled = false;
    if (!state) { showSetupError($("error").textContent); return; }
    if ($("setup-error")) $("setup-error").remove();
    $("messages").replaceChildren();
    $("end").hidden = true;
    $("turn-area").hidden = false;
    const url = new URL(location.href);
    url.searchParams.set("game", state.id);
    history.replaceState(null, "", url);
    advice = null;
    render(state);
    (state.real_dice ? $("real-dice") : $("roll")).focus();
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

  function toSetup() {
    stopReplay();
    $("setup").hidden = false; $("play-title").hidden = false; $("table").hidden = true; $("end").hidden = true;
    $("turn-area").hidden = false; $("pass").hidden = true;
    document.dispatchEvent(new Event("yz:saved"));  // the game just played is no longer "unfinished"
    $("start").focus();
  }

  /** The rule set picker: a line each (its title); "other" keeps the name typed in the field. */
  function fillRules(list) {
    const pick = $("rules-pick");
    const lines = {...list.bases};
    for (const [name, id] of Object.entries(list.named || {})) if (!(name in lines)) lines[name] = list.bases[id] || id;
    for (const [name, title] of Object.entries(lines)) {
      pick.append(YZ.el("option", {value: name, text: `${name}: ${title}`}));
    }
    pick.append(YZ.el("option", {value: "", text: "another (type its name)"}));
    const sync = () => {
      const name = $("rules").value.trim();
      pick.value = name in lines ? name : "";
      // the list's line names a listed rule set; a typed one is checked when the game starts
      $("rules-line").textContent = name in lines ? "" : name ? `${name}: a rule set of your own (checked when the game starts)` : "";
    };
    pick.addEventListener("change", () => {
      if (pick.value) $("rules").value = pick.value;
      else $("rules").focus();
      sync();
    });
    $("rules").addEventListener("input", sync);
    sync();
  }

  async function start() {
    $("date").value = new Date().toISOString().slice(0, 10);
    $("setup-coach").checked = remembered();
    $("setup-coach").addEventListener("change", () => remember($("setup-coach").checked));
    for (const r of document.querySelectorAll('input[name="mode"]')) r.addEventListener("change", showMode);
    showMode();
    $("new-game").addEventListener("submit", newGame);
    $("real-entry").addEventListener("submit", enterRealDice);
    for (let i = 0; i < 6; i++) $(`pdie-${i + 1}`).addEventListener("click", () => toggle(i));
    $("roll").addEventListener("click", roll);
    $("level").addEventListener("change", showMode);
    $("pass-go").addEventListener("click", () => {
      if (!game) return;
      passedTo = `${game.current}:${game.round}`;
      paint(game);
      $("roll").focus();
    });
    // the opponent's turn on the table: a click or a key shows the table as it is now at once
    const skip = () => { if (replay) endReplay(); };
    document.addEventListener("pointerdown", skip, true);
    document.addEventListener("keydown", skip, true);
    $("hint").addEventListener("click", hint);
    $("undo").addEventListener("click", () => move("undo"));
    $("coach").addEventListener("change", async () => {
      if (!game || game.over) return;
      const on = $("coach").checked;
      // on, the coach marks the game assisted (as yahtzee play --coach): the server is told
      const s = await move("coach", {on});
      if (!s) $("coach").checked = !on;
      else { remember(on); $("setup-coach").checked = on; }
    });
    $("quit").addEventListener("click", async () => {
      if (!game || game.over) return;
      const s = await move("quit");
      if (s) { toSetup(); document.dispatchEvent(new Event("yz:saved")); }  // a game quit is listed
    });
    $("again").addEventListener("click", toSetup);
    $("copy").addEventListener("click", copyShare);
    document.addEventListener("keydown", (e) => {
      if (!game || !human(game) || YZ.typing(e) || $("table").hidden) return;
      if (e.key >= "1" && e.key <= String(nDice)) { e.preventDefault(); toggle(Number(e.key) - 1); }
      else if (e.key === "r" || e.key === "R") { e.preventDefault(); roll(); }
      else if (e.key === "h" || e.key === "H") { e.preventDefault(); hint(); }
      else if ((e.key === "u" || e.key === "U") && !$("undo").hidden) { e.preventDefault(); move("undo"); }
      else if (boxKeys(e)) e.preventDefault();
    });
    try {
      const list = await YZ.api("/api/rules");
      const names = new Set([...Object.keys(list.bases), ...Object.keys(list.named), ...Object.keys(list.aliases)]);
      for (const name of names) $("rule-names").append(YZ.el("option", {value: name}));
      fillRules(list);
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
