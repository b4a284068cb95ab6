// The table of a game several people play (issue 63; docs/server.md, "Playing"): the active
// player's chosen cell, seen by everyone as a tile in their colour with what it would do; in a
// cooperative game the others' proposals (two each at most), which the active player may adopt;
// and table talk, with quick phrases, a mute per player and a "no talk" switch (both kept in this
// browser). Everything a person wrote is put in the page as text, never as markup. Methods of the
// game page (game.js); the messages are in docs/server.md, "The protocol".
import { DIRS, SEAT_COLORS, tileIcon } from "./hex.js";
import { el, put, media, NARROW, tapWord } from "./util.js";
import { has, serverError, t } from "./i18n.js";
import { figureBits } from "./phone.js";
import { turnWords } from "./cards.js";

/** The players muted in this browser (their names, lower case), and the "no talk" switch. */
const MUTED = "dorf.talk.muted";
const OFF = "dorf.talk.off";
/** The quick phrases, a tap away. */
const PHRASES = ["here", "good", "wait", "yours"];
/** The messages kept on the page (the server sends the last 100). */
const KEEP = 100;

function stored(key, fallback) {
  try {
    const value = JSON.parse(localStorage.getItem(key));
    return value ?? fallback;
  } catch {
    return fallback;
  }
}

function store(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode: for this page only */ }
}

/** The talk of a game as a list: the speaker's name in their colour, then what they said (text). */
export function talkList(messages, nameOf, attrs = {}) {
  return el("ol", { class: "talk-list", "aria-live": "polite", ...attrs }, messages.map((m) =>
    el("li", { "data-n": String(m.n), "data-seat": String(m.seat), title: m.at || "" },
      el("span", { class: "who", style: `--seat:${SEAT_COLORS[m.seat % SEAT_COLORS.length] || "#6d6a5e"}` }, nameOf(m)),
      el("span", { class: "talk-text" }, m.text))));
}

