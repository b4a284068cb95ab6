// The game page: one websocket to the server, a board per play area (side by side on a wide
// screen, tabs on a narrow one), the revealed tile, the preview, tasks, score, log, the Head to
// Head draft, sharing links, the score pad at the end; on a phone a bottom bar and sheets.
import { Board } from "./board.js";
import { rotate, turnAreas, tileIcon, taskMarker, TERRAIN, SEAT_COLORS } from "./hex.js";
import {
  api, el, rememberGame, rememberedGames, tokensOf, toast, copyButton, describeTask, progressText, put, plural } from "./util.js";

export function gamePage(root, id) {
  // Tokens handed over in the address (#t=TOKEN,TOKEN): keep them, then clear the address.
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("t")) {
    const tokens = {};
    hash.get("t").split(",").forEach((t, i) => (tokens["link" + i] = t));
    rememberGame(id, { tokens });
    history.replaceState(null, "", location.pathname);
  }
  document.body.classList.add("play");
  return new GameController(root, id);
}

const WIDE = "(min-width: 1200px)";
const NARROW = "(max-width: 760px)";

function media(query) {
  return window.matchMedia?.(query).matches ?? false;
}

/** "Tap" on a touch screen, "click" with a mouse. */
function tapWord() {
  return media("(pointer: coarse)") ? "tap" : "click";
}

class GameController {
  constructor(root, id) {
    this.id = id;
    this.game = null;
    this.you = { seats: [], legal: {} };
    this.rot = 0;
    this.tileKey = null;
    this.hover = null;
    this.selected = null;
    this.focus = null;
    this.userFocus = false;
    this.letters = localStorage.getItem("dorf.letters") === "1";
    this.previews = new Map();
    this.previewIds = new Set();
    this.previewWanted = null;
    this.nextId = 1;
    this.busy = false;
    this.padShown = false;
    this.retry = 0;
    this.hint = null;
    this.draftChoice = null;
    this.boards = [];
    this.build(root);
    this.connect();
    document.addEventListener("keydown", (e) => this.onKey(e));
    document.addEventListener("visibilitychange", () => {
      // Back on the page while disconnected: try again now rather than at the end of a back-off.
      if (document.visibilityState === "visible" && this.ws && this.ws.readyState === WebSocket.CLOSED && !this.gone) {
        clearTimeout(this.reconnectTimer);
        this.connect();
      }
    });
  }

  // --- layout -------------------------------------------------------------------------

  build(root) {
    root.innerHTML = "";
    this.tabs = el("div", { class: "area-tabs hidden", role: "tablist" });
    this.panes = el("div", { class: "boards" });
    this.draftHost = el("div", { class: "draft-host hidden" });
    this.legend = el("div", { class: "legend" });
    this.wrap = el("section", { class: "board-wrap" }, this.tabs, this.panes, this.draftHost, this.legend);
    this.panel = el("aside", { class: "panel", id: "panel", "aria-label": "game details" });
    this.panel.appendChild(el("button", {
      type: "button", class: "sheet-close secondary", "aria-label": "close", onclick: () => this.closeSheet(),
    }, "✕"));
    this.cards = {};
    for (const name of ["turn", "tile", "preview", "tasks", "score", "share", "log"]) {
      this.cards[name] = el("div", { class: `card card-${name}`, id: `card-${name}` });
      this.panel.appendChild(this.cards[name]);
    }
    this.modal = el("div", { class: "modal hidden", role: "dialog", "aria-modal": "true" });
    this.modal.addEventListener("click", (e) => { if (e.target === this.modal) this.closePad(); });
    this.backdrop = el("div", { class: "sheet-backdrop hidden", onclick: () => this.closeSheet() });
    this.bar = this.buildBar();
    this.page = el("div", { class: "game" }, this.wrap, this.panel);
    root.append(this.page, this.backdrop, this.bar, this.modal);
    this.status = document.getElementById("status");
    window.matchMedia?.(WIDE).addEventListener?.("change", () => this.game && this.render());
  }

  /** The phone's bottom bar: the tile and its rotation, place, undo, and the sheets. */
  buildBar() {
    const button = (label, attrs, fn) => el("button", { type: "button", ...attrs, onclick: fn }, label);
    this.barTile = el("span", { class: "bar-tile" });
    this.barText = el("span", { class: "bar-text", id: "bar-text", "aria-live": "polite" });
    this.barHint = button("Hint", { class: "small secondary bar-hint", id: "bar-hint" }, () => this.askHint());
    this.barPlace = button("Place", { class: "bar-place", id: "bar-place" }, () => this.placeFromBar());
    this.barUndo = button("↶", { class: "secondary", id: "bar-undo", title: "Undo", "aria-label": "undo" }, () => this.undo());
    this.barTasks = button("Tasks", { class: "secondary", id: "bar-tasks" }, () => this.openSheet("tasks"));
    this.barScore = button("Score", { class: "secondary", id: "bar-score" }, () => this.showPad());
    this.barMore = button("☰", { class: "secondary", id: "bar-more", title: "Game, log and links", "aria-label": "game, log and links" }, () => this.openSheet("more"));
    this.barRotate = [
      button("⟲", { class: "secondary bar-rot", id: "bar-rotate-left", "aria-label": "rotate anticlockwise" }, () => this.rotateBy(-1)),
      button("⟳", { class: "secondary bar-rot", id: "bar-rotate-right", "aria-label": "rotate clockwise" }, () => this.rotateBy(1)),
    ];
    return el("nav", { class: "bottom-bar", "aria-label": "play" },
      el("div", { class: "bar-row" }, this.barRotate[0], this.barTile, this.barRotate[1], this.barText, this.barHint),
      el("div", { class: "bar-row" }, this.barPlace, this.barUndo, this.barTasks, this.barScore, this.barMore));
  }

  /** One pane (header and board) per play area. */
  ensurePanes() {
    const count = this.game.areas.length;
    if (this.boards.length === count) return;
    put(this.panes);
    this.boards = [];
    this.paneHeads = [];
    this.paneNodes = [];
    for (let i = 0; i < count; i++) {
      const head = el("header", { class: "area-head" });
      const host = el("div", { class: "board-host" });
      const tool = (label, title, fn, extra = {}) =>
        el("button", { class: "tool", type: "button", title, "aria-label": title, onclick: fn, ...extra }, label);
      const letters = tool("Aa", "Show edge letters (L)", () => this.toggleLetters(), { "aria-pressed": String(this.letters), class: "tool letters-tool" });
      const board = new Board(host, {
        label: count > 1 ? `${this.game.seats[i].name}'s play area` : "play area",
        onHover: (q, r, e) => this.onHover(i, q, r, e),
        onClick: (q, r, e) => this.onClick(i, q, r, e),
        onRotate: (dir) => this.rotateBy(dir),
      });
      host.appendChild(el("div", { class: "board-tools" },
        tool("+", "Zoom in (+)", () => board.zoomAt(1.25)),
        tool("−", "Zoom out (-)", () => board.zoomAt(0.8)),
        tool("⤢", "Fit the area (F)", () => board.fit()),
        letters));
      const pane = el("div", { class: "area-pane", "data-area": String(i) }, count > 1 ? head : null, host);
      pane.addEventListener("pointerdown", () => {
        if (this.focus !== i && this.game && count > 1 && media(WIDE)) {
          this.focus = i;
          this.userFocus = true;
          this.renderCards();
          this.renderTabs();
        }
      });
      this.panes.appendChild(pane);
      this.boards.push(board);
      this.paneHeads.push(head);
      this.paneNodes.push(pane);
    }
    this.page.dataset.areas = String(count);
  }

