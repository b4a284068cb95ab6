// Hex geometry and tile drawing: flat-topped hexes, axial (q, r), directions N, NE, SE, S, SW, NW.
//
// A tile is drawn from the engine's own areas (sent by the server: which edges of the tile form
// one area): each territory, lake or mountain area is one region, rivers and tracks are smooth
// curves from edge midpoint to edge midpoint, joined inside the tile as the area says. Edges of no
// area (meadow, and the ground under rivers and tracks) are the meadow around them. Paths are in
// board coordinates, so the patterns run on across tile borders and a territory spread over many
// tiles reads as one landscape. Terrain is never colour alone: every terrain has its own pattern.

import { t } from "./i18n.js";
import { taskName } from "./util.js";

export const S = 50;
const SQ3 = Math.sqrt(3);
const APOTHEM = (SQ3 / 2) * S;

export const TERRAIN = {
  F: { name: "forest", color: "#3d7a34" },
  G: { name: "grain", color: "#e5c04a" },
  V: { name: "village", color: "#cd6a4b" },
  M: { name: "meadow", color: "#a9cf78" },
  R: { name: "river", color: "#3f95dc" },
  T: { name: "track", color: "#7a5b3d" },
  L: { name: "lake", color: "#2f93c0" },
  P: { name: "mountain", color: "#9b978f" },
  X: { name: "multicoloured flag", color: "#c04fc0" },
};

/** The colour each seat is shown in: names in the log, tabs, board headers. */
// Each at least 4.5:1 against the cards' background (#fffdf7), as names in the log are text.
export const SEAT_COLORS = ["#2f6fb5", "#b8531a", "#7b4fb8", "#287f50", "#b8367a", "#8a6d12"];

export const TASK_COLOR = {
  forest: "#2f6d2b", grain: "#b8900f", village: "#b23c28", river: "#2277c4", track: "#6b5845",
  connection: "#7b4fb8", double: "#d07a12",
};

export function center(q, r) {
  return [1.5 * S * q, SQ3 * S * (r + q / 2)];
}

/** Corner i of the hex (0 = east, clockwise since y points down). */
function corner(i, s = S) {
  const a = (Math.PI / 3) * i;
  return [s * Math.cos(a), s * Math.sin(a)];
}

function fmt(v) {
  return (Math.round(v * 10) / 10).toString();
}

function pt([x, y]) {
  return `${fmt(x)},${fmt(y)}`;
}

export function hexPoints(s = S, x0 = 0, y0 = 0) {
  return [0, 1, 2, 3, 4, 5].map((i) => {
    const [x, y] = corner(i, s);
    return pt([x + x0, y + y0]);
  }).join(" ");
}

/** The midpoint of edge d (0 = N), scaled by f. */
export function edgeMid(d, f = 1) {
  const a = (Math.PI / 180) * (270 + 60 * d);
  const m = APOTHEM * f;
  return [m * Math.cos(a), m * Math.sin(a)];
}

/** The corners where edge d starts and ends, going clockwise. */
function edgeCorners(d) {
  return [corner((4 + d) % 6), corner((5 + d) % 6)];
}

/** The neighbour across edge d (as dorf.rules.hexgrid.DIRECTIONS); it faces back with edge (d + 3) % 6. */
export const DIRS = [[0, -1], [1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0]];

/** Whether two facing edges join (the engine's contact_counts): the same terrain, or a flag edge and a territory. */
export function edgesJoin(a, b) {
  return a === b || (a === "X" && "FGV".includes(b)) || (b === "X" && "FGV".includes(a));
}

/** Edge d of the cell centred at (x0, y0), as a path's "M…L…". */
export function edgePath(d, x0 = 0, y0 = 0) {
  const [a, b] = edgeCorners(d);
  return `M${pt(add(a, [x0, y0]))}L${pt(add(b, [x0, y0]))}`;
}

export function pixelToHex(x, y) {
  const q = ((2 / 3) * x) / S;
  const r = ((-1 / 3) * x + (SQ3 / 3) * y) / S;
  const s = -q - r;
  let rq = Math.round(q), rr = Math.round(r);
  const rs = Math.round(s);
  const dq = Math.abs(rq - q), dr = Math.abs(rr - r), ds = Math.abs(rs - s);
  if (dq > dr && dq > ds) rq = -rr - rs;
  else if (dr > ds) rr = -rq - rs;
  return [rq, rr];
}

