// A player's page, /@/NAME (docs/server.md, "Players and ratings"): the ratings in each rated
// mode ("?" while provisional), the rating after each rated game drawn as a line, the daily
// challenges (the best, the streak, a calendar of six weeks), the last rated games with a link to
// replay each; on one's own page, the name, the password, signing in and out, and API tokens.
import { api, el, modeName, put, toast } from "./util.js";
import { language, t } from "./i18n.js";
import { dayText, rankText, shiftDay } from "./daily.js";
import { changeText, playerName, ratingText, whoAmI } from "./players.js";

const SVG = "http://www.w3.org/2000/svg";

/** The ratings after each game, one line per mode, as a small SVG (no script, no inline code):
 * the highest and lowest rating written at the left, 1500 (where everyone starts) dashed, and a
 * legend of the modes with their last rating under it. */
function historyChart(history) {
  const lists = Object.entries(history).filter(([, list]) => list.length);
  if (!lists.length) return el("p", { class: "note", id: "rating-history" }, t("player.no_games"));
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("viewBox", "0 0 320 120");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("player.history"));
  const ratings = lists.flatMap(([, list]) => list.map((p) => p.rating));
  const low = Math.min(...ratings, 1500) - 15, high = Math.max(...ratings, 1500) + 15;
  const left = 40, right = 312, top = 10, bottom = 108;
  const y = (rating) => bottom - ((bottom - top) * (rating - low)) / (high - low);
  const add = (name, attrs, text) => {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    svg.appendChild(node);
    return node;
  };
  const top1 = Math.max(...ratings), low1 = Math.min(...ratings);
  for (const value of new Set([Math.round(top1), 1500, Math.round(low1)])) {
    add("line", { class: `rating-grid${value === 1500 ? " start" : ""}`, x1: left, x2: right, y1: y(value).toFixed(1), y2: y(value).toFixed(1) });
    add("text", { class: "rating-axis", x: left - 4, y: (y(value) + 3.5).toFixed(1), "text-anchor": "end" }, String(value));
  }
  lists.forEach(([mode, list]) => {
    const m = Object.keys(history).indexOf(mode);
    const xs = list.map((_, i) => left + 8 + ((right - left - 8) * (i + 1)) / list.length);
    // From 1500, where every rating starts (drawn at the left edge: no game there).
    const points = [`${left},${y(1500).toFixed(1)}`, ...xs.map((x, i) => `${x.toFixed(1)},${y(list[i].rating).toFixed(1)}`)];
    add("polyline", { class: `rating-line mode-${m}`, points: points.join(" ") });
    xs.forEach((x, i) => {
      const dot = add("circle", { class: `rating-dot mode-${m}`, cx: x.toFixed(1), cy: y(list[i].rating).toFixed(1), r: list.length > 40 ? 1.6 : 2.6 });
      const title = document.createElementNS(SVG, "title");
      title.textContent = `${modeName(mode)}: ${Math.round(list[i].rating)}`;
      dot.appendChild(title);
    });
  });
  const legend = el("p", { class: "rating-legend" }, lists.map(([mode, list]) =>
    el("span", { class: `rating-key mode-${Object.keys(history).indexOf(mode)}` }, t("player.history_key", { mode: modeName(mode), rating: Math.round(list.at(-1).rating), count: list.length }))));
  return el("figure", { class: "rating-figure", id: "rating-history" }, svg, legend);
}

/** The daily challenges of the last six weeks, a week a row from Monday: each day played shows its
 * score, its rank (once finished) and a star where the expert computer was beaten; a day whose
 * board may be seen links to it. */
