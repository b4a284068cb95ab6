// How to play (/how-to-play, issue 61): the three games taught in the rulebooks' words (the
// catalog's howto.* texts, docs/rules-notes.md where the books leave a question), with pictures
// drawn by the board's own tile drawing (hex.js) on small play areas built from data here.
//
// The pictures hold the rules: each figure's sizes, closed territories and task states are
// counted from its tiles (as the engine counts them, docs/rules-notes.md notes 1 to 4), and a
// river, track, lake or mountain edge against another edge is reported in the console as an
// error (a browser test fails on it), except on a tile shown as not fitting.
import { el, modeName, put } from "./util.js";
import { t } from "./i18n.js";
import { S, center, hexPoints, tilePasses, taskMarker, flagGlyph, flagAnchor, edgePath, edgesJoin, edgeMid, DIRS, TERRAIN, SEAT_COLORS } from "./hex.js";

const NS = "http://www.w3.org/2000/svg";
/** Letters that make areas (dorf.rules.terrain.AREA_LETTERS) and those that must meet their own kind. */
const AREA = "FGVRTLPX";
const MUST_MEET = "RTLP";
const TASK_LETTER = { forest: "F", grain: "G", village: "V", river: "R", track: "T" };
const SQ3 = Math.sqrt(3);

const key = ([q, r]) => `${q},${r}`;

/** The engine's areas of a face: one per letter, with the edges it covers (dorf.rules.tiles.areas). */
export function areasOf(edges) {
  const found = new Map();
  [...edges].forEach((c, i) => {
    if (AREA.includes(c)) found.set(c, [...(found.get(c) || []), i]);
  });
  return [...found.entries()];
}

/** The territory (river, track) of `letter` through the tile at `start`: its cells, its size in
 * tiles, and whether it is closed (no edge of it faces an empty space). */
export function territory(tiles, start, letter) {
  const at = new Map(tiles.map((tile) => [key(tile.at), tile]));
  const seen = new Set([key(start)]);
  const todo = [start];
  let open = 0;
  while (todo.length) {
    const [q, r] = todo.pop();
    const tile = at.get(key([q, r]));
    DIRS.forEach(([dq, dr], d) => {
      if (tile.edges[d] !== letter) return;
      const next = [q + dq, r + dr];
      const other = at.get(key(next));
      if (!other) open++;
      else if (other.edges[(d + 3) % 6] === letter && !seen.has(key(next))) {
        seen.add(key(next));
        todo.push(next);
      }
    });
  }
  return { cells: [...seen].map((k) => k.split(",").map(Number)), size: seen.size, closed: open === 0 };
}

/** A task tile's marker as the game shows it: its size now against its number, its state. */
function taskOf(tiles, tile) {
  const { type, value, plain } = tile.task;
  const letter = TASK_LETTER[type];
  if (plain) return { type, name: type, value, label: `${letter}${value}`, status: "open" };
  const found = territory(tiles, tile.at, letter);
  const status = found.size === value ? "completed" : found.size > value || found.closed ? "failed" : "open";
  return { type, name: type, value, label: `${letter}${value}`, status, sizes: [found.size], open_edges: [found.closed ? 0 : 1] };
}

/** Where a river, track, lake or mountain edge meets another kind of edge (none in a legal area). */
function mismatches(tiles) {
  const at = new Map(tiles.map((tile) => [key(tile.at), tile]));
  const bad = [];
  for (const tile of tiles) {
    DIRS.forEach(([dq, dr], d) => {
      const other = at.get(key([tile.at[0] + dq, tile.at[1] + dr]));
      if (!other) return;
      const a = tile.edges[d], b = other.edges[(d + 3) % 6];
      if (a !== b && (MUST_MEET.includes(a) || MUST_MEET.includes(b))) bad.push(`${key(tile.at)}:${d}`);
    });
  }
  return bad;
}

/**
 * One play area as SVG (its tiles moved by dx, dy): the ground, the seams between different
 * terrains and the rim, rivers and tracks, mountains, then the marks (tasks, flags), a highlighted
 * territory, the outline of the tile just laid, and a tile being tried (`try`) with a tick or a
 * cross on each edge that meets a tile.
 */
