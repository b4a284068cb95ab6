// How a game ended, said in the end dialog and the panel: who won and on what points, on time, by
// resignation, or aborted (not rated: no score pad then); each player's rating change once a rated
// game is rated; a Rematch to ask for, and one offered to this screen's player (pushed over the
// game's socket, or found in the player's games when the page opens). Methods of the game page.
import { api, el, rememberGame, toast } from "./util.js";
import { t } from "./i18n.js";
import { changeText, ratingText } from "./players.js";

export const endMethods = {
  /** How the game ended, in one line (null while it goes on). */
  endLine() {
    const game = this.game;
    if (!game || !game.over) return null;
    const name = (seat) => game.seats[seat]?.name ?? "";
    if (game.end === "aborted") return t("clock.aborted");
    if (game.mode === "coop") return t("turn.over_points", { points: t("count.points", { count: game.scores[0].total }) });
    const winner = game.winner ?? null;
    if (game.end === "time" || game.end === "resign") {
      if (winner === null) return t("banner.over");
      return t(game.end === "time" ? "clock.lost_on_time" : "clock.resigned", { name: name(1 - winner), winner: name(winner) });
    }
    const points = game.scores.map((pad) => pad.total);
    if (winner === null) return t("end.shared", { a: points[0], b: points[1] });
    return t("end.wins", { name: name(winner), a: points[winner], b: points[1 - winner] });
  },

  /** Each player's rating after a rated game and its change ("Ann 1512 (+12)"); null if unrated. */
  ratingLine() {
    const seen = this.seatPlayers;
    const game = this.game;
    if (!game || !game.over || game.end === "aborted" || !seen || !seen.rated) return null;
    const parts = game.seats.map((seat, i) => {
      const player = seen.players[i];
      if (!player || player.change === null || player.change === undefined || !player.rating) return null;
      const after = ratingText({ rating: player.rating.after, provisional: player.rating.provisional });
      return `${seat.name} ${after} (${changeText(player.change)})`;
    }).filter(Boolean);
    return parts.length ? t("end.ratings", { changes: parts.join(" · ") }) : t("end.ratings_wait");
  },

  /** Whether this screen may ask for a rematch: a player of a finished game of two sides or
   * against one other person (the server offers it to that one), not a daily challenge. */
  rematchShown() {
    const game = this.game;
    if (!game || !game.over || game.daily || game.broken || !this.you.seats.length || game.seats.length < 2) return false;
    // The server offers it for a seat held by a player (a game made by a program has none).
    const players = (this.seatPlayers && this.seatPlayers.players) || [];
    return this.you.seats.some((i) => players[i]) && game.seats.filter((s) => s.kind === "online").length <= 1;
  },

  rematchButton(id) {
    if (!this.rematchShown() || this.offer) return null;
    const button = el("button", { type: "button", class: "secondary", id, onclick: () => this.askRematch(button) }, t("end.rematch"));
    return button;
  },

  async askRematch(button) {
    button.disabled = true;
    try {
      const made = await api("POST", `/api/games/${encodeURIComponent(this.id)}/rematch`, {});
      rememberGame(made.id, { mode: made.mode || this.game.mode, tokens: made.tokens, invites: made.invites, created: Date.now() });
      location.href = `/game/${made.id}`;
    } catch (error) {
      toast(error.message);
      button.disabled = false;
    }
  },

  /** A rematch offered to this screen's player: said in the panel and the end dialog. */
  onRematch(offer) {
    this.offer = offer;
    if (!this.game) return;
    this.renderTurn();
    // Shown where it cannot be missed (a phone's panel is a closed sheet): the end dialog.
    if (this.game.over) this.showPad();
  },

  /** Whether the score pad (the end dialog) is open now. */
  padOpen() {
    return !!this.modal && !this.modal.classList.contains("hidden") && !!this.modal.querySelector("#score-pad");
  },

  /** A rematch offered before the page opened (GET /api/me/games): by one of this game's others. */
  async loadOffer() {
    const game = this.game;
    if (!game || !game.over || this.offerAsked || !this.you.seats.length) return;
    this.offerAsked = true;
    let mine;
    try {
      mine = await api("GET", "/api/me/games");
    } catch {
      return;
    }
    const others = game.seats.filter((s, i) => !this.you.seats.includes(i)).map((s) => s.name);
    const offer = (mine.offers || []).find((o) => o.mode === game.mode && others.includes(o.name));
    if (offer && !this.offer) this.onRematch({ ...offer, game: offer.game || offer.id });
  },

  /** The offer and its Accept button; ``where``: the panel's ("turn") or the dialog's ("pad"). */
  offerBox(where) {
    const offer = this.offer;
    if (!offer) return null;
    const accept = el("button", { type: "button", class: "rematch-accept", id: `rematch-accept-${where}`, onclick: () => this.takeOffer(accept) }, t("end.accept"));
    return el("div", { class: "rematch-offer", id: `rematch-offer-${where}` },
      el("p", {}, t("end.offered", { name: offer.name })), accept);
  },

  async takeOffer(button) {
    const offer = this.offer;
    button.disabled = true;
    try {
      const seated = await api("POST", `/api/lobby/${encodeURIComponent(offer.game)}/take`, {});
      rememberGame(seated.game, { mode: seated.mode, tokens: { [String(seated.seat)]: seated.token }, created: Date.now() });
      location.href = `/game/${seated.game}`;
    } catch (error) {
      toast(error.message);
      button.disabled = false;
    }
  },
};
