// The start page: choose a game, its seats (here, online, computer) and start; the games this
// browser knows; and the page an invited player opens to take a seat.
import { api, el, forgetGame, rememberGame, rememberedGames, toast, MODE_NAMES, put } from "./util.js";
import { tileIcon } from "./hex.js";

const MODES = [
  { id: "coop", name: "The Board Game", blurb: "Cooperative: 1 to 6 players build one landscape together and complete tasks.", seats: [1, 6] },
  { id: "duel", name: "The Duel", blurb: "Two players place the same tiles, each in their own area.", seats: [2, 2] },
  { id: "head-to-head", name: "Head to Head", blurb: "Two players draft the tiles, then race with mountains, lakes and flags.", seats: [2, 2] },
];

const PLAYERS = [
  ["here", "Here (this screen)"],
  ["online", "Online (send an invitation link)"],
  ["computer:random", "Computer · random (easy)"],
  ["computer:greedy", "Computer · greedy (medium)"],
  ["computer:search:1s", "Computer · search 1 s (strong)"],
  ["computer:search:3s", "Computer · search 3 s (stronger)"],
];

export function lobbyPage(root) {
  let mode = localStorage.getItem("dorf.mode") || "coop";
  let seats = null;
  const defaults = (m) => (m === "coop" ? [{ who: "here", name: "" }] : [{ who: "here", name: "" }, { who: "computer:greedy", name: "" }]);
  seats = defaults(mode);

  const modeBox = el("div", { class: "modes", role: "radiogroup", "aria-label": "game" });
  const seatBox = el("div", { class: "seat-list" });
  const seed = el("input", { id: "seed", type: "number", placeholder: "random", inputmode: "numeric" });
  const start = el("button", { id: "start", type: "submit", class: "primary" }, "Start the game");

  function drawModes() {
    put(modeBox, ...MODES.map((m) =>
      el("label", { class: `mode${m.id === mode ? " chosen" : ""}` },
        el("input", { type: "radio", name: "mode", value: m.id, checked: m.id === mode, onchange: () => { mode = m.id; localStorage.setItem("dorf.mode", mode); seats = defaults(mode); drawModes(); drawSeats(); } }),
        el("span", { class: "mode-art", html: tileIcon(m.id === "head-to-head" ? "FXMPLM" : m.id === "duel" ? "FFGRMR" : "FFGVVT", {}, 54) }),
        el("span", {}, el("b", {}, m.name), el("br"), el("small", {}, m.blurb)))));
  }

  function drawSeats() {
    const spec = MODES.find((m) => m.id === mode);
    put(seatBox, ...seats.map((seat, i) => {
      const select = el("select", { "aria-label": `who plays seat ${i + 1}`, class: "seat-kind", onchange: (e) => { seat.who = e.target.value; } },
        PLAYERS.map(([value, label]) => el("option", { value, selected: value === seat.who }, label)));
      const name = el("input", { class: "seat-name", "aria-label": `name of seat ${i + 1}`, placeholder: `Player ${i + 1}`, value: seat.name, maxlength: "40", oninput: (e) => { seat.name = e.target.value; } });
      const remove = seats.length > spec.seats[0]
        ? el("button", { type: "button", class: "small secondary", "aria-label": `remove seat ${i + 1}`, onclick: () => { seats.splice(i, 1); drawSeats(); } }, "✕")
        : null;
      return el("div", { class: "seat-row" }, el("span", { class: "seat-no" }, String(i + 1)), name, select, remove);
    }));
    if (seats.length < spec.seats[1]) {
      seatBox.appendChild(el("button", { type: "button", class: "small secondary", id: "add-seat", onclick: () => { seats.push({ who: "here", name: "" }); drawSeats(); } }, "+ Add a player"));
    }
  }

  async function submit(event) {
    event.preventDefault();
    const body = {
      mode,
      seats: seats.map((s) => {
        const [kind, ...rest] = s.who.split(":");
        const seat = { kind, name: s.name.trim() || undefined };
        if (kind === "computer") seat.player = rest.join(":");
        return seat;
      }),
    };
    if (seed.value.trim()) body.seed = Number(seed.value);
    start.disabled = true;
    try {
      const made = await api("POST", "/api/games", body);
      rememberGame(made.id, { mode, tokens: made.tokens, invites: made.invites, names: body.seats.map((s, i) => s.name || `Player ${i + 1}`), created: Date.now() });
      location.href = `/game/${made.id}`;
    } catch (error) {
      toast(error.message);
      start.disabled = false;
    }
  }

  drawModes();
  drawSeats();
  const form = el("form", { class: "new-game card", onsubmit: submit },
    el("h2", {}, "New game"),
    modeBox,
    el("h3", {}, "Players"),
    seatBox,
    el("p", { class: "note" }, "“Here” seats are played at this screen, in turn. An “online” seat gets an invitation link to send. Computer seats play by themselves."),
    el("details", {}, el("summary", {}, "More"), el("label", { for: "seed" }, "Seed of the shuffle "), seed),
    el("div", { class: "actions" }, start));

  put(root, el("div", { class: "lobby" },
    el("section", { class: "intro" },
      el("h1", {}, "Dorfromantik, the board games"),
      el("p", {}, "Lay hexagonal landscape tiles, grow forests, fields, villages, rivers and tracks, and complete tasks. Play alone, together at one screen, against the computer or with a friend online.")),
    form,
    yourGames()));
}