function areaSVG(spec, name) {
  const { tiles = [], dx = 0, dy = 0 } = spec;
  const wrong = mismatches(tiles);
  if (wrong.length) console.error(`dorf: the picture ${name} breaks the placement rule at ${wrong.join(" ")}`);
  const at = (q, r) => {
    const [x, y] = center(q, r);
    return [x + dx, y + dy];
  };
  const edgesAt = new Map(tiles.map((tile) => [key(tile.at), tile.edges]));
  let under = "", ground = "", lines = "", peaks = "", marks = "", rim = "", seam = "";
  const mend = {};
  for (const tile of tiles) {
    const [x, y] = at(...tile.at);
    const pass = tilePasses(tile.edges, areasOf(tile.edges), x, y);
    under += `<polygon points="${hexPoints(S, x, y + 6)}"/>`;
    ground += pass.ground;
    lines += pass.lines;
    peaks += pass.peaks;
    DIRS.forEach(([dq, dr], d) => {
      const other = edgesAt.get(key([tile.at[0] + dq, tile.at[1] + dr]));
      if (other === undefined) rim += edgePath(d, x, y);
      else if (d >= 3) return;
      else if (!edgesJoin(tile.edges[d], other[(d + 3) % 6])) seam += edgePath(d, x, y);
      else if (tile.edges[d] === other[(d + 3) % 6]) {
        const letter = "RT".includes(tile.edges[d]) ? "M" : tile.edges[d];
        mend[letter] = (mend[letter] || "") + edgePath(d, x, y);
      }
    });
    if (tile.flag) {
      const [fx, fy] = flagAnchor(tile.edges, areasOf(tile.edges), tile.flag);
      const closed = territory(tiles, tile.at, tile.flag).closed ? " closed" : "";
      marks += `<g class="flag-mark${closed}" transform="translate(${(x + fx).toFixed(1)} ${(y + fy).toFixed(1)}) scale(1.3)">${flagGlyph(tile.flag)}</g>`;
    }
    if (tile.task) marks += `<g transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(1.15)">${taskMarker(taskOf(tiles, tile))}</g>`;
    if (tile.pick) {
      marks += `<polygon class="howto-pick" style="stroke:${SEAT_COLORS[tile.pick.seat]}" points="${hexPoints(S - 4, x, y)}"/>`;
      marks += `<g transform="translate(${(x + S * 0.55).toFixed(1)} ${(y - S * 0.62).toFixed(1)})"><circle r="13" fill="${SEAT_COLORS[tile.pick.seat]}" stroke="#fff" stroke-width="2"/>` +
        `<text y="5" text-anchor="middle" class="howto-pick-no">${tile.pick.n}</text></g>`;
    }
  }
  let over = "";
  for (const cell of spec.highlight || []) {
    const [x, y] = at(...cell);
    over += `<polygon class="group-cell" style="stroke:${TERRAIN[spec.highlightLetter || "F"].color}" points="${hexPoints(S - 6, x, y)}"/>`;
  }
  // The tile (or tiles) just laid: [q, r], or a list of them.
  for (const cell of spec.last ? (Array.isArray(spec.last[0]) ? spec.last : [spec.last]) : []) {
    const [x, y] = at(...cell);
    over += `<polygon class="last-mark howto-last" points="${hexPoints(S - 3, x, y)}"/>`;
  }
  let tried = "";
  if (spec.try) {
    const tile = spec.try;
    const [x, y] = at(...tile.at);
    const pass = tilePasses(tile.edges, areasOf(tile.edges), x, y);
    let checks = "";
    DIRS.forEach(([dq, dr], d) => {
      const other = edgesAt.get(key([tile.at[0] + dq, tile.at[1] + dr]));
      if (other === undefined) return;
      const ok = edgesJoin(tile.edges[d], other[(d + 3) % 6]) || !(MUST_MEET.includes(tile.edges[d]) || MUST_MEET.includes(other[(d + 3) % 6]));
      const [mx, my] = edgeMid(d, 0.76);
      const glyph = ok ? '<path d="M-3.6,0.2 L-1,2.8 L3.8,-2.6"/>' : '<path d="M-2.8,-2.8 L2.8,2.8 M2.8,-2.8 L-2.8,2.8"/>';
      checks += `<g class="edge-match ${ok ? "ok" : "bad"}" transform="translate(${(x + mx).toFixed(1)} ${(y + my).toFixed(1)}) scale(1.5)"><circle r="7"/>${glyph}</g>`;
    });
    tried = `<g class="ghost"><g class="ghost-tile">${pass.ground}${pass.lines}${pass.peaks}</g>` +
      `<polygon class="ghost-outline" points="${hexPoints(S - 2, x, y)}"/>${checks}</g>`;
  }
  const grid = Object.entries(mend).map(([l, d]) => `<path class="mend" stroke="url(#pat-${l})" d="${d}"/>`).join("") +
    `<path class="rim" d="${rim}"/><path class="seam" d="${seam}"/>`;
  let label = "";
  if (spec.label) {
    const [x, y] = labelAt(spec);
    label = `<text class="howto-label" x="${x.toFixed(1)}" y="${y.toFixed(1)}" text-anchor="middle">${escapeText(spec.label)}</text>`;
  }
  return `<g class="under">${under}</g><g class="ground">${ground}</g><g class="grid">${grid}</g><g class="lines">${lines}</g>` +
    `<g class="peaks">${peaks}</g><g class="highlight">${over}</g>${tried}<g class="marks">${marks}</g>${label}`;
}

