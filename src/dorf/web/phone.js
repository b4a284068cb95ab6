// The phone's bottom bar (the tile and its rotation, what the chosen cell scores, place, undo) and
// the sheets it opens. Methods of the game page (game.js).
import { tileIcon } from "./hex.js";
import { el, media, tapWord, WIDE, listOf } from "./util.js";
import { server, t } from "./i18n.js";
import { taskTitle } from "./words.js";

/** What a placement would do, in short (its preview's figures): the points gained, the tasks
 * completed, failed or begun, the longest river or track (and flags) changed. */
export function figureBits(result) {
  const d = result.score[1] - result.score[0];
  const bits = [t("bar.gain", { delta: `${d >= 0 ? "+" : ""}${d}`, count: Math.abs(d) })];
  for (const task of result.completes || []) bits.push(`✓ ${t("bar.completes", { task: taskTitle(task) })}`);
  for (const task of result.fails || []) bits.push(`✗ ${t("bar.fails", { task: taskTitle(task) })}`);
  for (const task of result.tasks || []) if (task.new) bits.push(t("bar.new_task", { task: taskTitle(task) }));
  for (const [label, a, b] of result.score_changes || []) {
    if (/longest|flags/i.test(label)) bits.push(`${server(label)} ${a} → ${b}`);
  }
  return bits;
}