/** The edges by direction after turning `face` clockwise k steps (as dorf.rules.tiles.rotate). */
export function rotate(face, k) {
  k = ((k % 6) + 6) % 6;
  return k ? face.slice(6 - k) + face.slice(0, 6 - k) : face;
}

/** The engine's areas of an unturned face ([letter, [edge, ...]]) after turning it k steps. */
export function turnAreas(areas, k) {
  return (areas || []).map(([letter, dirs]) => [letter, dirs.map((d) => (((d + k) % 6) + 6) % 6)]);
}

// --- patterns ----------------------------------------------------------------------------------

/** Pattern definitions, put once in the page and used by every board and icon. */
export function defsSVG() {
  const p = (id, base, body, w = 16, h = w, extra = "") =>
    `<pattern id="pat-${id}" width="${w}" height="${h}" patternUnits="userSpaceOnUse" ${extra}>` +
    `<rect width="${w}" height="${h}" fill="${base}"/>${body}</pattern>`;
  const conifer = (x, y, s = 1) =>
    `<path d="M${x} ${y - 5.5 * s} L${x + 3.6 * s} ${y + 2.2 * s} L${x - 3.6 * s} ${y + 2.2 * s} Z" fill="#1f4d1c"/>` +
    `<path d="M${x} ${y - 5.5 * s} L${x + 1.2 * s} ${y - 3 * s} L${x} ${y + 2.2 * s} Z" fill="#2f6a29"/>`;
  const round = (x, y) =>
    `<circle cx="${x}" cy="${y}" r="3.3" fill="#28592a"/><circle cx="${x - 1}" cy="${y - 1.1}" r="1.3" fill="#5a9a47"/>`;
  // A house: its shadow, a lit wall and a shaded one, a door, a roof lit on one side.
  const house = (x, y, s = 1) => {
    const n = (v) => fmt(v);
    return `<rect x="${n(x - 3.2 * s)}" y="${n(y + 3.1 * s)}" width="${n(7 * s)}" height="${n(1.2 * s)}" fill="#9c4329" opacity="0.7"/>` +
      `<rect x="${n(x - 2.8 * s)}" y="${n(y - 0.4 * s)}" width="${n(5.6 * s)}" height="${n(3.9 * s)}" fill="#f7ead3"/>` +
      `<rect x="${n(x + 0.7 * s)}" y="${n(y - 0.4 * s)}" width="${n(2.1 * s)}" height="${n(3.9 * s)}" fill="#dcc6a5"/>` +
      `<rect x="${n(x - 1.7 * s)}" y="${n(y + 1.3 * s)}" width="${n(1.3 * s)}" height="${n(2.2 * s)}" fill="#6b3a22"/>` +
      `<path d="M${n(x - 3.8 * s)} ${n(y)} L${n(x)} ${n(y - 3.9 * s)} L${n(x + 3.8 * s)} ${n(y)} Z" fill="#8a2c1b"/>` +
      `<path d="M${n(x - 3.8 * s)} ${n(y)} L${n(x)} ${n(y - 3.9 * s)} L${n(x)} ${n(y)} Z" fill="#a8432a"/>`;
  };
  const peak = (x, y, s) =>
    `<path d="M${x - 6 * s} ${y} L${x} ${y - 8 * s} L${x + 6 * s} ${y} Z" fill="#767269"/>` +
    `<path d="M${x} ${y - 8 * s} L${x + 6 * s} ${y} L${x + 1.5 * s} ${y} Z" fill="#5f5b53"/>` +
    `<path d="M${x - 2.1 * s} ${y - 5.2 * s} L${x} ${y - 8 * s} L${x + 2.1 * s} ${y - 5.2 * s} L${x + 0.6 * s} ${y - 5.9 * s} L${x - 0.7 * s} ${y - 5 * s} Z" fill="#fbfbf8"/>`;
  return (
    "<defs>" +
    p("F", TERRAIN.F.color, conifer(4.5, 6) + round(12.5, 13.5) + conifer(13, 3.2, 0.8) + round(4, 15.5), 17, 19) +
    p("G", TERRAIN.G.color,
      '<rect y="7.2" width="14" height="4.7" fill="#d8b23c"/>' +
      '<path d="M0 2.5 H14 M0 7.2 H14 M0 11.9 H14" stroke="#c99f2a" stroke-width="1.3"/>' +
      '<path d="M3 4.8 h2 M10 9.5 h2.2 M6 14.2 h2" stroke="#f6dd85" stroke-width="1"/>', 14, 14.1, 'patternTransform="rotate(-28)"') +
    p("V", TERRAIN.V.color,
      '<path d="M0 11.5 H10 M15 4 h7" stroke="#b9583a" stroke-width="1"/><circle cx="18.5" cy="19.5" r="1.8" fill="#5f8a37"/>' +
      house(5, 6) + house(16, 11, 0.85) + house(8, 17.5, 0.9), 22, 23) +
    p("M", TERRAIN.M.color, '<path d="M3 5 l1 -2 l1 2 M11 12 l1 -2 l1 2 M14 3 l0.8 -1.6 l0.8 1.6" stroke="#86b456" stroke-width="0.9" fill="none"/>', 18, 16) +
    p("L", TERRAIN.L.color, '<path d="M1 5 q2.5 -2 5 0 t5 0 M9 12.5 q2.5 -2 5 0 t5 0" stroke="#9fd8ef" stroke-width="1.2" fill="none"/>' +
      '<path d="M14 3.5 h2.5 M3 11 h2" stroke="#d6f1fb" stroke-width="1" stroke-linecap="round"/>', 20, 16) +
    p("P", TERRAIN.P.color, peak(6, 11, 0.8) + peak(16, 21, 0.7) + '<path d="M13 7 l2 -1 M2 19 l2 -1" stroke="#b7b3aa" stroke-width="1"/>', 20, 22) +
    p("X", "#fff", '<rect width="3" height="12" fill="#e04b8f"/><rect x="3" width="3" height="12" fill="#f2c230"/><rect x="6" width="3" height="12" fill="#3f9b3f"/><rect x="9" width="3" height="12" fill="#3a7fd8"/>', 12, 12, 'patternTransform="rotate(35)"') +
    p("R", TERRAIN.R.color, "", 8) +
    p("T", TERRAIN.T.color, "", 8) +
    "</defs>"
  );
}