function escapeText(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

/** Where an area's label stands: centred over its highest tile. */
function labelAt(spec) {
  const points = (spec.tiles || []).map((tile) => center(...tile.at));
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  return [(Math.min(...xs) + Math.max(...xs)) / 2 + (spec.dx || 0), Math.min(...ys) + (spec.dy || 0) - (SQ3 / 2) * S - 14];
}

/** The box round every tile of the areas (and their labels), in board coordinates. */
function bounds(areas) {
  const xs = [], ys = [];
  for (const spec of areas) {
    const cells = [...(spec.tiles || []).map((tile) => tile.at), ...(spec.try ? [spec.try.at] : [])];
    for (const [q, r] of cells) {
      const [x, y] = center(q, r);
      xs.push(x + (spec.dx || 0));
      ys.push(y + (spec.dy || 0));
    }
    if (spec.label) {
      const [x, y] = labelAt(spec);
      xs.push(x);
      ys.push(y - 0.35 * S + (SQ3 / 2) * S);
    }
  }
  const pad = 8;
  const minX = Math.min(...xs) - S - pad, maxX = Math.max(...xs) + S + pad;
  const minY = Math.min(...ys) - (SQ3 / 2) * S - pad, maxY = Math.max(...ys) + (SQ3 / 2) * S + 6 + pad;
  return [minX, minY, maxX - minX, maxY - minY];
}

/** A figure: the picture of one or more play areas, and its caption (also the picture's name). */
function figure(name, areas, caption, scale = 0.9) {
  const [x, y, w, h] = bounds(areas);
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "howto-svg");
  svg.setAttribute("viewBox", `${x.toFixed(1)} ${y.toFixed(1)} ${w.toFixed(1)} ${h.toFixed(1)}`);
  svg.setAttribute("width", String(Math.round(w * scale)));
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", caption);
  svg.innerHTML = areas.map((spec) => areaSVG(spec, name)).join("");
  return el("figure", { class: "howto-fig", "data-figure": name }, svg, el("figcaption", {}, caption));
}

// --- the pictures' play areas -----------------------------------------------------------------------
// Faces list the edges N, NE, SE, S, SW, NW; cells are axial (q, r) as on every board of dorf.

