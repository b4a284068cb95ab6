// A player's page, /@/NAME (docs/server.md, "Players and ratings"): the ratings in each rated
// mode ("?" while provisional), the rating after each rated game drawn as a line, the last rated
// games; on one's own page, the name, the password, signing in and out, and API tokens for a bot.
import { api, el, modeName, put, toast } from "./util.js";
import { t } from "./i18n.js";
import { changeText, ratingText, whoAmI } from "./players.js";

const SVG = "http://www.w3.org/2000/svg";

/** The ratings after each game, one line per mode, as a small SVG (no script, no inline code). */
function historyChart(history) {
  const points = Object.values(history).flat();
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("viewBox", "0 0 300 100");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("player.history"));
  if (points.length < 1) return svg;
  const ratings = points.map((p) => p.rating);
  const low = Math.min(...ratings) - 20, high = Math.max(...ratings) + 20;
  Object.entries(history).forEach(([mode, list], m) => {
    if (!list.length) return;
    const xs = list.map((_, i) => (list.length === 1 ? 150 : 8 + (284 * i) / (list.length - 1)));
    const ys = list.map((p) => 92 - (84 * (p.rating - low)) / (high - low));
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", xs.map((x, i) => `${x.toFixed(1)},${ys[i].toFixed(1)}`).join(" "));
    line.setAttribute("class", `rating-line mode-${m}`);
    svg.appendChild(line);
    xs.forEach((x, i) => {
      const dot = document.createElementNS(SVG, "circle");
      dot.setAttribute("cx", x.toFixed(1));
      dot.setAttribute("cy", ys[i].toFixed(1));
      dot.setAttribute("r", "2.5");
      dot.setAttribute("class", `rating-dot mode-${m}`);
      const title = document.createElementNS(SVG, "title");
      title.textContent = `${modeName(mode)}: ${Math.round(list[i].rating)}`;
      dot.appendChild(title);
      svg.appendChild(dot);
    });
  });
  return svg;
}

function ratingsList(ratings) {
  return el("dl", { class: "ratings", id: "player-ratings" }, Object.entries(ratings).map(([mode, r]) => [
    el("dt", {}, modeName(mode)),
    el("dd", { "data-mode": mode }, el("b", {}, ratingText(r)), " ",
      el("small", {}, t("player.rd_games", { rd: Math.round(r.rd), count: r.games }))),
  ]).flat());
}

function gamesTable(games) {
  if (!games.length) return el("p", { class: "note", id: "player-games" }, t("player.no_games"));
  return el("table", { class: "pad wide", id: "player-games" },
    el("thead", {}, el("tr", {}, ["mode", "opponent", "result", "rating"].map((h) => el("th", { scope: "col" }, t(`player.col.${h}`))))),
    el("tbody", {}, games.map((g) => el("tr", {},
      el("td", {}, el("a", { href: `/game/${encodeURIComponent(g.id)}` }, modeName(g.mode))),
      el("td", {}, el("a", { href: `/@/${encodeURIComponent(g.opponent)}` }, g.opponent)),
      el("td", {}, t(`player.result.${g.result}`)),
      el("td", {}, `${Math.round(g.rating)} `, el("span", { class: `rating-change ${g.change > 0 ? "up" : g.change < 0 ? "down" : "even"}` }, changeText(g.change)))))));
}

/** A one-field form that posts to the API and says what came of it. */
function form(id, label, fields, submit, done) {
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
  }, el("h3", {}, label), fields.map((f, i) => el("label", {}, el("span", {}, f.label), inputs[i])), el("button", { type: "submit" }, t("player.save")));
}

function accountBox(mine) {
  const reload = () => location.reload();
  const token = el("output", { id: "token-shown", class: "token" });
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
    (body) => api("POST", "/api/sign-in", body), (me) => { location.href = `/@/${encodeURIComponent(me.name)}`; }),
    el("div", { class: "account-row" },
      mine.signed_in ? el("button", { type: "button", id: "sign-out", onclick: async () => {
        try { await api("POST", "/api/sign-out"); location.href = "/"; } catch (e) { toast(e.message); }
      } }, t("player.sign_out")) : null,
      el("button", { type: "button", id: "make-token", onclick: async () => {
        try {
          const made = await api("POST", "/api/me/tokens");
          token.textContent = made.token;
          toast(t("player.token_once"), "info");
        } catch (e) { toast(e.message); }
      } }, t("player.make_token"))),
    token);
  return box;
}

export async function profilePage(root, name) {
  const page = el("div", { class: "lobby narrow player-page" });
  put(root, page);
  let player, mine;
  try {
    [player, mine] = await Promise.all([api("GET", `/api/players/${encodeURIComponent(name)}`), whoAmI()]);
  } catch (e) {
    put(page, el("section", { class: "card" }, el("h1", { class: "page-title" }, t("player.title")), el("p", {}, e.message)));
    return;
  }
  document.title = `${player.name} · dorf`;
  const own = mine.name === player.name;
  page.appendChild(el("section", { class: "card", id: "player" },
    el("h1", { class: "page-title" }, player.name, " ",
      player.bot ? el("span", { class: "bot-mark", title: t("player.bot_title") }, t("player.bot")) : null,
      own ? el("small", {}, " " + t("player.you")) : null),
    ratingsList(player.ratings),
    el("h2", {}, t("player.history")), historyChart(player.history),
    el("h2", {}, t("player.last_games")), gamesTable(player.games)));
  if (own) page.appendChild(accountBox(mine));
}
