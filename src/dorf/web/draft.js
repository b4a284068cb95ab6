// The Head to Head draft: the open pool tile by tile, what each player holds; a click takes a
// tile, a first tap shows it large. Methods of the game page (game.js).
import { tileIcon, SEAT_COLORS } from "./hex.js";
import { el, put, media, tapWord, listOf, taskName } from "./util.js";
import { t as say } from "./i18n.js";

export const draftMethods = {
  renderDraft() {
    const game = this.game;
    const me = this.actSeat();
    const pool = game.pool || [];
    const hinted = this.hint && this.hint.pick !== undefined ? this.hint.pick : null;
    const tile = (t, clickable) => {
      const task = t.task_type ? { type: t.task_type, label: (t.task_type[0] === "r" ? "R" : t.task_type[0].toUpperCase()) + (t.value ?? ""), status: "open", value: t.value, name: t.task_type } : null;
      const title = [say("draft.tile", { id: t.id ?? "", face: t.face }), t.task_type ? say("draft.tile_task", { task: taskName(t.task_type), n: t.value }) : null, t.flag ? say("draft.tile_flag") : null].filter(Boolean).join(" ");
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
      el("h3", { class: "owned-title" }, el("span", { class: "seat-chip", style: `background:${SEAT_COLORS[i]}` }), say("draft.taken", { name: game.seats[i].name, tiles: say("count.tiles", { count: list.length }) })),
      el("div", { class: "pool small" }, list.map((t) => tile(t, false)),
        ((game.flags || [])[i] || []).map((t) => {
          const node = tile({ ...t, id: "⚑" }, false);
          node.classList.add("flag-tile");
          return node;
        }))));
    const head = me !== null ? say(`draft.pick.${tapWord()}`) : say("draft.waiting", { names: listOf(game.waiting.map((s) => game.seats[s].name)) });
    const chosen = pool.find((t) => t.id === this.draftChoice);
    const detail = chosen && me !== null
      ? el("div", { class: "pick-detail", id: "pick-detail" },
        el("span", { html: tileIcon(chosen.face, chosen.areas, { task: chosen.task_type ? { type: chosen.task_type, label: chosen.task_type[0].toUpperCase() + (chosen.value ?? ""), status: "open" } : null, flag: chosen.flag }, 120) }),
        el("div", {}, el("p", {}, chosen.task_type ? say("draft.detail_task", { id: chosen.id, task: taskName(chosen.task_type), n: chosen.value ?? "" }) : say("draft.detail", { id: chosen.id })),
          el("button", { type: "button", id: "take-button", onclick: () => this.pick(chosen.id) }, say("draft.take"))))
      : null;
    const hint = this.hint ? el("p", { class: `hint${this.hint.error ? " bad" : ""}`, id: "hint-text" }, this.hint.text) : null;
    put(this.draftHost,
      el("h2", {}, say("draft.title", { tiles: say("count.tiles", { count: pool.length }) })),
      el("p", { class: `turn-line${me !== null ? " mine" : ""}` }, head,
        me !== null ? el("button", { type: "button", class: "small secondary", id: "hint-button", onclick: () => this.askHint() }, say("hint.button")) : null),
      hint, detail,
      el("div", { class: "pool", id: "draft-pool" }, pool.map((t) => tile(t, me !== null))),
      el("div", { class: "owned-row" }, owned),
    );
  },

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
  },

  pick(tileId) {
    const me = this.actSeat();
    if (me === null || this.busy) return;
    this.busy = true;
    this.conn.send({ type: "move", seat: me, pick: tileId });
  },
};
