// The panel beside the board: whose turn, the tile, the preview, the tasks, the score, the links
// to share, the log, the legend, and the score pad. Methods of the game page (game.js).
import { tileIcon, taskMarker, TERRAIN, SEAT_COLORS } from "./hex.js";
import {
  el, rememberedGames, tokensOf, copyButton, describeTask, progressText, put, media, tapWord, NARROW,
  around, listOf, modeName, taskName, terrainName } from "./util.js";
import { language, server, t, term } from "./i18n.js";
import { boardLog, logWords } from "./words.js";

/** How far the tile is turned from how it was drawn, in words: "as drawn", "turned 2 steps clockwise". */
export function turnWords(k) {
  k = ((k % 6) + 6) % 6;
  if (k === 0) return t("turn.as_drawn");
  if (k === 3) return t("turn.round");
  return k < 3 ? t("turn.clockwise", { count: k }) : t("turn.anticlockwise", { count: 6 - k });
}

export const cardMethods = {
  renderTurn() {
    const game = this.game;
    if (!game || game.broken) return; // a broken game keeps its own card (showBroken)
    const card = this.cards.turn;
    const me = this.actSeat();
    const waitingNames = game.waiting.map((s) => game.seats[s]);
    let line;
    if (game.over) {
      // How it ended (time, resignation, abort, the score), not only who won.
      // An end by the last decision is "Game over: Ann wins, 52 to 47"; time, resignation and an
      // abort say so themselves ("Bob lost on time: Ann wins").
      const ended = game.end === "time" || game.end === "resign" || game.end === "aborted";
      line = game.mode === "coop" || ended ? this.endLine() : t("turn.over", { how: this.endLine() });
    } else if (me !== null) {
      const draft = game.phase === "draft";
      line = this.you.seats.length > 1
        ? t(draft ? "turn.pick_named" : "turn.yours_named", { name: game.seats[me].name })
        : t(draft ? "turn.pick" : "turn.yours");
    } else if (waitingNames.some((s) => s.kind === "computer")) {
      line = t("turn.thinking", { names: listOf(waitingNames.filter((s) => s.kind === "computer").map((s) => s.name)) });
    } else if (waitingNames.length) {
      line = t("turn.waiting", { names: listOf(waitingNames.map((s) => s.name)) });
    } else line = "";
    const seats = el("ul", { class: "seats" }, game.seats.map((s, i) =>
      el("li", { class: `${game.waiting.includes(i) ? "waiting" : ""}${this.you.seats.includes(i) ? " mine" : ""}` },
        el("span", { class: "dot", "aria-hidden": "true", style: `--seat:${SEAT_COLORS[i % SEAT_COLORS.length]}` }),
        `${s.name}`,
        el("small", {}, s.kind === "computer" ? ` ${t("turn.seat_computer", { player: term("level.", s.player) })}` : s.kind === "online" ? ` ${t(s.claimed ? "turn.seat_online" : "turn.seat_invited")}` : this.you.seats.includes(i) ? ` ${t("turn.seat_here")}` : ""),
      )));
    const actions = el("div", { class: "actions" });
    if (this.undoShown()) {
      actions.appendChild(el("button", { type: "button", class: "secondary", id: "undo-button", title: t("turn.undo_title"), onclick: () => this.undo() }, t("turn.undo")));
    }
    if (game.over) {
      // An aborted game has no score to show: its end dialog says why, with what comes next.
      actions.appendChild(el("button", { type: "button", id: "pad-button", onclick: () => this.showPad() }, t(game.end === "aborted" ? "end.button" : "pad.button")));
      const rematch = this.rematchButton("turn-rematch");
      if (rematch) actions.appendChild(rematch);
      // A daily challenge's record (its seed) is given out once its day is over.
      if (this.recordShown()) {
        actions.appendChild(el("a", { class: "button secondary", href: `/api/games/${this.id}/record`, download: `dorf-${game.mode}-${this.id}.json` }, t("pad.download")));
        actions.appendChild(el("a", { class: "button secondary", href: `/replay/${this.id}` }, t("pad.replay")));
      }
    }
    const watching = !this.you.seats.length ? el("p", { class: "note" }, t("turn.watching")) : null;
    const aside = (game.set_aside || []).filter((s) => this.you.seats.includes(s)).map((s) =>
      el("p", { class: "note" }, t("turn.aside", { name: game.seats[s].name })));
    const problem = this.tokenProblem ? el("p", { class: "note bad" }, this.tokenProblem) : null;
    const badge = game.practice ? el("span", { class: "badge practice", id: "practice-badge", title: t("turn.practice_title") }, t("turn.practice")) : null;
    const first = game.first === 2 && game.seats[1] ? el("p", { class: "note" }, t("turn.started", { name: game.seats[1].name })) : null;
    const rating = game.over ? this.ratingLine() : null;
    put(card,
      el("div", { class: "card-title" }, el("h2", {}, modeName(game.mode), badge), el("span", { class: "turn-no" }, game.phase === "draft" ? t("turn.pick_no", { n: game.turn + 1 }) : t("turn.move_no", { n: game.turn }))),
      el("p", { class: `turn-line${me !== null ? " mine" : ""}`, id: "turn-line" }, line),
      rating ? el("p", { class: "note end-ratings", id: "turn-ratings" }, rating) : null,
      seats, first, watching, aside, problem, this.offerBox("turn"), actions,
    );
  },

  /** The rotation shown: of the chosen cell, else of the cell under the pointer, else the chosen one. */
  shownRot() {
    if (this.selected) return this.selected.rot;
    const k = this.hover ? this.effRot(this.hover.q, this.hover.r) : null;
    return k ?? this.rot;
  },

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
    const edgeNames = [...tile.edges].map((l) => terrainName(l)).join(", ");
    const icon = el("div", { class: "tile-big", html: tileIcon(tile.edges, tile.areas, { task: tile.task, flag: tile.flag, letters: this.letters, label: t("tile.label", { edges: edgeNames }) }, 132) });
    const facts = [];
    if (revealed.task) facts.push(el("li", {}, el("b", {}, `${t("tile.task")} `), describeTask(revealed.task)));
    if (revealed.flag) facts.push(el("li", {}, el("b", {}, `${t("tile.flag")} `), revealed.flag === "X" ? t("tile.multicoloured") : terrainName(revealed.flag)));
    const legalCount = me !== null ? (this.you.legal[String(me)] || []).length : 0;
    if (me !== null) facts.push(el("li", {}, t("tile.fits", { count: legalCount })));
    // A seated player of a cooperative game while another places: they may propose (issue 63).
    const proposing = me === null && this.proposerSeat() !== null;
    let whose = game.mode === "head-to-head" ? t("tile.whose", { name: game.seats[seat].name }) : t("tile.the");
    const others = game.waiting.filter((s) => !this.you.seats.includes(s));
    if (me === null && others.length && !game.over) {
      // Nobody here places now: say who does.
      const names = listOf(others.map((s) => game.seats[s].name));
      whose = t(game.mode === "head-to-head" ? "tile.placing_their" : "tile.placing_this", { names, count: others.length });
    }
    const buttons = el("div", { class: "rotate" },
      el("button", { type: "button", title: t("tile.rotate_left_title"), "aria-label": t("tile.rotate_left"), onclick: () => this.rotateBy(-1) }, "⟲"),
      el("span", { class: "rot-no", id: "rot-words", "data-rot": String(k) }, this.turnOfFit(k)),
      el("button", { type: "button", id: "rotate-button", title: t("tile.rotate_right_title"), "aria-label": t("tile.rotate_right"), onclick: () => this.rotateBy(1) }, "⟳"),
      this.canHint() ? el("button", { type: "button", class: "small secondary", id: "hint-button", title: t("hint.title"), disabled: !!this.hintBusy, "aria-busy": String(!!this.hintBusy), onclick: () => this.askHint() }, this.hintBusy ? t("hint.thinking") : t("hint.button")) : null,
    );
    const keys = el("p", { class: "note keys" }, t("tile.keys"));
    const hint = this.hint ? el("p", { class: `hint${this.hint.error ? " bad" : ""}`, id: "hint-text" }, this.hint.text) : null;
    put(card, el("h3", { id: "tile-whose" }, whose), el("div", { class: "tile-row" }, icon, el("ul", { class: "facts" }, facts)),
      me !== null || proposing ? buttons : null, hint, me !== null ? keys : proposing ? el("p", { class: "note keys" }, t("table.keys")) : null);
  },

  /** The turn shown, without the engine's numbers (issue 61): of the turns that fit the cell
   * chosen (or pointed at), which one ("turn 2 of 4 that fit"); with no cell, how it is turned. */
  turnOfFit(k) {
    const target = this.selected || this.hover;
    const revealed = this.revealedFor(this.placerSeat());
    if (target && revealed) {
      const rots = [...new Set(this.legalMap().get(`${target.q},${target.r}`) || [])].sort((a, b) => a - b);
      const i = rots.indexOf(revealed.canon[k]);
      if (i >= 0) return t("tile.turn_of", { n: i + 1, count: rots.length });
    }
    return turnWords(k);
  },

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
  },

  renderPreview() {
    const card = this.cards.preview;
    const shown = this.previewLines();
    if (!shown && this.selected && this.proposerSeat() !== null) {
      // A cell this screen would propose (issue 63): Propose instead of Place.
      card.classList.remove("hidden");
      this.renderProposing(card);
      return;
    }
    if (!shown) {
      // Someone else's chosen cell at the table (issue 63): what it would do, as they see it.
      const choice = this.shownChoice();
      card.classList.toggle("hidden", !choice);
      if (choice) this.renderChoicePreview(card, choice);
      return;
    }
    const { k, result } = shown;
    card.classList.remove("hidden");
    const body = this.previewBody(result);
    const place = this.selected
      ? el("div", { class: "actions" },
        el("button", { type: "button", id: "place-button", onclick: () => this.commit() }, t("preview.place")),
        el("button", { type: "button", class: "secondary", onclick: () => { this.selected = null; this.render(); } }, t("preview.cancel")))
      : el("p", { class: "note" }, t(`preview.choose.${tapWord()}`));
    put(card, el("h3", { id: "preview-title" }, t(this.selected ? "preview.title_selected" : "preview.title", { turn: turnWords(k) })), ...body, place);
  },

  /** A placement preview's figures, as the preview card shows them: the score before and after,
   * the tasks completed, failed and changed, the territories joined, the scores changed. */
  previewBody(result) {
    const body = [];
    if (!result) body.push(el("p", { class: "note" }, "…"));
    else {
      const delta = result.score[1] - result.score[0];
      body.push(el("p", { class: `score-delta${delta > 0 ? " up" : delta < 0 ? " down" : ""}` },
        t("preview.score", { a: result.score[0], b: result.score[1], delta: `${delta >= 0 ? "+" : ""}${delta}` })));
      for (const task of result.completes) body.push(el("p", { class: "done" }, t("preview.completes", { task: `${taskName(task.name)} ${task.value}` })));
      for (const task of result.fails) body.push(el("p", { class: "failed" }, t("preview.fails", { task: `${taskName(task.name)} ${task.value}` })));
      for (const task of result.tasks) {
        const before = task.before && task.before.join("|") !== task.sizes.join("|") ? task.before.join("|") + " → " : "";
        const open = task.open_edges.join("|");
        const edges = t("count.open_edges", { count: open === "1" ? 1 : 2 }).replace(/^\d+/, open);
        body.push(el("p", {}, t(task.new ? "preview.new_task" : "preview.task", { label: task.label, sizes: before + task.sizes.join("|"), n: task.value, edges })));
      }
      const groups = result.groups.filter((g) => "FGVRTX".includes(g.letter));
      if (groups.length) {
        body.push(el("ul", { class: "groups" }, groups.map((g) =>
          el("li", {}, el("span", { class: `swatch t-${g.letter}` }), t(g.closed ? "preview.group_closed" : "preview.group_open", { name: terrainName(g.letter), tiles: t("count.tiles", { count: g.size }), n: g.open_edges })))));
      }
      for (const [label, a, b] of result.score_changes) body.push(el("p", { class: "note" }, `${server(label)}: ${a} → ${b}`));
    }
    return body;
  },

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
    const item = (task) => el("li", {
      class: `task ${task.status}`, tabindex: "0", title: t("tasks.show"),
      onclick: () => this.showTask(index, task), onkeydown: (e) => { if (e.key === "Enter") this.showTask(index, task); },
    },
    el("span", { class: "marker", html: `<svg viewBox="-18 -18 36 36" width="34" height="34">${taskMarker({ ...task, sizes: null })}</svg>` }),
    el("span", {}, el("b", {}, describeTask(task)), el("br"), task.status === "open" ? progressText(task) : t(`tasks.${task.status}`)));
    const whose = game.areas.length > 1 ? ` · ${game.seats[index].name}` : "";
    put(card,
      el("h3", {}, t(game.over ? "tasks.open_title" : "tasks.active_title", { n: open.length }) + whose),
      open.length ? el("ul", { class: "tasks" }, open.map(item)) : el("p", { class: "note" }, t("tasks.none")),
      done.length || failed.length
        ? el("details", { class: "finished-tasks" }, el("summary", {}, t("tasks.summary", { done: done.length, failed: failed.length })), el("ul", { class: "tasks" }, [...done, ...failed].map(item)))
        : el("p", { class: "note" }, t("tasks.summary", { done: 0, failed: 0 })),
    );
  },

  showTask(index, task) {
    this.closeSheet();
    const board = this.boards[index];
    if (!board) return;
    board.centreOn(task.at[0], task.at[1]);
    const info = board.infoAt(task.at[0], task.at[1]);
    if (info) board.showTip(info, task.at[0], task.at[1]);
  },

  renderScore() {
    const card = this.cards.score;
    const game = this.game;
    const rows = [];
    const left = game.left || [];
    if (game.phase === "draft") {
      game.seats.forEach((s, i) => {
        const taken = (game.owned || [])[i] || [];
        rows.push(el("p", {}, el("b", {}, s.name), `: ${t("score.draft_row", { tiles: t("count.tiles", { count: taken.length }), tasks: t("count.task_tiles", { count: taken.filter((x) => x.task_type).length }) })}`));
      });
    } else if (game.mode === "head-to-head") {
      game.seats.forEach((s, i) => {
        const [tasks, lands] = left[i] || [0, 0];
        rows.push(el("p", {}, el("b", {}, t("score.points_of", { name: s.name, points: t("count.points", { count: game.scores[i].total }) })), el("br"), t("score.left", { lands, tasks: t("count.task_tiles", { count: tasks }) })));
      });
    } else {
      const [tasks, lands] = left[0] || [0, 0];
      if (game.mode === "duel") game.seats.forEach((s, i) => rows.push(el("p", {}, el("b", {}, t("score.points_of", { name: s.name, points: t("count.points", { count: game.scores[i].total }) })))));
      else {
        const total = el("b", { id: "score-total" }, String(game.scores[0].total));
        const count = game.scores[0].total;
        rows.push(el("p", { class: "big" }, around(t(game.over ? "score.final" : "score.if_ended", { count }), "total", total)));
      }
      if (!game.over) rows.push(el("p", { id: "tiles-left" }, t("score.tiles_left", { lands, tasks })));
    }
    const area = game.areas[this.focus] || game.areas[0];
    if (game.phase !== "draft") {
      const extra = [t("score.longest_river", { n: area.longest_river })];
      if (game.mode !== "head-to-head") extra.push(t("score.longest_track", { n: area.longest_track }));
      else extra.push(`${t("count.mountains", { count: area.mountains })}, ${t("count.lakes", { count: area.lakes })}`);
      rows.push(el("p", { class: "note", id: "score-extra" }, extra.join(" · ")));
    }
    const aborted = game.over && game.end === "aborted";
    put(card, el("h3", {}, t("score.title")), ...rows, aborted ? null : el("button", { type: "button", class: "small secondary", id: "score-pad-button", onclick: () => this.showPad() }, t("pad.button")));
  },

  /** Whether `part` must be drawn again: its inputs (`key`) changed since it was last drawn. */
  changed(part, key) {
    this.drawn = this.drawn || {};
    if (this.drawn[part] === key) return false;
    this.drawn[part] = key;
    return true;
  },

  renderShare() {
    const card = this.cards.share;
    const game = this.game;
    const known = rememberedGames()[this.id] || {};
    if (!this.changed("share", JSON.stringify([game.seats, known.invites, tokensOf(this.id)]))) return;
    const origin = location.origin;
    const mine = known;
    const parts = [];
    let inviting = false;
    // The words of each game: an opponent in the Duel and Head to Head, fellow players in the cooperative game.
    const words = game.mode === "coop" ? "coop" : "versus";
    for (const seat of game.seats) {
      if (seat.kind !== "online") continue;
      const code = (mine.invites || {})[String(seat.index)];
      if (seat.claimed) parts.push(el("p", {}, t("share.joined", { name: seat.name })));
      else if (code) {
        inviting = true;
        const link = `${origin}/join/${this.id}/${code}`;
        parts.push(el("div", { class: "link-row" }, el("label", { for: `invite-link-${seat.index}` }, t(`share.invite_for.${words}`, { n: seat.index + 1 })),
          el("input", { class: "invite-link", id: `invite-link-${seat.index}`, readonly: true, value: link, onfocus: (e) => e.target.select() }), copyButton(link)));
      } else parts.push(el("p", { class: "note" }, t(`share.waits.${words}`, { n: seat.index + 1 })));
    }
    const watch = `${origin}/game/${this.id}`;
    parts.push(el("div", { class: "link-row" }, el("label", { for: "watch-link" }, t("share.watch")),
      el("input", { class: "watch-link", id: "watch-link", readonly: true, value: watch, onfocus: (e) => e.target.select() }), copyButton(watch)));
    const tokens = tokensOf(this.id);
    if (tokens.length) {
      const own = `${watch}#t=${tokens.join(",")}`;
      parts.push(el("details", {}, el("summary", {}, t("share.device")),
        el("p", { class: "note" }, t("share.device_note")),
        el("div", { class: "link-row" }, el("input", { id: "device-link", "aria-label": t("share.device_label"), readonly: true, value: own, onfocus: (e) => e.target.select() }), copyButton(own))));
    }
    // While an invitation waits to be sent, it comes right under the turn.
    this.cards.turn.style.order = "-2";
    card.style.order = inviting ? "-1" : "";
    card.classList.toggle("inviting", inviting);
    const invited = game.seats.filter((s) => s.kind === "online").length;
    put(card, el("h3", { id: "share-title" }, inviting ? t(`share.invite_title.${words}`, { count: invited }) : t("share.title")),
      inviting ? el("p", { class: "note" }, t(`share.invite_note.${words}`, { count: invited })) : null, ...parts);
    if (inviting && !this.invitationShown && media(NARROW)) {
      // On a phone the links live in a sheet: open it once, so the invitation is not missed.
      this.invitationShown = true;
      this.openSheet("more");
    }
  },

  renderLog() {
    const card = this.cards.log;
    const game = this.game;
    const last = game.log[game.log.length - 1];
    if (!this.changed("log", JSON.stringify([game.log.length, last, game.seats.map((s) => s.name)]))) return;
    // The log only grows as a game goes on: its lines already drawn are kept, and only the new
    // ones are made and added (redrawing every line each move cost a following page most of its
    // time per move, and grew with the game).  A line is known by its place, the server's entry
    // (read once per entry object: the deltas keep them), the seat's name and the language, and
    // is drawn anew when one of them changes (two equal entries are still two lines).
    const names = game.seats.map((s) => s.name);
    const read = this.logKeys || (this.logKeys = new WeakMap());
    const drawn = this.logLines || new Map();
    const lines = new Map();
    const raw = game.log || [];
    const items = boardLog(game).map((entry, i) => {
      const source = raw[i];
      let said = read.get(source);
      if (said === undefined) read.set(source, (said = JSON.stringify(source)));
      const key = `${i}|${said}|${entry.seat === null || entry.seat === undefined ? "" : names[entry.seat] ?? ""}|${language()}`;
      const line = drawn.get(key) || this.logLine(entry);
      lines.set(key, line);
      return line;
    });
    this.logLines = lines;
    let list = this.logList;
    if (!list || !card.contains(list)) {
      // It scrolls: a keyboard reaches it (tabindex) to scroll it.
      list = this.logList = el("ol", { class: "log", tabindex: "0", "aria-label": t("log.label") });
      put(card, el("h3", {}, t("log.title")), list);
    }
    const shown = list.children;
    const kept = shown.length <= items.length && items.every((line, i) => i >= shown.length || shown[i] === line);
    if (kept) list.append(...items.slice(shown.length));
    else list.replaceChildren(...items);
    list.scrollTop = list.scrollHeight;
  },

  /** One line of the log: in words with the tile drawn small (issue 61), else the server's text. */
  logLine(entry) {
    const seat = entry.seat;
    const name = seat !== null && seat !== undefined ? this.game.seats[seat]?.name : undefined;
    // Whose line this is: the seat's name in its colour.
    const who = name === undefined ? null : el("span", { class: "who", style: `--seat:${SEAT_COLORS[seat % SEAT_COLORS.length]}` }, name);
    const line = (...parts) => el("li", { class: `log-${entry.kind}` }, el("span", { class: "log-turn" }, String(entry.turn)), ...parts);
    // "Lea placed a grain tile with a track".
    const words = logWords(entry);
    if (words && who) return line(words[0], who, ` ${words[1]}`);
    let text = server(entry.text);
    if (who) text = text.startsWith(name) ? text.slice(name.length) : `: ${text}`; // the text may already start with it
    return line(who, text);
  },

  renderLegend() {
    if (!this.changed("legend", this.game.mode)) return;
    const letters = this.game.mode === "head-to-head" ? "FGVMRLPX" : "FGVMRT";
    put(this.legend, ...[...letters].map((l) =>
      el("span", { class: "legend-item" }, el("span", { class: `swatch t-${l}` }), `${l} ${terrainName(l)}`)));
  },

  showPad() {
    const game = this.game;
    if (!game) return;
    const heads = game.mode === "coop" ? ["", t("pad.points")] : ["", ...game.seats.map((s) => s.name)];
    const rows = game.scores[0].rows.map((row, i) =>
      el("tr", { class: row[2] }, el("th", { scope: "row" }, server(row[0])), game.scores.map((pad) => el("td", {}, String(pad.rows[i][1])))));
    // Once over: how it ended (time, resignation, abort, the score), the ratings' changes, a rematch.
    const verdict = game.over && game.mode !== "coop" ? this.endLine() : "";
    const aborted = game.over && game.end === "aborted";
    const rating = game.over ? this.ratingLine() : null;
    const record = game.over && this.recordShown();
    const actions = el("div", { class: "actions" },
      game.over ? this.rematchButton("pad-rematch") : null,
      game.over && game.daily ? el("button", { type: "button", id: "pad-daily", onclick: () => this.showDailyEnd() }, t("daily.open")) : null,
      record ? el("a", { class: "button", href: `/api/games/${this.id}/record`, download: `dorf-${game.mode}-${this.id}.json` }, t("pad.download")) : null,
      record ? el("a", { class: "button secondary", href: `/replay/${this.id}` }, t("pad.replay")) : null,
      record && game.mode === "coop" && !game.practice ? el("a", { class: "button secondary", href: `/campaigns?game=${this.id}` }, t("pad.campaign")) : null,
      el("a", { class: "button secondary", href: "/" }, t("pad.new_game")),
      el("button", { type: "button", class: "secondary", id: "pad-close", onclick: () => this.closePad() }, t("pad.close")),
    );
    const opening = this.modal.classList.contains("hidden");
    if (opening) this.padOpener = document.activeElement;
    const box = el("div", { class: "modal-box score-pad", id: "score-pad", tabindex: "-1" },
      el("h2", { id: "score-pad-title" }, t(aborted ? "end.aborted_title" : game.over ? "pad.final" : "pad.so_far")),
      verdict ? el("p", { class: "verdict", id: "pad-verdict" }, verdict) : null,
      rating ? el("p", { class: "note end-ratings", id: "pad-ratings" }, rating) : null,
      game.over ? this.offerBox("pad") : null,
      aborted ? null : el("table", { class: "pad" }, el("thead", {}, el("tr", {}, heads.map((h, i) => i === 0 ? el("td", {}) : el("th", { scope: "col" },
        game.mode !== "coop" ? el("span", { class: "seat-chip", style: `background:${SEAT_COLORS[i - 1]}` }) : null, h)))), el("tbody", {}, rows)),
      actions);
    this.modal.setAttribute("aria-labelledby", "score-pad-title");
    put(this.modal, box);
    this.modal.classList.remove("hidden");
    // A modal dialog: what is behind it can be neither reached nor read until it closes.
    this.padBehind(true);
    box.focus();
  },

  closePad() {
    if (this.modal.classList.contains("hidden")) return;
    this.modal.classList.add("hidden");
    this.padBehind(false);
    // Focus goes back to what opened the pad; drawn anew meanwhile (or in the Escape key's
    // render, hence after this task), to the button of the same id; else to a Score pad button.
    const opener = this.padOpener;
    this.padOpener = null;
    setTimeout(() => {
      const again = opener && !opener.isConnected && opener.id ? document.getElementById(opener.id) : null;
      for (const target of [opener, again, ...document.querySelectorAll("#pad-button, #score-pad-button, #bar-score")]) {
        if (!target || !target.isConnected || target === document.body) continue;
        target.focus();
        if (document.activeElement === target) return;
      }
    });
  },

  padBehind(inert) {
    for (const node of [this.page, this.bar, this.backdrop, document.querySelector("body > .topbar"), document.querySelector("body > .site-foot")]) {
      if (node) node.inert = inert;
    }
  },
};
