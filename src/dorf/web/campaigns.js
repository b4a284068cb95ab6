// The campaign pages: the player's campaigns, one campaign (its members, its link, Next game, its
// score plot and track, recording a game), joining one by its link (/campaigns/ID/join/CODE).
import { api, el, rememberedGames, toast, put, copyButton } from "./util.js";
import { language, server, t, term } from "./i18n.js";

export async function campaignsPage(root, name, code) {
  if (name && code) return joinCampaign(root, name, code);
  if (name) return campaignPage(root, name);
  const params = new URLSearchParams(location.search);
  const game = params.get("game");
  const box = el("section", { class: "card" }, el("h1", { class: "page-title" }, t("campaigns.title")));
  put(root, el("div", { class: "lobby narrow" }, box));
  if (game) box.appendChild(el("p", { class: "note" }, t("campaigns.choose", { game })));
  const list = el("ul", { class: "games", id: "campaign-list" });
  box.appendChild(list);
  try {
    const data = await api("GET", "/api/campaigns");
    if (!data.campaigns.length) list.appendChild(el("li", { class: "note" }, t("campaigns.none")));
    for (const c of data.campaigns) {
      const href = `/campaigns/${encodeURIComponent(c.id)}${game ? `?game=${encodeURIComponent(game)}` : ""}`;
      list.appendChild(el("li", {}, el("a", { href }, c.name), " ",
        el("small", {}, [t("count.games", { count: c.games }), c.best !== null ? t("campaigns.best", { n: c.best }) : null, t("count.members", { count: c.members }), c.archived ? t("campaigns.archived") : null].filter(Boolean).join(" · "))));
    }
  } catch (e) {
    toast(e.message);
  }
  const input = el("input", { id: "campaign-name", placeholder: t("campaigns.name_placeholder"), maxlength: "60" });
  box.appendChild(el("form", {
    class: "inline",
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        const made = await api("POST", "/api/campaigns", { name: input.value });
        location.href = `/campaigns/${encodeURIComponent(made.id)}${game ? `?game=${encodeURIComponent(game)}` : ""}`;
      } catch (e) {
        toast(e.message);
      }
    },
  }, el("h2", { class: "section" }, t("campaigns.new")), input, " ", el("button", { type: "submit", id: "campaign-create" }, t("campaigns.create"))));
}

async function campaignPage(root, name) {
  const box = el("div", { class: "campaign" });
  put(root, box);
  let view;
  try {
    view = await api("GET", `/api/campaigns/${encodeURIComponent(name)}`);
  } catch (e) {
    // Another group's campaign: said in words (the server's message names no one).
    const words = e.code === "not-a-member" ? [el("p", { id: "not-yours" }, t("campaign.not_yours")), el("p", { class: "note" }, t("campaign.not_yours_note"))] : [el("p", {}, e.message)];
    put(box, el("section", { class: "card" }, el("h1", { class: "page-title" }, t("campaign.title")), ...words, el("a", { href: "/campaigns" }, t("campaign.all"))));
    return;
  }
  if (view.id !== name) history.replaceState(null, "", `/campaigns/${encodeURIComponent(view.id)}${location.search}`);
  const stamp = Date.now();
  const enc = encodeURIComponent(view.id);
  const totals = view.totals;
  const games = el("table", { class: "pad wide", id: "campaign-games" },
    el("thead", {}, el("tr", {}, ["number", "date", "players", "total", "circles"].map((h) => el("th", { scope: "col" }, t(`campaign.col.${h}`))))),
    el("tbody", {}, view.games.map((g) => el("tr", {}, el("td", {}, String(g.number)), el("td", {}, g.played), el("td", {}, g.players.join(", ")), el("td", {}, String(g.pad.total ?? "")), el("td", {}, String(g.circles))))));
  const progress = view.progress;
  const fork = progress.waiting
    ? el("div", { class: "fork" }, el("p", {}, t("campaign.fork", { circles: t("count.circles", { count: progress.banked }) })),
      ...progress.options.map((b) => el("button", {
        type: "button", onclick: async () => {
          try { await api("POST", `/api/campaigns/${enc}/choose`, { branch: b }); location.reload(); } catch (e) { toast(e.message); }
        },
      }, b)))
    : null;
  const unlocked = view.unlocked.length
    ? el("ul", {}, view.unlocked.map((u) => el("li", {}, `${server(u.item)}${u.game ? ` ${t("campaign.in_game", { n: u.game })}` : ""}`)))
    : el("p", { class: "note" }, t("campaign.nothing_unlocked"));
  put(box, 
    el("section", { class: "card" },
      el("h1", { class: "page-title" }, view.name), el("p", {}, [t("count.games", { count: totals.games }), t("campaigns.best", { n: totals.best ?? "–" }), t("campaign.mean", { n: totals.mean ?? "–" }), t("count.circles", { count: totals.circles })].join(" · ")),
      el("p", { class: "note" }, t("campaign.sheet", { name: server(view.sheet) }) + (view.archived ? ` · ${t("campaigns.archived")}` : "")), el("a", { href: "/campaigns" }, t("campaign.all"))),
    groupCard(view),
    recordForm(view.id),
    el("section", { class: "card" }, el("h2", { class: "section" }, t("campaign.scores")), figure("score-plot", t("campaign.scores_alt", { name: view.name }), `/api/campaigns/${enc}/score.svg?${stamp}`)),
    el("section", { class: "card" }, el("h2", { class: "section" }, t("campaign.track")), fork, figure("track", t("campaign.track_alt", { name: view.name }), `/api/campaigns/${enc}/track.svg?${stamp}`)),
    el("section", { class: "card" }, el("h2", { class: "section" }, t("campaign.games")), view.games.length ? games : el("p", { class: "note" }, t("campaign.no_games"))),
    el("section", { class: "card" }, el("h2", { class: "section" }, t("campaign.unlocked")), unlocked,
      el("h2", { class: "section" }, t("campaign.achievements")), el("ul", { class: "achievements", id: "achievements" }, view.achievements.map((a) =>
        // The rule in words ("5 or more task types completed"); as the sheet writes it in the title.
        el("li", { class: a.game ? "done" : "", title: a.condition },
          el("span", { class: "mark", "aria-hidden": "true" }, a.game ? "✓" : "○"),
          el("span", {}, el("b", {}, server(a.name)), a.game ? ` ${t("campaign.in_game", { n: a.game })}` : "", el("br"),
            el("small", { class: "note" }, conditionWords(a))))))),
  );
}

