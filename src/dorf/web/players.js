// The players of a game's seats (docs/server.md, "Players and ratings"): beside each seat's name
// its rating in the game's mode ("1500?" while provisional), a BOT mark for a bot account or a
// computer level, and once a rated game is rated, each one's change (+12 / −12). Read from
// /api/games/ID/players when the game opens, when someone takes an online seat, and again when it
// ends (until the change is there).
import { api, el } from "./util.js";
import { has, t } from "./i18n.js";

/** A rating as a label shows it: rounded, "?" while provisional. */
export function ratingText(rating) {
  return `${Math.round(rating.rating)}${rating.provisional ? "?" : ""}`;
}

/** A player's name as the page shows it: a computer level's player ("Computer (easy)") in the
 * page's language; any other name as it is. */
export function playerName(name) {
  const level = /^Computer \((\w+)\)$/.exec(String(name ?? ""));
  return level && has(`level.${level[1]}`) ? t("player.computer_level", { level: t(`level.${level[1]}`) }) : name;
}

/** A change as a sign and a number: +12, −12 (a minus sign), ±0. */
export function changeText(change) {
  if (change > 0) return `+${change}`;
  if (change < 0) return `\u2212${-change}`;
  return "\u00b10";
}

export const playerMethods = {
  /** Read the seats' players; ``ending``: the game just ended, read until the change is there. */
  async loadPlayers(ending = false) {
    for (let attempt = 0; attempt < (ending ? 12 : 1); attempt++) {
      if (attempt) await new Promise((done) => setTimeout(done, Math.min(2000, 300 * attempt)));
      let seen;
      try {
        seen = await api("GET", `/api/games/${encodeURIComponent(this.id)}/players`);
      } catch {
        if (!ending) return; // names only: the game plays on without them
        continue; // at the end the change is awaited: a refused or lost read is asked again
      }
      this.seatPlayers = seen;
      this.render();
      // The end dialog, if open, shows the ratings' changes once they are there.
      if (this.game && this.game.over && this.padOpen()) this.showPad();
      if (!ending || !seen.rated || seen.players.every((p) => !p || p.change !== null)) return;
    }
  },

  /** What follows a seat's name: its rating, BOT, the change (nothing for a seat nobody holds). */
  playerTag(i) {
    const player = this.seatPlayers && this.seatPlayers.players[i];
    if (!player) return null;
    const parts = [];
    if (player.bot) parts.push(el("span", { class: "bot-mark", title: t("player.bot_title") }, t("player.bot")));
    if (player.rating) {
      const shown = player.change !== null ? { rating: player.rating.after, provisional: player.rating.provisional } : player.rating;
      parts.push(el("span", { class: "seat-rating", title: t("player.rating_title") }, ratingText(shown)));
    }
    if (player.change !== null && player.change !== undefined) {
      const kind = player.change > 0 ? "up" : player.change < 0 ? "down" : "even";
      const note = player.counted === false ? { title: t("player.not_counted"), "data-counted": "false" } : {};
      parts.push(el("span", { class: `rating-change ${kind}`, "data-change": String(player.change), ...note }, changeText(player.change)));
    }
    return parts.length ? el("span", { class: "seat-player", "data-seat": String(i) }, ...parts) : null;
  },

  /** A link to the player's page, for a seat held by a player. */
  playerLink(i, name) {
    const player = this.seatPlayers && this.seatPlayers.players[i];
    if (!player) return name;
    return el("a", { class: "seat-link", href: `/@/${encodeURIComponent(player.name)}` }, name);
  },
};

let asked = null;

/** This browser's player, asked once per page; a visitor who is no player yet is
 * `{player: false, name: null}` (reading makes nobody: see asPlayer). */
export function whoAmI() {
  asked = asked || api("GET", "/api/me");
  return asked;
}

/** This browser as a player, made now (POST /api/me) if it is a visitor: for the first thing it
 * does that needs one (a seat, a seek, a game, the daily challenge). The header follows. */
export async function asPlayer() {
  const me = await whoAmI().catch(() => null);
  if (me && me.player !== false) return me;
  asked = api("POST", "/api/me", {});
  try {
    const made = await asked;
    drawMe(made);
    return made;
  } catch (error) {
    asked = null;
    throw error;
  }
}

/** The header's link: to this browser's player, or for a visitor to /@/me (sign in, choose a name). */
function drawMe(me) {
  const bar = document.querySelector("header.topbar");
  if (!bar) return;
  document.getElementById("me-link")?.remove();
  // A page that redraws itself in another language keeps the header: the name needs no words,
  // the visitor's "Sign in" is redrawn with the header's own words (data-i18n).
  const link = me.player === false
    ? el("a", { class: "me-link visitor", id: "me-link", href: "/@/me", "data-i18n": "player.sign_in_button" }, t("player.sign_in_button"))
    : el("a", { class: "me-link", id: "me-link", href: `/@/${encodeURIComponent(me.name)}` },
      me.name, me.bot ? el("span", { class: "bot-mark" }, t("player.bot")) : null);
  bar.insertBefore(link, document.getElementById("status"));
}

/** The header's link to this browser's player (or, for a visitor, to signing in). */
export async function showMe() {
  if (!document.querySelector("header.topbar")) return null;
  let me;
  try {
    me = await whoAmI();
  } catch {
    return null; // the page works without it
  }
  drawMe(me);
  // A banned player (dorf admin ban) sees the pages, and why everything it tries is refused.
  if (me.banned) document.querySelector("main")?.before(el("p", { class: "note banned", id: "banned", role: "alert" }, me.banned));
  return me;
}