function dailyCalendar(results, today) {
  const played = new Map(results.map((r) => [r.date, r]));
  const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7;
  const first = shiftDay(today, -weekday - 35);
  const names = [...Array(7)].map((_, i) => {
    try {
      return new Intl.DateTimeFormat(language(), { weekday: "short", timeZone: "UTC" }).format(new Date(`${shiftDay(first, i)}T00:00:00Z`));
    } catch { return ""; }
  });
  const cells = [...Array(42)].map((_, i) => {
    const date = shiftDay(first, i);
    const r = played.get(date);
    const day = Number(date.slice(8));
    const label = day === 1 || i === 0 ? dayText(date, "medium").replace(/,?\s*\d{4}$/, "") : String(day);
    const classes = ["cal-day", r ? "played" : "", r && r.beat ? "beat" : "", date > today ? "future" : "", date === today ? "today" : ""].filter(Boolean).join(" ");
    const words = r
      ? [dayText(date), t("player.daily_score", { score: r.score }), r.finished ? rankText(r.rank, r.players) : t("player.daily_unfinished"),
        r.beat === true ? t("player.daily_beat") : r.beat === false ? t("player.daily_not_beat", { expert: r.expert }) : null].filter(Boolean).join(", ")
      : dayText(date);
    const inside = [
      el("span", { class: "cal-date", "aria-hidden": "true" }, label),
      r ? el("span", { class: "cal-score", "aria-hidden": "true" }, String(r.score)) : null,
      r ? el("span", { class: "cal-rank", "aria-hidden": "true" }, r.finished ? `#${r.rank}` : "…") : null,
      r && r.beat ? el("span", { class: "cal-beat", "aria-hidden": "true" }, "★") : null,
      r ? el("span", { class: "sr-only" }, words) : null,
    ];
    const body = r && r.game ? el("a", { href: `/game/${encodeURIComponent(r.game)}`, title: words }, inside) : el("span", { title: r ? words : null }, inside);
    return el("li", { class: classes, "data-date": date, "data-score": r ? String(r.score) : null, "data-rank": r ? String(r.rank) : null, "data-beat": r && r.beat !== null && r.beat !== undefined ? String(r.beat) : null }, body);
  });
  return el("div", { class: "daily-calendar", id: "daily-calendar" },
    el("div", { class: "cal-head", "aria-hidden": "true" }, names.map((name) => el("span", {}, name))),
    el("ol", { class: "cal-grid", "aria-label": t("player.daily_calendar") }, cells),
    el("p", { class: "note cal-legend" }, t("player.daily_legend")));
}

/** The best daily score, the streak, how many were played and how often the computer was beaten. */
function dailyFacts(player) {
  const results = player.daily || [];
  const best = player.daily_best;
  const beaten = results.filter((r) => r.beat === true).length;
  return el("dl", { class: "ratings daily-facts", id: "daily-facts" },
    el("dt", {}, t("player.daily_best")),
    el("dd", { id: "daily-best" }, best ? [el("b", {}, String(best.score)), " ", el("small", {}, t("player.daily_best_when", { rank: best.rank, date: dayText(best.date) }))] : el("small", {}, t("player.daily_none"))),
    el("dt", {}, t("player.streak")),
    el("dd", { id: "daily-streak", "data-streak": String(player.streak ?? 0) }, el("b", {}, String(player.streak ?? 0)), " ", el("small", {}, t("player.streak_days", { count: player.streak ?? 0 }))),
    el("dt", {}, t("player.daily_played")),
    el("dd", {}, el("b", {}, String(results.length)), " ", el("small", {}, beaten ? t("player.daily_beaten", { count: beaten }) : t("player.daily_never"))));
}

function ratingsList(ratings) {
  return el("dl", { class: "ratings", id: "player-ratings" }, Object.entries(ratings).map(([mode, r]) => [
    el("dt", {}, modeName(mode)),
    el("dd", { "data-mode": mode }, el("b", {}, ratingText(r)), " ",
      el("small", { title: t("player.rd_title") }, t("player.rd_games", { rd: Math.round(r.rd), count: r.games }))),
  ]).flat());
}

function gamesTable(games) {
  if (!games.length) return el("p", { class: "note", id: "player-games" }, t("player.no_games"));
  return el("div", { class: "table-scroll" }, el("table", { class: "pad wide", id: "player-games" },
    el("thead", {}, el("tr", {}, ["mode", "opponent", "result", "rating"].map((h) => el("th", { scope: "col" }, t(`player.col.${h}`))))),
    el("tbody", {}, games.map((g) => el("tr", {},
      // The game's page, and its replay under it (one column: the table fits a phone).
      el("td", {}, el("a", { class: "nowrap", href: `/game/${encodeURIComponent(g.id)}` }, modeName(g.mode)), el("br"),
        el("a", { class: "replay-link", href: `/replay/${encodeURIComponent(g.id)}`, "aria-label": t("player.replay_label", { mode: modeName(g.mode), opponent: playerName(g.opponent) }) }, t("player.replay"))),
      el("td", {}, el("a", { href: `/@/${encodeURIComponent(g.opponent)}` }, playerName(g.opponent))),
      // How it ended: "lost on time", "won: Bob resigned".
      el("td", { class: "game-result" }, g.end === "time" || g.end === "resign" ? t(`player.result.${g.result}_${g.end}`) : t(`player.result.${g.result}`)),
      el("td", { class: "nowrap" }, `${Math.round(g.rating)} `, el("span", { class: `rating-change ${g.change > 0 ? "up" : g.change < 0 ? "down" : "even"}` }, changeText(g.change))))))));
}

