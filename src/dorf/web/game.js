// The game page: one websocket to the server, the board, the revealed tile, the preview,
// tasks, score, log, the Head to Head draft, sharing links and the score pad at the end.
import { Board } from "./board.js";
import { rotate, tileIcon, taskMarker, TERRAIN } from "./hex.js";
import {
  el, rememberGame, rememberedGames, tokensOf, toast, copyButton, describeTask, progressText, put } from "./util.js";

export function gamePage(root, id) {
  // Tokens handed over in the address (#t=TOKEN,TOKEN): keep them, then clear the address.
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("t")) {
    const tokens = {};
    hash.get("t").split(",").forEach((t, i) => (tokens["link" + i] = t));
    rememberGame(id, { tokens });
    history.replaceState(null, "", location.pathname);
  }
  return new GameController(root, id);
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
    this.build(root);
    this.connect();
    document.addEventListener("keydown", (e) => this.onKey(e));
  }

  // --- layout -------------------------------------------------------------------------

  build(root) {
    root.innerHTML = "";
    this.tabs = el("div", { class: "area-tabs", role: "tablist" });
    this.boardHost = el("div", { class: "board-host" });
    this.draftHost = el("div", { class: "draft-host hidden" });
    this.banner = el("div", { class: "banner hidden", "aria-live": "polite" });
    const tool = (label, title, fn, extra = {}) =>
      el("button", { class: "tool", type: "button", title, "aria-label": title, onclick: fn, ...extra }, label);
    this.lettersButton = tool("Aa", "Show edge letters (L)", () => this.toggleLetters(), { "aria-pressed": String(this.letters) });
    const tools = el("div", { class: "board-tools", id: "board-tools" },
      tool("+", "Zoom in (+)", () => this.board.zoomAt(1.25)),
      tool("−", "Zoom out (-)", () => this.board.zoomAt(0.8)),
      tool("⤢", "Fit the area (F)", () => this.board.fit()),
      this.lettersButton,
    );
    this.legend = el("div", { class: "legend" });
    this.boardHost.appendChild(this.banner);
    this.tools = tools;
    const wrap = el("section", { class: "board-wrap" }, this.tabs, this.boardHost, this.draftHost, tools, this.legend);
    this.panel = el("aside", { class: "panel" });
    this.cards = {};
    for (const name of ["turn", "tile", "preview", "tasks", "score", "share", "log"]) {
      this.cards[name] = el("div", { class: `card card-${name}`, id: `card-${name}` });
      this.panel.appendChild(this.cards[name]);
    }
    this.modal = el("div", { class: "modal hidden", role: "dialog", "aria-modal": "true" });
    root.appendChild(el("div", { class: "game" }, wrap, this.panel));
    root.appendChild(this.modal);
    this.board = new Board(this.boardHost, {
      onHover: (q, r) => this.onHover(q, r),
      onClick: (q, r) => this.onClick(q, r),
      onRotate: (dir) => this.rotateBy(dir),
    });
    this.status = document.getElementById("status");
  }

  // --- the connection ------------------------------------------------------------------

  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(this.id)}`);
    this.ws = ws;
    this.setStatus("connecting…", "wait");
    ws.onopen = () => {
      this.retry = 0;
      this.setStatus("connected", "ok");
      ws.send(JSON.stringify({ type: "hello", tokens: tokensOf(this.id) }));
    };
    ws.onmessage = (event) => this.onMessage(JSON.parse(event.data));
    ws.onclose = (event) => {
      if (event.code === 4404) {
        this.setStatus("no such game", "bad");
        return;
      }
      this.setStatus("reconnecting…", "bad");
      this.busy = false;
      const wait = Math.min(10000, 500 * 2 ** this.retry++);
      setTimeout(() => this.connect(), wait);
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
    this.status.className = `conn ${kind}`;
  }

  onMessage(msg) {
    if (msg.type === "state") this.onState(msg);
    else if (msg.type === "preview") this.onPreview(msg);
    else if (msg.type === "ok") {
      this.busy = false;
      if (msg.undone) toast(`Took back ${msg.undone} placement${msg.undone > 1 ? "s" : ""}`, "info");
    } else if (msg.type === "error" && this.previewIds.delete(msg.id)) {
      return; // a preview the game has outrun: nothing to tell
    } else if (msg.type === "error") {
      this.busy = false;
      if (msg.code === "no-game") {
        put(this.cards.turn, el("h2", {}, "No such game"), el("p", {}, msg.message), el("a", { href: "/" }, "Start a new game"));
        return;
      }
      if (msg.code === "bad-token") this.tokenProblem = msg.message;
      toast(msg.message);
      this.renderTurn();
    }
  }

  // --- state -----------------------------------------------------------------------------

  onState(msg) {
    const first = this.game === null;
    this.game = msg.game;
    this.you = msg.you;
    const game = this.game;
    if (first) {
      document.title = `${game.mode_name} · dorf`;
      const names = game.seats.map((s) => s.name);
      if (tokensOf(this.id).length) rememberGame(this.id, { mode: game.mode, names });
      this.focus = this.you.seats.length ? this.areaOf(this.you.seats[0]) : 0;
    }
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
      this.previews.clear();
    } else if (this.selected && !this.legalMap().has(`${this.selected.q},${this.selected.r}`)) {
      this.selected = null;
    }
    if (game.over) rememberGame(this.id, { over: true });
    document.body.dataset.version = String(game.version);
    document.body.dataset.over = game.over ? "1" : "0";
    document.body.dataset.mine = me !== null ? "1" : "0";
    this.render();
    if (game.over && !this.padShown) {
      this.padShown = true;
      this.showPad();
    }
  }

  areaOf(seat) {
    return this.game.mode === "coop" ? 0 : seat;
  }

  focusSeat() {
    return this.game.mode === "coop" ? this.game.waiting[0] ?? 0 : this.focus;
  }

  /** The seat this screen acts for now: a seat it holds that must decide. */
  actSeat() {
    if (!this.game) return null;
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

  legalMap() {
    const me = this.actSeat();
    const map = new Map();
    if (me === null || this.areaOf(me) !== this.focus) return map;
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

  // --- drawing -------------------------------------------------------------------------------

  render() {
    const game = this.game;
    const draft = game.phase === "draft";
    this.boardHost.classList.toggle("hidden", draft);
    this.draftHost.classList.toggle("hidden", !draft);
    this.tools.classList.toggle("hidden", draft);
    this.renderTabs();
    if (draft) this.renderDraft();
    else {
      const area = game.areas[this.focus] || game.areas[0];
      this.board.setArea(area, this.legalMap(), { letters: this.letters, follow: true });
      this.renderGhost();
    }
    this.renderBanner();
    this.renderTurn();
    this.renderTile();
    this.renderPreview();
    this.renderTasks();
    this.renderScore();
    this.renderShare();
    this.renderLog();
    this.renderLegend();
  }

  renderTabs() {
    const game = this.game;
    put(this.tabs, );
    if (game.mode === "coop") {
      this.tabs.classList.add("hidden");
      return;
    }
    this.tabs.classList.remove("hidden");
    game.seats.forEach((seat, i) => {
      const mine = this.you.seats.includes(i);
      const label = `${seat.name}${mine ? " (you)" : ""} · ${game.scores[i].total}`;
      const tab = el("button", {
        class: `tab${this.focus === i ? " active" : ""}${game.waiting.includes(i) ? " waiting" : ""}`,
        role: "tab", "aria-selected": String(this.focus === i), type: "button",
        onclick: () => { this.focus = i; this.userFocus = true; this.selected = null; this.render(); },
      }, label);
      this.tabs.appendChild(tab);
    });
  }

  renderBanner() {
    const game = this.game;
    const me = this.actSeat();
    let text = "";
    if (game.over) text = "Game over";
    else if (me !== null) {
      text = game.phase === "draft" ? "Your pick: choose a tile" : `${this.you.seats.length > 1 ? game.seats[me].name + ": your" : "Your"} turn — click a highlighted cell, then click it again to place`;
    }
    this.banner.textContent = text;
    this.banner.classList.toggle("hidden", !text);
    this.banner.classList.toggle("mine", me !== null);
  }

  renderGhost() {
    const me = this.actSeat();
    const revealed = this.revealedFor(me);
    const target = this.selected || this.hover;
    if (me === null || !revealed || !target || this.game.phase === "draft") {
      this.board.setGhost(null);
      this.board.setHighlight([]);
      return;
    }
    const k = this.selected ? this.selected.rot : this.effRot(target.q, target.r);
    if (k === null) {
      this.board.setGhost(null);
      this.board.setHighlight([]);
      return;
    }
    const task = revealed.task ? { ...revealed.task, status: "open" } : null;
    this.board.setGhost(rotate(revealed.face, k), target.q, target.r, {
      ok: true, task, flag: revealed.flag, letters: this.letters, selected: !!this.selected,
    });
    this.requestPreview(me, target.q, target.r, revealed.canon[k]);
  }

  renderTurn() {
    const game = this.game;
    if (!game) return;
    const card = this.cards.turn;
    const me = this.actSeat();
    const waitingNames = game.waiting.map((s) => game.seats[s]);
    let line;
    if (game.over) {
      if (game.mode === "coop") line = `Game over: ${game.scores[0].total} points`;
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
        el("span", { class: "dot", "aria-hidden": "true" }),
        `${s.name}`,
        el("small", {}, s.kind === "computer" ? ` computer · ${s.player}` : s.kind === "online" ? (s.claimed ? " online" : " invited, not joined yet") : this.you.seats.includes(i) ? " here" : ""),
      )));
    const actions = el("div", { class: "actions" });
    if (game.undo && !game.over && this.you.seats.length) {
      actions.appendChild(el("button", { type: "button", class: "secondary", title: "Undo (U)", onclick: () => this.undo() }, "↶ Undo"));
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
    put(card, 
      el("div", { class: "card-title" }, el("h2", {}, game.mode_name), el("span", { class: "turn-no" }, game.phase === "draft" ? `pick ${game.turn + 1}` : `move ${game.turn}`)),
      el("p", { class: `turn-line${me !== null ? " mine" : ""}`, id: "turn-line" }, line),
      seats, watching, aside, problem, actions,
    );
  }

  renderTile() {
    const card = this.cards.tile;
    const game = this.game;
    const me = this.actSeat();
    const seat = me ?? this.focusSeat();
    const revealed = this.revealedFor(seat);
    if (!revealed || game.phase === "draft") {
      card.classList.add("hidden");
      return;
    }
    card.classList.remove("hidden");
    const k = this.selected ? this.selected.rot : this.hover && this.effRot(this.hover.q, this.hover.r) !== null ? this.effRot(this.hover.q, this.hover.r) : this.rot;
    const task = revealed.task ? { ...revealed.task, status: "open" } : null;
    const icon = el("div", { class: "tile-big", html: tileIcon(rotate(revealed.face, k), { task, flag: revealed.flag, letters: true }, 132) });
    const facts = [];
    if (revealed.task) facts.push(el("li", {}, el("b", {}, "Task: "), describeTask(revealed.task)));
    if (revealed.flag) facts.push(el("li", {}, el("b", {}, "Flag: "), revealed.flag === "X" ? "multicoloured" : TERRAIN[revealed.flag].name));
    const legalCount = me !== null ? (this.you.legal[String(me)] || []).length : 0;
    if (me !== null) facts.push(el("li", {}, `Fits at ${legalCount} cell${legalCount === 1 ? "" : "s"}`));
    const whose = game.mode === "head-to-head" ? `${game.seats[seat].name}'s tile` : "The tile";
    const buttons = el("div", { class: "rotate" },
      el("button", { type: "button", title: "Rotate anticlockwise (Shift+R)", "aria-label": "rotate anticlockwise", onclick: () => this.rotateBy(-1) }, "⟲"),
      el("span", { class: "rot-no" }, `rotation ${k}`),
      el("button", { type: "button", id: "rotate-button", title: "Rotate clockwise (R or the mouse wheel)", "aria-label": "rotate clockwise", onclick: () => this.rotateBy(1) }, "⟳"),
    );
    const keys = el("p", { class: "note keys" }, "R or wheel: turn · N/P: next cell · Enter: place · L: letters");
    put(card, el("h3", {}, whose), el("div", { class: "tile-row" }, icon, el("ul", { class: "facts" }, facts)), me !== null ? buttons : null, me !== null ? keys : null);
  }

  renderPreview() {
    const card = this.cards.preview;
    const me = this.actSeat();
    const target = this.selected || this.hover;
    if (me === null || !target || this.game.phase === "draft") {
      card.classList.add("hidden");
      return;
    }
    const k = this.selected ? this.selected.rot : this.effRot(target.q, target.r);
    if (k === null) {
      card.classList.add("hidden");
      return;
    }
    card.classList.remove("hidden");
    const revealed = this.revealedFor(me);
    const result = this.previews.get(this.previewKey(me, target.q, target.r, revealed.canon[k]));
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
          el("li", {}, el("span", { class: `swatch t-${g.letter}` }), `${g.name}: ${g.size} tile${g.size === 1 ? "" : "s"}${g.closed ? ", closed" : `, ${g.open_edges} open`}`))));
      }
      for (const [label, a, b] of result.score_changes) body.push(el("p", { class: "note" }, `${label}: ${a} → ${b}`));
    }
    const place = this.selected
      ? el("div", { class: "actions" },
        el("button", { type: "button", id: "place-button", onclick: () => this.commit() }, "Place tile ⏎"),
        el("button", { type: "button", class: "secondary", onclick: () => { this.selected = null; this.render(); } }, "Cancel"))
      : el("p", { class: "note" }, "Click to choose this cell; click again to place.");
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
    const area = game.areas[this.focus] || game.areas[0];
    const open = area.tasks.filter((t) => t.status === "open");
    const done = area.tasks.filter((t) => t.status === "completed").length;
    const failed = area.tasks.filter((t) => t.status === "failed").length;
    const items = open.map((t) => el("li", {
      class: "task", tabindex: "0", title: "Show on the board",
      onclick: () => this.board.centreOn(t.at[0], t.at[1]),
      onkeydown: (e) => { if (e.key === "Enter") this.board.centreOn(t.at[0], t.at[1]); },
    },
    el("span", { class: "marker", html: `<svg viewBox="-18 -18 36 36" width="34" height="34">${taskMarker({ ...t, sizes: null }, { small: false })}</svg>` }),
    el("span", {}, el("b", {}, describeTask(t)), el("br"), progressText(t))));
    put(card, 
      el("h3", {}, `${game.over ? "Open" : "Active"} tasks (${open.length})`),
      items.length ? el("ul", { class: "tasks" }, items) : el("p", { class: "note" }, "None right now."),
      el("p", { class: "note" }, `${done} completed · ${failed} failed`),
    );
  }

  renderScore() {
    const card = this.cards.score;
    const game = this.game;
    const rows = [];
    const left = game.left || [];
    if (game.phase === "draft") {
      game.seats.forEach((s, i) => {
        const taken = (game.owned || [])[i] || [];
        rows.push(el("p", {}, el("b", {}, s.name), `: ${taken.length} tiles taken (${taken.filter((t) => t.task_type).length} task tiles), and 2 multicoloured flag tiles`));
      });
    } else if (game.mode === "head-to-head") {
      game.seats.forEach((s, i) => {
        const [tasks, lands] = left[i] || [0, 0];
        rows.push(el("p", {}, el("b", {}, `${s.name}: ${game.scores[i].total} points`), el("br"), `${lands} landscape, ${tasks} task tiles left`));
      });
    } else {
      const [tasks, lands] = left[0] || [0, 0];
      if (game.mode === "duel") game.seats.forEach((s, i) => rows.push(el("p", {}, el("b", {}, `${s.name}: ${game.scores[i].total} points`))));
      else rows.push(el("p", { class: "big" }, el("b", { id: "score-total" }, String(game.scores[0].total)), " points if the game ended now"));
      rows.push(el("p", { id: "tiles-left" }, `Tiles left: ${lands} landscape, ${tasks} task`));
    }
    const area = game.areas[this.focus] || game.areas[0];
    if (game.phase !== "draft") {
      const extra = [`longest river ${area.longest_river}`];
      if (game.mode !== "head-to-head") extra.push(`longest track ${area.longest_track}`);
      else extra.push(`${area.mountains} mountains, ${area.lakes} lakes`);
      rows.push(el("p", { class: "note" }, extra.join(" · ")));
    }
    put(card, el("h3", {}, "Score"), ...rows, el("button", { type: "button", class: "small secondary", onclick: () => this.showPad() }, "Score pad"));
  }

  renderShare() {
    const card = this.cards.share;
    const game = this.game;
    const origin = location.origin;
    const mine = rememberedGames()[this.id] || {};
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
  }

  renderLog() {
    const card = this.cards.log;
    const list = el("ol", { class: "log" }, this.game.log.map((entry) =>
      el("li", { class: `log-${entry.kind}` }, el("span", { class: "log-turn" }, String(entry.turn)), entry.text)));
    put(card, el("h3", {}, "Log"), list);
    list.scrollTop = list.scrollHeight;
  }

  renderLegend() {
    const letters = this.game.mode === "head-to-head" ? "FGVMRLPX" : "FGVMRT";
    put(this.legend, ...[...letters].map((l) =>
      el("span", { class: "legend-item" }, el("span", { class: `swatch t-${l}` }), `${l} ${TERRAIN[l].name}`)));
  }

  // --- the Head to Head draft ---------------------------------------------------------------------

  renderDraft() {
    const game = this.game;
    const me = this.actSeat();
    const pool = game.pool || [];
    const tile = (t, clickable) => {
      const task = t.task_type ? { type: t.task_type, label: (t.task_type[0] === "r" ? "R" : t.task_type[0].toUpperCase()) + (t.value ?? ""), status: "open" } : null;
      const title = `tile ${t.id ?? ""} ${t.face}${t.task_type ? ` ${t.task_type} task ${t.value}` : ""}${t.flag ? " flag" : ""}`;
      const node = el(clickable ? "button" : "div", {
        class: `pool-tile${t.task_type ? " task" : ""}`, type: clickable ? "button" : undefined, title,
        "data-tile": t.id, "aria-label": title,
        html: tileIcon(t.face, { task, flag: t.flag, small: true }, 64) + `<span class="pool-id">${t.id ?? ""}</span>`,
      });
      if (clickable) node.addEventListener("click", () => this.pick(t.id));
      return node;
    };
    const owned = (game.owned || []).map((list, i) => el("div", { class: "owned" },
      el("h4", {}, `${game.seats[i].name}: ${list.length} tiles`), el("div", { class: "pool small" }, list.map((t) => tile(t, false)))));
    const head = me !== null ? "Your pick: click a tile to take it" : `Waiting for ${game.waiting.map((s) => game.seats[s].name).join(", ")} to pick`;
    put(this.draftHost, 
      el("h2", {}, `The draft · ${pool.length} tiles open`),
      el("p", { class: `turn-line${me !== null ? " mine" : ""}` }, head),
      el("div", { class: "pool", id: "draft-pool" }, pool.map((t) => tile(t, me !== null))),
      el("div", { class: "owned-row" }, owned),
    );
  }

  pick(tileId) {
    const me = this.actSeat();
    if (me === null || this.busy) return;
    this.busy = true;
    this.send({ type: "move", seat: me, pick: tileId });
  }

  // --- input ------------------------------------------------------------------------------------------

  onHover(q, r) {
    if (!this.game || this.game.phase === "draft") return;
    const key = q === null ? null : `${q},${r}`;
    this.hover = key && this.legalMap().has(key) ? { q, r } : null;
    if (this.selected) return;
    this.renderGhost();
    this.renderPreview();
    this.renderTile();
  }

  onClick(q, r) {
    if (!this.game || this.game.over) return;
    const key = `${q},${r}`;
    if (!this.legalMap().has(key)) {
      if (this.selected) {
        this.selected = null;
        this.renderGhost();
        this.renderPreview();
      }
      return;
    }
    if (this.selected && this.selected.q === q && this.selected.r === r) {
      this.commit();
      return;
    }
    const k = this.effRot(q, r);
    this.selected = { q, r, rot: k };
    this.rot = k;
    this.renderGhost();
    this.renderPreview();
    this.renderTile();
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
  }

  /** Choose the next (or previous) cell where the tile fits: playing with the keyboard alone. */
  stepCell(dir) {
    const keys = [...this.legalMap().keys()];
    if (!keys.length) return;
    const now = this.selected ? keys.indexOf(`${this.selected.q},${this.selected.r}`) : -1;
    const next = keys[(((now + dir) % keys.length) + keys.length) % keys.length];
    const [q, r] = next.split(",").map(Number);
    const k = this.effRot(q, r);
    this.selected = { q, r, rot: k };
    this.rot = k;
    if (!this.board.allVisible()) this.board.centreOn(q, r);
    this.renderGhost();
    this.renderPreview();
    this.renderTile();
  }

  commit() {
    const me = this.actSeat();
    if (me === null || !this.selected || this.busy) return;
    const revealed = this.revealedFor(me);
    const { q, r, rot } = this.selected;
    this.busy = true;
    this.send({ type: "move", seat: me, at: [q, r], rot: revealed.canon[rot] });
  }

  undo() {
    const seat = this.you.seats.find((s) => this.game.seats[s].kind !== "computer");
    if (seat === undefined) return;
    this.send({ type: "undo", seat });
  }

  toggleLetters() {
    this.letters = !this.letters;
    localStorage.setItem("dorf.letters", this.letters ? "1" : "0");
    this.lettersButton.setAttribute("aria-pressed", String(this.letters));
    this.render();
  }

  onKey(e) {
    if (!this.game || e.target.closest?.("input, textarea, select")) return;
    if (e.ctrlKey && e.key.toLowerCase() === "z") { e.preventDefault(); this.undo(); return; }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key;
    if (key === "r" || key === "R") this.rotateBy(e.shiftKey ? -1 : 1);
    else if (key === "Enter" && this.selected && !e.target.closest?.("button, a")) { e.preventDefault(); this.commit(); }
    else if (key === "n" || key === "N" || key === "p" || key === "P") this.stepCell(key.toLowerCase() === "n" ? 1 : -1);
    else if (key === "Escape") { this.selected = null; this.closePad(); this.render(); }
    else if (key === "+" || key === "=") this.board.zoomAt(1.25);
    else if (key === "-") this.board.zoomAt(0.8);
    else if (key === "f" || key === "F") this.board.fit();
    else if (key === "l" || key === "L") this.toggleLetters();
    else if (key === "u" || key === "U") { if (this.game.undo) this.undo(); }
    else if (key === "ArrowLeft") this.board.pan(60, 0);
    else if (key === "ArrowRight") this.board.pan(-60, 0);
    else if (key === "ArrowUp") this.board.pan(0, 60);
    else if (key === "ArrowDown") this.board.pan(0, -60);
    else return;
  }

  // --- preview ------------------------------------------------------------------------------------------

  previewKey(seat, q, r, rot) {
    return `${this.game.version}|${seat}|${q},${r}|${rot}`;
  }

  requestPreview(seat, q, r, rot) {
    const key = this.previewKey(seat, q, r, rot);
    this.previewWanted = key;
    if (this.previews.has(key)) {
      this.showGroups(this.previews.get(key));
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
      this.showGroups(msg);
      this.renderPreview();
    }
  }

  showGroups(result) {
    this.board.setHighlight(result.groups.filter((g) => "FGVRTX".includes(g.letter) && g.size > 1));
  }

  // --- the score pad ---------------------------------------------------------------------------------------

  showPad() {
    const game = this.game;
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
      game.over && game.mode === "coop" ? el("a", { class: "button secondary", href: `/campaigns?game=${this.id}` }, "Record in a campaign") : null,
      el("a", { class: "button secondary", href: "/" }, "New game"),
      el("button", { type: "button", class: "secondary", onclick: () => this.closePad() }, "Show the board"),
    );
    put(this.modal, el("div", { class: "modal-box score-pad", id: "score-pad" },
      el("h2", {}, game.over ? "Final score" : "Score pad so far"),
      verdict ? el("p", { class: "verdict" }, verdict) : null,
      el("table", { class: "pad" }, el("thead", {}, el("tr", {}, heads.map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, rows)),
      actions));
    this.modal.classList.remove("hidden");
  }

  closePad() {
    this.modal.classList.add("hidden");
  }
}