/** A landscape tile (a river through it) and a task tile with its marker. */
const ONE_TILE = [
  { at: [0, 0], edges: "FFVRGR" },
  { at: [2, -1], edges: "GGGMTT", task: { type: "grain", value: 4 } },
];
/** A river and a track that run on from tile to tile, and a tile tried where both meet it. */
const MATCH_BASE = [
  { at: [0, 0], edges: "FFRGMR" },
  { at: [1, 0], edges: "VRMMGR" },
  { at: [1, -1], edges: "MMTVMT" },
];
const FITS = { at: [2, -1], edges: "FFRMRT" };
const DOES_NOT_FIT = { at: [2, -1], edges: "TFFRMR" };
/** A forest with a task of 5 on it: three tiles so far, then exactly five. */
const FOREST = [
  { at: [0, 0], edges: "FFMMMF", task: { type: "forest", value: 5 } },
  { at: [0, -1], edges: "MGGFMM" },
  { at: [1, -1], edges: "GGFFFM" },
  { at: [-1, 0], edges: "VVMMMV" },
];
const FOREST_DONE = [...FOREST, { at: [1, 0], edges: "FMGGMM" }, { at: [2, -1], edges: "MMVVMF" }];
/** A grain field of three tiles with a flag, every one of its edges against a tile: closed. */
const FLAG = [
  { at: [0, 0], edges: "GGMMMM", flag: "G" },
  { at: [0, -1], edges: "FFMGFF" },
  { at: [1, -1], edges: "VVVMGM" },
  { at: [1, 0], edges: "MMMFFM" },
  { at: [-1, 0], edges: "FFMMVV" },
];
/** Three open tasks: a river, a village and a grain field. */
const THREE_TASKS = [
  { at: [0, -1], edges: "MFFRMM" },
  { at: [0, 0], edges: "RMMRGG", task: { type: "river", value: 5 } },
  { at: [1, 0], edges: "VVMMMM", task: { type: "village", value: 4 } },
  { at: [1, -1], edges: "GGMVMF" },
  { at: [-1, 1], edges: "MGGMMM", task: { type: "grain", value: 6 } },
];
/** The Duel: one revealed tile, laid by both players, each in their own area. */
const REVEALED = "RFFMGG";
const DUEL_LEFT = [
  { at: [0, 0], edges: "FFMMGG" },
  { at: [0, 1], edges: "GMMVVM" },
  { at: [-1, 1], edges: "FMMMVV" },
  { at: [1, 0], edges: REVEALED }, // the revealed tile, as it comes
];
const DUEL_RIGHT = [
  { at: [0, 0], edges: "VVMMFF" },
  { at: [1, -1], edges: "MMMMVV" },
  { at: [0, 1], edges: "MMMGGM" },
  { at: [-1, 1], edges: "MGGRFF" }, // the same tile, turned three steps
];
/** Head to Head's draft: the open tiles, four taken in turn. */
const POOL = [
  { at: [0, 0], edges: "FFFMMM", task: { type: "forest", value: 4, plain: true }, pick: { seat: 0, n: 1 } },
  { at: [2, -1], edges: "GGRPLR" },
  { at: [4, -2], edges: "VVMMMM", task: { type: "village", value: 3, plain: true }, pick: { seat: 0, n: 3 } },
  { at: [6, -3], edges: "FFFPLP" },
  { at: [1, 1], edges: "VVRLPR", pick: { seat: 1, n: 2 } },
  { at: [3, 0], edges: "RMMRMM", task: { type: "river", value: 4, plain: true } },
  { at: [5, -1], edges: "GGGMRM", pick: { seat: 1, n: 4 } },
];
/** Head to Head's laying: each player lays their own tile at the same time (a mountain and a lake completed). */
const LAY_LEFT = [
  { at: [0, 0], edges: "FFFPLP" },
  { at: [0, 1], edges: "PLPFFF" },
  { at: [1, 0], edges: "FFLPLF" },
];
const LAY_RIGHT = [
  { at: [0, 0], edges: "VVRMMR" },
  { at: [-1, 0], edges: "GGRMMR" },
  { at: [0, 1], edges: "MMMVVM" },
  { at: [1, 0], edges: "MVVVMR" },
];