export const phoneMethods = {
  /** The phone's bottom bar: the tile and its rotation, place, undo, and the sheets. */
  buildBar() {
    const button = (label, attrs, fn) => el("button", { type: "button", ...attrs, onclick: fn }, label);
    this.barTile = el("span", { class: "bar-tile" });
    this.barText = el("span", { class: "bar-text", id: "bar-text", "aria-live": "polite" });
    this.barHint = button(t("hint.button"), { class: "small secondary bar-hint hidden", id: "bar-hint" }, () => this.askHint());
    this.barPlace = button(t("bar.place"), { class: "bar-place", id: "bar-place" }, () => this.placeFromBar());
    this.barUndo = button("↶", { class: "secondary", id: "bar-undo", title: t("bar.undo"), "aria-label": t("bar.undo_label") }, () => this.undo());
    this.barTasks = button(t("bar.tasks", { n: "" }).trim(), { class: "secondary", id: "bar-tasks" }, () => this.openSheet("tasks"));
    this.barScore = button(t("bar.score", { n: "" }).trim(), { class: "secondary", id: "bar-score" }, () => (this.game && this.game.daily && this.game.over ? this.showDailyEnd() : this.showPad()));
    this.barMore = button("☰", { class: "secondary", id: "bar-more", title: t("bar.more"), "aria-label": t("bar.more_label") }, () => this.openSheet("more"));
    // Once the game is over: what comes next, beside the result.
    this.barNew = el("a", { class: "button bar-next hidden", id: "bar-new", href: "/" }, t("bar.new_game"));
    this.barReplay = el("a", { class: "button secondary bar-next hidden", id: "bar-replay", href: `/replay/${this.id}` }, t("bar.replay"));
    this.barRotate = [
      button("⟲", { class: "secondary bar-rot", id: "bar-rotate-left", "aria-label": t("tile.rotate_left") }, () => this.rotateBy(-1)),
      button("⟳", { class: "secondary bar-rot", id: "bar-rotate-right", "aria-label": t("tile.rotate_right") }, () => this.rotateBy(1)),
    ];
    this.barTable = this.buildTableBar(); // the proposals and the talk (table.js)
    return el("nav", { class: "bottom-bar", "aria-label": t("bar.label") }, this.barTable,
      el("div", { class: "bar-row" }, this.barRotate[0], this.barTile, this.barRotate[1], this.barText, this.barHint, this.barNew, this.barReplay),
      el("div", { class: "bar-row" }, this.barPlace, this.barUndo, this.barTasks, this.barScore, this.barMore));
  },

  /** The bottom bar (phones): what to do now, the tile, place, undo, the sheets. */
  renderBar() {
    const game = this.game;
    if (!game || game.broken) return;
    const me = this.actSeat();
    const draft = game.phase === "draft";
    const proposing = me === null && this.proposerSeat() !== null;
    const revealed = this.revealedFor(me ?? this.focusSeat());
    let text = "";
    const shown = this.previewLines();
    if (game.broken) text = t("game.broken.title");
    else if (game.over) text = game.mode === "coop" ? t("turn.over_points", { points: t("count.points", { count: game.scores[0].total }) }) : this.cards.turn.querySelector("#turn-line")?.textContent || t("banner.over");
    else if (draft) text = me !== null ? t(this.draftChoice !== null ? "bar.take_again" : "bar.pick") : t("bar.picking", { names: listOf(game.waiting.map((s) => game.seats[s].name)) });
    else if (me === null) {
      // Someone else's turn: whose it is, in place of the controls this screen cannot use now;
      // at a cooperative table what their chosen cell would do, or the cell this screen proposes.
      const others = game.waiting.filter((s) => !this.you.seats.includes(s)).map((s) => game.seats[s].name);
      const choice = this.shownChoice();
      if (proposing && this.selected) text = t("bar.propose_here");
      else if (choice && choice.preview) text = t("bar.their_choice", { name: game.seats[choice.seat]?.name ?? "", figures: figureBits(choice.preview).join(" · ") });
      else if (proposing && others.length === 1) text = t("bar.their_turn_propose", { name: others[0] });
      else text = others.length === 1 ? t("bar.their_turn", { name: others[0] })
        : others.length ? t(game.mode === "head-to-head" ? "tile.placing_their" : "tile.placing_this", { names: listOf(others), count: others.length }) : t("bar.waiting");
    } else if (this.focus !== this.areaOf(me) && !media(WIDE)) text = t("bar.back", { name: game.seats[me].name });
    else if (shown && shown.result) {
      // The desktop preview's substance in short (issue 61): the points gained, the tasks
      // completed or failed, the longest river or track (and flags) changed.
      const bits = figureBits(shown.result);
      // The coach's reason goes with the score it gives, not instead of it.
      const advised = this.hint && !this.hint.error && this.hint.words && this.selected;
      if (advised) bits.push(this.hint.words);
      text = bits.join(" · ") + (this.selected && !advised ? ` · ${t("bar.tap_again")}` : "");
    } else if (this.hint && this.selected) text = this.hint.text;
    else if (this.selected) text = t("bar.tap_or_place");
    else if (game.mode === "coop" && this.table.proposals.length) text = t("bar.adopt_or_tap"); // issue 63
    else if (this.hint && this.hint.error) text = this.hint.text;
    // Cells smaller than a finger (a big landscape on a phone): the first tap zooms in (board.js).
    else if (tapWord() === "tap" && this.boards[this.areaOf(me)]?.smallTargets()) text = t("bar.zoom");
    else text = t("bar.turn");
    this.barText.textContent = text;
    if (revealed && !draft && !game.over) {
      const tile = this.tileAt(revealed, this.shownRot());
      this.barTile.innerHTML = tileIcon(tile.edges, tile.areas, { task: tile.task, flag: tile.flag, small: true }, 52);
      this.barTile.classList.remove("hidden");
    } else this.barTile.classList.add("hidden");
    const placing = (me !== null || proposing) && !draft;
    for (const b of this.barRotate) {
      b.disabled = !placing;
      b.classList.toggle("hidden", !placing || game.over);
    }
    this.bar.classList.toggle("their-turn", me === null && !proposing && !game.over);
    this.barPlace.textContent = t(draft ? "bar.take" : proposing ? "table.propose" : "bar.place");
    this.barPlace.disabled = this.busy || (me === null && !proposing) || (draft ? this.draftChoice === null : !this.selected);
    this.barPlace.classList.toggle("hidden", game.over || (me === null && !proposing));
    this.renderTableBar();
    this.barNew.classList.toggle("hidden", !game.over);
    this.barReplay.classList.toggle("hidden", !game.over || !this.recordShown());
    this.barUndo.classList.toggle("hidden", !this.undoShown());
    this.barHint.classList.toggle("hidden", !this.canHint());
    this.barHint.disabled = !!this.hintBusy;
    this.barHint.textContent = t(this.hintBusy ? "hint.thinking" : "hint.button");
    this.barTasks.classList.toggle("hidden", draft);
    const open = draft ? 0 : (game.areas[this.focus ?? 0] || game.areas[0]).tasks.filter((task) => task.status === "open").length;
    this.barTasks.textContent = t("bar.tasks", { n: open });
    this.barScore.textContent = t("bar.score", { n: game.scores[this.focus ?? 0]?.total ?? game.scores[0].total });
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