// --- the shape of a tile ------------------------------------------------------------------------

/** Maximal runs of equal letters around the tile: [{letter, start, n}], in clockwise order. */
function runsOf(ground) {
  if ([...ground].every((c) => c === ground[0])) return [{ letter: ground[0], start: 0, n: 6 }];
  let first = 0;
  while (ground[first] === ground[(first + 5) % 6]) first++;
  const runs = [];
  let i = first;
  do {
    let n = 0;
    while (n < 6 && ground[(i + n) % 6] === ground[i]) n++;
    runs.push({ letter: ground[i], start: i, n });
    i = (i + n) % 6;
  } while (i !== first);
  return runs;
}

/** Run depths: how far towards the centre (0 at the corner, 1 at the centre) a patch's inner curve pulls. */
const PULL = [0, 0.55, 0.7, 0.72, 0.7, 0.55, 1];

/**
 * The layout of a tile: its ground letter, the patches of other terrain on it, the bands joining
 * an area whose edges lie apart, and its rivers and tracks. Everything comes from the edges and the
 * engine's areas; a letter's runs belong together exactly when the areas say so.
 */
export function tileShape(edges, areas) {
  const ground = [...edges].map((c) => (c === "R" || c === "T" ? "M" : c)).join("");
  const runs = runsOf(ground);
  const regions = (areas || []).filter(([l]) => l !== "R" && l !== "T");
  const runsOfLetter = (l) => runs.filter((r) => r.letter === l);
  // An area in pieces around the tile must be joined across it: the biggest such area is the
  // ground of the tile; any other is joined by a band.
  const split = regions.filter(([l]) => runsOfLetter(l).length > 1).sort((a, b) => b[1].length - a[1].length);
  let base;
  if (split.length) base = split[0][0];
  else {
    const count = {};
    for (const c of ground) count[c] = (count[c] || 0) + 1;
    base = Object.keys(count).sort((a, b) => count[b] - count[a] || (a === "M" ? -1 : b === "M" ? 1 : 0))[0];
  }
  const patches = runs.filter((r) => r.letter !== base);
  const bands = split.slice(1).map(([l]) => ({ letter: l, runs: runsOfLetter(l) }));
  const lines = (areas || []).filter(([l]) => l === "R" || l === "T").map(([l, dirs]) => ({ letter: l, dirs }));
  return { base, patches, bands, lines };
}