/** The group: its members, the link that invites another, the next game (the reader's seat in
 * it while it waits), renaming and archiving. */
function groupCard(view) {
  const enc = encodeURIComponent(view.id);
  const link = `${location.origin}${view.link}`;
  const next = view.next;
  let state = null;
  if (next && next.join) state = el("p", { id: "next-seat" }, t("campaign.next.your_seat"), " ", el("a", { class: "button", href: next.join }, t("campaign.next.take")));
  else if (next && !next.over) state = el("p", { id: "next-seat" }, t("campaign.next.playing"), " ", el("a", { href: `/game/${encodeURIComponent(next.game)}` }, t("campaign.next.open")));
  else if (next && next.recorded) state = el("p", { class: "note", id: "next-seat" }, t("campaign.next.recorded", { n: next.recorded }));
  const waiting = next && !next.over;
  const start = waiting ? null : el("button", {
    type: "button", id: "next-game", disabled: view.archived ? "" : null,
    onclick: async () => {
      start.disabled = true;
      try {
        const made = await api("POST", `/api/campaigns/${enc}/next`, {});
        location.href = made.join;
      } catch (e) { toast(e.message); start.disabled = false; }
    },
  }, t("campaign.next.start"));
  const renameInput = el("input", { id: "campaign-rename", value: view.name, maxlength: "60", "aria-label": t("campaign.rename") });
  const rename = el("form", {
    class: "inline",
    onsubmit: async (event) => {
      event.preventDefault();
      try { await api("POST", `/api/campaigns/${enc}/rename`, { name: renameInput.value }); location.reload(); } catch (e) { toast(e.message); }
    },
  }, renameInput, " ", el("button", { type: "submit", class: "small" }, t("campaign.rename")), " ",
  el("button", {
    type: "button", class: "small", id: "campaign-archive",
    onclick: async () => {
      try { await api("POST", `/api/campaigns/${enc}/archive`, { archived: !view.archived }); location.reload(); } catch (e) { toast(e.message); }
    },
  }, view.archived ? t("campaign.unarchive") : t("campaign.archive")));
  return el("section", { class: "card", id: "campaign-group" },
    el("h2", { class: "section" }, t("campaign.members")),
    el("ul", { class: "members", id: "campaign-members" }, view.members.map((m, i) => el("li", { class: i === view.you ? "you" : null }, i === view.you ? t("campaign.you", { name: m }) : m))),
    state, start ? el("p", { class: "next-row" }, start, " ", el("span", { class: "note" }, t("campaign.next.note", { count: view.members.length }))) : null,
    el("h2", { class: "section" }, t("campaign.invite")),
    el("p", { class: "note" }, t("campaign.invite_note")),
    el("div", { class: "link-row" }, el("input", { id: "campaign-link", readonly: true, value: link, "aria-label": t("campaign.invite"), onfocus: (e) => e.target.select() }), copyButton(link)),
    el("details", {}, el("summary", {}, t("campaign.settings")), rename));
}