  // --- the connection ------------------------------------------------------------------

  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(this.id)}`);
    this.ws = ws;
    this.setStatus("connecting…", "wait");
    ws.onopen = () => {
      this.retry = 0;
      this.waits = [];
      this.setStatus("connected", "ok");
      ws.send(JSON.stringify({ type: "hello", tokens: tokensOf(this.id) }));
    };
    ws.onmessage = (event) => this.onMessage(JSON.parse(event.data));
    ws.onclose = (event) => {
      if (event.code === 4404 || this.gone) {
        this.gone = true;
        if (!this.brokenReason) this.setStatus("no such game", "bad");
        return;
      }
      this.busy = false;
      // Quick while someone looks at the page (a restarted server is found within 2 s); slower in the background.
      const cap = document.visibilityState === "visible" ? 2000 : 10000;
      const wait = Math.min(cap, 250 * 2 ** this.retry++);
      this.waits = [...(this.waits || []), wait];
      this.setStatus(`reconnecting in ${wait / 1000} s…`, "bad");
      if (this.status) {
        this.status.dataset.retries = String(this.retry);
        this.status.dataset.waits = JSON.stringify(this.waits);
      }
      this.reconnectTimer = setTimeout(() => this.connect(), wait);
    };
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      toast("Not connected: reconnecting…");
      return null;
    }
    message.id = this.nextId++;
    this.ws.send(JSON.stringify(message));
    return message.id;
  }

  setStatus(text, kind) {
    if (!this.status) return;
    this.status.textContent = text;
    this.status.title = text;
    this.status.className = `conn ${kind}`;
  }

  onMessage(msg) {
    if (msg.type === "state") this.onState(msg);
    else if (msg.type === "preview") this.onPreview(msg);
    else if (msg.type === "ok") {
      this.busy = false;
      if (msg.undone) toast(`Took back ${plural(msg.undone, "placement")}`, "info");
    } else if (msg.type === "error" && this.previewIds.delete(msg.id)) {
      return; // a preview the game has outrun: nothing to tell
    } else if (msg.type === "error") {
      this.busy = false;
      if (msg.code === "no-game" || msg.code === "broken") {
        this.gone = true;
        if (msg.code === "broken") this.showBroken(msg.message);
        else put(this.cards.turn, el("h2", {}, "No such game"), el("p", {}, msg.message), el("a", { href: "/" }, "Start a new game"));
        return;
      }
      if (msg.code === "bad-token") this.tokenProblem = msg.message;
      toast(msg.message);
      this.renderTurn();
      this.renderBar();
    }
  }

  /** A game the server could not load: say so and why; nothing can be played. */
  showBroken(reason) {
    this.brokenReason = reason;
    this.setStatus("broken game", "bad");
    document.body.dataset.broken = "1";
    put(this.cards.turn,
      el("h2", {}, "This game is broken"),
      el("p", { class: "note bad", id: "broken-reason" }, reason || "It could not be loaded."),
      el("p", { class: "note" }, "Nothing can be played in it."),
      el("a", { class: "button", href: "/" }, "Start a new game"));
    for (const board of this.boards) board.setBanner(`Broken: ${reason}`);
  }

  // --- state -----------------------------------------------------------------------------

  onState(msg) {
    const before = this.game;
    this.game = msg.game;
    this.you = msg.you;
    const game = this.game;
    if (!before) {
      document.title = `${game.mode_name} · dorf`;
      const names = game.seats.map((s) => s.name);
      if (tokensOf(this.id).length) rememberGame(this.id, { mode: game.mode, names });
      this.focus = this.you.seats.length ? this.areaOf(this.you.seats[0]) : 0;
    }
    this.ensurePanes();
    const me = this.actSeat();
    if (me !== null && this.focus !== this.areaOf(me) && (!this.userFocus || !this.wasMyTurn)) {
      this.focus = this.areaOf(me);
      this.userFocus = false;
    }
    this.wasMyTurn = me !== null;
    const revealed = this.revealedFor(me ?? this.focusSeat());
    // A new tile to place (not just someone else's move): start afresh.
    const mineArea = game.areas[me === null ? this.focus ?? 0 : this.areaOf(me)] || game.areas[0];
    const key = `${me}|${revealed ? revealed.id + revealed.face : "-"}|${mineArea.tiles.length}|${game.phase}`;
    if (key !== this.tileKey) {
      this.tileKey = key;
      this.rot = 0;
      this.selected = null;
      this.hint = null;
      this.draftChoice = null;
      this.previews.clear();
    } else if (this.selected && !this.legalMap().has(`${this.selected.q},${this.selected.r}`)) {
      this.selected = null;
    }
    if (game.over) rememberGame(this.id, { over: true });
    document.body.dataset.version = String(game.version);
    document.body.dataset.over = game.over ? "1" : "0";
    document.body.dataset.mine = me !== null ? "1" : "0";
    document.body.dataset.phase = game.phase;
    this.render();
    if (before && !game.broken) this.celebrate(before, game);
    if (game.broken) this.showBroken(game.broken);
    if (game.over && !this.padShown) {
      this.padShown = true;
      this.showPad();
    }
  }

  /** Tasks just completed or failed, flag territories just closed: a short show on the board. */
  celebrate(before, game) {
    game.areas.forEach((area, i) => {
      const old = before.areas[i];
      const board = this.boards[i];
      if (!old || !board || area.tiles.length <= old.tiles.length) return;
      area.tasks.forEach((task, j) => {
        const was = old.tasks[j];
        if (!was || was.status !== "open" || task.status === "open") return;
        if (task.status === "completed") board.celebrate(task.at, `+${task.value}`, "done");
        else board.celebrate(task.at, "✗", "failed");
      });
      for (const flag of area.flags || []) {
        const was = (old.flags || []).find((f) => f.at[0] === flag.at[0] && f.at[1] === flag.at[1]);
        if (flag.closed && (!was || !was.closed)) board.celebrate(flag.at, `+${flag.size}`, "flag", flag.cells || []);
      }
      const pairs = (area.lakes || 0) + (area.mountains || 0) - (old.lakes || 0) - (old.mountains || 0);
      if (pairs > 0 && area.last) board.celebrate(area.last, `+${3 * pairs}`, "done");
    });
  }

  areaOf(seat) {
    return this.game.mode === "coop" ? 0 : seat;
  }

  focusSeat() {
    return this.game.mode === "coop" ? this.game.waiting[0] ?? 0 : this.focus;
  }

  /** The seat this screen acts for now: a seat it holds that must decide. */
  actSeat() {
    if (!this.game || this.game.broken) return null;
    const mine = this.you.seats.filter((s) => this.game.waiting.includes(s));
    if (!mine.length) return null;
    const focused = mine.find((s) => this.areaOf(s) === this.focus);
    return focused ?? mine[0];
  }

  revealedFor(seat) {
    if (seat === null || seat === undefined) return null;
    const list = this.game.revealed || [];
    return this.game.mode === "head-to-head" ? list[seat] : list[0];
  }

  /** Where the acting seat's tile fits: "q,r" -> rotations. */
  legalMap() {
    const me = this.actSeat();
    const map = new Map();
    if (me === null) return map;
    for (const [q, r, rots] of this.you.legal[String(me)] || []) map.set(`${q},${r}`, rots);
    return map;
  }

  effRot(q, r) {
    const rots = this.legalMap().get(`${q},${r}`);
    const revealed = this.revealedFor(this.actSeat());
    if (!rots || !revealed) return null;
    for (let i = 0; i < 6; i++) {
      const k = (this.rot + i) % 6;
      if (rots.includes(revealed.canon[k])) return k;
    }
    return null;
  }

  /** The revealed tile turned k steps, as the board draws it. */
  tileAt(revealed, k) {
    return {
      edges: rotate(revealed.face, k),
      areas: turnAreas(revealed.areas, k),
      task: revealed.task ? { ...revealed.task, status: "open" } : null,
      flag: revealed.flag,
    };
  }

  undoShown() {
    const game = this.game;
    const person = this.you.seats.some((s) => game.seats[s].kind !== "computer");
    // `undo` says whether undo is possible now; an older server said only whether the game allows it.
    return !!game.undo && !game.over && !game.broken && game.turn > 0 && person;
  }

  canHint() {
    return this.actSeat() !== null && !this.game.over;
  }

  // --- drawing -------------------------------------------------------------------------------

  render() {
    const game = this.game;
    const draft = game.phase === "draft";
    this.page.dataset.mode = game.mode;
    this.page.classList.toggle("drafting", draft);
    this.panes.classList.toggle("hidden", draft);
    this.draftHost.classList.toggle("hidden", !draft);
    this.renderTabs();
    if (draft) this.renderDraft();
    else this.renderBoards();
    this.renderCards();
  }

  renderCards() {
    this.renderTurn();
    this.renderTile();
    this.renderPreview();
    this.renderTasks();
    this.renderScore();
    this.renderShare();
    this.renderLog();
    this.renderLegend();
    this.renderBar();
  }

  renderBoards() {
    const game = this.game;
    const me = this.actSeat();
    const both = game.areas.length > 1 && media(WIDE);
    this.panes.classList.toggle("side-by-side", both);
    game.areas.forEach((area, i) => {
      const mine = me !== null && this.areaOf(me) === i;
      this.paneNodes[i].classList.toggle("focus", this.focus === i || game.areas.length === 1);
      this.paneNodes[i].classList.toggle("acting", mine);
      this.boards[i].setArea(area, mine ? this.legalMap() : new Map(), { letters: this.letters, follow: true });
      this.renderPaneHead(i);
    });
    this.renderGhost();
    this.renderBanners();
  }

  renderPaneHead(i) {
    const game = this.game;
    if (game.areas.length < 2) return;
    const seat = game.seats[i];
    const mine = this.you.seats.includes(i);
    const placing = game.waiting.includes(i) && !game.over;
    put(this.paneHeads[i],
      el("span", { class: "seat-chip", style: `background:${SEAT_COLORS[i]}` }),
      el("b", {}, seat.name), mine ? el("small", {}, " (you)") : null,
      el("span", { class: "head-score" }, plural(game.scores[i].total, "point")),
      placing ? el("span", { class: "head-wait" }, mine ? "your move" : game.phase === "draft" ? "picking…" : "placing…") : null);
  }

  renderTabs() {
    const game = this.game;
    // Tabs only where the areas do not fit side by side (and not in the draft, which shows both).
    if (game.mode === "coop" || game.phase === "draft" || media(WIDE)) {
      this.tabs.classList.add("hidden");
      return;
    }
    this.tabs.classList.remove("hidden");
    put(this.tabs, game.seats.map((seat, i) => {
      const mine = this.you.seats.includes(i);
      return el("button", {
        class: `tab${this.focus === i ? " active" : ""}${game.waiting.includes(i) ? " waiting" : ""}`,
        role: "tab", "aria-selected": String(this.focus === i), type: "button", "data-area": String(i),
        onclick: () => { this.focus = i; this.userFocus = true; this.selected = null; this.render(); },
      }, el("span", { class: "seat-chip", style: `background:${SEAT_COLORS[i]}` }), `${seat.name}${mine ? " (you)" : ""} · ${game.scores[i].total}`);
    }));
  }

  /** The banner over each board: yours only on the board you play on. */
  renderBanners() {
    const game = this.game;
    const me = this.actSeat();
    this.boards.forEach((board, i) => {
      let text = "", mine = false;
      if (game.broken) text = `Broken: ${game.broken}`;
      else if (game.over) text = "Game over";
      else if (me !== null && this.areaOf(me) === i) {
        mine = true;
        const who = this.you.seats.length > 1 ? `${game.seats[me].name}: your` : "Your";
        text = `${who} turn — ${tapWord()} a highlighted cell, then ${tapWord()} it again to place`;
      } else if (game.mode !== "coop" && game.waiting.includes(i) && !this.you.seats.includes(i)) {
        text = `${game.seats[i].name} is placing ${game.mode === "duel" ? "this" : "their"} tile`;
      }
      board.setBanner(text, mine);
    });
  }

  renderGhost() {
    const me = this.actSeat();
    for (const board of this.boards) {
      board.setGhost(null);
      board.setHighlight([]);
    }
    const revealed = this.revealedFor(me);
    const target = this.selected || this.hover;
    if (me === null || !revealed || !target || this.game.phase === "draft") return;
    const k = this.selected ? this.selected.rot : this.effRot(target.q, target.r);
    if (k === null) return;
    const board = this.boards[this.areaOf(me)];
    board.setGhost(this.tileAt(revealed, k), target.q, target.r, { letters: this.letters, selected: !!this.selected });
    this.requestPreview(me, target.q, target.r, revealed.canon[k]);
  }

  renderTurn() {
    const game = this.game;
    if (!game) return;
    const card = this.cards.turn;
    const me = this.actSeat();
    const waitingNames = game.waiting.map((s) => game.seats[s]);
    let line;
    if (game.broken) line = `Broken: ${game.broken}`;
    else if (game.over) {
      if (game.mode === "coop") line = `Game over: ${plural(game.scores[0].total, "point")}`;
      else if (game.winner === null || game.winner === undefined) line = "Game over: a shared victory";
      else line = `Game over: ${game.seats[game.winner].name} wins`;
    } else if (me !== null) {
      line = game.phase === "draft" ? "Your pick" : "Your turn";
      if (this.you.seats.length > 1) line = `${game.seats[me].name}: ${line.toLowerCase()}`;
    } else if (waitingNames.some((s) => s.kind === "computer")) {
      line = `${waitingNames.filter((s) => s.kind === "computer").map((s) => s.name).join(" and ")} thinking…`;
    } else if (waitingNames.length) {
      line = `Waiting for ${waitingNames.map((s) => s.name).join(" and ")}`;
    } else line = "";
    const seats = el("ul", { class: "seats" }, game.seats.map((s, i) =>
      el("li", { class: `${game.waiting.includes(i) ? "waiting" : ""}${this.you.seats.includes(i) ? " mine" : ""}` },
        el("span", { class: "dot", "aria-hidden": "true", style: `--seat:${SEAT_COLORS[i % SEAT_COLORS.length]}` }),
        `${s.name}`,
        el("small", {}, s.kind === "computer" ? ` computer · ${s.player}` : s.kind === "online" ? (s.claimed ? " online" : " invited, not joined yet") : this.you.seats.includes(i) ? " here" : ""),
      )));
    const actions = el("div", { class: "actions" });
    if (this.undoShown()) {
      actions.appendChild(el("button", { type: "button", class: "secondary", id: "undo-button", title: "Undo (U)", onclick: () => this.undo() }, "↶ Undo"));
    }
    if (game.over) {
      actions.appendChild(el("button", { type: "button", onclick: () => this.showPad() }, "Score pad"));
      actions.appendChild(el("a", { class: "button secondary", href: `/api/games/${this.id}/record`, download: `dorf-${game.mode}-${this.id}.json` }, "Download record"));
      actions.appendChild(el("a", { class: "button secondary", href: `/replay/${this.id}` }, "Replay"));
    }
    const watching = !this.you.seats.length ? el("p", { class: "note" }, "You are watching this game.") : null;
    const aside = (game.set_aside || []).filter((s) => this.you.seats.includes(s)).map((s) =>
      el("p", { class: "note" }, `The tile fits nowhere in ${game.seats[s].name}'s area: it is set aside there.`));
    const problem = this.tokenProblem ? el("p", { class: "note bad" }, this.tokenProblem) : null;
    const badge = game.practice ? el("span", { class: "badge practice", id: "practice-badge", title: "A practice game: undo allowed" }, "Practice") : null;
    const first = game.first === 2 && game.seats[1] ? el("p", { class: "note" }, `${game.seats[1].name} started.`) : null;
    put(card,
      el("div", { class: "card-title" }, el("h2", {}, game.mode_name, badge), el("span", { class: "turn-no" }, game.phase === "draft" ? `pick ${game.turn + 1}` : `move ${game.turn}`)),
      el("p", { class: `turn-line${me !== null ? " mine" : ""}`, id: "turn-line" }, line),
      seats, first, watching, aside, problem, actions,
    );
  }

  /** The rotation shown: of the chosen cell, else of the cell under the pointer, else the chosen one. */
  shownRot() {
    if (this.selected) return this.selected.rot;
    const k = this.hover ? this.effRot(this.hover.q, this.hover.r) : null;
    return k ?? this.rot;
  }

  renderTile() {
    const card = this.cards.tile;
    const game = this.game;
    const me = this.actSeat();
    const seat = me ?? this.focusSeat();
    const revealed = this.revealedFor(seat);
    if (!revealed || game.phase === "draft" || game.over) {
      card.classList.add("hidden");
      return;
    }
    card.classList.remove("hidden");
    const k = this.shownRot();
    const tile = this.tileAt(revealed, k);
    const icon = el("div", { class: "tile-big", html: tileIcon(tile.edges, tile.areas, { task: tile.task, flag: tile.flag, letters: true }, 132) });
    const facts = [];
    if (revealed.task) facts.push(el("li", {}, el("b", {}, "Task: "), describeTask(revealed.task)));
    if (revealed.flag) facts.push(el("li", {}, el("b", {}, "Flag: "), revealed.flag === "X" ? "multicoloured" : TERRAIN[revealed.flag].name));
    const legalCount = me !== null ? (this.you.legal[String(me)] || []).length : 0;
    if (me !== null) facts.push(el("li", {}, `Fits at ${plural(legalCount, "cell")}`));
    let whose = game.mode === "head-to-head" ? `${game.seats[seat].name}'s tile` : "The tile";
    const others = game.waiting.filter((s) => !this.you.seats.includes(s));
    if (me === null && others.length && !game.over) {
      // Nobody here places now: say who does.
      const names = others.map((s) => game.seats[s].name).join(" and ");
      whose = game.mode === "head-to-head" ? `${names} ${others.length > 1 ? "are" : "is"} placing their tile` : `${names} ${others.length > 1 ? "are" : "is"} placing this tile`;
    }
    const buttons = el("div", { class: "rotate" },
      el("button", { type: "button", title: "Rotate anticlockwise (Shift+R)", "aria-label": "rotate anticlockwise", onclick: () => this.rotateBy(-1) }, "⟲"),
      el("span", { class: "rot-no" }, `rotation ${k}`),
      el("button", { type: "button", id: "rotate-button", title: "Rotate clockwise (R or the mouse wheel)", "aria-label": "rotate clockwise", onclick: () => this.rotateBy(1) }, "⟳"),
      this.canHint() ? el("button", { type: "button", class: "small secondary", id: "hint-button", title: "Ask the computer for a placement", onclick: () => this.askHint() }, "Hint") : null,
    );
    const keys = el("p", { class: "note keys" }, "R or wheel: turn · N/P: next cell · Enter: place · L: letters");
    const hint = this.hint ? el("p", { class: `hint${this.hint.error ? " bad" : ""}`, id: "hint-text" }, this.hint.text) : null;
    put(card, el("h3", { id: "tile-whose" }, whose), el("div", { class: "tile-row" }, icon, el("ul", { class: "facts" }, facts)),
      me !== null ? buttons : null, hint, me !== null ? keys : null);
  }

  /** The preview of the chosen (or hovered) placement: score before and after, tasks, territories. */
  previewLines() {
    const me = this.actSeat();
    const target = this.selected || this.hover;
    if (me === null || !target || this.game.phase === "draft") return null;
    const k = this.selected ? this.selected.rot : this.effRot(target.q, target.r);
    if (k === null) return null;
    const revealed = this.revealedFor(me);
    const result = this.previews.get(this.previewKey(me, target.q, target.r, revealed.canon[k]));
    return { target, k, result };
  }

  renderPreview() {
    const card = this.cards.preview;
    const shown = this.previewLines();
    if (!shown) {
      card.classList.add("hidden");
      return;
    }
    const { target, k, result } = shown;
    card.classList.remove("hidden");
    const body = [];
    if (!result) body.push(el("p", { class: "note" }, "…"));
    else {
      const delta = result.score[1] - result.score[0];
      body.push(el("p", { class: `score-delta${delta > 0 ? " up" : delta < 0 ? " down" : ""}` },
        `Score ${result.score[0]} → ${result.score[1]} (${delta >= 0 ? "+" : ""}${delta})`));
      for (const t of result.completes) body.push(el("p", { class: "done" }, `✓ completes ${t.name} ${t.value}`));
      for (const t of result.fails) body.push(el("p", { class: "failed" }, `✗ fails ${t.name} ${t.value}`));
      for (const t of result.tasks) {
        const before = t.before && t.before.join("|") !== t.sizes.join("|") ? t.before.join("|") + " → " : "";
        const open = t.open_edges.join("|");
        body.push(el("p", {}, `${t.new ? "new task" : "task"} ${t.label}: ${before}${t.sizes.join("|")} of ${t.value} tiles, ${open} open edge${open === "1" ? "" : "s"}`));
      }
      const groups = result.groups.filter((g) => "FGVRTX".includes(g.letter));
      if (groups.length) {
        body.push(el("ul", { class: "groups" }, groups.map((g) =>
          el("li", {}, el("span", { class: `swatch t-${g.letter}` }), `${g.name}: ${plural(g.size, "tile")}${g.closed ? ", closed" : `, ${g.open_edges} open`}`))));
      }
      for (const [label, a, b] of result.score_changes) body.push(el("p", { class: "note" }, `${label}: ${a} → ${b}`));
    }
    const place = this.selected
      ? el("div", { class: "actions" },
        el("button", { type: "button", id: "place-button", onclick: () => this.commit() }, "Place tile ⏎"),
        el("button", { type: "button", class: "secondary", onclick: () => { this.selected = null; this.render(); } }, "Cancel"))
      : el("p", { class: "note" }, `${tapWord() === "tap" ? "Tap" : "Click"} to choose this cell; ${tapWord()} again to place.`);
    put(card, el("h3", {}, `At ${target.q},${target.r}, rotation ${k}`), ...body, place);
  }

  renderTasks() {
    const card = this.cards.tasks;
    const game = this.game;
    if (game.phase === "draft") {
      card.classList.add("hidden");
      return;
    }
    card.classList.remove("hidden");
    const index = this.focus ?? 0;
    const area = game.areas[index] || game.areas[0];
    const open = area.tasks.filter((t) => t.status === "open");
    const done = area.tasks.filter((t) => t.status === "completed");
    const failed = area.tasks.filter((t) => t.status === "failed");
    const item = (t) => el("li", {
      class: `task ${t.status}`, tabindex: "0", title: "Show on the board",
      onclick: () => this.showTask(index, t), onkeydown: (e) => { if (e.key === "Enter") this.showTask(index, t); },
    },
    el("span", { class: "marker", html: `<svg viewBox="-18 -18 36 36" width="34" height="34">${taskMarker({ ...t, sizes: null })}</svg>` }),
    el("span", {}, el("b", {}, describeTask(t)), el("br"), t.status === "open" ? progressText(t) : t.status));
    const whose = game.areas.length > 1 ? ` · ${game.seats[index].name}` : "";
    put(card,
      el("h3", {}, `${game.over ? "Open" : "Active"} tasks (${open.length})${whose}`),
      open.length ? el("ul", { class: "tasks" }, open.map(item)) : el("p", { class: "note" }, "None right now."),
      done.length || failed.length
        ? el("details", { class: "finished-tasks" }, el("summary", {}, `${done.length} completed · ${failed.length} failed`), el("ul", { class: "tasks" }, [...done, ...failed].map(item)))
        : el("p", { class: "note" }, "0 completed · 0 failed"),
    );
  }

  showTask(index, task) {
    this.closeSheet();
    const board = this.boards[index];
    if (!board) return;
    board.centreOn(task.at[0], task.at[1]);
    const info = board.infoAt(task.at[0], task.at[1]);
    if (info) board.showTip(info, task.at[0], task.at[1]);
  }

  renderScore() {
    const card = this.cards.score;
    const game = this.game;
    const rows = [];
    const left = game.left || [];
    if (game.phase === "draft") {
      game.seats.forEach((s, i) => {
        const taken = (game.owned || [])[i] || [];
        rows.push(el("p", {}, el("b", {}, s.name), `: ${plural(taken.length, "tile")} taken (${plural(taken.filter((t) => t.task_type).length, "task tile")}), and 2 multicoloured flag tiles`));
      });
    } else if (game.mode === "head-to-head") {
      game.seats.forEach((s, i) => {
        const [tasks, lands] = left[i] || [0, 0];
        rows.push(el("p", {}, el("b", {}, `${s.name}: ${plural(game.scores[i].total, "point")}`), el("br"), `${lands} landscape, ${plural(tasks, "task tile")} left`));
      });
    } else {
      const [tasks, lands] = left[0] || [0, 0];
      if (game.mode === "duel") game.seats.forEach((s, i) => rows.push(el("p", {}, el("b", {}, `${s.name}: ${plural(game.scores[i].total, "point")}`))));
      else {
        const total = el("b", { id: "score-total" }, String(game.scores[0].total));
        rows.push(game.over
          ? el("p", { class: "big" }, "Final score: ", total, game.scores[0].total === 1 ? " point" : " points")
          : el("p", { class: "big" }, total, " points if the game ended now"));
      }
      if (!game.over) rows.push(el("p", { id: "tiles-left" }, `Tiles left: ${lands} landscape, ${tasks} task`));
    }
    const area = game.areas[this.focus] || game.areas[0];
    if (game.phase !== "draft") {
      const extra = [`longest river ${area.longest_river}`];
      if (game.mode !== "head-to-head") extra.push(`longest track ${area.longest_track}`);
      else extra.push(`${plural(area.mountains, "mountain")}, ${plural(area.lakes, "lake")}`);
      rows.push(el("p", { class: "note", id: "score-extra" }, extra.join(" · ")));
    }
    put(card, el("h3", {}, "Score"), ...rows, el("button", { type: "button", class: "small secondary", onclick: () => this.showPad() }, "Score pad"));
  }

  /** Whether `part` must be drawn again: its inputs (`key`) changed since it was last drawn. */
  changed(part, key) {
    this.drawn = this.drawn || {};
    if (this.drawn[part] === key) return false;
    this.drawn[part] = key;
    return true;
  }

  renderShare() {
    const card = this.cards.share;
    const game = this.game;
    const known = rememberedGames()[this.id] || {};
    if (!this.changed("share", JSON.stringify([game.seats, known.invites, tokensOf(this.id)]))) return;
    const origin = location.origin;
    const mine = known;
    const parts = [];
    let inviting = false;
    for (const seat of game.seats) {
      if (seat.kind !== "online") continue;
      const code = (mine.invites || {})[String(seat.index)];
      if (seat.claimed) parts.push(el("p", {}, `${seat.name} has joined.`));
      else if (code) {
        inviting = true;
        const link = `${origin}/join/${this.id}/${code}`;
        parts.push(el("div", { class: "link-row" }, el("label", {}, `Invite for seat ${seat.index + 1}:`),
          el("input", { class: "invite-link", readonly: true, value: link, onfocus: (e) => e.target.select() }), copyButton(link)));
      } else parts.push(el("p", { class: "note" }, `Seat ${seat.index + 1} waits for an invited player.`));
    }
    const watch = `${origin}/game/${this.id}`;
    parts.push(el("div", { class: "link-row" }, el("label", {}, "Watch:"),
      el("input", { class: "watch-link", readonly: true, value: watch, onfocus: (e) => e.target.select() }), copyButton(watch)));
    const tokens = tokensOf(this.id);
    if (tokens.length) {
      const own = `${watch}#t=${tokens.join(",")}`;
      parts.push(el("details", {}, el("summary", {}, "Play on another device"),
        el("p", { class: "note" }, "This link carries your seat: keep it to yourself."),
        el("div", { class: "link-row" }, el("input", { readonly: true, value: own, onfocus: (e) => e.target.select() }), copyButton(own))));
    }
    // While an invitation waits to be sent, it comes right under the turn.
    this.cards.turn.style.order = "-2";
    card.style.order = inviting ? "-1" : "";
    card.classList.toggle("inviting", inviting);
    put(card, el("h3", {}, inviting ? "Invite your opponent" : "Share"), inviting ? el("p", { class: "note" }, "Send this link to the person who plays the other seat:") : null, ...parts);
    if (inviting && !this.invitationShown && media(NARROW)) {
      // On a phone the links live in a sheet: open it once, so the invitation is not missed.
      this.invitationShown = true;
      this.openSheet("more");
    }
  }

  renderLog() {
    const card = this.cards.log;
    const game = this.game;
    const last = game.log[game.log.length - 1];
    if (!this.changed("log", JSON.stringify([game.log.length, last, game.seats.map((s) => s.name)]))) return;
    const list = el("ol", { class: "log" }, game.log.map((entry) => {
      let who = null, text = entry.text;
      const seat = entry.seat;
      if (seat !== null && seat !== undefined && game.seats[seat]) {
        // Whose line this is: the seat's name in its colour (the text may already start with it).
        const name = game.seats[seat].name;
        if (text.startsWith(name)) text = text.slice(name.length);
        else text = `: ${text}`;
        who = el("span", { class: "who", style: `--seat:${SEAT_COLORS[seat % SEAT_COLORS.length]}` }, name);
      }
      return el("li", { class: `log-${entry.kind}` }, el("span", { class: "log-turn" }, String(entry.turn)), who, text);
    }));
    put(card, el("h3", {}, "Log"), list);
    list.scrollTop = list.scrollHeight;
  }

  renderLegend() {
    if (!this.changed("legend", this.game.mode)) return;
    const letters = this.game.mode === "head-to-head" ? "FGVMRLPX" : "FGVMRT";
    put(this.legend, ...[...letters].map((l) =>
      el("span", { class: "legend-item" }, el("span", { class: `swatch t-${l}` }), `${l} ${TERRAIN[l].name}`)));
  }

  /** The bottom bar (phones): what to do now, the tile, place, undo, the sheets. */
  renderBar() {
    const game = this.game;
    if (!game) return;
    const me = this.actSeat();
    const draft = game.phase === "draft";
    const revealed = this.revealedFor(me ?? this.focusSeat());
    let text = "";
    const shown = this.previewLines();
    if (game.broken) text = "This game is broken";
    else if (game.over) text = game.mode === "coop" ? `Game over: ${plural(game.scores[0].total, "point")}` : this.cards.turn.querySelector("#turn-line")?.textContent || "Game over";
    else if (draft) text = me !== null ? (this.draftChoice !== null ? "Tap it again or Take" : "Your pick: tap a tile") : `${game.waiting.map((s) => game.seats[s].name).join(" and ")} picking…`;
    else if (me === null) {
      const others = game.waiting.filter((s) => !this.you.seats.includes(s)).map((s) => game.seats[s].name);
      text = others.length ? `${others.join(" and ")} ${others.length > 1 ? "are" : "is"} placing ${game.mode === "head-to-head" ? "their" : "this"} tile` : "Waiting…";
    } else if (this.focus !== this.areaOf(me) && !media(WIDE)) text = `Your turn: back to ${game.seats[me].name}'s area`;
    else if (this.hint && this.selected) text = this.hint.text;
    else if (shown && shown.result) {
      const d = shown.result.score[1] - shown.result.score[0];
      const bits = [`${d >= 0 ? "+" : ""}${d} → ${shown.result.score[1]}`];
      for (const t of shown.result.completes) bits.push(`✓ ${t.label}`);
      for (const t of shown.result.fails) bits.push(`✗ ${t.label}`);
      text = bits.join(" · ") + (this.selected ? " · tap again to place" : "");
    } else if (this.selected) text = "Tap again or Place";
    else text = this.hint && this.hint.error ? this.hint.text : "Your turn: tap a highlighted cell";
    this.barText.textContent = text;
    if (revealed && !draft && !game.over) {
      const tile = this.tileAt(revealed, this.shownRot());
      this.barTile.innerHTML = tileIcon(tile.edges, tile.areas, { task: tile.task, flag: tile.flag, small: true }, 52);
      this.barTile.classList.remove("hidden");
    } else this.barTile.classList.add("hidden");
    const placing = me !== null && !draft;
    for (const b of this.barRotate) {
      b.disabled = !placing;
      b.classList.toggle("hidden", draft || game.over);
    }
    this.barPlace.textContent = draft ? "Take" : "Place";
    this.barPlace.disabled = this.busy || me === null || (draft ? this.draftChoice === null : !this.selected);
    this.barPlace.classList.toggle("hidden", game.over);
    this.barUndo.classList.toggle("hidden", !this.undoShown());
    this.barHint.classList.toggle("hidden", !this.canHint());
    this.barTasks.classList.toggle("hidden", draft);
    const open = draft ? 0 : (game.areas[this.focus ?? 0] || game.areas[0]).tasks.filter((t) => t.status === "open").length;
    this.barTasks.textContent = `Tasks ${open}`;
    this.barScore.textContent = `Score ${game.scores[this.focus ?? 0]?.total ?? game.scores[0].total}`;
  }

  // --- sheets (narrow screens) -------------------------------------------------------------------

  openSheet(name) {
    this.panel.dataset.sheet = name;
    this.panel.classList.add("open");
    this.backdrop.classList.remove("hidden");
  }

  closeSheet() {
    this.panel.classList.remove("open");
    delete this.panel.dataset.sheet;
    this.backdrop.classList.add("hidden");
  }

  // --- the Head to Head draft ---------------------------------------------------------------------

  renderDraft() {
    const game = this.game;
    const me = this.actSeat();
    const pool = game.pool || [];
    const hinted = this.hint && this.hint.pick !== undefined ? this.hint.pick : null;
    const tile = (t, clickable) => {
      const task = t.task_type ? { type: t.task_type, label: (t.task_type[0] === "r" ? "R" : t.task_type[0].toUpperCase()) + (t.value ?? ""), status: "open", value: t.value, name: t.task_type } : null;
      const title = `tile ${t.id ?? ""} ${t.face}${t.task_type ? ` ${t.task_type} task ${t.value}` : ""}${t.flag ? " flag" : ""}`;
      const chosen = clickable && this.draftChoice === t.id;
      const node = el(clickable ? "button" : "div", {
        class: `pool-tile${t.task_type ? " task" : ""}${chosen ? " chosen" : ""}${hinted === t.id ? " hinted" : ""}`,
        type: clickable ? "button" : undefined, title, "data-tile": t.id, "aria-label": title,
        html: tileIcon(t.face, t.areas, { task, flag: t.flag, small: true, markerScale: 1.7 }, 76) + `<span class="pool-id">${t.id ?? ""}</span>`,
      });
      if (clickable) node.addEventListener("click", (e) => this.onPoolTile(t, e));
      return node;
    };
    // What each player holds: the tiles taken so far and the two multicoloured flag tiles dealt to them.
    const owned = (game.owned || []).map((list, i) => el("div", { class: "owned" },
      el("h4", {}, el("span", { class: "seat-chip", style: `background:${SEAT_COLORS[i]}` }), `${game.seats[i].name}: ${plural(list.length, "tile")} taken`),
      el("div", { class: "pool small" }, list.map((t) => tile(t, false)),
        ((game.flags || [])[i] || []).map((t) => {
          const node = tile({ ...t, id: "⚑" }, false);
          node.classList.add("flag-tile");
          return node;
        }))));
    const head = me !== null ? `Your pick: ${tapWord()} a tile to take it` : `Waiting for ${game.waiting.map((s) => game.seats[s].name).join(", ")} to pick`;
    const chosen = pool.find((t) => t.id === this.draftChoice);
    const detail = chosen && me !== null
      ? el("div", { class: "pick-detail", id: "pick-detail" },
        el("span", { html: tileIcon(chosen.face, chosen.areas, { task: chosen.task_type ? { type: chosen.task_type, label: chosen.task_type[0].toUpperCase() + (chosen.value ?? ""), status: "open" } : null, flag: chosen.flag }, 120) }),
        el("div", {}, el("p", {}, `Tile ${chosen.id}${chosen.task_type ? `: ${chosen.task_type} task ${chosen.value ?? ""}` : ""}`),
          el("button", { type: "button", id: "take-button", onclick: () => this.pick(chosen.id) }, "Take this tile")))
      : null;
    const hint = this.hint ? el("p", { class: `hint${this.hint.error ? " bad" : ""}`, id: "hint-text" }, this.hint.text) : null;
    put(this.draftHost,
      el("h2", {}, `The draft · ${plural(pool.length, "tile")} open`),
      el("p", { class: `turn-line${me !== null ? " mine" : ""}` }, head,
        me !== null ? el("button", { type: "button", class: "small secondary", id: "hint-button", onclick: () => this.askHint() }, "Hint") : null),
      hint, detail,
      el("div", { class: "pool", id: "draft-pool" }, pool.map((t) => tile(t, me !== null))),
      el("div", { class: "owned-row" }, owned),
    );
  }

  /** A pool tile: a mouse click takes it; a first tap enlarges it, a second tap takes it. */
  onPoolTile(t, e) {
    const touch = e.pointerType === "touch" || (e.pointerType === undefined && media("(pointer: coarse)"));
    if (!touch || this.draftChoice === t.id) {
      this.pick(t.id);
      return;
    }
    this.draftChoice = t.id;
    this.renderDraft();
    this.renderBar();
  }

  pick(tileId) {
    const me = this.actSeat();
    if (me === null || this.busy) return;
    this.busy = true;
    this.send({ type: "move", seat: me, pick: tileId });
  }

  // --- input ------------------------------------------------------------------------------------------

  onHover(area, q, r) {
    if (!this.game || this.game.phase === "draft") return;
    const me = this.actSeat();
    const board = this.boards[area];
    const key = q === null ? null : `${q},${r}`;
    const acting = me !== null && this.areaOf(me) === area;
    const hover = acting && key && this.legalMap().has(key) ? { q, r } : null;
    // Hovering a tile with a task or flag when the markers are dots: what it is, in words.
    const info = key && board.svg.classList.contains("compact") ? board.infoAt(q, r) : null;
    if (info) board.showTip(info, q, r);
    else board.hideTip();
    if ((hover && this.hover && hover.q === this.hover.q && hover.r === this.hover.r) || (!hover && !this.hover)) return;
    this.hover = hover;
    if (this.selected) return;
    this.renderGhost();
    this.renderPreview();
    this.renderTile();
    this.renderBar();
  }

  onClick(area, q, r) {
    if (!this.game) return;
    const board = this.boards[area];
    const me = this.actSeat();
    const key = `${q},${r}`;
    const acting = me !== null && this.areaOf(me) === area && !this.game.over;
    if (!acting || !this.legalMap().has(key)) {
      const info = board.infoAt(q, r);
      if (info) board.showTip(info, q, r);
      else board.hideTip();
      if (this.selected && acting) {
        this.selected = null;
        this.renderGhost();
        this.renderPreview();
        this.renderBar();
      }
      return;
    }
    board.hideTip();
    if (this.selected && this.selected.q === q && this.selected.r === r) {
      this.commit();
      return;
    }
    const k = this.effRot(q, r);
    this.selected = { q, r, rot: k };
    this.rot = k;
    this.hint = this.hint && this.hint.at && this.hint.at[0] === q && this.hint.at[1] === r ? this.hint : null;
    this.renderGhost();
    this.renderPreview();
    this.renderTile();
    this.renderBar();
  }

  rotateBy(dir) {
    if (!this.game) return;
    const target = this.selected || this.hover;
    const revealed = this.revealedFor(this.actSeat());
    if (target && revealed) {
      const rots = this.legalMap().get(`${target.q},${target.r}`) || [];
      const from = this.selected ? this.selected.rot : this.effRot(target.q, target.r) ?? this.rot;
      for (let i = 1; i <= 6; i++) {
        const k = (((from + dir * i) % 6) + 6) % 6;
        if (rots.includes(revealed.canon[k])) {
          this.rot = k;
          break;
        }
      }
      if (this.selected) this.selected.rot = this.rot;
    } else this.rot = (((this.rot + dir) % 6) + 6) % 6;
    this.renderGhost();
    this.renderTile();
    this.renderPreview();
    this.renderBar();
  }

  /** Choose the next (or previous) cell where the tile fits: playing with the keyboard alone. */
  stepCell(dir) {
    const keys = [...this.legalMap().keys()];
    const me = this.actSeat();
    if (!keys.length || me === null) return;
    const now = this.selected ? keys.indexOf(`${this.selected.q},${this.selected.r}`) : -1;
    const next = keys[(((now + dir) % keys.length) + keys.length) % keys.length];
    const [q, r] = next.split(",").map(Number);
    const k = this.effRot(q, r);
    this.selected = { q, r, rot: k };
    this.rot = k;
    const board = this.boards[this.areaOf(me)];
    if (!board.allVisible()) board.centreOn(q, r);
    this.renderGhost();
    this.renderPreview();
    this.renderTile();
    this.renderBar();
  }

  placeFromBar() {
    if (this.game && this.game.phase === "draft") {
      if (this.draftChoice !== null) this.pick(this.draftChoice);
      return;
    }
    this.commit();
  }

  commit() {
    const me = this.actSeat();
    if (me === null || !this.selected || this.busy) return;
    const revealed = this.revealedFor(me);
    const { q, r, rot } = this.selected;
    this.busy = true;
    this.barPlace.disabled = true;
    this.send({ type: "move", seat: me, at: [q, r], rot: revealed.canon[rot] });
  }

  undo() {
    if (!this.undoShown()) return;
    const seat = this.you.seats.find((s) => this.game.seats[s].kind !== "computer");
    if (seat === undefined) return;
    this.send({ type: "undo", seat });
  }

  /** Ask the server for a hint (a placement, or a pick in the draft) and show it. */
  async askHint() {
    const me = this.actSeat();
    if (me === null) return;
    const game = this.game;
    const remembered = rememberedGames()[this.id] || {};
    const tokens = remembered.tokens || {};
    const candidates = [tokens[String(me)], ...Object.values(tokens)].filter((t, i, all) => t && all.indexOf(t) === i);
    let error = null;
    for (const token of candidates) {
      try {
        const answer = await api("POST", `/api/games/${encodeURIComponent(this.id)}/hint`, { token, seat: me });
        this.showHint(answer.hint, game.version);
        return;
      } catch (e) {
        error = e;
        if (e.code !== "not-your-seat" && e.code !== "bad-token") break;
      }
    }
    const absent = error && (error.code === "404" || error.code === "405");
    this.hint = { error: true, text: absent ? "Hints are not available on this server." : error ? error.message : "No hint: this screen holds no seat." };
    this.render();
  }

  showHint(hint, version) {
    if (!this.game || this.game.version !== version || !hint) return;
    this.hint = { ...hint, text: hint.text || "" };
    if (hint.pick !== undefined) this.draftChoice = hint.pick;
    else if (hint.at) {
      const [q, r] = hint.at;
      const rot = ((hint.rot ?? 0) % 6 + 6) % 6;
      if (this.legalMap().has(`${q},${r}`)) {
        this.selected = { q, r, rot };
        this.rot = rot;
        const me = this.actSeat();
        const board = this.boards[this.areaOf(me)];
        if (board && !board.allVisible()) board.centreOn(q, r);
      }
    }
    this.render();
  }

  toggleLetters() {
    this.letters = !this.letters;
    localStorage.setItem("dorf.letters", this.letters ? "1" : "0");
    for (const b of document.querySelectorAll(".letters-tool")) b.setAttribute("aria-pressed", String(this.letters));
    this.render();
  }

  onKey(e) {
    if (!this.game || e.target.closest?.("input, textarea, select")) return;
    if (e.ctrlKey && e.key.toLowerCase() === "z") { e.preventDefault(); this.undo(); return; }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key;
    const me = this.actSeat();
    const board = this.boards[me !== null ? this.areaOf(me) : this.focus ?? 0] || this.boards[0];
    if (key === "r" || key === "R") this.rotateBy(e.shiftKey ? -1 : 1);
    else if (key === "Enter" && this.selected && !e.target.closest?.("button, a")) { e.preventDefault(); this.commit(); }
    else if (key === "n" || key === "N" || key === "p" || key === "P") this.stepCell(key.toLowerCase() === "n" ? 1 : -1);
    else if (key === "Escape") { this.selected = null; this.closePad(); this.closeSheet(); this.render(); }
    else if (!board) return;
    else if (key === "+" || key === "=") board.zoomAt(1.25);
    else if (key === "-") board.zoomAt(0.8);
    else if (key === "f" || key === "F") board.fit();
    else if (key === "l" || key === "L") this.toggleLetters();
    else if (key === "u" || key === "U") this.undo();
    else if (key === "ArrowLeft") board.pan(60, 0);
    else if (key === "ArrowRight") board.pan(-60, 0);
    else if (key === "ArrowUp") board.pan(0, 60);
    else if (key === "ArrowDown") board.pan(0, -60);
  }

  // --- preview ------------------------------------------------------------------------------------------

  previewKey(seat, q, r, rot) {
    return `${this.game.version}|${seat}|${q},${r}|${rot}`;
  }

  requestPreview(seat, q, r, rot) {
    const key = this.previewKey(seat, q, r, rot);
    this.previewWanted = key;
    if (this.previews.has(key)) {
      this.showGroups(seat, this.previews.get(key));
      return;
    }
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => {
      // The game may have moved on meanwhile: ask only for what is still wanted now.
      if (this.previewWanted !== key || this.previews.has(key) || !this.game) return;
      if (this.previewKey(seat, q, r, rot) !== key || this.actSeat() !== seat) return;
      const ref = this.send({ type: "preview", seat, at: [q, r], rot });
      if (ref !== null) this.previewIds.add(ref);
    }, 40);
  }

  onPreview(msg) {
    this.previewIds.delete(msg.id);
    if (!this.game || msg.version !== this.game.version) return;
    const key = this.previewKey(msg.seat, msg.at[0], msg.at[1], msg.rot);
    this.previews.set(key, msg);
    if (key === this.previewWanted) {
      this.showGroups(msg.seat, msg);
      this.renderPreview();
      this.renderBar();
    }
  }

  showGroups(seat, result) {
    const board = this.boards[this.areaOf(seat)];
    board?.setHighlight(result.groups.filter((g) => "FGVRTX".includes(g.letter) && g.size > 1));
  }

  // --- the score pad ---------------------------------------------------------------------------------------

  showPad() {
    const game = this.game;
    if (!game) return;
    const heads = game.mode === "coop" ? ["", "points"] : ["", ...game.seats.map((s) => s.name)];
    const rows = game.scores[0].rows.map((row, i) =>
      el("tr", { class: row[2] }, el("th", { scope: "row" }, row[0]), game.scores.map((pad) => el("td", {}, String(pad.rows[i][1])))));
    let verdict = "";
    if (game.over && game.mode !== "coop") {
      verdict = game.winner === null || game.winner === undefined ? "A shared victory" : `${game.seats[game.winner].name} wins`;
    }
    const actions = el("div", { class: "actions" },
      game.over ? el("a", { class: "button", href: `/api/games/${this.id}/record`, download: `dorf-${game.mode}-${this.id}.json` }, "Download record") : null,
      game.over ? el("a", { class: "button secondary", href: `/replay/${this.id}` }, "Replay") : null,
      game.over && game.mode === "coop" && !game.practice ? el("a", { class: "button secondary", href: `/campaigns?game=${this.id}` }, "Record in a campaign") : null,
      el("a", { class: "button secondary", href: "/" }, "New game"),
      el("button", { type: "button", class: "secondary", id: "pad-close", onclick: () => this.closePad() }, "Show the board"),
    );
    put(this.modal, el("div", { class: "modal-box score-pad", id: "score-pad" },
      el("h2", {}, game.over ? "Final score" : "Score pad so far"),
      verdict ? el("p", { class: "verdict" }, verdict) : null,
      el("table", { class: "pad" }, el("thead", {}, el("tr", {}, heads.map((h, i) => el("th", { scope: "col" },
        i > 0 && game.mode !== "coop" ? el("span", { class: "seat-chip", style: `background:${SEAT_COLORS[i - 1]}` }) : null, h)))), el("tbody", {}, rows)),
      actions));
    this.modal.classList.remove("hidden");
  }

  closePad() {
    this.modal.classList.add("hidden");
  }
}