/** The point where a run of edges is best marked (a flag on it, a mountain peak). */
export function runAnchor(run, depth = 0.52) {
  const mids = [];
  for (let i = 0; i < run.n; i++) mids.push(edgeMid((run.start + i) % 6));
  const x = mids.reduce((s, m) => s + m[0], 0) / mids.length;
  const y = mids.reduce((s, m) => s + m[1], 0) / mids.length;
  const len = Math.hypot(x, y);
  if (run.n >= 6 || len < 1) return [0, 0];
  const f = (APOTHEM * (run.n >= 4 ? 0.25 : depth)) / len;
  return [x * f, y * f];
}

function add([x, y], [dx, dy]) {
  return [x + dx, y + dy];
}

function patchPath(run, o) {
  const [a] = edgeCorners(run.start);
  const [, b] = edgeCorners((run.start + run.n - 1) % 6);
  let d = `M${pt(add(a, o))}`;
  for (let i = 0; i < run.n; i++) d += `L${pt(add(edgeCorners((run.start + i) % 6)[1], o))}`;
  const k = PULL[run.n];
  // A slight swing on the curve, so the border between two terrains is not a ruler's line.
  const sw = run.n === 3 ? 0.16 * S : 0;
  const [px, py] = [-(a[1] - b[1]) / S, (a[0] - b[0]) / S];
  const c1 = [b[0] * (1 - k) + px * sw, b[1] * (1 - k) + py * sw];
  const c2 = [a[0] * (1 - k) - px * sw, a[1] * (1 - k) - py * sw];
  const curve = `C${pt(add(c1, o))} ${pt(add(c2, o))} ${pt(add(a, o))}`;
  return { fill: d + curve + "Z", edge: `M${pt(add(b, o))}${curve}` };
}

/** Split a cubic (p0, c1, c2, p3) at t = 1/2: both halves, each from its own end inwards. */
function halves(p0, c1, c2, p3) {
  const mid = (u, v) => [(u[0] + v[0]) / 2, (u[1] + v[1]) / 2];
  const a = mid(p0, c1), b = mid(c1, c2), c = mid(c2, p3);
  const ab = mid(a, b), bc = mid(b, c), m = mid(ab, bc);
  return [[p0, a, ab, m], [p3, c, bc, m]];
}

function cubic([p0, c1, c2, p3], o) {
  return `M${pt(add(p0, o))}C${pt(add(c1, o))} ${pt(add(c2, o))} ${pt(add(p3, o))}`;
}

/** A river or track: one path per edge, each from the edge's midpoint inwards (so dashes meet at borders). */
function linePaths(dirs, o) {
  const paths = [];
  let end = null;
  if (dirs.length === 2) {
    const [d1, d2] = dirs;
    const apart = Math.min((d2 - d1 + 6) % 6, (d1 - d2 + 6) % 6);
    const k = apart === 1 ? 0.42 : 0.55;
    const m1 = edgeMid(d1), m2 = edgeMid(d2);
    for (const h of halves(m1, [m1[0] * (1 - k), m1[1] * (1 - k)], [m2[0] * (1 - k), m2[1] * (1 - k)], m2)) {
      paths.push(cubic(h, o));
    }
  } else if (dirs.length === 1) {
    const m = edgeMid(dirs[0]);
    end = [m[0] * 0.22, m[1] * 0.22];
    paths.push(cubic([m, [m[0] * 0.7, m[1] * 0.7], [m[0] * 0.45, m[1] * 0.45], end], o));
  } else {
    end = [0, 0];
    for (const d of dirs) {
      const m = edgeMid(d);
      paths.push(cubic([m, [m[0] * 0.6, m[1] * 0.6], [m[0] * 0.25, m[1] * 0.25], [0, 0]], o));
    }
  }
  return { paths, end: end && add(end, o) };
}