/** A one-field form that posts to the API and says what came of it. */
function form(id, label, fields, submit, done, button = t("player.save")) {
  const inputs = fields.map((f) => el("input", { id: `${id}-${f.name}`, name: f.name, type: f.type || "text", autocomplete: f.auto || "off", maxlength: f.max || "200", required: !f.optional }));
  return el("form", {
    class: "account-form", id,
    onsubmit: async (event) => {
      event.preventDefault();
      const body = {};
      fields.forEach((f, i) => { if (inputs[i].value || !f.optional) body[f.name] = inputs[i].value; });
      try {
        await done(await submit(body));
      } catch (e) {
        toast(e.message);
      }
    },
  }, el("h3", {}, label), fields.map((f, i) => el("label", {}, el("span", {}, f.label), inputs[i])), el("button", { type: "submit" }, button));
}

function accountBox(mine) {
  const reload = () => location.reload();
  const tokens = tokensBox();
  const box = el("section", { class: "card account", id: "account" }, el("h2", {}, t("player.account")),
    el("p", { class: "note" }, mine.signed_in ? t("player.signed_in") : t("player.no_password")),
    form("rename", t("player.rename"), [{ name: "name", label: t("player.name"), max: "20" }],
      (body) => api("POST", "/api/me/name", body), (me) => { location.href = `/@/${encodeURIComponent(me.name)}`; }),
    form("password", mine.signed_in ? t("player.change_password") : t("player.set_password"), [
      ...(mine.signed_in ? [{ name: "current", label: t("player.current"), type: "password", auto: "current-password" }] : []),
      { name: "password", label: t("player.new_password"), type: "password", auto: "new-password" }],
    (body) => api("POST", "/api/me/password", body), reload),
    form("sign-in", t("player.sign_in"), [
      { name: "name", label: t("player.name"), auto: "username", max: "20" },
      { name: "password", label: t("player.password"), type: "password", auto: "current-password" }],
    (body) => api("POST", "/api/sign-in", body), (me) => { location.href = `/@/${encodeURIComponent(me.name)}`; }, t("player.sign_in_button")),
    el("div", { class: "account-row" },
      mine.signed_in ? el("button", { type: "button", id: "sign-out", onclick: async () => {
        try { await api("POST", "/api/sign-out"); location.href = "/"; } catch (e) { toast(e.message); }
      } }, t("player.sign_out")) : null,
      // Every other device and every API token out; this browser stays (with a new cookie).
      el("button", { type: "button", id: "sign-out-everywhere", onclick: async () => {
        try {
          await api("POST", "/api/me/sign-out-everywhere");
          toast(t("player.signed_out_everywhere"), "info");
          await tokens.show();
        } catch (e) { toast(e.message); }
      } }, t("player.sign_out_everywhere"))),
    // API tokens are for programs: folded away from the player's own settings (issue 61).
    el("details", { class: "bot-makers", id: "bot-makers" }, el("summary", {}, t("player.bot_makers")), tokens.box),
    // Their data (docs/server.md, "Privacy"): all of it as JSON, or the account deleted.
    el("details", { class: "your-data", id: "your-data" }, el("summary", {}, t("player.your_data")),
      el("p", { class: "note" }, t("player.your_data_note"), " ", el("a", { href: "/privacy" }, t("nav.privacy"))),
      el("p", {}, el("a", { class: "button secondary", id: "export-data", href: "/api/me/export", download: `dorf-${mine.name}.json` }, t("player.export"))),
      form("delete-account", t("player.delete_account"), [{ name: "name", label: t("player.delete_type_name"), max: "20" }],
        (body) => api("POST", "/api/me/delete", body), () => { location.href = "/"; }, t("player.delete_button"))));
  return box;
}

/** A time the server wrote (ISO 8601) as the page's language writes a day and an hour. */
function whenText(iso) {
  try {
    return new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
  } catch { return iso; }
}

/** The player's API tokens (docs/server.md, "Players and ratings"): each one's label, when it was
 * made and last used, and a button that revokes it; a form that makes one, shown this once. */
