// The play area as an SVG board: tiles, legal cells, a ghost of the tile being placed,
// highlighted territories; pan (drag, arrow keys), zoom (buttons, +/-, ctrl + wheel, pinch).
import { S, center, hexPoints, pixelToHex, tileSVG, TERRAIN } from "./hex.js";

const NS = "http://www.w3.org/2000/svg";
/** Screen pixels kept free at each edge: the banner above, the tools right, the legend below. */
const PAD = { left: 24, right: 60, top: 52, bottom: 40 };

export class Board {
  constructor(container, handlers = {}) {
    this.handlers = handlers;
    this.svg = document.createElementNS(NS, "svg");
    this.svg.setAttribute("class", "board");
    this.svg.setAttribute("role", "application");
    this.svg.setAttribute("aria-label", "play area");
    this.world = document.createElementNS(NS, "g");
    this.layers = {};
    for (const name of ["tiles", "highlight", "legal", "ghost", "marks"]) {
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", name);
      this.world.appendChild(g);
      this.layers[name] = g;
    }
    this.svg.appendChild(this.world);
    container.appendChild(this.svg);
    this.view = { x: 0, y: 0, k: 1 };
    this.fitted = false;
    this.cells = [];
    this.legal = new Map();
    this.lastHover = null;
    this._pointers = new Map();
    this._bind();
    new ResizeObserver(() => { if (!this.fitted) this.fit(); else this._apply(); }).observe(this.svg);
  }