const RIVER_STROKES = [
  ["#2a6aa6", 15, ""], ["#4aa0e2", 11, ""], ["#7cc0f0", 5, 'opacity="0.6"'],
];
const TRACK_STROKES = [
  ["#8a7651", 15, 'opacity="0.55"'], ["#dac9a0", 13, ""], ["#5b3f27", 12, 'stroke-dasharray="2.6 4.6" stroke-dashoffset="1.3"'],
  ["#37342f", 6.6, ""], ["#dac9a0", 3.6, ""], ["#5b3f27", 3.6, 'stroke-dasharray="2.6 4.6" stroke-dashoffset="1.3"'],
];

function lineSVG(letter, dirs, o) {
  const { paths, end } = linePaths(dirs, o);
  const strokes = letter === "R" ? RIVER_STROKES : TRACK_STROKES;
  let out = "";
  for (const [color, width, extra] of strokes) {
    out += `<path d="${paths.join("")}" fill="none" stroke="${color}" stroke-width="${width}" stroke-linecap="butt" ${extra}/>`;
  }
  if (end) {
    const [x, y] = end;
    if (letter === "R") {
      out += `<circle cx="${fmt(x)}" cy="${fmt(y)}" r="${dirs.length === 1 ? 10 : 9}" fill="#4aa0e2" stroke="#2a6aa6" stroke-width="2"/>`;
      out += `<path d="M${fmt(x - 4)},${fmt(y)} q2,-2 4,0 t4,0" stroke="#bfe4ff" stroke-width="1.2" fill="none"/>`;
    } else if (dirs.length === 1) {
      out += `<rect x="${fmt(x - 7)}" y="${fmt(y - 6)}" width="14" height="11" rx="1.5" fill="#f3e4c6" stroke="#37342f" stroke-width="1.6"/>`;
      out += `<path d="M${fmt(x - 8.5)},${fmt(y - 5)} L${fmt(x)},${fmt(y - 11)} L${fmt(x + 8.5)},${fmt(y - 5)} Z" fill="#7a3a22" stroke="#37342f" stroke-width="1.2"/>`;
    } else {
      out += `<circle cx="${fmt(x)}" cy="${fmt(y)}" r="8" fill="#dac9a0" stroke="#37342f" stroke-width="2.2"/>`;
    }
  }
  return out;
}

function bandSVG(band, o) {
  let out = "";
  for (let i = 0; i + 1 < band.runs.length; i++) {
    const a = runAnchor(band.runs[i], 0.55), b = runAnchor(band.runs[i + 1], 0.55);
    const d = `M${pt(add(a, o))}Q${pt(o)} ${pt(add(b, o))}`;
    out += `<path d="${d}" fill="none" stroke="url(#pat-${band.letter})" stroke-width="${fmt(S * 0.42)}" stroke-linecap="round"/>`;
  }
  return out;
}

/** A mountain on the tile: a peak drawn over the area's ground, so a mountain reads as one. */
function peakSVG(x, y, s) {
  return (
    `<g transform="translate(${fmt(x)} ${fmt(y)}) scale(${s})">` +
    '<path d="M-15 7 L-4 -10 L1 -3 L6 -12 L17 7 Z" fill="#7d786e" stroke="#4d4a44" stroke-width="1.4" stroke-linejoin="round"/>' +
    '<path d="M6 -12 L17 7 L9 7 L5 -2 Z" fill="#615d55"/>' +
    '<path d="M2.5 -6.3 L6 -12 L9.4 -6 L7.5 -7 L6 -5.6 L4.3 -7.2 Z M-6.5 -6 L-4 -10 L-1.5 -6 L-3.2 -6.8 L-4.4 -5.5 Z" fill="#fbfbf8"/>' +
    "</g>"
  );
}

/**
 * A tile's drawing in passes, each a string of SVG: `ground` (terrain), `lines` (rivers and
 * tracks), `peaks` (mountains). Drawing every tile's ground before any tile's lines keeps rivers
 * and tracks unbroken across tile borders. (x0, y0): the tile's centre on the board.
 */