function tokensBox() {
  const shown = el("output", { id: "token-shown", class: "token" });
  const list = el("ul", { class: "token-list", id: "token-list" });
  const show = async () => {
    let tokens;
    try { tokens = (await api("GET", "/api/me/tokens")).tokens; } catch (e) { toast(e.message); return; }
    put(list, tokens.length ? tokens.map((item) => {
      const name = item.label || t("player.token_unnamed", { id: item.id });
      const used = item.last_used ? t("player.token_used", { date: whenText(item.last_used) }) : t("player.token_never_used");
      return el("li", { class: "token-item", "data-token": item.id },
        el("b", { class: "token-name" }, name), " ",
        el("small", {}, t("player.token_made", { date: whenText(item.created) }), ", ", used), " ",
        el("button", { type: "button", class: "revoke", "aria-label": t("player.revoke_label", { name }), onclick: async () => {
          try {
            await api("DELETE", `/api/me/tokens/${encodeURIComponent(item.id)}`);
            toast(t("player.token_revoked", { name }), "info");
            await show();
          } catch (e) { toast(e.message); }
        } }, t("player.revoke")));
    }) : el("li", { class: "note", id: "no-tokens" }, t("player.no_tokens")));
  };
  const label = el("input", { id: "token-label", name: "label", maxlength: "40", autocomplete: "off" });
  const make = el("form", { class: "account-form", id: "make-token-form", onsubmit: async (event) => {
    event.preventDefault();
    try {
      const made = await api("POST", "/api/me/tokens", label.value.trim() ? { label: label.value } : {});
      shown.textContent = made.token;
      label.value = "";
      toast(t("player.token_once"), "info");
      await show();
    } catch (e) { toast(e.message); }
  } }, el("label", {}, el("span", {}, t("player.token_label")), label),
  el("button", { type: "submit", id: "make-token" }, t("player.make_token")));
  show();
  return { show, box: el("div", { class: "tokens", id: "tokens" }, el("h3", {}, t("player.tokens")),
    el("p", { class: "note" }, t("player.tokens_note")), list, make, shown) };
}

/** /@/me for a visitor who is no player yet (the header's link): choosing a name makes one, or
 * sign in as the player of another device ("me" is a name nobody may take). */
function visitorBox() {
  const toOwn = (me) => { location.href = `/@/${encodeURIComponent(me.name)}`; };
  return el("section", { class: "card account", id: "account" }, el("h2", {}, t("player.account")),
    el("p", { class: "note" }, t("player.visitor")),
    form("rename", t("player.choose_name"), [{ name: "name", label: t("player.name"), max: "20" }],
      (body) => api("POST", "/api/me/name", body), toOwn),
    form("sign-in", t("player.sign_in"), [
      { name: "name", label: t("player.name"), auto: "username", max: "20" },
      { name: "password", label: t("player.password"), type: "password", auto: "current-password" }],
    (body) => api("POST", "/api/sign-in", body), toOwn, t("player.sign_in_button")));
}

export async function profilePage(root, name) {
  const page = el("div", { class: "lobby narrow player-page" });
  put(root, page);
  if (name === "me") {
    const me = await whoAmI().catch(() => null);
    if (me && me.player !== false) location.replace(`/@/${encodeURIComponent(me.name)}`);
    else put(page, visitorBox());
    return;
  }
  let player, mine, today;
  try {
    // Today as the server counts days (the calendar ends with its week), where it has the challenge.
    [player, mine, today] = await Promise.all([api("GET", `/api/players/${encodeURIComponent(name)}`), whoAmI(),
      api("GET", "/api/daily").then((day) => day.date, () => null)]);
  } catch (e) {
    put(page, el("section", { class: "card" }, el("h1", { class: "page-title" }, t("player.title")), el("p", {}, e.message)));
    return;
  }
  document.title = `${player.name} · dorf`;
  const own = mine.name === player.name;
  page.appendChild(el("section", { class: "card", id: "player" },
    el("h1", { class: "page-title" }, playerName(player.name), " ",
      player.bot ? el("span", { class: "bot-mark", title: t("player.bot_title") }, t("player.bot")) : null,
      own ? el("small", {}, " " + t("player.you")) : null),
    ratingsList(player.ratings),
    Object.keys(player.ratings || {}).length ? el("p", { class: "note rd-note", id: "rd-note" }, t("player.rd_note")) : null,
    el("h2", {}, t("player.history")), historyChart(player.history)));
  if (player.daily !== undefined) {
    today = today || (player.daily[0] && player.daily[0].date) || new Date().toISOString().slice(0, 10);
    page.appendChild(el("section", { class: "card", id: "player-daily" },
      el("h2", {}, t("player.daily")), dailyFacts(player), dailyCalendar(player.daily, today)));
  }
  page.appendChild(el("section", { class: "card", id: "player-last" }, el("h2", {}, t("player.last_games")), gamesTable(player.games)));
  if (own) page.appendChild(accountBox(mine));
}
