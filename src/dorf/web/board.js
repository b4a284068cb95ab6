// The play area as an SVG board: tiles, legal cells, a ghost of the tile being placed,
// highlighted territories, task markers and flags that stay readable at every zoom; pan (drag,
// one finger, arrow keys), zoom (buttons, +/-, ctrl + wheel, two fingers). On a touch screen a
// tap where the cells are smaller than a finger first zooms in there.
import {
  S, center, hexPoints, pixelToHex, tilePasses, taskMarker, taskWords, flagGlyph, flagAnchor, edgeLetters, TERRAIN,
  DIRS, edgesJoin, edgePath, edgeMid } from "./hex.js";
import { NARROW } from "./util.js";
import { t as say } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
/** Below this zoom, task markers collapse to coloured dots with their value. */
const COMPACT = 0.42;
/** A tap moves less than this many pixels (a finger wobbles more than a mouse). */
const SLOP = { mouse: 5, pen: 6, touch: 10 };
/** The height in CSS pixels of a legal cell (a hex of radius S - 3) at zoom 1. */
const CELL_PX = Math.sqrt(3) * (S - 3);
/** A finger's target: 44 CSS pixels. Below this zoom a highlighted cell is smaller than that. */
const FINGER_K = 44 / CELL_PX;
/** The zoom a tap on small cells brings: cells of 48 px, a little more than a finger. */
const TOUCH_K = 48 / CELL_PX;
/** The phone's layout (the bar, no banner; the tools at the top right). */
const BAR_LAYOUT = window.matchMedia?.(NARROW);

export function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

function at(x, y) {
  return `translate(${x.toFixed(1)} ${y.toFixed(1)})`;
}

export class Board {
  constructor(container, handlers = {}) {
    this.handlers = handlers;
    this.container = container;
    this.svg = document.createElementNS(NS, "svg");
    this.svg.setAttribute("class", "board");
    this.svg.setAttribute("role", "application");
    this.svg.setAttribute("aria-label", handlers.label || say("board.area"));
    this.world = document.createElementNS(NS, "g");
    this.layers = {};
    for (const name of ["under", "ground", "grid", "lines", "peaks", "highlight", "legal", "last", "others", "ghost", "marks", "fx"]) {
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", name);
      this.world.appendChild(g);
      this.layers[name] = g;
    }
    this.svg.appendChild(this.world);
    this.banner = document.createElement("div");
    this.banner.className = "banner hidden";
    this.banner.setAttribute("aria-live", "polite");
    this.tip = document.createElement("div");
    this.tip.className = "board-tip hidden";
    this.tip.setAttribute("role", "tooltip");
    container.append(this.svg, this.banner, this.tip);
    this.view = { x: 0, y: 0, k: 1 };
    this.fitted = false;
    this.cells = [];
    this.legal = new Map();
    this.info = new Map();
    this.drawnKey = null;
    this.lastHover = null;
    this.marks = [];
    this._pointers = new Map();
    this._bind();
    // The board's size, kept from the resize observer: reading it from the layout on every redraw
    // would force the browser to lay the page out again each time.
    this.size = { w: 0, h: 0 };
    new ResizeObserver(([entry]) => {
      this.size = { w: entry.contentRect.width, h: entry.contentRect.height };
      if (!this.fitted) this.fit();
      else this._apply();
    }).observe(this.svg);
  }

  _apply() {
    const { x, y, k } = this.view;
    const { w, h } = this.size;
    this.world.setAttribute("transform", `translate(${w / 2 + x} ${h / 2 + y}) scale(${k})`);
    if (k !== this._markK) this._scaleMarks();
    const small = k < FINGER_K;
    if (small !== this._small) {
      this._small = small;
      this.handlers.onSmall?.(small);
    }
  }

