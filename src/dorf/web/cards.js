// The panel beside the board: whose turn, the tile, the preview, the tasks, the score, the links
// to share, the log, the legend, and the score pad. Methods of the game page (game.js).
import { tileIcon, taskMarker, TERRAIN, SEAT_COLORS } from "./hex.js";
import {
  el, rememberedGames, tokensOf, copyButton, describeTask, progressText, put, plural, media, tapWord, NARROW } from "./util.js";

export const cardMethods = {
  renderTurn() {
    const game = this.game;
    if (!game || game.broken) return; // a broken game keeps its own card (showBroken)
    const card = this.cards.turn;
    const me = this.actSeat();
    const waitingNames = game.waiting.map((s) => game.seats[s]);
    let line;
    if (game.over) {
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
      actions.appendChild(el("button", { type: "button", id: "pad-button", onclick: () => this.showPad() }, "Score pad"));
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
    const edgeNames = [...tile.edges].map((l) => TERRAIN[l]?.name ?? l).join(", ");
    const icon = el("div", { class: "tile-big", html: tileIcon(tile.edges, tile.areas, { task: tile.task, flag: tile.flag, letters: true, label: `the tile, edges: ${edgeNames}` }, 132) });
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
      this.canHint() ? el("button", { type: "button", class: "small secondary", id: "hint-button", title: "Ask the computer for a placement", disabled: !!this.hintBusy, "aria-busy": String(!!this.hintBusy), onclick: () => this.askHint() }, this.hintBusy ? "Thinking…" : "Hint") : null,
    );
    const keys = el("p", { class: "note keys" }, "R or wheel: turn · N/P: next cell · Enter: place · L: letters");
    const hint = this.hint ? el("p", { class: `hint${this.hint.error ? " bad" : ""}`, id: "hint-text" }, this.hint.text) : null;
    put(card, el("h3", { id: "tile-whose" }, whose), el("div", { class: "tile-row" }, icon, el("ul", { class: "facts" }, facts)),
      me !== null ? buttons : null, hint, me !== null ? keys : null);
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
    put(card, el("h3", {}, "Score"), ...rows, el("button", { type: "button", class: "small secondary", id: "score-pad-button", onclick: () => this.showPad() }, "Score pad"));
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
    for (const seat of game.seats) {
      if (seat.kind !== "online") continue;
      const code = (mine.invites || {})[String(seat.index)];
      if (seat.claimed) parts.push(el("p", {}, `${seat.name} has joined.`));
      else if (code) {
        inviting = true;
        const link = `${origin}/join/${this.id}/${code}`;
        parts.push(el("div", { class: "link-row" }, el("label", { for: `invite-link-${seat.index}` }, `Invite for seat ${seat.index + 1}:`),
          el("input", { class: "invite-link", id: `invite-link-${seat.index}`, readonly: true, value: link, onfocus: (e) => e.target.select() }), copyButton(link)));
      } else parts.push(el("p", { class: "note" }, `Seat ${seat.index + 1} waits for an invited player.`));
    }
    const watch = `${origin}/game/${this.id}`;
    parts.push(el("div", { class: "link-row" }, el("label", { for: "watch-link" }, "Watch:"),
      el("input", { class: "watch-link", id: "watch-link", readonly: true, value: watch, onfocus: (e) => e.target.select() }), copyButton(watch)));
    const tokens = tokensOf(this.id);
    if (tokens.length) {
      const own = `${watch}#t=${tokens.join(",")}`;
      parts.push(el("details", {}, el("summary", {}, "Play on another device"),
        el("p", { class: "note" }, "This link carries your seat: keep it to yourself."),
        el("div", { class: "link-row" }, el("input", { id: "device-link", "aria-label": "link to play on another device", readonly: true, value: own, onfocus: (e) => e.target.select() }), copyButton(own))));
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
  },

  renderLog() {
    const card = this.cards.log;
    const game = this.game;
    const last = game.log[game.log.length - 1];
    if (!this.changed("log", JSON.stringify([game.log.length, last, game.seats.map((s) => s.name)]))) return;
    // It scrolls: a keyboard reaches it (tabindex) to scroll it.
    const list = el("ol", { class: "log", tabindex: "0", "aria-label": "log" }, game.log.map((entry) => {
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
  },

  renderLegend() {
    if (!this.changed("legend", this.game.mode)) return;
    const letters = this.game.mode === "head-to-head" ? "FGVMRLPX" : "FGVMRT";
    put(this.legend, ...[...letters].map((l) =>
      el("span", { class: "legend-item" }, el("span", { class: `swatch t-${l}` }), `${l} ${TERRAIN[l].name}`)));
  },

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
    const opening = this.modal.classList.contains("hidden");
    if (opening) this.padOpener = document.activeElement;
    const box = el("div", { class: "modal-box score-pad", id: "score-pad", tabindex: "-1" },
      el("h2", { id: "score-pad-title" }, game.over ? "Final score" : "Score pad so far"),
      verdict ? el("p", { class: "verdict" }, verdict) : null,
      el("table", { class: "pad" }, el("thead", {}, el("tr", {}, heads.map((h, i) => i === 0 ? el("td", {}) : el("th", { scope: "col" },
        game.mode !== "coop" ? el("span", { class: "seat-chip", style: `background:${SEAT_COLORS[i - 1]}` }) : null, h)))), el("tbody", {}, rows)),
      actions);
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
    for (const node of [this.page, this.bar, this.backdrop, document.querySelector("body > .topbar")]) {
      if (node) node.inert = inert;
    }
  },
};
