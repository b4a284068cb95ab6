// The phone's bottom bar (the tile and its rotation, what the chosen cell scores, place, undo) and
// the sheets it opens. Methods of the game page (game.js).
import { tileIcon } from "./hex.js";
import { el, plural, media, WIDE } from "./util.js";

export const phoneMethods = {
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
    // Once the game is over: what comes next, beside the result.
    this.barNew = el("a", { class: "button bar-next hidden", id: "bar-new", href: "/" }, "New game");
    this.barReplay = el("a", { class: "button secondary bar-next hidden", id: "bar-replay", href: `/replay/${this.id}` }, "Replay");
    this.barRotate = [
      button("⟲", { class: "secondary bar-rot", id: "bar-rotate-left", "aria-label": "rotate anticlockwise" }, () => this.rotateBy(-1)),
      button("⟳", { class: "secondary bar-rot", id: "bar-rotate-right", "aria-label": "rotate clockwise" }, () => this.rotateBy(1)),
    ];
    return el("nav", { class: "bottom-bar", "aria-label": "play" },
      el("div", { class: "bar-row" }, this.barRotate[0], this.barTile, this.barRotate[1], this.barText, this.barHint, this.barNew, this.barReplay),
      el("div", { class: "bar-row" }, this.barPlace, this.barUndo, this.barTasks, this.barScore, this.barMore));
  },

  /** The bottom bar (phones): what to do now, the tile, place, undo, the sheets. */
  renderBar() {
    const game = this.game;
    if (!game || game.broken) return;
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
    else if (shown && shown.result) {
      const d = shown.result.score[1] - shown.result.score[0];
      const bits = [`${d >= 0 ? "+" : ""}${d} → ${shown.result.score[1]}`];
      for (const t of shown.result.completes) bits.push(`✓ ${t.label}`);
      for (const t of shown.result.fails) bits.push(`✗ ${t.label}`);
      // The coach's reason goes with the score it gives, not instead of it.
      const advised = this.hint && !this.hint.error && this.hint.words && this.selected;
      if (advised) bits.push(this.hint.words);
      text = bits.join(" · ") + (this.selected && !advised ? " · tap again to place" : "");
    } else if (this.hint && this.selected) text = this.hint.text;
    else if (this.selected) text = "Tap again or Place";
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
    this.barNew.classList.toggle("hidden", !game.over);
    this.barReplay.classList.toggle("hidden", !game.over);
    this.barUndo.classList.toggle("hidden", !this.undoShown());
    this.barHint.classList.toggle("hidden", !this.canHint());
    this.barHint.disabled = !!this.hintBusy;
    this.barHint.textContent = this.hintBusy ? "Thinking…" : "Hint";
    this.barTasks.classList.toggle("hidden", draft);
    const open = draft ? 0 : (game.areas[this.focus ?? 0] || game.areas[0]).tasks.filter((t) => t.status === "open").length;
    this.barTasks.textContent = `Tasks ${open}`;
    this.barScore.textContent = `Score ${game.scores[this.focus ?? 0]?.total ?? game.scores[0].total}`;
  },

  openSheet(name) {
    this.panel.dataset.sheet = name;
    this.panel.classList.add("open");
    this.backdrop.classList.remove("hidden");
  },

  closeSheet() {
    this.panel.classList.remove("open");
    delete this.panel.dataset.sheet;
    this.backdrop.classList.add("hidden");
  },

  placeFromBar() {
    if (this.game && this.game.phase === "draft") {
      if (this.draftChoice !== null) this.pick(this.draftChoice);
      return;
    }
    this.commit();
  },
};
