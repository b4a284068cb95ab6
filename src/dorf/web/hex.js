// Hex geometry and tile drawing: flat-topped hexes, axial (q, r), directions N, NE, SE, S, SW, NW.
// Terrain is never colour alone: every terrain has its own pattern, rivers and tracks their own
// line styles, and the edge letters can be shown on every tile.

export const S = 50;
const SQ3 = Math.sqrt(3);

export const TERRAIN = {
  F: { name: "forest", color: "#3f7f3a" },
  G: { name: "grain", color: "#e4bf47" },
  V: { name: "village", color: "#c8553d" },
  M: { name: "meadow", color: "#a9cf7f" },
  R: { name: "river", color: "#3a8fd8" },
  T: { name: "track", color: "#7d6a55" },
  L: { name: "lake", color: "#2b9c94" },
  P: { name: "mountain", color: "#a3a3a3" },
  X: { name: "multicoloured flag", color: "#c04fc0" },
};

export const TASK_COLOR = {
  forest: "#2f6d2b", grain: "#b8900f", village: "#b23c28", river: "#2277c4", track: "#6b5845",
  connection: "#7b4fb8", double: "#d07a12",
};

export function center(q, r) {
  return [1.5 * S * q, SQ3 * S * (r + q / 2)];
}

function corner(i, s = S) {
  const a = (Math.PI / 3) * i;
  return [s * Math.cos(a), s * Math.sin(a)];
}

function fmt(v) {
  return (Math.round(v * 100) / 100).toString();
}

export function hexPoints(s = S) {
  return [0, 1, 2, 3, 4, 5].map((i) => corner(i, s).map(fmt).join(",")).join(" ");
}