  /** Task markers and flags keep a readable size on screen however far the board is zoomed out. */
  _scaleMarks() {
    const k = this.view.k;
    this._markK = k;
    const compact = k < COMPACT;
    this.svg.classList.toggle("compact", compact);
    const task = compact ? 1 / k : Math.max(1, 0.8 / k);
    const flag = Math.max(1, 0.62 / k);
    for (const m of this.marks) m.node.setAttribute("transform", `${at(m.x, m.y)} scale(${((m.flag ? flag : task) * m.base).toFixed(3)})`);
    const label = Math.min(2.2, Math.max(1, 0.75 / k));
    for (const m of this.otherLabels || []) m.node.setAttribute("transform", `${at(m.x, m.y)} scale(${label.toFixed(3)})`);
  }

  /** Board coordinates of a client point. */
  toWorld(cx, cy) {
    const rect = this.svg.getBoundingClientRect();
    const w = rect.width, h = rect.height;
    return [(cx - rect.left - w / 2 - this.view.x) / this.view.k, (cy - rect.top - h / 2 - this.view.y) / this.view.k];
  }

  cellAt(cx, cy) {
    const [x, y] = this.toWorld(cx, cy);
    return pixelToHex(x, y);
  }

  /** Where cell (q, r) is on the screen (client coordinates of its centre). */
  screenOf(q, r) {
    const rect = this.svg.getBoundingClientRect();
    const [x, y] = center(q, r);
    return [rect.left + rect.width / 2 + this.view.x + x * this.view.k, rect.top + rect.height / 2 + this.view.y + y * this.view.k];
  }

