// The game page: a board per play area (side by side on a wide screen, tabs on a narrow one), the
// revealed tile, the preview, tasks, score, log, the Head to Head draft, sharing links, the score
// pad at the end; on a phone a bottom bar and sheets. The server is reached through connection.js.
import { Board } from "./board.js";
import { cardMethods } from "./cards.js";
import { clockMethods } from "./clock.js";
import { playerMethods, playerName } from "./players.js";
import { Connection } from "./connection.js";
import { dailyMethods } from "./daily-end.js";
import { draftMethods } from "./draft.js";
import { raise as attend } from "./attention.js";
import { endMethods } from "./ending.js";
import { rotate, turnAreas, SEAT_COLORS } from "./hex.js";
import { phoneMethods } from "./phone.js";
import { tableMethods } from "./table.js";
import { showTips } from "./tips.js";
import { api, el, rememberGame, rememberedGames, tokensOf, toast, put, media, tapWord, WIDE, modeName } from "./util.js";
import { server, serverError, t } from "./i18n.js";

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
    this.previewAsked = new Map();
    this.previewWanted = null;
    this.busy = false;
    this.padShown = false;
    this.hint = null;
    this.draftChoice = null;
    this.boards = [];
    this.initTable();
    this.build(root);
    this.conn = new Connection(id, {
      state: (doc) => this.onState(doc),
      ok: (msg) => this.onOk(msg),
      preview: (msg) => this.onPreview(msg),
      error: (msg) => this.onError(msg),
      lost: () => (this.busy = false), // a move sent may never be answered
      gone: () => { if (!this.brokenReason) this.showMissing(); },
      rematch: (msg) => {
        this.onRematch(msg);
        // The tab says so too (attention.js); looking at this page clears it.
        attend("rematch", t("attention.title.rematch"), location.pathname, msg.game, t("attention.body.rematch", { mode: modeName(msg.mode), name: msg.name || "" }));
      },
      table: (msg) => this.onTable(msg),
      talk: (msg) => this.onTalk(msg),
    });
    document.addEventListener("keydown", (e) => this.onKey(e));
  }

  // --- layout -------------------------------------------------------------------------

  build(root) {
    root.innerHTML = "";
    this.tabs = el("div", { class: "area-tabs hidden", role: "tablist" });
    this.panes = el("div", { class: "boards" });
    this.draftHost = el("div", { class: "draft-host hidden" });
    this.legend = el("div", { class: "legend" });
    this.wrap = el("section", { class: "board-wrap" }, this.tabs, this.panes, this.draftHost, this.legend);
    this.panel = el("aside", { class: "panel", id: "panel", "aria-label": t("game.panel_label") });
    this.panel.appendChild(el("button", {
      type: "button", class: "sheet-close secondary", "aria-label": t("game.close"), onclick: () => this.closeSheet(),
    }, "✕"));
    this.cards = {};
    for (const name of ["daily", "turn", "tile", "proposals", "preview", "talk", "tasks", "score", "share", "log"]) {
      this.cards[name] = el("div", { class: `card card-${name}`, id: `card-${name}` });
      this.panel.appendChild(this.cards[name]);
    }
    this.modal = el("div", { class: "modal hidden", role: "dialog", "aria-modal": "true", "aria-labelledby": "score-pad-title" });
    this.modal.addEventListener("click", (e) => { if (e.target === this.modal) this.closePad(); });
    this.backdrop = el("div", { class: "sheet-backdrop hidden", onclick: () => this.closeSheet() });
    this.bar = this.buildBar();
    this.page = el("div", { class: "game" }, this.wrap, this.panel);
    // The page's heading, for assistive technology: the panel's title is out of sight on a phone.
    this.heading = el("h1", { class: "sr-only", id: "game-heading" }, t("game.heading"));
    root.append(this.heading, this.page, this.backdrop, this.bar, this.modal);
    window.matchMedia?.(WIDE).addEventListener?.("change", () => this.game && this.render());
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
      const letters = tool("Aa", t("board.letters"), () => this.toggleLetters(), { "aria-pressed": String(this.letters), class: "tool letters-tool" });
      const board = new Board(host, {
        label: count > 1 ? t("board.area_of", { name: this.game.seats[i].name }) : t("board.area"),
        onHover: (q, r, e) => this.onHover(i, q, r, e),
        onClick: (q, r, e, how) => this.onClick(i, q, r, e, how),
        onRotate: (dir) => this.rotateBy(dir),
        onSmall: () => this.game && this.renderBar(),
      });
      host.appendChild(el("div", { class: "board-tools" },
        tool("+", t("board.zoom_in"), () => board.zoomAt(1.25)),
        tool("−", t("board.zoom_out"), () => board.zoomAt(0.8)),
        tool("⤢", t("board.fit"), () => board.fit()),
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

  // --- what the server answers ----------------------------------------------------------------

  /** A move or an undo of ours is made. */
  onOk(msg) {
    if (this.tableAnswered(msg)) return; // a proposal, a message, a choice: not a move
    this.busy = false;
    if (msg.undone) toast(t("game.undone", { count: msg.undone }), "info");
  }

  onError(msg) {
    if (this.tableRefused(msg)) return; // said beside the proposals or the talk
    if (this.previewIds.delete(msg.id)) {
      this.previewAsked.delete(msg.id);
      return; // a preview the game has outrun: nothing to tell
    }
    this.busy = false;
    const message = serverError(msg.code, msg.message);
    if (msg.code === "no-game" || msg.code === "broken") {
      this.conn.stop();
      if (msg.code === "broken") this.showBroken(msg.message);
      else this.showMissing();
      return;
    }
    if (msg.code === "bad-token") this.tokenProblem = message;
    toast(message);
    this.renderTurn();
    this.renderBar();
  }

  /** No game of this id (a bad link): say so plainly, with the way home; no board, no controls. */
  showMissing() {
    if (this.game && !this.game.broken) return;
    this.conn.stop();
    this.conn.setStatus("", "");
    document.body.classList.remove("play");
    document.body.dataset.missing = "1";
    document.title = `${t("game.no_game")} · dorf`;
    const root = this.page.parentNode;
    if (!root) return;
    put(root, el("div", { class: "lobby narrow" }, el("section", { class: "card missing", id: "no-game" },
      el("h1", { class: "page-title" }, t("game.no_game")),
      el("p", {}, t("game.no_game_text", { id: this.id })),
      el("p", {}, el("a", { class: "button", href: "/", id: "no-game-home" }, t("game.new_game_link"))))));
  }

  /** A game the server could not load: say so and why; nothing can be played. */
  showBroken(reason) {
    this.brokenReason = reason;
    this.conn.setStatus(t("status.broken"), "bad");
    document.body.dataset.broken = "1";
    put(this.cards.turn,
      el("h2", {}, t("game.broken.title")),
      el("p", { class: "note bad", id: "broken-reason" }, server(reason) || t("game.broken.unknown")),
      el("p", { class: "note" }, t("game.broken.nothing")),
      el("a", { class: "button", href: "/" }, t("game.new_game_link")));
    for (const board of this.boards) board.setBanner(t("game.broken.banner", { reason: server(reason) }));
    for (const name of ["tile", "preview", "tasks", "score"]) this.cards[name].classList.add("hidden");
    this.barText.textContent = t("game.broken.title");
    this.barTile.classList.add("hidden");
    for (const button of this.bar.querySelectorAll("button:not(#bar-more)")) button.disabled = true;
  }

  // --- state -----------------------------------------------------------------------------

  /** What this screen sees of the game now, {you, game}: the first, or the next. */
  onState(doc) {
    const before = this.game;
    this.game = doc.game;
    // A computer level's player named as everywhere else ("Computer (Easy)", issue 61); a copy:
    // the connection's document stays the server's, for the deltas that follow.
    if ((doc.game.seats || []).some((s) => playerName(s.name) !== s.name)) {
      this.game = { ...doc.game, seats: doc.game.seats.map((s) => ({ ...s, name: playerName(s.name) })) };
    }
    this.you = doc.you;
    this.tableFromGame(doc.game);
    const game = this.game;
    if (game.broken) {
      // A game the server could not load: no areas, nothing to play; only why.
      document.title = t("game.broken.doc_title");
      this.render();
      return;
    }
    if (!this.seated && doc.you.seats.length) {
      // The first state with this screen's seats (a watcher's may come first): the table's
      // choice, if it is this screen's, is chosen again (table.js).
      this.seated = this.restoring = true;
    }
    if (!before) {
      document.title = `${modeName(game.mode)} · dorf`;
      const names = game.seats.map((s) => s.name);
      if (tokensOf(this.id).length) rememberGame(this.id, { mode: game.mode, names });
      this.focus = this.you.seats.length ? this.areaOf(this.you.seats[0]) : 0;
      this.loadPlayers();
    } else if (game.over && !before.over) {
      this.loadPlayers(true); // a rated game's changes
    } else if (game.seats.some((s, i) => s.claimed && !(before.seats[i] || {}).claimed)) {
      this.loadPlayers(); // someone took an online seat: their name and rating
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
      // A new tile to place: a move of ours sent is made (its "ok" may come after this state).
      this.busy = false;
      this.tileKey = key;
      this.rot = 0;
      this.selected = null;
      this.hint = null;
      this.draftChoice = null;
      this.previews.clear();
      // A placement ends the table's choice and proposals (the server says so too, after it).
      this.sentChoice = "clear";
      if (before) this.table.choice = null;
      if (before) this.table.proposals = [];
      this.proposalProblem = null;
    } else if (this.selected && !this.legalMap().has(`${this.selected.q},${this.selected.r}`)) {
      this.selected = null;
    }
    if (game.over) rememberGame(this.id, { over: true });
    this.heading.textContent = modeName(game.mode);
    document.body.dataset.version = String(game.version);
    document.body.dataset.over = game.over ? "1" : "0";
    document.body.dataset.mine = me !== null ? "1" : "0";
    document.body.dataset.phase = game.phase;
    this.render();
    this.renderClocks();
    showTips(this.id, game, this.you); // a newcomer's first solo game (issue 61)
    if (before) this.celebrate(before, game);
    if (game.over) this.loadOffer();
    if (game.over && !this.padShown) {
      this.padShown = true;
      // A daily challenge ends with its result (rank, the expert, the coach's lessons); others with the score pad.
      if (game.daily) this.showDailyEnd();
      else this.showPad();
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
    if (me === null) return this.proposerSeat() !== null ? this.proposalMap() : map;
    for (const [q, r, rots] of this.you.legal[String(me)] || []) map.set(`${q},${r}`, rots);
    return map;
  }

  effRot(q, r) {
    const rots = this.legalMap().get(`${q},${r}`);
    const revealed = this.revealedFor(this.placerSeat());
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
    // A daily challenge's counted attempt is played without the coach: its score goes on a leaderboard.
    const counted = this.game.daily && !this.game.daily.practice;
    // The server says whether it gives this game hints (never against a person): none offered else.
    return this.actSeat() !== null && !this.game.over && !counted && this.game.hints !== false;
  }

  // --- drawing -------------------------------------------------------------------------------

  render() {
    const game = this.game;
    if (game.broken) return this.showBroken(game.broken);
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
    this.renderDaily();
    this.renderTurn();
    this.renderTile();
    this.renderProposals();
    this.renderPreview();
    this.renderTalk();
    this.renderTasks();
    this.renderScore();
    this.renderShare();
    this.renderLog();
    this.renderLegend();
    this.renderBar();
  }

  renderBoards() {
    const game = this.game;
    const me = this.placerSeat(); // the acting seat, or the seat proposing
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
      el("b", {}, this.playerLink(i, seat.name)), this.playerTag(i), mine ? el("small", {}, " " + t("game.you", { name: "" }).trim()) : null,
      el("span", { class: "head-score" }, t("count.points", { count: game.scores[i].total })),
      placing ? el("span", { class: "head-wait" }, t(mine ? "game.head.yours" : game.phase === "draft" ? "game.head.picking" : "game.head.placing")) : null);
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
        title: t("game.tab_title", { name: mine ? t("game.you", { name: seat.name }) : seat.name, points: t("count.points", { count: game.scores[i].total }) }),
      }, el("span", { class: "seat-chip", style: `background:${SEAT_COLORS[i]}` }),
      // The name gives way on a narrow screen; the score never does.
      el("span", { class: "tab-name" }, mine ? t("game.you", { name: seat.name }) : seat.name), this.playerTag(i),
      el("span", { class: "tab-score" }, `\u00a0· ${game.scores[i].total}`));
    }));
  }

  /** The banner over each board: yours only on the board you play on. */
  renderBanners() {
    const game = this.game;
    const me = this.actSeat();
    this.boards.forEach((board, i) => {
      let text = "", mine = false;
      if (game.broken) text = t("game.broken.banner", { reason: server(game.broken) });
      else if (game.over) text = t("banner.over");
      else if (me !== null && this.areaOf(me) === i) {
        mine = true;
        text = this.you.seats.length > 1 ? t(`banner.turn_of.${tapWord()}`, { name: game.seats[me].name }) : t(`banner.turn.${tapWord()}`);
      } else if (game.mode !== "coop" && game.waiting.includes(i) && !this.you.seats.includes(i)) {
        text = t(game.mode === "duel" ? "banner.placing_this" : "banner.placing_their", { name: game.seats[i].name });
      } else if (this.proposerSeat() !== null) {
        text = t(`banner.propose.${tapWord()}`, { name: game.seats[game.waiting[0]]?.name ?? "" });
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
    // The table (issue 63): the proposals and another screen's chosen cell; ours sent if it changed.
    if (this.game.mode === "coop") this.boards[0]?.setOthers(this.othersOnBoard());
    this.syncChoice();
    const seat = me ?? this.proposerSeat();
    const revealed = this.revealedFor(seat);
    const target = this.selected || this.hover;
    if (seat === null || !revealed || !target || this.game.phase === "draft") {
      // What the active player's choice would do: its territories outlined, as on their screen.
      const choice = this.shownChoice();
      if (choice?.preview?.groups) this.boards[0]?.setHighlight(choice.preview.groups.filter((g) => "FGVRTX".includes(g.letter) && g.size > 1));
      return;
    }
    const k = this.selected ? this.selected.rot : this.effRot(target.q, target.r);
    if (k === null) return;
    const board = this.boards[this.areaOf(seat)];
    board.setGhost(this.tileAt(revealed, k), target.q, target.r, { letters: this.letters, selected: !!this.selected });
    if (me !== null) this.requestPreview(me, target.q, target.r, revealed.canon[k]);
  }

  // --- input ------------------------------------------------------------------------------------------

  onHover(area, q, r) {
    if (!this.game || this.game.phase === "draft") return;
    const me = this.placerSeat();
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

  /** A click or tap on a cell; how.zoomed: the tap zoomed in to cells a finger can hit (it never places). */
  onClick(area, q, r, e, how = {}) {
    if (!this.game) return;
    const board = this.boards[area];
    const me = this.placerSeat();
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
      if (!how.zoomed) this.commit();
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
    const revealed = this.revealedFor(this.placerSeat());
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
    const me = this.placerSeat();
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

  commit() {
    const me = this.actSeat();
    if (me === null && this.selected) this.propose(); // a proposal, by the same keys and taps
    if (me === null || !this.selected || this.busy) return;
    const revealed = this.revealedFor(me);
    const { q, r, rot } = this.selected;
    this.busy = true;
    this.barPlace.disabled = true;
    this.conn.send({ type: "move", seat: me, at: [q, r], rot: revealed.canon[rot] });
  }

  undo() {
    if (!this.undoShown()) return;
    const seat = this.you.seats.find((s) => this.game.seats[s].kind !== "computer");
    if (seat === undefined) return;
    this.conn.send({ type: "undo", seat });
  }

  /** Ask the server for a hint (a placement, or a pick in the draft) and show it. */
  async askHint() {
    const me = this.actSeat();
    if (me === null || this.hintBusy) return;
    // The answer stays good while this seat still places the same tile on the same area: other
    // seats' moves (a computer's hidden placement) change the game's version, not the question.
    const asked = this.tileKey;
    this.hintBusy = true;
    this.hint = null;
    this.render();
    try {
      await this.fetchHint(me, asked);
    } finally {
      this.hintBusy = false;
      this.render();
    }
  }

  async fetchHint(me, asked) {
    const remembered = rememberedGames()[this.id] || {};
    const tokens = remembered.tokens || {};
    const candidates = [tokens[String(me)], ...Object.values(tokens)].filter((t, i, all) => t && all.indexOf(t) === i);
    let error = null;
    for (const token of candidates) {
      try {
        const answer = await api("POST", `/api/games/${encodeURIComponent(this.id)}/hint`, { token, seat: me });
        if (this.tileKey !== asked) {
          this.hint = { error: true, text: t("hint.moved_on") };
        } else {
          this.showHint(answer.hint);
        }
        return;
      } catch (e) {
        error = e;
        if (e.code !== "not-your-seat" && e.code !== "bad-token") break;
      }
    }
    const absent = error && (error.code === "404" || error.code === "405");
    this.hint = { error: true, text: absent ? t("hint.absent") : error ? error.message : t("hint.no_seat") };
  }

  showHint(hint) {
    if (!this.game || !hint) {
      this.hint = { error: true, text: t("hint.none") };
      return;
    }
    // The reasons in words ("starts village 4"); where it goes is shown on the board, not in
    // grid coordinates and rotation numbers.
    const words = (hint.reasons || []).map((reason) => server(reason)).join(", ");
    const what = t(hint.pick !== undefined ? "hint.take" : "hint.shown");
    this.hint = { ...hint, words, text: t("hint.coach", { words: words || what }) };
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
    if (!this.game || this.game.broken || e.target.closest?.("input, textarea, select")) return;
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
    // A preview stays true while this seat places the same tile on the same area (tileKey): the
    // other seat's placement in the Duel or Head to Head changes the game's version, not this.
    return `${this.tileKey}|${seat}|${q},${r}|${rot}`;
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
      const ref = this.conn.send({ type: "preview", seat, at: [q, r], rot });
      if (ref !== null) {
        this.previewIds.add(ref);
        this.previewAsked.set(ref, key);
      }
    }, 40);
  }

  onPreview(msg) {
    this.previewIds.delete(msg.id);
    const asked = this.previewAsked.get(msg.id);
    this.previewAsked.delete(msg.id);
    if (!this.game) return;
    const key = this.previewKey(msg.seat, msg.at[0], msg.at[1], msg.rot);
    if (asked !== key) return; // asked about another tile or area than the seat has now
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

}

Object.assign(GameController.prototype, cardMethods, phoneMethods, tableMethods, draftMethods, clockMethods, playerMethods, dailyMethods, endMethods);
