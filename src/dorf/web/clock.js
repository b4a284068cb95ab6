// The clocks of a Duel or Head to Head game (docs/server.md, "Clocks"): one strip over the boards
// with each seat's time, ticking down for the seat(s) whose clock runs (both while both place), the
// running one highlighted, a warning when one is low (10 s; an hour in correspondence), the
// first-move countdown before a game is aborted, how the game ended (time, resign, abort), and a
// Resign button for the seat(s) this screen holds. The server's clock is the authority: the page
// counts down from the clock in the game's description, with the server's time of each message.
import { el, put } from "./util.js";
import { t } from "./i18n.js";
import { SEAT_COLORS } from "./hex.js";

/** A time left, as a clock shows it: 4:05, 0:09.3 under 10 s, 2d 3h or 5:12:00 in correspondence. */
export function clockText(ms, days) {
  const s = Math.max(0, ms) / 1000;
  if (days && s >= 86400) return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = Math.floor(s % 60);
  const two = (n) => String(n).padStart(2, "0");
  if (h) return `${h}:${two(m)}:${two(sec)}`;
  if (s < 10) return `0:0${(Math.floor(s * 10) / 10).toFixed(1)}`;
  return `${m}:${two(sec)}`;
}

/** ``node``'s text, set only when it reads otherwise (setting it anew lays the line out again). */
function write(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

export const clockMethods = {
  /** The strip of clocks (made once, over the boards). */
  buildClocks() {
    this.clockStrip = el("div", { class: "clocks hidden", id: "clocks", role: "group", "aria-label": t("clock.label") });
    this.wrap.insertBefore(this.clockStrip, this.wrap.firstChild);
  },

  /** The server's time now, as this page guesses it from the last message's `now`. */
  serverNow() {
    const conn = this.conn;
    if (!conn || conn.serverAt === undefined) return Date.now();
    return conn.serverAt + (Date.now() - conn.receivedAt) * (conn.rate || 1);
  },

  /** Each seat's time left now (ms), counted down from the description's clock. */
  clockLeft(clock) {
    const elapsed = Math.max(0, this.serverNow() - clock.at);
    return clock.remaining.map((ms, seat) => (clock.running.includes(seat) ? Math.max(0, ms - elapsed) : ms));
  },

  /** The strip as the description says, made anew on each state; then ticked (tickClocks). */
  renderClocks() {
    const game = this.game;
    const clock = game && game.clock;
    if (!this.clockStrip) this.buildClocks();
    if (!clock || game.broken) {
      this.clockStrip.classList.add("hidden");
      clearInterval(this.clockTimer);
      this.clockTimer = null;
      return;
    }
    this.clockStrip.classList.remove("hidden");
    this.clockFaces = game.seats.map((seat, i) => {
      const face = el("div", { class: `clock${this.you.seats.includes(i) ? " mine" : ""}`, "data-seat": String(i) },
        el("span", { class: "seat-chip", style: `background:${SEAT_COLORS[i]}` }),
        el("span", { class: "clock-name" }, seat.name),
        el("b", { class: "clock-time" }),
        el("small", { class: "clock-first" }));
      return face;
    });
    const ending = game.over && game.end && game.end !== "normal" ? el("p", { class: "clock-end", id: "clock-end" }, this.endText()) : null;
    const mine = this.you.seats.filter((s) => s < game.seats.length);
    const resign = !game.over && mine.length === 1
      ? el("button", { type: "button", class: "secondary resign", id: "resign-button", onclick: () => this.resign(mine[0]) }, t("clock.resign"))
      : null;
    put(this.clockStrip, el("span", { class: "clock-kind" }, clock.clock), this.clockFaces, ending, resign);
    this.tickClocks();
    const ticking = !game.over && (clock.running.length || (clock.abort_at || []).some((x) => x));
    if (ticking && !this.clockTimer) this.clockTimer = setInterval(() => this.tickClocks(), 100);
    if (!ticking && this.clockTimer) {
      clearInterval(this.clockTimer);
      this.clockTimer = null;
    }
  },

  /** Each face's time now: counted down for the running seats, low ones warned. */
  tickClocks() {
    const game = this.game;
    const clock = game && game.clock;
    if (!clock || !this.clockFaces) return;
    const left = this.clockLeft(clock);
    const now = this.serverNow();
    this.clockFaces.forEach((face, i) => {
      const abortAt = !game.over && clock.abort_at ? clock.abort_at[i] : null;
      // A seat owes a decision: its time runs, or (its first) the time before the game is aborted.
      const running = (clock.running.includes(i) || Boolean(abortAt)) && !game.over;
      const low = clock.running.includes(i) && !game.over && left[i] <= clock.low;
      const flagged = game.over && game.end === "time" && game.winner !== null && game.winner !== i;
      face.classList.toggle("running", running);
      face.classList.toggle("low", low);
      face.classList.toggle("flagged", flagged);
      face.dataset.ms = String(Math.round(left[i]));
      // Ten ticks a second, but the words change at most once a second (tenths under ten
      // seconds): written only when they read otherwise, so the page is laid out and painted
      // again only then (a phone's clock page stays still between changes).
      const text = clockText(flagged ? 0 : left[i], clock.days);
      write(face.querySelector(".clock-time"), text);
      const label = t("clock.of", { name: game.seats[i].name, time: text });
      if (face.getAttribute("aria-label") !== label) face.setAttribute("aria-label", label);
      write(face.querySelector(".clock-first"), abortAt
        ? t("clock.first", { s: Math.max(0, Math.ceil((abortAt - now) / 1000)) }) : "");
    });
  },

  /** How the game ended, in words: lost on time, resigned, aborted. */
  endText() {
    const game = this.game;
    const name = (seat) => game.seats[seat]?.name ?? "";
    if (game.end === "aborted") return t("clock.aborted");
    const loser = game.winner === null || game.winner === undefined ? null : 1 - game.winner;
    if (loser === null) return "";
    return t(game.end === "time" ? "clock.lost_on_time" : "clock.resigned", { name: name(loser), winner: name(game.winner) });
  },

  resign(seat) {
    if (!window.confirm(t("clock.resign_confirm"))) return;
    this.conn.send({ type: "resign", seat });
  },
};