function yourGames() {
  const box = el("section", { class: "your-games card" }, el("h2", {}, "Your games"));
  const games = Object.entries(rememberedGames()).sort((a, b) => (b[1].seen || 0) - (a[1].seen || 0)).slice(0, 30);
  if (!games.length) {
    box.appendChild(el("p", { class: "note" }, "Games you start or join appear here."));
    return box;
  }
  const list = el("ul", { class: "games" });
  for (const [id, info] of games) {
    const status = el("small", {}, info.over ? "finished" : "");
    const item = el("li", {},
      el("a", { href: `/game/${id}` }, `${MODE_NAMES[info.mode] || info.mode || "game"}`),
      " ", el("span", {}, (info.names || []).join(", ")), " ", status,
      el("button", { type: "button", class: "small secondary", "aria-label": "forget this game", onclick: () => { forgetGame(id); item.remove(); } }, "✕"));
    list.appendChild(item);
    if (!info.over) {
      api("GET", `/api/games/${id}`).then((g) => {
        status.textContent = g.over ? "finished" : `move ${g.turn}`;
        if (g.over) rememberGame(id, { over: true });
      }).catch(() => { status.textContent = "gone"; });
    }
  }
  box.appendChild(list);
  return box;
}

export async function joinPage(root, id, code) {
  const box = el("section", { class: "card join" }, el("h2", {}, "Join a game"));
  put(root, el("div", { class: "lobby narrow" }, box));
  let game;
  try {
    game = await api("GET", `/api/games/${id}`);
  } catch (error) {
    box.appendChild(el("p", {}, error.message));
    return;
  }
  const open = game.seats.filter((s) => s.kind === "online" && !s.claimed);
  const host = game.seats.filter((s) => s.kind !== "online").map((s) => s.name).join(" and ");
  box.appendChild(el("p", {}, `${host || "Someone"} invites you to play ${game.mode_name}.`));
  if (!open.length) {
    box.appendChild(el("p", {}, "Every seat of this game is taken. You can still watch."));
    box.appendChild(el("a", { class: "button", href: `/game/${id}` }, "Watch the game"));
    return;
  }
  const name = el("input", { id: "join-name", placeholder: "Your name", maxlength: "40", value: localStorage.getItem("dorf.name") || "" });
  const button = el("button", { id: "join-button", type: "submit", class: "primary" }, "Take my seat");
  const form = el("form", {
    onsubmit: async (event) => {
      event.preventDefault();
      button.disabled = true;
      try {
        if (name.value.trim()) localStorage.setItem("dorf.name", name.value.trim());
        const seat = await api("POST", `/api/games/${id}/join`, { invite: code, name: name.value.trim() || undefined });
        rememberGame(id, { mode: game.mode, tokens: { [String(seat.seat)]: seat.token }, names: game.seats.map((s) => s.name) });
        location.href = `/game/${id}`;
      } catch (error) {
        toast(error.message);
        button.disabled = false;
      }
    },
  }, el("label", { for: "join-name" }, "Your name "), name, " ", button);
  box.appendChild(form);
}
