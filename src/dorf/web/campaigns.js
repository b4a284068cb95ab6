// The campaign pages: the list, one campaign with its score plot and track, recording a game.
import { api, el, rememberedGames, toast, put } from "./util.js";

export async function campaignsPage(root, name) {
  if (name) return campaignPage(root, name);
  const params = new URLSearchParams(location.search);
  const game = params.get("game");
  const box = el("section", { class: "card" }, el("h1", { class: "page-title" }, "Campaigns"));
  put(root, el("div", { class: "lobby narrow" }, box));
  if (game) box.appendChild(el("p", { class: "note" }, `Choose the campaign to record game ${game} in.`));
  const list = el("ul", { class: "games", id: "campaign-list" });
  box.appendChild(list);
  try {
    const data = await api("GET", "/api/campaigns");
    if (!data.campaigns.length) list.appendChild(el("li", { class: "note" }, "No campaigns yet."));
    for (const c of data.campaigns) {
      const href = `/campaigns/${encodeURIComponent(c.name)}${game ? `?game=${encodeURIComponent(game)}` : ""}`;
      list.appendChild(el("li", {}, el("a", { href }, c.name), " ",
        el("small", {}, `${c.games} game${c.games === 1 ? "" : "s"}${c.best !== null ? ` · best ${c.best}` : ""}${c.archived ? " · archived" : ""}`)));
    }
  } catch (e) {
    toast(e.message);
  }
  const input = el("input", { id: "campaign-name", placeholder: "Name, e.g. Family", maxlength: "60" });
  box.appendChild(el("form", {
    class: "inline",
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        const made = await api("POST", "/api/campaigns", { name: input.value });
        location.href = `/campaigns/${encodeURIComponent(made.name)}${game ? `?game=${encodeURIComponent(game)}` : ""}`;
      } catch (e) {
        toast(e.message);
      }
    },
  }, el("h2", { class: "section" }, "New campaign"), input, " ", el("button", { type: "submit", id: "campaign-create" }, "Create")));
}

async function campaignPage(root, name) {
  const box = el("div", { class: "campaign" });
  put(root, box);
  let view;
  try {
    view = await api("GET", `/api/campaigns/${encodeURIComponent(name)}`);
  } catch (e) {
    put(box, el("section", { class: "card" }, el("h1", { class: "page-title" }, "Campaign"), el("p", {}, e.message), el("a", { href: "/campaigns" }, "All campaigns")));
    return;
  }
  const stamp = Date.now();
  const enc = encodeURIComponent(view.name);
  const totals = view.totals;
  const games = el("table", { class: "pad wide", id: "campaign-games" },
    el("thead", {}, el("tr", {}, ["#", "date", "players", "total", "circles"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, view.games.map((g) => el("tr", {}, el("td", {}, String(g.number)), el("td", {}, g.played), el("td", {}, g.players.join(", ")), el("td", {}, String(g.pad.total ?? "")), el("td", {}, String(g.circles))))));
  const progress = view.progress;
  const fork = progress.waiting
    ? el("div", { class: "fork" }, el("p", {}, `The track waits at a fork (${progress.banked} circles banked): choose a branch.`),
      ...progress.options.map((b) => el("button", {
        type: "button", onclick: async () => {
          try { await api("POST", `/api/campaigns/${enc}/choose`, { branch: b }); location.reload(); } catch (e) { toast(e.message); }
        },
      }, b)))
    : null;
  const unlocked = view.unlocked.length
    ? el("ul", {}, view.unlocked.map((u) => el("li", {}, `${u.item}${u.game ? ` (game ${u.game})` : ""}`)))
    : el("p", { class: "note" }, "Nothing unlocked yet.");
  put(box, 
    el("section", { class: "card" },
      el("h1", { class: "page-title" }, view.name), el("p", {}, `${totals.games} game${totals.games === 1 ? "" : "s"} · best ${totals.best ?? "–"} · mean ${totals.mean ?? "–"} · ${totals.circles} circle${totals.circles === 1 ? "" : "s"}`),
      el("p", { class: "note" }, `sheet: ${view.sheet}${view.archived ? " · archived" : ""}`), el("a", { href: "/campaigns" }, "All campaigns")),
    recordForm(view.name),
    el("section", { class: "card" }, el("h2", { class: "section" }, "Scores"), figure("score-plot", `scores of ${view.name} game by game`, `/api/campaigns/${enc}/score.svg?${stamp}`)),
    el("section", { class: "card" }, el("h2", { class: "section" }, "Track"), fork, figure("track", `the campaign track of ${view.name}`, `/api/campaigns/${enc}/track.svg?${stamp}`)),
    el("section", { class: "card" }, el("h2", { class: "section" }, "Games"), view.games.length ? games : el("p", { class: "note" }, "No games yet.")),
    el("section", { class: "card" }, el("h2", { class: "section" }, "Unlocked"), unlocked,
      el("h2", { class: "section" }, "Achievements"), el("ul", { class: "achievements", id: "achievements" }, view.achievements.map((a) =>
        // The rule in words ("5 or more task types completed"); as the sheet writes it in the title.
        el("li", { class: a.game ? "done" : "", title: a.condition },
          el("span", { class: "mark", "aria-hidden": "true" }, a.game ? "✓" : "○"),
          el("span", {}, el("b", {}, a.name), a.game ? ` (game ${a.game})` : "", el("br"),
            el("small", { class: "note" }, a.words || a.condition)))))),
  );
}

/** A picture of the server's (the score plot, the track): on a phone at its own size, in a box
 * that scrolls sideways (shrunk to the screen its words would be too small to read). */
function figure(id, alt, src) {
  return [el("div", { class: "figure-scroll", tabindex: "0", role: "region", "aria-label": alt },
    el("a", { href: src, target: "_blank", title: "open the picture on its own" }, el("img", { class: "campaign-svg", id, alt, src }))),
  el("p", { class: "note figure-tip" }, "Swipe sideways to see all of it, or tap it to open it on its own.")];
}

function recordForm(name) {
  const params = new URLSearchParams(location.search);
  const finished = Object.entries(rememberedGames()).filter(([, g]) => g.mode === "coop" && g.over);
  const input = el("input", { id: "record-game", list: "finished-games", placeholder: "game id", value: params.get("game") || "" });
  const options = el("datalist", { id: "finished-games" }, finished.map(([id, g]) => el("option", { value: id }, (g.names || []).join(", "))));
  const branches = el("input", { id: "record-branches", placeholder: "branches at forks (optional, comma-separated)" });
  const result = el("div", { class: "record-result", id: "record-result" });
  return el("section", { class: "card" }, el("h2", { class: "section" }, "Record a finished game"),
    el("p", { class: "note" }, "A cooperative game played on this server, once it is over."),
    el("form", {
      class: "inline",
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const body = { game: input.value.trim(), branches: branches.value.split(",").map((b) => b.trim()).filter(Boolean) };
          const change = await api("POST", `/api/campaigns/${encodeURIComponent(name)}/record`, body);
          put(result, el("p", {}, `Recorded as game ${change.game.number}: ${change.game.pad.total} points, ${change.game.circles} circles.`));
          setTimeout(() => { location.href = `/campaigns/${encodeURIComponent(name)}`; }, 900);
        } catch (e) {
          toast(e.message);
        }
      },
    }, input, options, " ", branches, " ", el("button", { type: "submit", id: "record-submit" }, "Record")), result);
}
