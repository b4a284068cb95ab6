// The daily challenge (issue 32, docs/server.md "The daily challenge"): every player gets the
// same solo shuffle today; the first game started counts, the others are practice. Here: the
// front page's card for today (played by N, your streak, Play / See your result / Play again),
// and the page of a day, /daily and /daily/DATE (its leaderboard, your attempt, the expert's
// score and the median once you may see them, the seed and the boards once the day is over).
import { api, el, put, rememberGame, toast } from "./util.js";
import { language, t } from "./i18n.js";
import { asPlayer, whoAmI } from "./players.js";

/** A day "2026-12-02" in words, in the page's language ("2 December 2026", "2. Dezember 2026"). */
export function dayText(date, style = "long") {
  try {
    return new Intl.DateTimeFormat(language(), { dateStyle: style, timeZone: "UTC" }).format(new Date(`${date}T00:00:00Z`));
  } catch {
    return date;
  }
}

/** The day `days` after `date` (before, if negative), as "YYYY-MM-DD". */
export function shiftDay(date, days) {
  const when = new Date(`${date}T00:00:00Z`);
  when.setUTCDate(when.getUTCDate() + days);
  return when.toISOString().slice(0, 10);
}

/** A score as the boards show it: whole points, a median to one decimal. */
export function points(value) {
  return typeof value === "number" ? t("daily.points", { n: Math.round(value * 10) / 10 }) : "";
}

/** Start today's challenge (the counted attempt, or practice once it has begun), or a past day
 * (`date`: always practice), and go to its game, keeping the seat's token as the lobby does. An
 * attempt of today begun and not finished is opened instead. */
export async function startDaily(date) {
  let made;
  try {
    await asPlayer(); // the challenge is played by a player: a visitor becomes one now
    made = await api("POST", "/api/daily", date ? { date } : {});
  } catch (error) {
    if (error.code === "daily-unfinished") {
      const today = await api("GET", "/api/daily");
      if (today.attempt && today.attempt.game) {
        location.href = `/game/${encodeURIComponent(today.attempt.game)}`;
        return;
      }
    }
    throw error;
  }
  rememberGame(made.id, {
    mode: made.mode || "coop", tokens: made.tokens, invites: made.invites || {}, created: Date.now(),
    practice: !!made.practice, daily: made.date,
  });
  location.href = `/game/${encodeURIComponent(made.id)}`;
}

/** A button that starts the challenge (today's, or a past `date`'s practice). */
function playButton(label, attrs, date) {
  const button = el("button", { type: "button", ...attrs }, label);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await startDaily(date);
    } catch (error) {
      toast(error.message);
      button.disabled = false;
    }
  });
  return button;
}

/** "Rank 2 of 3": a rank among the day's players. */
export function rankText(rank, players) {
  return t("daily.rank_of", { rank, count: players });
}

/** The streak in words: days in a row, or how to start one. */
function streakText(streak) {
  return streak ? t("daily.streak", { count: streak }) : t("daily.streak_none");
}

/** The expert computer's score against `score`, in words: beaten, beaten by it, level. */
export function expertText(expert, score) {
  if (expert === null || expert === undefined) return null;
  if (score > expert) return t("daily.expert_beaten", { expert, count: score - expert });
  if (score < expert) return t("daily.expert_won", { expert, count: expert - score });
  return t("daily.expert_level", { expert });
}

// --- the front page's card ---------------------------------------------------------------------

/** Today's challenge on the front page: a card, filled once GET /api/daily answers (left out
 * altogether by a server without the challenge). */
export function dailyCard() {
  const card = el("section", { class: "card daily-card", id: "daily-card", "aria-labelledby": "daily-card-title" },
    el("h2", { id: "daily-card-title" }, t("daily.today")));
  card.classList.add("loading");
  api("GET", "/api/daily").then((day) => drawCard(card, day)).catch(() => card.remove());
  return card;
}