/** The midpoint of edge d (0 = N), scaled by f. */
export function edgeMid(d, f = 1) {
  const a = (Math.PI / 180) * (270 + 60 * d);
  const m = (SQ3 / 2) * S * f;
  return [m * Math.cos(a), m * Math.sin(a)];
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

/** Pattern definitions, put once in the page and used by every board. */
export function defsSVG() {
  const p = (id, base, body, size = 12, extra = "") =>
    `<pattern id="pat-${id}" width="${size}" height="${size}" patternUnits="userSpaceOnUse" ${extra}>` +
    `<rect width="${size}" height="${size}" fill="${base}"/>${body}</pattern>`;
  return (
    "<defs>" +
    p("F", TERRAIN.F.color, '<path d="M6 1.5 L10 9 L2 9 Z" fill="#2a5e27"/><rect x="5.3" y="9" width="1.4" height="2" fill="#24401f"/>', 12) +
    p("G", TERRAIN.G.color, '<path d="M0 8 L8 0 M-2 2 L2 -2 M6 10 L10 6" stroke="#b8901c" stroke-width="1.6"/>', 8) +
    p("V", TERRAIN.V.color, '<rect x="2" y="5" width="6" height="5" fill="#f3dcc8"/><path d="M1 5.5 L5 1.5 L9 5.5 Z" fill="#7c2416"/>', 12) +
    p("M", TERRAIN.M.color, '<circle cx="3" cy="3" r="0.9" fill="#8fba63"/><circle cx="9" cy="8" r="0.9" fill="#8fba63"/>', 12) +
    p("L", TERRAIN.L.color, '<path d="M0 4 Q2.5 1.5 5 4 T10 4 M0 9 Q2.5 6.5 5 9 T10 9" stroke="#a6e3dc" stroke-width="1.1" fill="none"/>', 10) +
    p("P", TERRAIN.P.color, '<path d="M0 12 L6 2 L12 12 Z" fill="#777"/><path d="M4.3 5 L6 2 L7.7 5 Z" fill="#fff"/>', 12) +
    p("X", "#fff", '<rect width="3" height="12" fill="#e04b8f"/><rect x="3" width="3" height="12" fill="#f2c230"/><rect x="6" width="3" height="12" fill="#3f9b3f"/><rect x="9" width="3" height="12" fill="#3a7fd8"/>', 12, 'patternTransform="rotate(35)"') +
    "</defs>"
  );
}

function triangle(d) {
  const [x1, y1] = corner((4 + d) % 6);
  const [x2, y2] = corner((5 + d) % 6);
  return `M0,0L${fmt(x1)},${fmt(y1)}L${fmt(x2)},${fmt(y2)}Z`;
}

function band(d) {
  const [x, y] = edgeMid(d, 1.02);
  return `M${fmt(x)},${fmt(y)}L0,0`;
}

/** A task marker: its label (F5), its status, and the current size against the target. */
export function taskMarker(task, { small = false } = {}) {
  const color = TASK_COLOR[task.type] || "#444";
  const status = task.status || "open";
  const r = small ? 12 : 15;
  let fill = "#fffdf6", text = "#222", mark = "";
  if (status === "completed") { fill = "#2e9b4e"; text = "#fff"; mark = "✓"; }
  if (status === "failed") { fill = "#6f6f6f"; text = "#eee"; mark = "✗"; }
  let out = `<g class="task-marker ${status}">`;
  out += `<circle r="${r}" fill="${fill}" stroke="${color}" stroke-width="3.5"/>`;
  const label = task.label + mark;
  const fs = label.length > 3 ? 9 : 11.5;
  out += `<text y="${fs / 2.8}" text-anchor="middle" font-size="${fs}" font-weight="700" fill="${text}">${label}</text>`;
  if (status === "open" && task.sizes && !small) {
    const now = task.type === "double" ? task.sizes.join("|") : task.sizes[0];
    out += `<g transform="translate(0 ${r + 7})"><rect x="-15" y="-7" width="30" height="13" rx="6" fill="#222" opacity="0.78"/>`;
    out += `<text y="3.5" text-anchor="middle" font-size="9.5" fill="#fff" font-weight="600">${now}/${task.value}</text></g>`;
  }
  return out + "</g>";
}

function flagGlyph(edges, flag) {
  let d = edges.indexOf(flag);
  if (d < 0) d = 0;
  const [x, y] = edgeMid(d, 0.5);
  const fill = flag === "X" ? "url(#pat-X)" : TERRAIN[flag].color;
  return (
    `<g class="flag" transform="translate(${fmt(x)} ${fmt(y)}) scale(1.35)">` +
    `<line x1="-5" y1="9" x2="-5" y2="-10" stroke="#3a2a1a" stroke-width="1.8"/>` +
    `<path d="M-5,-10 L10,-5.5 L-5,-1 Z" fill="${fill}" stroke="#fff" stroke-width="1.3"/>` +
    `<text x="0.6" y="-3.4" font-size="6.5" text-anchor="middle" fill="#fff" font-weight="700">${flag === "X" ? "" : flag}</text>` +
    "</g>"
  );
}

/**
 * The inside of a tile as SVG, centred on (0, 0).
 * edges: the six letters by direction after rotation; opts.task: a task (label, type, status, sizes);
 * opts.flag: the flag letter; opts.letters: write each edge's letter.
 */
export function tileSVG(edges, opts = {}) {
  let out = "";
  for (let d = 0; d < 6; d++) {
    const e = edges[d];
    const fill = e === "R" || e === "T" ? "M" : e;
    const base = TERRAIN[fill] ? TERRAIN[fill].color : "#ccc";
    out += `<path d="${triangle(d)}" fill="url(#pat-${fill})" stroke="${base}" stroke-width="0.6"/>`;
  }
  const rivers = [], tracks = [];
  for (let d = 0; d < 6; d++) {
    if (edges[d] === "R") rivers.push(d);
    if (edges[d] === "T") tracks.push(d);
  }
  for (const d of rivers) out += `<path d="${band(d)}" stroke="#1f5f9e" stroke-width="15" stroke-linecap="round"/>`;
  for (const d of rivers) out += `<path d="${band(d)}" stroke="${TERRAIN.R.color}" stroke-width="12" stroke-linecap="round"/>`;
  for (const d of rivers) out += `<path d="${band(d)}" stroke="#a9d6ff" stroke-width="1.6" stroke-dasharray="5 5" stroke-linecap="round"/>`;
  if (rivers.length === 1) out += `<circle r="9" fill="${TERRAIN.R.color}" stroke="#1f5f9e" stroke-width="1.5"/>`;
  for (const d of tracks) out += `<path d="${band(d)}" stroke="#4a3b2c" stroke-width="11" stroke-dasharray="2.2 3.8"/>`;
  for (const d of tracks) out += `<path d="${band(d)}" stroke="${TERRAIN.T.color}" stroke-width="4.5" stroke-linecap="round"/>`;
  for (const d of tracks) out += `<path d="${band(d)}" stroke="#e8dccb" stroke-width="1.2"/>`;
  if (tracks.length === 1) out += `<rect x="-6" y="-6" width="12" height="12" fill="${TERRAIN.T.color}" stroke="#4a3b2c" stroke-width="1.5"/>`;
  out += `<polygon points="${hexPoints()}" fill="none" stroke="rgba(40,35,25,0.45)" stroke-width="1.2"/>`;
  if (opts.letters) {
    for (let d = 0; d < 6; d++) {
      const [x, y] = edgeMid(d, 0.7);
      out += `<text class="edge-letter" x="${fmt(x)}" y="${fmt(y + 4)}" text-anchor="middle">${edges[d]}</text>`;
    }
  }
  if (opts.flag) out += flagGlyph(edges, opts.flag);
  if (opts.task) out += taskMarker(opts.task, { small: opts.small });
  return out;
}

/** A standalone SVG of one tile, e.g. for the revealed-tile card or the draft pool. */
export function tileIcon(edges, opts = {}, size = 110) {
  const pad = 4;
  const w = 2 * S + pad * 2, h = SQ3 * S + pad * 2;
  const label = opts.title ? `<title>${opts.title}</title>` : "";
  return (
    `<svg class="tile-icon" viewBox="${-w / 2} ${-h / 2} ${w} ${h}" width="${size}" height="${(size * h) / w}" role="img">` +
    label + tileSVG(edges, opts) + "</svg>"
  );
}