  _bind() {
    const svg = this.svg;
    let start = null, moved = false;
    svg.addEventListener("pointerdown", (e) => {
      if (e.button !== 0 && e.pointerType === "mouse") return;
      this._pointers.set(e.pointerId, [e.clientX, e.clientY]);
      svg.setPointerCapture?.(e.pointerId);
      start = { x: e.clientX, y: e.clientY, vx: this.view.x, vy: this.view.y };
      moved = this._pointers.size > 1;
      if (this._pointers.size === 2) this._pinch = this._pinchState();
    });
    svg.addEventListener("pointermove", (e) => {
      if (this._pointers.has(e.pointerId)) this._pointers.set(e.pointerId, [e.clientX, e.clientY]);
      if (this._pointers.size === 2 && this._pinch) {
        this.glide = this.zooming = null; // the fingers take over from a zoom under way
        const now = this._pinchState();
        this.zoomAt(now.d / this._pinch.d, now.cx, now.cy);
        this.pan(now.cx - this._pinch.cx, now.cy - this._pinch.cy);
        this._pinch = now;
        moved = true;
        return;
      }
      if (start && this._pointers.size === 1) {
        const dx = e.clientX - start.x, dy = e.clientY - start.y;
        if (moved || Math.hypot(dx, dy) > (SLOP[e.pointerType] ?? 5)) {
          moved = true;
          this.glide = this.zooming = null;
          this.view.x = start.vx + dx;
          this.view.y = start.vy + dy;
          this.fitted = true;
          this.touched = true;
          this._apply();
          this.hideTip();
          svg.classList.add("panning");
          return;
        }
      }
      if (e.pointerType === "touch") return; // a finger does not hover
      const [q, r] = this.cellAt(e.clientX, e.clientY);
      const key = `${q},${r}`;
      if (key !== this.lastHover) {
        this.lastHover = key;
        this.handlers.onHover?.(q, r, e);
      }
    });
    const end = (e) => {
      const was = this._pointers.has(e.pointerId);
      this._pointers.delete(e.pointerId);
      if (this._pointers.size < 2) this._pinch = null;
      svg.classList.remove("panning");
      if (was && start && !moved && e.type === "pointerup") {
        const [q, r] = this.cellAt(e.clientX, e.clientY);
        if (e.pointerType === "touch" && this.smallTargets()) {
          // Cells smaller than a finger: the tap zooms in where it landed (and may choose the
          // cell there, never place it); the next tap hits a target of 44 px or more.
          this.zoomTo(TOUCH_K, e.clientX, e.clientY, [q, r]);
          this.handlers.onClick?.(q, r, e, { zoomed: true });
        } else this.handlers.onClick?.(q, r, e, {});
      }
      if (this._pointers.size === 0) start = null;
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener("pointerleave", (e) => {
      if (this._pointers.size === 0 && e.pointerType !== "touch") {
        this.lastHover = null;
        this.handlers.onHover?.(null, null, e);
      }
    });
    let lastWheel = 0;
    svg.addEventListener("wheel", (e) => {
      e.preventDefault();
      if (e.ctrlKey || e.metaKey || !this.handlers.onRotate) {
        this.zoomAt(Math.exp(-e.deltaY * 0.0025), e.clientX, e.clientY);
        return;
      }
      const now = performance.now();
      if (now - lastWheel < 140 || Math.abs(e.deltaY) < 1) return;
      lastWheel = now;
      this.handlers.onRotate(e.deltaY > 0 ? 1 : -1);
    }, { passive: false });
  }

  _pinchState() {
    const [[x1, y1], [x2, y2]] = [...this._pointers.values()];
    return { d: Math.hypot(x2 - x1, y2 - y1) || 1, cx: (x1 + x2) / 2, cy: (y1 + y2) / 2 };
  }

  /** Whether the highlighted cells are smaller on the screen than a finger's target. */
  smallTargets() {
    return this.legal.size > 0 && (this.zooming ?? this.view.k) < FINGER_K;
  }

  /**
   * Zoom to k about a client point, in a short glide (none for reduced motion); ``cell`` ([q, r]),
   * the cell tapped there, is then moved wholly into view if the zoom left part of it outside.
   */
  zoomTo(k, cx, cy, cell = null) {
    const from = this.view.k;
    if (reducedMotion()) {
      this.zoomAt(k / from, cx, cy);
      if (cell) this.bringIn(...cell);
      return;
    }
    const t0 = performance.now(), span = 160;
    const glide = (this.glide = {});
    this.zooming = k; // where the view is going: a tap meanwhile does not zoom again
    const step = (now) => {
      if (this.glide !== glide) return; // another zoom took over
      const t = Math.min(1, (now - t0) / span);
      const want = from * (k / from) ** (1 - (1 - t) * (1 - t));
      this.zoomAt(want / this.view.k, cx, cy);
      if (t < 1) requestAnimationFrame(step);
      else {
        this.zooming = null;
        if (cell) this.bringIn(...cell);
      }
    };
    requestAnimationFrame(step);
  }

  /**
   * Pan the least that shows cell (q, r) whole, clear of the tools at the edges: a tap near the
   * edge zooms in about the finger, which can leave the grown cell's far side off the screen.
   */
  bringIn(q, r) {
    const { w, h } = this.size;
    const { x, y, k } = this.view;
    const pad = this._pad();
    const [cx, cy] = center(q, r);
    const sx = w / 2 + x + cx * k, sy = h / 2 + y + cy * k;
    const hw = S * k + 4, hh = (Math.sqrt(3) / 2) * S * k + 4; // the hex and its outline's stroke
    const dx = Math.max(0, pad.left + hw - sx) - Math.max(0, sx + hw - (w - pad.right));
    const dy = Math.max(0, pad.top + hh - sy) - Math.max(0, sy + hh - (h - pad.bottom));
    if (dx || dy) this.pan(dx, dy);
  }

  zoomAt(f, cx, cy) {
    const k = Math.min(3, Math.max(0.12, this.view.k * f));
    const rect = this.svg.getBoundingClientRect();
    if (cx === undefined) { cx = rect.left + rect.width / 2; cy = rect.top + rect.height / 2; }
    const [wx, wy] = this.toWorld(cx, cy);
    this.view.k = k;
    this.view.x = cx - rect.left - rect.width / 2 - wx * k;
    this.view.y = cy - rect.top - rect.height / 2 - wy * k;
    this.fitted = true;
    this.touched = true;
    this.hideTip();
    this._apply();
  }

  pan(dx, dy) {
    this.view.x += dx;
    this.view.y += dy;
    this.fitted = true;
    this.touched = true;
    this._apply();
  }

  /** Screen pixels kept free at each edge: the banner above, the tools at the side. */
  _pad() {
    const w = this.size.w || 800;
    if (w < 560) return { left: 12, right: 12, top: 46, bottom: 12 };
    // The phone on its side: no banner above; the tools at the top right.
    if (BAR_LAYOUT?.matches) return { left: 12, right: 52, top: 12, bottom: 12 };
    return { left: 24, right: 60, top: 52, bottom: 24 };
  }

  /** Centre the view on every tile and legal cell, clear of the tools at the edges. */
  fit() {
    this.glide = this.zooming = null;
    const cells = this.cells.length ? this.cells : [[0, 0]];
    const pts = cells.map(([q, r]) => center(q, r));
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    const minX = Math.min(...xs) - S, maxX = Math.max(...xs) + S;
    const minY = Math.min(...ys) - S, maxY = Math.max(...ys) + S;
    const w = this.size.w || 800, h = this.size.h || 600;
    const { left, right, top, bottom } = this._pad();
    const k = Math.min(1.3, Math.max(this.fitFloor || 0.12, Math.min((w - left - right) / (maxX - minX), (h - top - bottom) / (maxY - minY))));
    const midX = (minX + maxX) / 2, midY = (minY + maxY) / 2;
    this.view = { k, x: (left - right) / 2 - midX * k, y: (top - bottom) / 2 - midY * k };
    if (this.size.w) this.fitted = true;
    this.touched = false;
    this._apply();
  }

  centreOn(q, r) {
    const [x, y] = center(q, r);
    this.view.x = -x * this.view.k;
    this.view.y = -y * this.view.k;
    this.fitted = true;
    this.touched = true;
    this._apply();
  }

  /**
   * Draw an area. area: {tiles, tasks, flags, last}; legal: Map "q,r" -> rotations;
   * opts.letters: edge letters; opts.follow: refit when the area outgrows the view.
   */
  setArea(area, legal, opts = {}) {
    const tasks = area.tasks || [];
    const key = JSON.stringify([area.tiles.length, area.last, area.tiles.at(-1)?.edges, tasks, area.flags, !!opts.letters]);
    if (key !== this.drawnKey) {
      this.drawnKey = key;
      this._drawTiles(area, tasks, opts);
    }
    // A tile placed since the last drawing settles (not the tiles already there when the page opens).
    const grew = this.tileCount !== undefined && area.tiles.length > this.tileCount;
    this.tileCount = area.tiles.length;
    if (area.last && grew && opts.animate !== false) this.settle(area.last);
    this.legal = legal || new Map();
    let lhtml = "";
    const cells = area.tiles.map((t) => t.at);
    for (const k of this.legal.keys()) {
      const [q, r] = k.split(",").map(Number);
      const [x, y] = center(q, r);
      lhtml += `<polygon class="legal-cell" data-at="${k}" points="${hexPoints(S - 3, x, y)}"/>`;
      cells.push([q, r]);
    }
    this.layers.legal.innerHTML = lhtml;
    const moved = JSON.stringify(cells) !== JSON.stringify(this.cells);
    this.cells = cells;
    // Follow the game: keep every tile and highlighted cell in view, unless the player moved the
    // view themselves; then refit only when none of the highlighted cells is left in view.
    if (!this.fitted) this.fit();
    else if (moved && opts.follow && (this.touched ? this.legal.size && !this.anyLegalVisible() : !this.allVisible())) this.fit();
  }

  /** Whether some highlighted cell is inside the view. */
  anyLegalVisible() {
    return [...this.legal.keys()].some((key) => this._inView(...key.split(",").map(Number)));
  }

  /**
   * Draw the tiles, their markers and flags. Tiles only ever join an area (an undo aside), so
   * when the tiles drawn so far are still its first ones only the new tiles are added.
   */
  _drawTiles(area, tasks, opts) {
    const sig = area.tiles.map((t) => `${t.at}|${t.edges}|${t.flag || ""}`);
    const old = this.drawnTiles || [];
    const keep = opts.letters === this.drawnLetters && old.length <= sig.length && old.every((s, i) => s === sig[i]);
    const from = keep ? old.length : 0;
    this.drawnTiles = sig;
    this.drawnLetters = opts.letters;
    let under = "", ground = "", lines = "", peaks = "", marks = "";
    this.info = new Map();
    area.tiles.forEach((t, i) => {
      const [x, y] = center(t.at[0], t.at[1]);
      const cell = `${t.at[0]},${t.at[1]}`;
      if (i >= from) {
        const pass = tilePasses(t.edges, t.areas, x, y);
        under += `<polygon points="${hexPoints(S, x, y + 6)}"/>`;
        ground += `<g data-at="${cell}">${pass.ground}</g>`;
        const letters = opts.letters ? edgeLetters(t.edges, x, y) : "";
        if (pass.lines || letters) lines += `<g data-at="${cell}">${pass.lines}${letters}</g>`;
        if (pass.peaks) peaks += `<g data-at="${cell}">${pass.peaks}</g>`;
      }
      const words = [];
      if (t.flag) {
        const [fx, fy] = flagAnchor(t.edges, t.areas, t.flag);
        const flag = (area.flags || []).find((f) => f.at[0] === t.at[0] && f.at[1] === t.at[1]);
        const closed = flag && flag.closed ? " closed" : "";
        marks += `<g class="mark flag-mark${closed}" data-x="${(x + fx).toFixed(1)}" data-y="${(y + fy).toFixed(1)}" data-base="1.2" data-flag="1">${flagGlyph(t.flag)}</g>`;
        const name = say(`flag.${TERRAIN[t.flag] && t.flag !== "X" ? t.flag : "X"}`);
        const tiles = flag ? say("count.tiles", { count: flag.size }) : "";
        words.push(!flag ? name : flag.closed ? say("board.flag_closed", { flag: name, tiles }) : say("board.flag_open", { flag: name, tiles, edges: say("count.open_edges", { count: flag.open_edges }) }));
      }
      if (t.task !== undefined && tasks[t.task]) {
        const task = tasks[t.task];
        marks += `<g class="mark" data-x="${x.toFixed(1)}" data-y="${y.toFixed(1)}" data-base="1">${taskMarker(task)}</g>`;
        words.unshift(taskWords(task));
      }
      if (words.length) this.info.set(cell, words);
    });
    // Lines between tiles only where the terrains differ, and round the landscape: a region that
    // runs over many tiles reads as one piece of land. (Drawn anew: a new tile changes its neighbours'.)
    this.edgesAt = new Map(area.tiles.map((t) => [`${t.at[0]},${t.at[1]}`, t.edges]));
    // Where the same ground meets, a stroke of that ground covers the hairline the two tiles'
    // antialiased borders would leave.
    let rim = "", seam = "";
    const mend = {};
    for (const t of area.tiles) {
      const [x, y] = center(t.at[0], t.at[1]);
      DIRS.forEach(([dq, dr], d) => {
        const other = this.edgesAt.get(`${t.at[0] + dq},${t.at[1] + dr}`);
        if (other === undefined) rim += edgePath(d, x, y);
        else if (d >= 3) return;
        else if (!edgesJoin(t.edges[d], other[(d + 3) % 6])) seam += edgePath(d, x, y);
        else if (t.edges[d] === other[(d + 3) % 6]) {
          const ground = "RT".includes(t.edges[d]) ? "M" : t.edges[d];
          mend[ground] = (mend[ground] || "") + edgePath(d, x, y);
        }
      });
    }
    this.layers.grid.innerHTML = Object.entries(mend).map(([l, d]) => `<path class="mend" stroke="url(#pat-${l})" d="${d}"/>`).join("") +
      `<path class="rim" d="${rim}"/><path class="seam" d="${seam}"/>`;
    const layers = { under, ground, lines, peaks };
    for (const [name, html] of Object.entries(layers)) {
      if (!keep) this.layers[name].innerHTML = html;
      else if (html) this.layers[name].insertAdjacentHTML("beforeend", html);
    }
    this.layers.marks.innerHTML = marks;
    let last = "";
    if (area.last) {
      const [x, y] = center(area.last[0], area.last[1]);
      last = `<polygon class="last-mark" points="${hexPoints(S - 3, x, y)}"/>`;
    }
    this.layers.last.innerHTML = last;
    this.marks = [...this.layers.marks.querySelectorAll(".mark")].map((node) => ({
      node, x: Number(node.dataset.x), y: Number(node.dataset.y), base: Number(node.dataset.base), flag: !!node.dataset.flag,
    }));
    this._scaleMarks();
  }

  /** The placed tile settles into its cell: a short drop, none for reduced motion. */
  settle(cell) {
    if (reducedMotion()) return;
    const [q, r] = cell;
    const [x, y] = center(q, r);
    const groups = [...this.world.querySelectorAll(`.ground [data-at="${q},${r}"], .lines [data-at="${q},${r}"], .peaks [data-at="${q},${r}"]`)];
    if (!groups.length) return;
    const t0 = performance.now(), span = 170;
    const step = (now) => {
      const t = Math.min(1, (now - t0) / span);
      const s = 1 + 0.14 * (1 - t) * (1 - t);
      const lift = -8 * (1 - t) * (1 - t);
      const transform = `translate(${x} ${y + lift}) scale(${s}) translate(${-x} ${-y})`;
      for (const g of groups) {
        if (t < 1) g.setAttribute("transform", transform);
        else g.removeAttribute("transform");
      }
      if (t < 1) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  /** A short celebration at a cell: a ring and a floating label ("+5", "✗"). */
  celebrate(cell, text, kind = "done", cells = []) {
    const [x, y] = center(cell[0], cell[1]);
    const g = document.createElementNS(NS, "g");
    g.setAttribute("class", `fx-burst ${kind}`);
    let html = "";
    for (const [q, r] of cells) {
      const [cx, cy] = center(q, r);
      html += `<polygon class="fx-cell" points="${hexPoints(S - 4, cx, cy)}"/>`;
    }
    const k = Math.max(1, 0.8 / this.view.k);
    html += `<g transform="${at(x, y)} scale(${k.toFixed(2)})"><circle class="fx-glow" r="30"/><circle class="fx-ring" r="26"/>`;
    html += `<text class="fx-text" y="-30" text-anchor="middle">${text}</text></g>`;
    g.innerHTML = html;
    this.layers.fx.appendChild(g);
    setTimeout(() => g.remove(), reducedMotion() ? 1600 : 1300);
  }

  /** Whether every tile and legal cell is inside the view. */
  allVisible() {
    return this.cells.every(([q, r]) => this._inView(q, r));
  }

  _inView(q, r) {
    const { w, h } = this.size;
    const { x, y, k } = this.view;
    const m = S * k * 0.9;
    const pad = this._pad();
    const [cx, cy] = center(q, r);
    const sx = w / 2 + x + cx * k, sy = h / 2 + y + cy * k;
    return sx > m + pad.left && sx < w - m - pad.right && sy > m + pad.top && sy < h - m - pad.bottom;
  }

  /** The tile being placed, drawn at (q, r): tile {edges, areas, task, flag}; opts.selected, opts.letters. */
  setGhost(tile, q, r, opts = {}) {
    if (!tile || q === null || q === undefined) {
      this.layers.ghost.innerHTML = "";
      return;
    }
    const [x, y] = center(q, r);
    const pass = tilePasses(tile.edges, tile.areas, x, y);
    let marks = "";
    if (tile.flag) {
      const [fx, fy] = flagAnchor(tile.edges, tile.areas, tile.flag);
      marks += `<g transform="${at(x + fx, y + fy)} scale(${Math.max(1.2, 0.62 / this.view.k).toFixed(2)})">${flagGlyph(tile.flag)}</g>`;
    }
    if (tile.task) marks += `<g transform="${at(x, y)} scale(${Math.max(1, 0.8 / this.view.k).toFixed(2)})">${taskMarker(tile.task)}</g>`;
    this.layers.ghost.innerHTML =
      `<g class="ghost${opts.selected ? " selected" : ""}"><g class="ghost-tile">${pass.ground}${pass.lines}${pass.peaks}` +
      `${opts.letters ? edgeLetters(tile.edges, x, y) : ""}${marks}</g>` +
      `<polygon class="ghost-outline" points="${hexPoints(S - 2, x, y)}"/>${this._matchMarks(tile.edges, q, r)}</g>`;
  }

  /**
   * Other players' tiles on the table (issue 63): the active player's chosen cell and the
   * proposals, each a faint tile outlined in its player's colour with their name above it.
   * items: [{tile: {edges, areas}, q, r, color, name, kind: "choice" | "proposal"}]. The name is
   * text (a text node), never markup.
   */
  setOthers(items) {
    // Drawn again only when they change (the page asks at every move of the pointer).
    const key = JSON.stringify((items || []).map((i) => [i.q, i.r, i.seat, i.kind, i.name, i.color, i.tile.edges, i.tile.areas]));
    if (key === this.othersKey) return;
    this.othersKey = key;
    const layer = this.layers.others;
    layer.replaceChildren();
    this.otherLabels = [];
    const stacked = new Map();
    for (const item of items || []) {
      const [x, y] = center(item.q, item.r);
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", `other-ghost ${item.kind}`);
      g.setAttribute("data-at", `${item.q},${item.r}`);
      g.setAttribute("data-seat", String(item.seat));
      const pass = tilePasses(item.tile.edges, item.tile.areas, x, y);
      g.innerHTML = `<g class="ghost-tile">${pass.ground}${pass.lines}${pass.peaks}</g>` +
        `<polygon class="other-outline" stroke="${item.color}" points="${hexPoints(S - 3, x, y)}"/>`;
      // The name above the tile (names at one cell stacked), a readable size at every zoom.
      const cell = `${item.q},${item.r}`;
      const n = stacked.get(cell) || 0;
      stacked.set(cell, n + 1);
      const label = document.createElementNS(NS, "g");
      label.setAttribute("class", "other-label");
      const width = Math.min(120, 14 + 7 * [...item.name].length);
      const rect = document.createElementNS(NS, "rect");
      rect.setAttribute("x", String(-width / 2));
      rect.setAttribute("y", "-9");
      rect.setAttribute("width", String(width));
      rect.setAttribute("height", "17");
      rect.setAttribute("rx", "8");
      rect.setAttribute("fill", item.color);
      const text = document.createElementNS(NS, "text");
      text.setAttribute("y", "4");
      text.setAttribute("text-anchor", "middle");
      text.textContent = item.name;
      label.append(rect, text);
      g.appendChild(label);
      layer.appendChild(g);
      this.otherLabels.push({ node: label, x, y: y - S * 0.52 + n * 19 });
    }
    this._scaleMarks();
  }

  /** On each edge of the ghost that meets a tile: a green tick where the terrains join, a red cross where they do not. */
  _matchMarks(edges, q, r) {
    const [x, y] = center(q, r);
    // Some 14 px across on the screen, however far the board is zoomed out.
    const s = Math.min(2, Math.max(1, 0.9 / this.view.k)).toFixed(2);
    let out = "";
    DIRS.forEach(([dq, dr], d) => {
      const other = this.edgesAt?.get(`${q + dq},${r + dr}`);
      if (other === undefined) return;
      const ok = edgesJoin(edges[d], other[(d + 3) % 6]);
      const [mx, my] = edgeMid(d, 0.76);
      const glyph = ok ? '<path d="M-3.6,0.2 L-1,2.8 L3.8,-2.6"/>' : '<path d="M-2.8,-2.8 L2.8,2.8 M2.8,-2.8 L-2.8,2.8"/>';
      out += `<g class="edge-match ${ok ? "ok" : "bad"}" data-edge="${d}" transform="${at(x + mx, y + my)} scale(${s})"><circle r="7"/>${glyph}</g>`;
    });
    return out;
  }

  /** Outline cells, each with its class and an optional word in it ([[q, r, className, word]]: a
   * lesson's placement and the coach's), and fit the view to them and the tiles up to `around`
   * cells from them (all the tiles: Infinity); cells far apart, the view is of the first one,
   * unless `all` keeps every one in view. */
  outline(cells, around = Infinity, all = false) {
    // Over everything, the tile shown on one of the cells too.
    if (!this.layers.outline) {
      this.layers.outline = document.createElementNS(NS, "g");
      this.layers.outline.setAttribute("class", "outline");
      this.world.appendChild(this.layers.outline);
    }
    const layer = this.layers.outline;
    layer.replaceChildren();
    for (const [q, r, name, word] of cells) {
      const [x, y] = center(q, r);
      const cell = document.createElementNS(NS, "polygon");
      cell.setAttribute("class", name);
      cell.setAttribute("points", hexPoints(S - 4, x, y));
      layer.appendChild(cell);
      if (!word) continue;
      // The word keeps a readable size however far the board is zoomed out, as a task marker does.
      const mark = document.createElementNS(NS, "g");
      const text = document.createElementNS(NS, "text");
      text.setAttribute("class", `${name}-word`);
      text.setAttribute("y", "5");
      text.setAttribute("text-anchor", "middle");
      text.textContent = word;
      mark.appendChild(text);
      layer.appendChild(mark);
      this.marks.push({ node: mark, x, y, base: 1, flag: false });
    }
    const apart = ([q, r], [cq, cr]) => (Math.abs(q - cq) + Math.abs(r - cr) + Math.abs(q + r - cq - cr)) / 2;
    // Cells far apart: the view is of the first one (the others are outlined, off to one side).
    const anchors = all || cells.every((c) => apart(c, cells[0]) <= 2 * around + 2) ? cells : cells.slice(0, 1);
    // Every cell in view, however far apart: the view may zoom further out than a player's own
    // (the outlines and their words keep their size on screen).
    this.fitFloor = all ? 0.02 : 0.12;
    const near = (cell) => anchors.some((c) => apart(cell, c) <= around);
    this.cells = [...this.cells.filter(near), ...anchors.map(([q, r]) => [q, r])];
    this.fit();
    this._scaleMarks();
  }

  /** Outline the cells of territories (from a preview): [{letter, cells}]. */
  setHighlight(groups) {
    let html = "";
    for (const g of groups || []) {
      const color = TERRAIN[g.letter] ? TERRAIN[g.letter].color : "#fff";
      for (const [q, r] of g.cells) {
        const [x, y] = center(q, r);
        html += `<polygon class="group-cell" style="stroke:${color}" points="${hexPoints(S - 6, x, y)}"/>`;
      }
    }
    this.layers.highlight.innerHTML = html;
  }

  setBanner(text, mine = false) {
    this.banner.textContent = text || "";
    this.banner.classList.toggle("hidden", !text);
    this.banner.classList.toggle("mine", !!mine);
  }

  /** What is at a placed tile, in words (its task, its flag), or null. */
  infoAt(q, r) {
    return this.info.get(`${q},${r}`) || null;
  }

  showTip(lines, q, r) {
    const rect = this.container.getBoundingClientRect();
    const [sx, sy] = this.screenOf(q, r);
    this.tip.replaceChildren(...lines.map((line) => Object.assign(document.createElement("div"), { textContent: line })));
    this.tip.classList.remove("hidden");
    const w = this.tip.offsetWidth, h = this.tip.offsetHeight;
    const left = Math.max(4, Math.min(rect.width - w - 4, sx - rect.left - w / 2));
    const top = sy - rect.top - h - 18 * Math.max(1, this.view.k) < 4 ? sy - rect.top + 22 : sy - rect.top - h - 18;
    this.tip.style.left = `${left}px`;
    this.tip.style.top = `${Math.max(4, top)}px`;
    clearTimeout(this.tipTimer);
    this.tipTimer = setTimeout(() => this.hideTip(), 5000);
  }

  hideTip() {
    this.tip.classList.add("hidden");
  }
}