function drawCard(card, day) {
  card.classList.remove("loading");
  const attempt = day.attempt;
  const actions = el("div", { class: "actions daily-actions" });
  let mine = null;
  if (!attempt) {
    actions.appendChild(playButton(t("daily.play"), { class: "primary daily-play", id: "daily-play" }));
  } else if (!attempt.finished) {
    mine = el("p", { class: "daily-mine", id: "daily-mine" }, t("daily.attempt_going", { score: attempt.score ?? 0 }));
    actions.appendChild(el("a", { class: "button primary daily-play", id: "daily-go-on", href: `/game/${encodeURIComponent(attempt.game)}` }, t("daily.go_on")));
  } else {
    mine = el("p", { class: "daily-mine", id: "daily-mine" },
      el("b", {}, t("daily.your_score", { score: attempt.score })), " · ", rankText(attempt.rank, day.players),
      day.expert !== null && day.expert !== undefined ? el("span", { class: "daily-expert-line", id: "daily-card-expert" }, expertText(day.expert, attempt.score)) : null);
    actions.appendChild(el("a", { class: "button primary", id: "daily-result", href: `/game/${encodeURIComponent(attempt.game)}` }, t("daily.see_result")));
    actions.appendChild(playButton(t("daily.play_again"), { class: "secondary", id: "daily-practice" }));
  }
  actions.appendChild(el("a", { class: "button secondary", id: "daily-board-link", href: "/daily" }, t("daily.leaderboard")));
  const podium = (day.top || []).slice(0, 3);
  put(card,
    el("div", { class: "daily-head" },
      el("h2", { id: "daily-card-title" }, t("daily.today")),
      el("span", { class: "daily-date", id: "daily-date", "data-date": day.date }, dayText(day.date))),
    el("p", { class: "daily-blurb" }, t("daily.blurb")),
    el("p", { class: "daily-stats" },
      el("span", { id: "daily-players", "data-players": String(day.players) }, t("daily.played_by", { count: day.players })),
      el("span", { class: "daily-streak", id: "daily-streak", "data-streak": String(day.streak ?? 0) }, streakText(day.streak ?? 0))),
    mine,
    podium.length ? el("ol", { class: "daily-podium", "aria-label": t("daily.top_label") }, podium.map((row) =>
      el("li", {}, el("span", { class: "daily-podium-rank" }, String(row.rank)), " ", el("a", { href: `/@/${encodeURIComponent(row.name)}` }, row.name), " ", el("b", {}, String(row.score))))) : null,
    actions);
}

// --- the page of a day ------------------------------------------------------------------------

/** /daily (today) and /daily/DATE: the day's leaderboard. */
export async function dailyPage(root, date) {
  const page = el("div", { class: "lobby narrow daily-page" });
  put(root, page);
  let day, me, today;
  try {
    [day, me, today] = await Promise.all([
      api("GET", date ? `/api/daily/${encodeURIComponent(date)}` : "/api/daily"),
      whoAmI().catch(() => null),
      date ? api("GET", "/api/daily").catch(() => null) : null,
    ]);
  } catch (error) {
    put(page, el("section", { class: "card" }, el("h1", { class: "page-title" }, t("daily.title")), el("p", {}, error.message),
      el("p", {}, el("a", { href: "/daily" }, t("daily.to_today")))));
    return;
  }
  today = today || day;
  document.title = `${t("daily.title")} · ${day.date} · dorf`;
  const isToday = day.date === today.date;
  const attempt = day.attempt;
  const facts = [
    el("li", { id: "daily-players" }, t("daily.played_by", { count: day.players })),
    attempt ? el("li", { id: "daily-mine" }, el("b", {}, t("daily.your_score", { score: attempt.score })), " · ",
      attempt.finished ? rankText(attempt.rank, day.players) : t("daily.unfinished_rank", { rank: attempt.rank })) : null,
    day.expert !== null && day.expert !== undefined
      ? el("li", { id: "daily-expert" }, attempt && attempt.finished ? expertText(day.expert, attempt.score) : t("daily.expert", { expert: day.expert })) : null,
    day.median !== null && day.median !== undefined ? el("li", { id: "daily-median" }, t("daily.median", { median: points(day.median) })) : null,
    !isToday || day.over ? null : el("li", { class: "note" }, t(attempt && attempt.finished ? "daily.boards_later" : "daily.hidden_until")),
    day.seed_text || day.seed !== undefined ? el("li", { id: "daily-seed" }, t("daily.seed", { seed: String(day.seed_text ?? day.seed) })) : null,
  ];
  const actions = el("div", { class: "actions" });
  if (isToday && !attempt) actions.appendChild(playButton(t("daily.play"), { class: "primary daily-play", id: "daily-play" }));
  else if (isToday && attempt && !attempt.finished) actions.appendChild(el("a", { class: "button primary", id: "daily-go-on", href: `/game/${encodeURIComponent(attempt.game)}` }, t("daily.go_on")));
  else if (isToday) {
    actions.appendChild(el("a", { class: "button", id: "daily-result", href: `/game/${encodeURIComponent(attempt.game)}` }, t("daily.see_result")));
    actions.appendChild(playButton(t("daily.play_again"), { class: "secondary", id: "daily-practice" }));
  } else actions.appendChild(playButton(t("daily.play_day"), { class: "secondary", id: "daily-practice" }, day.date));
  const days = el("nav", { class: "daily-days", "aria-label": t("daily.days_label") },
    el("a", { href: `/daily/${shiftDay(day.date, -1)}`, id: "daily-yesterday", rel: "prev" }, `← ${dayText(shiftDay(day.date, -1), "medium")}`),
    isToday ? null : el("a", { href: day.date < shiftDay(today.date, -1) ? `/daily/${shiftDay(day.date, 1)}` : "/daily", id: "daily-next", rel: "next" }, `${dayText(shiftDay(day.date, 1), "medium")} →`));
  put(page,
    el("section", { class: "card", id: "daily-day", "data-date": day.date },
      el("h1", { class: "page-title" }, isToday ? t("daily.title_today") : t("daily.title"), " ", el("span", { class: "daily-date" }, dayText(day.date))),
      days,
      el("ul", { class: "daily-facts" }, facts),
      isToday ? el("p", { class: "note daily-streak", id: "daily-streak" }, streakText(day.streak ?? 0)) : null,
      actions),
    el("section", { class: "card" },
      el("h2", {}, t("daily.top", { count: Math.min(100, day.players) })),
      topTable(day, me)));
}