export const tableMethods = {
  initTable() {
    this.table = { choice: null, proposals: [], talk: [] };
    this.tableAsked = new Map(); // our requests: id -> {kind, text}
    this.sentChoice = "clear";
    this.talkRead = 0;
    this.proposalProblem = null;
    this.talkProblem = null;
  },

  // --- what the server says ---------------------------------------------------------------------

  /** The choice and the proposals (a "table" message, or a state's table with its talk). */
  onTable(msg) {
    this.takeTable(msg);
    if (!this.game || this.game.broken) return;
    if (this.restoreChoice()) this.render();
    else this.renderTable();
  },

  /** The page opened again while its player had a cell chosen: chosen again (once, on opening:
   * later the page's own choice leads, and an old echo of it must not bring back a cleared one). */
  restoreChoice() {
    if (!this.restoring) return false;
    this.restoring = false;
    const choice = this.table.choice;
    const me = this.actSeat();
    if (!choice || me === null || choice.seat !== me || this.selected) return false;
    const revealed = this.revealedFor(me);
    if (!revealed || !this.legalMap().has(`${choice.at[0]},${choice.at[1]}`)) return false;
    const k = this.turnOf(revealed, choice.rot);
    this.selected = { q: choice.at[0], r: choice.at[1], rot: k };
    this.rot = k;
    this.sentChoice = JSON.stringify([me, choice.at[0], choice.at[1], revealed.canon[k]]);
    return true;
  },

  takeTable(msg) {
    if ("choice" in msg) this.table.choice = msg.choice || null;
    if (Array.isArray(msg.proposals)) this.table.proposals = msg.proposals;
    if (Array.isArray(msg.talk)) this.table.talk = msg.talk.slice(-KEEP);
  },

  /** The table as a state or delta carries it in the game's description, if it does. */
  tableFromGame(game) {
    if (!game.table || game.table === this.heldTable) return;
    this.heldTable = game.table;
    this.takeTable(game.table);
  },

  onTalk(msg) {
    const m = msg.message;
    if (!m || this.table.talk.some((x) => x.n === m.n)) return;
    this.table.talk = [...this.table.talk, m].sort((a, b) => a.n - b.n).slice(-KEEP);
    if (this.game && !this.game.broken) {
      this.renderTalk();
      this.renderTableBar();
    }
  },

  sendTable(message, extra = {}) {
    const id = this.conn.send(message);
    if (id === null) return null;
    this.tableAsked.set(id, { kind: message.type, ...extra });
    if (this.tableAsked.size > 200) this.tableAsked.delete(this.tableAsked.keys().next().value);
    return id;
  },

  /** An answer to a table request of ours ("ok"): true if it was one. */
  tableAnswered(msg) {
    return this.tableAsked.delete(msg.id);
  },

  /** A table request of ours refused: said in words where it was made; true if it was one. */
  tableRefused(msg) {
    const asked = this.tableAsked.get(msg.id);
    if (!asked) return false;
    this.tableAsked.delete(msg.id);
    if (asked.kind === "choose") return true; // the game moved on meanwhile: nothing to tell
    const words = has(`table.error.${msg.code}`) ? t(`table.error.${msg.code}`) : serverError(msg.code, msg.message);
    if (asked.kind === "propose") {
      this.proposalProblem = words;
      this.renderProposals();
    } else {
      this.talkProblem = words;
      if (asked.text && this.talkInput && !this.talkInput.value) this.talkInput.value = asked.text;
      this.renderTalk();
    }
    this.renderTableBar();
    return true;
  },

  // --- who is who ---------------------------------------------------------------------------------

  /** Whether people sit at this table elsewhere (not this screen's seats, not the computer). */
  peopleElsewhere() {
    return this.game.seats.some((s, i) => !this.you.seats.includes(i) && s.kind !== "computer" && (s.kind !== "online" || s.claimed));
  },

  /** Whether this screen takes part in table talk: it holds a seat and someone sits elsewhere. */
  talks() {
    return !!this.game && !this.game.broken && this.you.seats.length > 0 && this.peopleElsewhere();
  },

  /** The seat this screen proposes for: a seated player of a cooperative game while someone
   * elsewhere places (the active player chooses, and does not propose); else null. */
  proposerSeat() {
    const game = this.game;
    if (!game || game.broken || game.mode !== "coop" || game.over || game.phase === "draft") return null;
    if (!this.you.seats.length || this.actSeat() !== null) return null;
    const active = game.waiting.find((s) => !this.you.seats.includes(s) && game.seats[s]?.kind !== "computer");
    return active === undefined ? null : this.you.seats[0];
  },

  /** The seat that places now or proposes now from this screen. */
  placerSeat() {
    return this.actSeat() ?? this.proposerSeat();
  },

  /** Where a proposal may go ("q,r" -> rotations): the active seat's legal cells if the server
   * sends them; else every free cell beside the landscape, the server saying why one is refused. */
  proposalMap() {
    const game = this.game;
    const active = game.waiting[0];
    const revealed = (game.revealed || [])[0];
    const given = this.you.legal[String(active)];
    const key = `${this.tileKey}|${game.version}`;
    if (this.proposalCells?.key === key) return this.proposalCells.map;
    const map = new Map();
    if (given) for (const [q, r, rots] of given) map.set(`${q},${r}`, rots);
    else if (revealed) {
      const rots = [...new Set(revealed.canon)];
      const tiles = game.areas[0].tiles;
      const taken = new Set(tiles.map((tile) => `${tile.at[0]},${tile.at[1]}`));
      if (!tiles.length) map.set("0,0", rots);
      for (const tile of tiles) {
        for (const [dq, dr] of DIRS) {
          const cell = `${tile.at[0] + dq},${tile.at[1] + dr}`;
          if (!taken.has(cell)) map.set(cell, rots);
        }
      }
    }
    this.proposalCells = { key, map };
    return map;
  },

  /** The turn (0-5, as the board draws it) of the engine's rotation `rot` of the revealed tile. */
  turnOf(revealed, rot) {
    const k = revealed.canon ? revealed.canon.indexOf(rot) : -1;
    return k >= 0 ? k : ((rot % 6) + 6) % 6;
  },

  /** The active player's choice, if another screen's (this screen draws its own selection). */
  shownChoice() {
    const game = this.game;
    const choice = this.table?.choice;
    if (!game || !choice || game.over || game.mode !== "coop" || this.you.seats.includes(choice.seat)) return null;
    return choice;
  },

  /** The others' tiles on the board: the proposals, and the active player's choice. */
  othersOnBoard() {
    const game = this.game;
    const revealed = (game.revealed || [])[0];
    if (game.mode !== "coop" || game.over || game.phase === "draft" || !revealed) return [];
    const item = (entry, kind) => ({
      tile: this.tileAt(revealed, this.turnOf(revealed, entry.rot)), q: entry.at[0], r: entry.at[1], seat: entry.seat,
      color: SEAT_COLORS[entry.seat % SEAT_COLORS.length], name: game.seats[entry.seat]?.name ?? entry.name ?? "?", kind,
    });
    const items = this.table.proposals.map((p) => item(p, "proposal"));
    const choice = this.shownChoice();
    if (choice) items.push(item(choice, "choice"));
    return items;
  },

  // --- what this screen sends ---------------------------------------------------------------------

  /** The active player's chosen cell and rotation, sent when they change (cleared when none). */
  syncChoice() {
    const game = this.game;
    const me = this.actSeat();
    if (!game || game.mode !== "coop" || me === null || game.over || game.phase === "draft" || !this.peopleElsewhere()) return;
    if (this.conn.ws?.readyState !== WebSocket.OPEN) return;
    const revealed = this.revealedFor(me);
    const s = this.selected;
    const want = s && revealed ? JSON.stringify([me, s.q, s.r, revealed.canon[s.rot]]) : "clear";
    if (want === this.sentChoice) return;
    this.sentChoice = want;
    if (want === "clear") this.sendTable({ type: "choose", seat: me, clear: true });
    else this.sendTable({ type: "choose", seat: me, at: [s.q, s.r], rot: revealed.canon[s.rot] });
  },

  /** Propose the selected cell and rotation. */
  propose() {
    const seat = this.proposerSeat();
    const revealed = (this.game?.revealed || [])[0];
    if (seat === null || !this.selected || !revealed) return;
    const { q, r, rot } = this.selected;
    this.proposalProblem = null;
    if (this.sendTable({ type: "propose", seat, at: [q, r], rot: revealed.canon[rot] }) === null) return;
    this.selected = null;
    this.render();
  },

  withdraw(p) {
    this.proposalProblem = null;
    this.sendTable({ type: "propose", seat: p.seat, clear: true, at: p.at, rot: p.rot });
  },

  /** The active player takes a proposal as their chosen cell and rotation (they still place). */
  adopt(p) {
    const me = this.actSeat();
    if (me === null) return;
    const [q, r] = p.at;
    if (!this.legalMap().has(`${q},${r}`)) return;
    const k = this.turnOf(this.revealedFor(me), p.rot);
    this.selected = { q, r, rot: k };
    this.rot = k;
    this.hint = null;
    const board = this.boards[this.areaOf(me)];
    if (board && !board.allVisible()) board.centreOn(q, r);
    this.closeSheet();
    this.render();
  },

  say(text) {
    const seat = this.you.seats[0];
    const said = String(text ?? "").trim();
    if (seat === undefined || !said || this.talkOff()) return;
    this.talkProblem = null;
    if (this.sendTable({ type: "say", seat, text: said }, { text: said }) !== null && this.talkInput.value.trim() === said) {
      this.talkInput.value = "";
    }
    this.renderTalk();
  },

  // --- this browser's settings ------------------------------------------------------------------

  mutedNames() {
    return new Set(stored(MUTED, []));
  },

  toggleMute(name) {
    const muted = this.mutedNames();
    const key = name.toLowerCase();
    if (muted.has(key)) muted.delete(key);
    else muted.add(key);
    store(MUTED, [...muted]);
    this.renderTalk();
    this.renderTableBar();
  },

  talkOff() {
    return stored(OFF, false) === true;
  },

  setTalkOff(off) {
    store(OFF, !!off);
    this.renderTalk();
    this.renderTableBar();
  },

  /** The messages this screen shows: not a muted player's (its own always). */
  heardTalk() {
    const muted = this.mutedNames();
    return this.table.talk.filter((m) => this.you.seats.includes(m.seat) || !muted.has(this.speaker(m).toLowerCase()));
  },

  speaker(m) {
    return this.game.seats[m.seat]?.name ?? m.name ?? "?";
  },

  // --- drawing ------------------------------------------------------------------------------------

  renderTable() {
    this.renderGhost();
    this.renderProposals();
    this.renderPreview();
    this.renderTalk();
    this.renderBar();
  },

  /** The proposals beside the tile: who, where (the tile as it would lie), what it would do. */
  renderProposals() {
    const card = this.cards.proposals;
    const game = this.game;
    const proposer = this.proposerSeat();
    const me = this.actSeat();
    const list = game.mode === "coop" && !game.over ? this.table.proposals : [];
    if (!list.length && proposer === null) {
      card.classList.add("hidden");
      put(card);
      return;
    }
    card.classList.remove("hidden");
    const revealed = (game.revealed || [])[0];
    const items = list.map((p) => {
      const name = this.speaker(p);
      const k = revealed ? this.turnOf(revealed, p.rot) : 0;
      const tile = revealed ? this.tileAt(revealed, k) : null;
      const mine = this.you.seats.includes(p.seat);
      return el("li", { class: `proposal${mine ? " mine" : ""}`, "data-seat": String(p.seat), "data-at": `${p.at[0]},${p.at[1]}` },
        el("span", { class: "who", style: `--seat:${SEAT_COLORS[p.seat % SEAT_COLORS.length]}` }, name),
        // The tile as it would lie: a tap shows the proposal on the board.
        tile ? el("button", {
          type: "button", class: "proposal-tile", title: t("table.show"), "aria-label": t("table.show_label", { name }), onclick: () => this.showCell(p.at),
          html: tileIcon(tile.edges, tile.areas, { task: tile.task, flag: tile.flag, small: true }, 34),
        }) : null,
        el("span", { class: "proposal-figures" }, p.preview ? figureBits(p.preview).join(" · ") : "…"),
        el("span", { class: "proposal-actions" },
          me !== null ? el("button", { type: "button", class: "small adopt-button", onclick: () => this.adopt(p) }, t("table.adopt")) : null,
          mine ? el("button", { type: "button", class: "small secondary withdraw-button", onclick: () => this.withdraw(p) }, t("table.withdraw")) : null));
    });
    const own = list.filter((p) => this.you.seats.includes(p.seat)).length;
    const active = game.waiting.find((s) => !this.you.seats.includes(s));
    const note = me !== null ? t("table.note_active")
      : proposer === null ? ""
        : own >= 2 ? t("table.note_proposer_full")
          : t(`table.note_proposer.${tapWord()}`, { name: game.seats[active]?.name ?? "", count: 2 - own });
    put(card,
      el("h3", { id: "proposals-title" }, t("table.proposals", { n: list.length })),
      list.length ? el("ul", { class: "proposals", id: "proposals" }, items) : null,
      note ? el("p", { class: "note" }, note) : null,
      this.proposalProblem ? el("p", { class: "note bad", id: "proposal-problem", role: "alert" }, this.proposalProblem) : null);
  },

  showCell(at) {
    const board = this.boards[0];
    if (!board) return;
    this.closeSheet();
    board.centreOn(at[0], at[1]);
  },

  /** The cell this screen would propose, in the preview card: Propose (its figures come with it). */
  renderProposing(card) {
    const k = this.selected.rot;
    put(card,
      el("h3", { id: "preview-title" }, t("table.propose_title", { turn: turnWords(k) })),
      el("p", { class: "note" }, t("table.propose_note")),
      el("div", { class: "actions" },
        el("button", { type: "button", id: "propose-button", onclick: () => this.propose() }, t("table.propose_key")),
        el("button", { type: "button", class: "secondary", onclick: () => { this.selected = null; this.render(); } }, t("preview.cancel"))),
      this.proposalProblem ? el("p", { class: "note bad" }, this.proposalProblem) : null);
  },

  /** The active player's choice in the preview card: what it would do, as they see it. */
  renderChoicePreview(card, choice) {
    const game = this.game;
    const name = game.seats[choice.seat]?.name ?? "?";
    const revealed = (game.revealed || [])[0];
    const k = revealed ? this.turnOf(revealed, choice.rot) : 0;
    put(card,
      el("h3", { id: "preview-title" }, el("span", { class: "who", style: `--seat:${SEAT_COLORS[choice.seat % SEAT_COLORS.length]}` }, name), " ", t("table.considers", { turn: turnWords(k) })),
      ...this.previewBody(choice.preview || null),
      el("p", { class: "note" }, t("table.choice_note", { name })));
  },

  /** Table talk: the messages in order, a line to write, quick phrases, mutes, no talk. */
  renderTalk() {
    const card = this.cards.talk;
    if (!this.talks()) {
      card.classList.add("hidden");
      return;
    }
    card.classList.remove("hidden");
    card.dataset.count = String(this.table.talk.length); // the messages received, muted ones too
    if (!this.talkBuilt) this.buildTalk(card);
    const off = this.talkOff();
    this.talkSwitch.checked = off;
    this.talkBody.classList.toggle("hidden", off);
    this.talkOffNote.classList.toggle("hidden", !off);
    const heard = this.heardTalk();
    const atEnd = this.talkListBox.scrollHeight - this.talkListBox.scrollTop - this.talkListBox.clientHeight < 30;
    const list = talkList(heard, (m) => this.speaker(m), { id: "talk-list", "aria-label": t("talk.label") });
    for (const li of list.children) if (this.you.seats.includes(Number(li.dataset.seat))) li.classList.add("mine");
    put(this.talkListBox, heard.length ? list : el("p", { class: "note" }, t("talk.empty")));
    if (atEnd || !this.talkScrolled) this.talkListBox.scrollTop = this.talkListBox.scrollHeight;
    this.talkScrolled = true;
    put(this.talkProblemBox, this.talkProblem ? el("p", { class: "note bad", id: "talk-problem", role: "alert" }, this.talkProblem) : null);
    const muted = this.mutedNames();
    const others = this.game.seats.map((s, i) => [s, i]).filter(([s, i]) => !this.you.seats.includes(i) && s.kind !== "computer");
    put(this.talkMutes, others.length ? el("span", { class: "note" }, t("talk.mute")) : null, others.map(([s, i]) => {
      const on = muted.has(s.name.toLowerCase());
      return el("button", {
        type: "button", class: `small secondary mute-button${on ? " on" : ""}`, "aria-pressed": String(on), "data-seat": String(i),
        title: t(on ? "talk.unmute_title" : "talk.mute_title", { name: s.name }), onclick: () => this.toggleMute(s.name),
      }, el("span", { class: "dot", style: `--seat:${SEAT_COLORS[i % SEAT_COLORS.length]}` }), on ? t("talk.muted_name", { name: s.name }) : s.name);
    }));
    if (this.talkShown()) this.markTalkRead();
  },

  buildTalk(card) {
    this.talkBuilt = true;
    this.talkSwitch = el("input", { type: "checkbox", id: "talk-off", onchange: (e) => this.setTalkOff(e.target.checked) });
    this.talkListBox = el("div", { class: "talk-scroll", tabindex: "0" });
    this.talkProblemBox = el("div", { class: "talk-problem" });
    this.talkInput = el("input", {
      type: "text", id: "talk-input", maxlength: "200", autocomplete: "off", enterkeyhint: "send",
      "aria-label": t("talk.input_label"), placeholder: t("talk.placeholder"),
    });
    const form = el("form", { class: "talk-form", onsubmit: (e) => { e.preventDefault(); this.say(this.talkInput.value); } },
      this.talkInput, el("button", { type: "submit", id: "talk-send" }, t("talk.send")));
    const phrases = el("div", { class: "talk-phrases" }, PHRASES.map((p) =>
      el("button", { type: "button", class: "small secondary phrase", "data-phrase": p, onclick: () => this.say(t(`talk.phrase.${p}`)) }, t(`talk.phrase.${p}`))));
    this.talkMutes = el("div", { class: "talk-mutes" });
    this.talkBody = el("div", { class: "talk-body" }, this.talkListBox, this.talkProblemBox, phrases, form, this.talkMutes);
    this.talkOffNote = el("p", { class: "note hidden", id: "talk-off-note" }, t("talk.off_note"));
    put(card,
      el("div", { class: "card-title" }, el("h3", { id: "talk-title" }, t("talk.title")),
        el("label", { class: "talk-switch" }, this.talkSwitch, ` ${t("talk.off")}`)),
      this.talkBody, this.talkOffNote);
  },

  /** Whether the talk is in sight (beside the board; on a phone, its sheet open). */
  talkShown() {
    if (!media(NARROW)) return true;
    return this.panel.classList.contains("open") && this.panel.dataset.sheet === "talk";
  },

  markTalkRead() {
    const last = this.table.talk.at(-1);
    if (last && last.n > this.talkRead) {
      this.talkRead = last.n;
      this.renderTableBar();
    }
  },

  /** The messages not yet seen (not ours, not a muted player's). */
  unread() {
    if (this.talkOff()) return 0;
    return this.heardTalk().filter((m) => m.n > this.talkRead && !this.you.seats.includes(m.seat)).length;
  },

  // --- the phone's bar ----------------------------------------------------------------------------

  buildTableBar() {
    this.barProposals = el("div", { class: "bar-proposals", id: "bar-proposals" });
    this.barTalk = el("button", {
      type: "button", class: "secondary bar-talk", id: "bar-talk", "aria-label": t("talk.title"),
      onclick: () => this.openTalk(),
    });
    return el("div", { class: "bar-row bar-table hidden", id: "bar-table" }, this.barProposals, this.barTalk);
  },

  openTalk() {
    if (this.panel.classList.contains("open") && this.panel.dataset.sheet === "talk") {
      this.closeSheet();
      return;
    }
    this.openSheet("talk");
    this.markTalkRead();
    this.renderTableBar();
  },

  /** The phone's row of the table: the proposals a tap away, the talk's button with what is new. */
  renderTableBar() {
    if (!this.barTable || !this.game || this.game.broken) return;
    const game = this.game;
    const me = this.actSeat();
    const list = game.mode === "coop" && !game.over ? this.table.proposals : [];
    const talks = this.talks();
    this.barTable.classList.toggle("hidden", !list.length && !talks);
    put(this.barProposals, list.map((p) => {
      const name = this.speaker(p);
      const mine = this.you.seats.includes(p.seat);
      const gain = p.preview ? figureBits(p.preview)[0] : "";
      const label = me !== null ? t("table.chip_adopt", { name, gain }) : mine ? t("table.chip_withdraw", { gain }) : t("table.chip_show", { name, gain });
      return el("button", {
        type: "button", class: `small secondary bar-proposal${me !== null ? " adopt" : ""}`, "data-seat": String(p.seat), "aria-label": label, title: label,
        onclick: () => (me !== null ? this.adopt(p) : mine ? this.withdraw(p) : this.showCell(p.at)),
      }, el("span", { class: "dot", style: `--seat:${SEAT_COLORS[p.seat % SEAT_COLORS.length]}` }), `${name} ${gain.replace(/ .*/, "")}`, me !== null ? " ✓" : mine ? " ✕" : "");
    }));
    this.barTalk.classList.toggle("hidden", !talks);
    const unread = this.unread();
    put(this.barTalk, t("talk.button"), unread ? el("span", { class: "badge unread", id: "talk-unread" }, String(unread)) : null);
  },
};
