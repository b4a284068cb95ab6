// The leaderboards of the rated games (GET /api/leaderboard?mode=...): the players with at least
// 10 rated games and a settled rating (RD below 110), best first, as lichess lists them. The
// front page shows each game's top 10; /leaderboard the top 100 of each.
import { api, el, modeName, put } from "./util.js";
import { t } from "./i18n.js";
import { playerName, whoAmI } from "./players.js";

export const RATED_MODES = ["duel", "head-to-head"];

function table(mode, players, me, most) {
  if (!players.length) return el("p", { class: "note", "data-mode": mode }, t("leaders.none"));
  return el("table", { class: "pad wide board-table", "data-mode": mode },
    el("thead", {}, el("tr", {},
      el("th", { scope: "col", class: "num" }, t("daily.col.rank")), el("th", { scope: "col" }, t("daily.col.player")),
      el("th", { scope: "col", class: "num" }, t("leaders.col.rating")), el("th", { scope: "col", class: "num" }, t("leaders.col.games")))),
    el("tbody", {}, players.slice(0, most).map((p) => {
      const mine = me && p.name === me.name;
      return el("tr", { class: mine ? "mine" : null, "data-rank": String(p.rank), "data-name": p.name },
        el("td", { class: "num" }, String(p.rank)),
        el("td", {}, el("a", { href: `/@/${encodeURIComponent(p.name)}` }, playerName(p.name))),
        el("td", { class: "num", title: t("leaders.rd", { rd: Math.round(p.rd) }) }, el("b", {}, String(Math.round(p.rating)))),
        el("td", { class: "num" }, String(p.games)));
    })));
}

function loadBoard(mode, me, most, box) {
  api("GET", `/api/leaderboard?mode=${encodeURIComponent(mode)}`)
    .then((data) => put(box, table(mode, data.players || [], me, most)))
    .catch((error) => put(box, el("p", { class: "note" }, error.message)));
}

/** The front page's card: the top 10 of each rated game, each with a link to its top 100. */
export function leaderboardCards() {
  const lists = RATED_MODES.map((mode) => {
    const box = el("div", { class: "board-list" }, el("p", { class: "note" }, "…"));
    return { mode, box };
  });
  const card = el("section", { class: "card leaderboards", id: "leaderboards", "aria-labelledby": "leaderboards-title" },
    el("h2", { id: "leaderboards-title" }, t("leaders.title")),
    el("div", { class: "leaderboard-cols" }, lists.map(({ mode, box }) =>
      el("div", { class: "leaderboard", id: `leaderboard-${mode}` },
        el("h3", {}, modeName(mode)), box,
        el("a", { class: "board-all", href: `/leaderboard#${mode}` }, t("leaders.all"))))),
    el("p", { class: "note" }, t("leaders.rule")));
  whoAmI().catch(() => null).then((me) => lists.forEach(({ mode, box }) => loadBoard(mode, me, 10, box)));
  return card;
}

/** /leaderboard: the top 100 of each rated game. */
export async function leaderboardPage(root) {
  document.title = `${t("leaders.title")} · dorf`;
  const me = await whoAmI().catch(() => null);
  const page = el("div", { class: "lobby leaderboard-page" },
    el("section", { class: "intro" }, el("h1", { class: "page-title" }, t("leaders.title")), el("p", { class: "note" }, t("leaders.rule")),
      el("p", { class: "note rd-note", id: "rd-note" }, t("player.rd_note")),
      el("nav", { class: "leaders-modes", "aria-label": t("leaders.modes") }, RATED_MODES.map((mode) => el("a", { href: `#${mode}` }, modeName(mode))))),
    RATED_MODES.map((mode) => {
      const box = el("div", { class: "board-list" }, el("p", { class: "note" }, "…"));
      loadBoard(mode, me, 100, box);
      return el("section", { class: "card leaderboard", id: mode }, el("h2", {}, modeName(mode)), box);
    }));
  put(root, page);
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
}
