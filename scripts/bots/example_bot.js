#!/usr/bin/env node
// An example bot speaking yahtzee-solver's JSON-lines protocol (README: "Bots in any language").
//
//     yahtzee match --bots cmd:"node scripts/bots/example_bot.js",optimal --games 200
//
// It keeps every die of its most frequent face (ties: the higher face) and stops on five of a
// kind, then scores the box that pays most now (ties: the first in card order).  Node's standard
// library only: copy it and make it smarter.
"use strict";

const readline = require("readline");

function keep(position, allRolls) {
  const counts = new Map();
  for (const face of position.dice) counts.set(face, (counts.get(face) || 0) + 1);
  let best = 0, n = 0;
  for (const [face, count] of counts) {
    if (count > n || (count === n && face > best)) { best = face; n = count; }
  }
  if (n === 5 && allRolls) n = 4;  // this rule set rolls three times: throw one die again
  return Array(n).fill(best);
}

function box(position) {
  let choice = null;
  for (const [name, points] of Object.entries(position.boxes)) {  // card order
    if (choice === null || points > position.boxes[choice]) choice = name;
  }
  return choice;
}

let allRolls = false;
const lines = readline.createInterface({input: process.stdin});
lines.on("line", (line) => {
  const message = JSON.parse(line);
  let answer;
  if (message.type === "start") {
    allRolls = message.all_rolls;
    answer = {type: "ready", name: "example (JavaScript)"};
  } else if (message.type === "decide") {
    answer = {type: "decisions", moves: message.positions.map((p) =>
      p.decision === "keep" ? {keep: keep(p, allRolls)} : {box: box(p)})};
  } else {
    lines.close();
    return;
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
