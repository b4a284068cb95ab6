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
        return; // names only: the game plays on without them
      }
      this.seatPlayers = seen;
      this.render();
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
      parts.push(el("span", { class: `rating-change ${kind}`, "data-change": String(player.change) }, changeText(player.change)));
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

/** This browser's player, asked once per page (a first visit makes one: asked twice at once,
 * it would make two). */
export function whoAmI() {
  asked = asked || api("GET", "/api/me");
  return asked;
}

/** The header's link to this browser's player (made by the server on the first visit). */
export async function showMe() {
  const bar = document.querySelector("header.topbar");
  if (!bar) return null;
  let me;
  try {
    me = await whoAmI();
  } catch {
    return null; // the page works without it
  }
  // No words of the catalog here: a page that redraws itself in another language keeps the header.
  const link = el("a", { class: "me-link", id: "me-link", href: `/@/${encodeURIComponent(me.name)}` },
    me.name, me.bot ? el("span", { class: "bot-mark" }, t("player.bot")) : null);
  bar.insertBefore(link, document.getElementById("status"));
  return me;
}