/** The day's top 100: rank, name, score, and once the day is over a link to each board; the
 * expert computer's score, where it is shown, among the players' (it is no player: no rank). */
function topTable(day, me) {
  const rows = day.top || [];
  if (!rows.length) return el("p", { class: "note", id: "daily-top" }, t("daily.nobody"));
  const boards = rows.some((row) => row.game);
  const expert = day.expert !== null && day.expert !== undefined ? day.expert : null;
  // The expert's board too, once the day is over (issue 61), as the players' are.
  const expertRow = () => el("tr", { class: "expert-row" }, el("td", { class: "num" }, "–"), el("td", {}, t("daily.expert_row")),
    el("td", { class: "num" }, el("b", {}, String(expert))), boards ? el("td", {}, day.expert_game
      ? el("a", { class: "daily-expert-board", id: "daily-expert-board", href: `/game/${encodeURIComponent(day.expert_game)}`, "aria-label": t("daily.see_board_of", { name: t("daily.expert_row") }) }, t("daily.see_board")) : null) : null);
  const lines = rows.map((row) => {
    const mine = me && row.name === me.name;
    return el("tr", { class: mine ? "mine" : null, "data-rank": String(row.rank), "data-name": row.name, "data-score": String(row.score) },
      el("td", { class: "num" }, String(row.rank)),
      el("td", {}, el("a", { href: `/@/${encodeURIComponent(row.name)}` }, row.name), mine ? el("small", {}, ` ${t("player.you")}`) : null,
        row.finished ? null : el("small", { class: "note" }, ` ${t(day.over ? "daily.left_unfinished" : "daily.playing")}`)),
      el("td", { class: "num" }, el("b", {}, String(row.score))),
      boards ? el("td", {}, row.game ? el("a", { class: "daily-board", href: `/game/${encodeURIComponent(row.game)}`, "aria-label": t("daily.see_board_of", { name: row.name }) }, t("daily.see_board")) : null) : null);
  });
  if (expert !== null) {
    const below = rows.findIndex((row) => row.score <= expert);
    if (below >= 0) lines.splice(below, 0, expertRow());
    else if (rows.length < 100) lines.push(expertRow());
  }
  return el("div", { class: "table-scroll" }, el("table", { class: "pad wide board-table", id: "daily-top" },
    el("thead", {}, el("tr", {},
      el("th", { scope: "col", class: "num" }, t("daily.col.rank")), el("th", { scope: "col" }, t("daily.col.player")),
      el("th", { scope: "col", class: "num" }, t("daily.col.score")), boards ? el("th", { scope: "col" }, t("daily.col.board")) : null)),
    el("tbody", {}, lines)));
}