/** /campaigns/ID/join/CODE: join the campaign, then show it. */
async function joinCampaign(root, key, code) {
  const box = el("section", { class: "card" }, el("h1", { class: "page-title" }, t("campaign.title")), el("p", {}, t("campaign.joining")));
  put(root, el("div", { class: "lobby narrow" }, box));
  try {
    const joined = await api("POST", `/api/campaigns/${encodeURIComponent(key)}/join`, { code });
    location.replace(`/campaigns/${encodeURIComponent(joined.id)}`);
  } catch (e) {
    put(box, el("h1", { class: "page-title" }, t("campaign.title")), el("p", {}, e.message), el("a", { href: "/campaigns" }, t("campaign.all")));
  }
}

/** A picture of the server's (the score plot, the track): on a phone at its own size, in a box
 * that scrolls sideways (shrunk to the screen its words would be too small to read). */
function figure(id, alt, src) {
  return [el("div", { class: "figure-scroll", tabindex: "0", role: "region", "aria-label": alt },
    el("a", { href: src, target: "_blank", title: t("campaign.open_picture") }, el("img", { class: "campaign-svg", id, alt, src }))),
  el("p", { class: "note figure-tip" }, t("campaign.swipe"))];
}

function recordForm(name) {
  const params = new URLSearchParams(location.search);
  const finished = Object.entries(rememberedGames()).filter(([, g]) => g.mode === "coop" && g.over);
  const input = el("input", { id: "record-game", list: "finished-games", placeholder: t("campaign.record.game"), value: params.get("game") || "" });
  const options = el("datalist", { id: "finished-games" }, finished.map(([id, g]) => el("option", { value: id }, (g.names || []).join(", "))));
  const branches = el("input", { id: "record-branches", placeholder: t("campaign.record.branches") });
  const result = el("div", { class: "record-result", id: "record-result" });
  return el("section", { class: "card" }, el("h2", { class: "section" }, t("campaign.record.title")),
    el("p", { class: "note" }, t("campaign.record.note")),
    el("form", {
      class: "inline",
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const body = { game: input.value.trim(), branches: branches.value.split(",").map((b) => b.trim()).filter(Boolean) };
          const change = await api("POST", `/api/campaigns/${encodeURIComponent(name)}/record`, body);
          put(result, el("p", {}, t("campaign.record.done", { n: change.game.number, points: t("count.points", { count: change.game.pad.total }), circles: t("count.circles", { count: change.game.circles }) })));
          setTimeout(() => { location.href = `/campaigns/${encodeURIComponent(name)}`; }, 900);
        } catch (e) {
          toast(e.message);
        }
      },
    }, input, options, " ", branches, " ", el("button", { type: "submit", id: "record-submit" }, t("campaign.record.submit"))), result);
}

/** An achievement's condition in words: the server's English ones as they are; in another
 * language made from the condition itself ("total >= 100 and flags.forest < 4"). */
function conditionWords(a) {
  if (language() === "en" || !a.condition) return a.words || a.condition;
  const said = [];
  for (const part of a.condition.split(/\band\b/)) {
    const m = /^\s*([a-z_]+)(?:\.([a-z]+))?\s*(>=|<=|==|!=|>|<)\s*(-?\d+)\s*$/.exec(part);
    if (!m) return a.words || a.condition;
    const [, field, name, op, value] = m;
    const how = t(`cond.op.${op}`, { n: Number(value) });
    if (name) said.push(t(field === "tasks" ? "cond.field.tasks_of" : "cond.field.flags_of", { how, kind: term("taskkind.", name) }));
    else if (term("cond.field.", field) !== field) said.push(t(`cond.field.${field}`, { how }));
    else return a.words || a.condition;
  }
  const text = said.reduce((a, b) => t("cond.and", { a, b }));
  return text.charAt(0).toUpperCase() + text.slice(1);
}