export function tilePasses(edges, areas, x0 = 0, y0 = 0) {
  const o = [x0, y0];
  const shape = tileShape(edges, areas);
  const base = shape.base;
  let ground = `<polygon points="${hexPoints(S, x0, y0)}" fill="url(#pat-${base})" stroke="url(#pat-${base})" stroke-width="1.2"/>`;
  let shore = "";
  for (const run of shape.patches) {
    const { fill, edge } = patchPath(run, o);
    ground += `<path d="${fill}" fill="url(#pat-${run.letter})" stroke="url(#pat-${run.letter})" stroke-width="1.2"/>`;
    // The border between two terrains: a lake's shore, a forest's edge (styled by both letters).
    shore += `<path class="shore s-${run.letter} s-${base}" d="${edge}"/>`;
  }
  for (const band of shape.bands) ground += bandSVG(band, o);
  ground += shore;
  let lines = "";
  for (const { letter, dirs } of shape.lines) lines += lineSVG(letter, dirs, o);
  let peaks = "";
  const mountains = shape.patches.filter((r) => r.letter === "P");
  if (base === "P") peaks += peakSVG(x0, y0 - 3, 1.5);
  else for (const run of mountains) {
    const [x, y] = runAnchor(run, 0.58);
    peaks += peakSVG(x + x0, y + y0, [0, 0.85, 1.05, 1.25][Math.min(run.n, 3)]);
  }
  return { ground, lines, peaks };
}

// --- markers and flags --------------------------------------------------------------------------