/** The pictures, each as its name, its play areas and its caption's key. */
function pictures() {
  const apart = 8.6 * S;
  return {
    tile: figure("tile", [{ tiles: ONE_TILE }], t("howto.fig.tile")),
    fits: figure("fits", [{ tiles: MATCH_BASE, try: FITS }], t("howto.fig.fits")),
    wrong: figure("wrong", [{ tiles: MATCH_BASE, try: DOES_NOT_FIT }], t("howto.fig.wrong")),
    task: figure("task", [{ tiles: FOREST }], t("howto.fig.task")),
    done: figure("done", [{ tiles: FOREST_DONE, last: [[1, 0], [2, -1]] }], t("howto.fig.done")),
    flag: figure("flag", [{ tiles: FLAG, highlight: territory(FLAG, [0, 0], "G").cells, highlightLetter: "G" }], t("howto.fig.flag")),
    three: figure("three", [{ tiles: THREE_TASKS }], t("howto.fig.three")),
    duel: figure("duel", [
      { tiles: DUEL_LEFT, dx: -apart / 2, last: [1, 0], label: t("seat.player", { n: 1 }) },
      { tiles: [{ at: [0, 0], edges: REVEALED }], dx: 0, dy: -0.4 * S, label: t("howto.fig.revealed") },
      { tiles: DUEL_RIGHT, dx: apart / 2, last: [-1, 1], label: t("seat.player", { n: 2 }) },
    ], t("howto.fig.duel"), 0.8),
    draft: figure("draft", [{ tiles: POOL }], t("howto.fig.draft"), 0.75),
    lay: figure("lay", [
      { tiles: LAY_LEFT, dx: -3.6 * S, last: [1, 0], label: t("seat.player", { n: 1 }) },
      { tiles: LAY_RIGHT, dx: 3 * S, last: [1, 0], label: t("seat.player", { n: 2 }) },
    ], t("howto.fig.lay"), 0.8),
  };
}

// --- the page -----------------------------------------------------------------------------------------

function para(keyName) {
  return el("p", {}, t(keyName));
}

function section(id, title, ...body) {
  return el("section", { class: "card howto-section", id, "aria-labelledby": `${id}-title` }, el("h2", { id: `${id}-title` }, title), ...body);
}

function pair(...figures) {
  return el("div", { class: "howto-pair" }, ...figures);
}

/** /how-to-play: the rules of the three games, short, with pictures; then how dorf plays them. */
export function howToPlayPage(root) {
  document.title = `${t("howto.title")} · dorf`;
  const fig = pictures();
  const contents = [
    ["basics", t("howto.basics.title")],
    ["coop", modeName("coop")],
    ["duel", modeName("duel")],
    ["head-to-head", modeName("head-to-head")],
    ["here", t("howto.here.title")],
  ];
  put(root, el("div", { class: "lobby narrow howto" },
    el("section", { class: "intro" },
      el("h1", { class: "page-title" }, t("howto.title")),
      para("howto.intro"),
      el("nav", { class: "howto-contents", "aria-label": t("howto.contents") },
        contents.map(([id, title]) => el("a", { href: `#${id}` }, title))),
      el("p", {}, el("a", { class: "button primary", id: "howto-play", href: "/#solo" }, t("howto.try")))),
    section("basics", t("howto.basics.title"),
      para("howto.basics.turn"), fig.tile,
      para("howto.basics.match"), pair(fig.fits, fig.wrong),
      para("howto.basics.place"),
      el("h3", {}, t("howto.tasks.title")),
      para("howto.tasks.what"), para("howto.tasks.exact"), pair(fig.task, fig.done),
      para("howto.tasks.fail"),
      el("h3", {}, t("howto.flags.title")),
      para("howto.flags.what"), fig.flag),
    section("coop", modeName("coop"),
      para("howto.coop.who"), para("howto.coop.reveal"), fig.three,
      para("howto.coop.end"), para("howto.coop.score")),
    section("duel", modeName("duel"),
      para("howto.duel.who"), fig.duel, para("howto.duel.reveal"), para("howto.duel.tasks"), para("howto.duel.end")),
    section("head-to-head", modeName("head-to-head"),
      para("howto.h2h.draft"), fig.draft, para("howto.h2h.lay"), fig.lay, para("howto.h2h.new"), para("howto.h2h.score")),
    section("here", t("howto.here.title"),
      el("ul", { class: "howto-list" },
        ["howto.here.solo", "howto.here.daily", "howto.here.practice", "howto.here.rated", "howto.here.coach"].map((k) => el("li", {}, t(k)))),
      el("p", { class: "note" }, t("howto.source")))));
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
}