  _apply() {
    const { x, y, k } = this.view;
    const w = this.svg.clientWidth, h = this.svg.clientHeight;
    this.world.setAttribute("transform", `translate(${w / 2 + x} ${h / 2 + y}) scale(${k})`);
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

  _bind() {
    const svg = this.svg;
    let start = null, moved = false;
    svg.addEventListener("pointerdown", (e) => {
      if (e.button !== 0 && e.pointerType === "mouse") return;
      this._pointers.set(e.pointerId, [e.clientX, e.clientY]);
      svg.setPointerCapture(e.pointerId);
      start = { x: e.clientX, y: e.clientY, vx: this.view.x, vy: this.view.y };
      moved = false;
      if (this._pointers.size === 2) this._pinch = this._pinchState();
    });
    svg.addEventListener("pointermove", (e) => {
      if (this._pointers.has(e.pointerId)) this._pointers.set(e.pointerId, [e.clientX, e.clientY]);
      if (this._pointers.size === 2 && this._pinch) {
        const now = this._pinchState();
        this.zoomAt(now.d / this._pinch.d, now.cx, now.cy);
        this._pinch = now;
        moved = true;
        return;
      }
      if (start && this._pointers.size === 1) {
        const dx = e.clientX - start.x, dy = e.clientY - start.y;
        if (moved || Math.hypot(dx, dy) > 5) {
          moved = true;
          this.view.x = start.vx + dx;
          this.view.y = start.vy + dy;
          this.fitted = true;
          this._apply();
          svg.classList.add("panning");
          return;
        }
      }
      const [q, r] = this.cellAt(e.clientX, e.clientY);
      const key = `${q},${r}`;
      if (key !== this.lastHover) {
        this.lastHover = key;
        this.handlers.onHover?.(q, r);
      }
    });
    const end = (e) => {
      const was = this._pointers.has(e.pointerId);
      this._pointers.delete(e.pointerId);
      if (this._pointers.size < 2) this._pinch = null;
      svg.classList.remove("panning");
      if (was && start && !moved && e.type === "pointerup") {
        const [q, r] = this.cellAt(e.clientX, e.clientY);
        this.handlers.onClick?.(q, r);
      }
      if (this._pointers.size === 0) start = null;
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener("pointerleave", () => {
      if (this._pointers.size === 0) {
        this.lastHover = null;
        this.handlers.onHover?.(null, null);
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

  zoomAt(f, cx, cy) {
    const k = Math.min(3, Math.max(0.15, this.view.k * f));
    const rect = this.svg.getBoundingClientRect();
    if (cx === undefined) { cx = rect.left + rect.width / 2; cy = rect.top + rect.height / 2; }
    const [wx, wy] = this.toWorld(cx, cy);
    this.view.k = k;
    this.view.x = cx - rect.left - rect.width / 2 - wx * k;
    this.view.y = cy - rect.top - rect.height / 2 - wy * k;
    this.fitted = true;
    this._apply();
  }

  pan(dx, dy) {
    this.view.x += dx;
    this.view.y += dy;
    this.fitted = true;
    this._apply();
  }

  /** Centre the view on every tile and legal cell, clear of the tools at the edges. */
  fit() {
    const cells = this.cells.length ? this.cells : [[0, 0]];
    const pts = cells.map(([q, r]) => center(q, r));
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    const minX = Math.min(...xs) - S, maxX = Math.max(...xs) + S;
    const minY = Math.min(...ys) - S, maxY = Math.max(...ys) + S;
    const w = this.svg.clientWidth || 800, h = this.svg.clientHeight || 600;
    const { left, right, top, bottom } = PAD;
    const k = Math.min(1.3, Math.max(0.12, Math.min((w - left - right) / (maxX - minX), (h - top - bottom) / (maxY - minY))));
    const midX = (minX + maxX) / 2, midY = (minY + maxY) / 2;
    this.view = { k, x: (left - right) / 2 - midX * k, y: (top - bottom) / 2 - midY * k };
    if (this.svg.clientWidth) this.fitted = true;
    this._apply();
  }

  centreOn(q, r) {
    const [x, y] = center(q, r);
    this.view.x = -x * this.view.k;
    this.view.y = -y * this.view.k;
    this.fitted = true;
    this._apply();
  }

  /**
   * Draw an area. area: {tiles, tasks, last}; legal: Map "q,r" -> rotations; opts.letters.
   */
  setArea(area, legal, opts = {}) {
    const tasks = area.tasks || [];
    let html = "";
    const cells = [];
    for (const t of area.tiles) {
      const [x, y] = center(t.at[0], t.at[1]);
      const task = t.task !== undefined ? tasks[t.task] : null;
      html += `<g class="tile" data-at="${t.at[0]},${t.at[1]}" transform="translate(${x.toFixed(1)} ${y.toFixed(1)})">`;
      html += tileSVG(t.edges, { task, flag: t.flag, letters: opts.letters }) + "</g>";
      cells.push(t.at);
    }
    this.layers.tiles.innerHTML = html;
    let marks = "";
    if (area.last) {
      const [x, y] = center(area.last[0], area.last[1]);
      marks += `<polygon class="last-mark" transform="translate(${x.toFixed(1)} ${y.toFixed(1)})" points="${hexPoints(S - 2)}"/>`;
    }
    this.layers.marks.innerHTML = marks;
    this.legal = legal || new Map();
    let lhtml = "";
    for (const key of this.legal.keys()) {
      const [q, r] = key.split(",").map(Number);
      const [x, y] = center(q, r);
      lhtml += `<polygon class="legal-cell" data-at="${key}" transform="translate(${x.toFixed(1)} ${y.toFixed(1)})" points="${hexPoints(S - 3)}"/>`;
      cells.push([q, r]);
    }
    this.layers.legal.innerHTML = lhtml;
    const grew = cells.length !== this.cells.length;
    this.cells = cells;
    if (!this.fitted || (grew && opts.follow && !this.allVisible())) this.fit();
  }

  /** Whether every tile and legal cell is inside the view. */
  allVisible() {
    const w = this.svg.clientWidth, h = this.svg.clientHeight;
    const { x, y, k } = this.view;
    const m = S * k * 0.9;
    return this.cells.every(([q, r]) => {
      const [cx, cy] = center(q, r);
      const sx = w / 2 + x + cx * k, sy = h / 2 + y + cy * k;
      return sx > m + PAD.left && sx < w - m - PAD.right && sy > m + PAD.top && sy < h - m - PAD.bottom;
    });
  }

  /** The tile being placed, drawn at (q, r); ok: it fits there in this rotation. */
  setGhost(edges, q, r, opts = {}) {
    if (q === null || q === undefined) {
      this.layers.ghost.innerHTML = "";
      return;
    }
    const [x, y] = center(q, r);
    const cls = opts.ok ? "ghost ok" : "ghost bad";
    const sel = opts.selected ? " selected" : "";
    this.layers.ghost.innerHTML =
      `<g class="${cls}${sel}" transform="translate(${x.toFixed(1)} ${y.toFixed(1)})">` +
      `<g class="ghost-tile">${tileSVG(edges, { task: opts.task, flag: opts.flag, letters: opts.letters })}</g>` +
      `<polygon class="ghost-outline" points="${hexPoints(S - 1)}"/></g>`;
  }

  /** Outline the cells of territories (from a preview): [{letter, cells}]. */
  setHighlight(groups) {
    let html = "";
    for (const g of groups || []) {
      const color = TERRAIN[g.letter] ? TERRAIN[g.letter].color : "#fff";
      for (const [q, r] of g.cells) {
        const [x, y] = center(q, r);
        html += `<polygon class="group-cell" style="stroke:${color}" transform="translate(${x.toFixed(1)} ${y.toFixed(1)})" points="${hexPoints(S - 6)}"/>`;
      }
    }
    this.layers.highlight.innerHTML = html;
  }
}