function escapeXML(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

/** Words for a task marker's tooltip: "Forest 5: 3 of 5 tiles, 2 open edges". */
export function taskWords(task) {
  const name = taskName(task.name || task.type || "task").replace(/^./, (c) => c.toUpperCase());
  let text = t("tasks.marker", { name, n: task.value ?? "" }).trim();
  if (task.status === "completed") return `${text}: ${t("tasks.completed")}`;
  if (task.status === "failed") return `${text}: ${t("tasks.failed")}`;
  if (task.sizes) text += `: ${t("tasks.marker_sizes", { sizes: task.sizes.join("|"), n: task.value })}`;
  if (task.open_edges) text += `, ${t("count.open_edges", { count: task.open_edges.join("") === "1" ? 1 : 2 }).replace(/^\d+/, task.open_edges.join("|"))}`;
  return text;
}

/**
 * A task marker: its label (F5), its status, and the current size against the target; and a
 * compact form (a coloured dot with the value), shown when the board is zoomed far out.
 */
export function taskMarker(task, { small = false } = {}) {
  const color = TASK_COLOR[task.type] || "#444";
  const status = task.status || "open";
  const r = small ? 12 : 15;
  let fill = "#fffdf6", text = "#222";
  if (status === "completed") { fill = "#2e9b4e"; text = "#fff"; }
  if (status === "failed") { fill = "#77736b"; text = "#eee"; }
  let out = `<g class="task-marker ${status}"><title>${escapeXML(taskWords(task))}</title><g class="full">`;
  out += `<circle r="${r + 1.5}" fill="#1d1c18" opacity="0.35" cy="1.5"/>`;
  out += `<circle r="${r}" fill="${fill}" stroke="${color}" stroke-width="3.5"/>`;
  const label = task.label || "";
  const fs = label.length > 2 ? 9.5 : 12;
  out += `<text y="${fmt(fs / 2.8)}" text-anchor="middle" font-size="${fs}" font-weight="800" fill="${text}">${escapeXML(label)}</text>`;
  if (status === "completed") out += `<circle cx="${r - 2}" cy="${-r + 2}" r="6" fill="#fff" stroke="#2e9b4e" stroke-width="1.6"/><path d="M${r - 5},${-r + 2} l2,2.4 l4,-4.4" stroke="#2e9b4e" stroke-width="2" fill="none"/>`;
  if (status === "failed") out += `<path class="cross" d="M${-r + 3},${-r + 3} L${r - 3},${r - 3} M${r - 3},${-r + 3} L${-r + 3},${r - 3}" stroke="#d2341f" stroke-width="3.4" stroke-linecap="round"/>`;
  if (status === "open" && task.sizes && !small) {
    const now = task.type === "double" ? task.sizes.join("|") : task.sizes[0];
    out += `<g transform="translate(0 ${r + 7})"><rect x="-15" y="-7" width="30" height="13" rx="6" fill="#222" opacity="0.8"/>`;
    out += `<text y="3.5" text-anchor="middle" font-size="9.5" fill="#fff" font-weight="600">${now}/${task.value}</text></g>`;
  }
  out += `</g><g class="dot"><circle r="8" fill="${status === "open" ? color : fill}" stroke="#fff" stroke-width="1.6"/>`;
  out += `<text y="3.4" text-anchor="middle" font-size="9.5" font-weight="800" fill="#fff">${status === "failed" ? "✗" : status === "completed" ? "✓" : escapeXML(task.value ?? "")}</text></g>`;
  return out + "</g>";
}

/** Flag cloths: brighter than the ground they stand on. */
const FLAG_COLOR = { F: "#4fd04a", G: "#ffdd33", V: "#ff5533" };

/** A flag: a pole and its cloth, ringed white and dark so it reads on any ground, its own included. */
export function flagGlyph(letter) {
  const fill = letter === "X" ? "url(#pat-X)" : FLAG_COLOR[letter] || "#fff";
  const cloth = "M-5,-14 L13,-7.5 L-5,-1 Z";
  return (
    `<g class="flag"><title>${escapeXML(t(`flag.${letter in FLAG_COLOR ? letter : "X"}`))}</title>` +
    '<line x1="-5" y1="11" x2="-5" y2="-14" stroke="#1d1c18" stroke-width="4.6" stroke-linecap="round"/>' +
    '<line x1="-5" y1="11" x2="-5" y2="-14" stroke="#f4ead8" stroke-width="2"/>' +
    `<path d="${cloth}" fill="none" stroke="#1d1c18" stroke-width="5" stroke-linejoin="round"/>` +
    `<path d="${cloth}" fill="${fill}" stroke="#fff" stroke-width="2.4" stroke-linejoin="round"/>` +
    "</g>"
  );
}

/** Where on a tile its flag stands: on the area that carries it. */
export function flagAnchor(edges, areas, letter) {
  const shape = tileShape(edges, areas);
  const run = shape.patches.find((r) => r.letter === letter);
  if (run) return runAnchor(run, 0.5);
  const dirs = ((areas || []).find(([l]) => l === letter) || [null, [0]])[1];
  const [x, y] = edgeMid(dirs[0], 0.48);
  return [x, y];
}

/**
 * A whole tile centred on (0, 0), e.g. for the revealed-tile card or the draft pool.
 * opts: task (label, type, status, sizes), flag letter, letters (write each edge's letter).
 */
export function tileSVG(edges, areas, opts = {}) {
  const { ground, lines, peaks } = tilePasses(edges, areas);
  let out = ground + lines + peaks;
  out += `<polygon points="${hexPoints()}" fill="none" stroke="rgba(40,35,25,0.5)" stroke-width="1.4"/>`;
  if (opts.letters) out += edgeLetters(edges);
  if (opts.flag) {
    const [x, y] = flagAnchor(edges, areas, opts.flag);
    out += `<g transform="translate(${fmt(x)} ${fmt(y)}) scale(1.15)">${flagGlyph(opts.flag)}</g>`;
  }
  if (opts.task) {
    const marker = taskMarker(opts.task, { small: opts.small });
    // On a small picture of a tile (the draft) the marker is drawn larger, so its value reads.
    out += opts.markerScale ? `<g transform="scale(${opts.markerScale})">${marker}</g>` : marker;
  }
  return out;
}

export function edgeLetters(edges, x0 = 0, y0 = 0) {
  let out = "";
  for (let d = 0; d < 6; d++) {
    const [x, y] = edgeMid(d, 0.72);
    out += `<text class="edge-letter" x="${fmt(x + x0)}" y="${fmt(y + y0 + 4.5)}" text-anchor="middle">${edges[d]}</text>`;
  }
  return out;
}

/** A standalone SVG of one tile. */
export function tileIcon(edges, areas, opts = {}, size = 110) {
  const pad = 4;
  const w = 2 * S + pad * 2, h = SQ3 * S + pad * 2;
  const label = opts.title ? `<title>${escapeXML(opts.title)}</title>` : "";
  // A picture with a name (opts.title, or opts.label without a tooltip), else decoration that
  // assistive technology skips: the words beside it (or its button's label) say what it is.
  const role = opts.title ? 'role="img"' : opts.label ? `role="img" aria-label="${escapeXML(opts.label)}"` : 'aria-hidden="true"';
  return (
    `<svg class="tile-icon" viewBox="${-w / 2} ${-h / 2} ${w} ${h}" width="${size}" height="${fmt((size * h) / w)}" ${role}>` +
    label + tileSVG(edges, areas, opts) + "</svg>"
  );
}
