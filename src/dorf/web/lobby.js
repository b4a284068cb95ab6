// The start page: choose a game, its seats (here, online, computer) and start; the games this
// browser knows; and the page an invited player opens to take a seat.
import { api, el, forgetGame, rememberGame, rememberedGames, toast, MODE_NAMES, put } from "./util.js";
import { tileIcon } from "./hex.js";

const MODES = [
  { id: "coop", name: "The Board Game", blurb: "Cooperative: 1 to 6 players build one landscape together and complete tasks.", seats: [1, 6] },
  { id: "duel", name: "The Duel", blurb: "Two players place the same tiles, each in their own area.", seats: [2, 2] },
  { id: "head-to-head", name: "Head to Head", blurb: "Two players draft the tiles, then race with mountains, lakes and flags.", seats: [2, 2] },
];

/** The computer players offered when the server does not list its levels (GET /api/levels). */
const FALLBACK_PLAYERS = [
  ["computer:random", "Computer · random (easy)"],
  ["computer:greedy", "Computer · greedy (medium)"],
  ["computer:search:1s", "Computer · search 1 s (strong)"],
  ["computer:search:3s", "Computer · search 3 s (stronger)"],
];
const PEOPLE = [
  ["here", "Here (this screen)"],
  ["online", "Online (send an invitation link)"],
];
/** A tile for each game's card (the face and its areas, as the server would send them). */
const ART = {
  coop: ["FFGVVT", [["F", [0, 1]], ["G", [2]], ["V", [3, 4]], ["T", [5]]]],
  duel: ["FFGRMR", [["F", [0, 1]], ["G", [2]], ["R", [3, 5]]]],
  "head-to-head": ["PPLLMR", [["P", [0, 1]], ["L", [2, 3]], ["R", [5]]]],
};

/** The computer levels the server offers, as seat choices: [value, label, its strength in words]. */
async function computerChoices() {
  try {
    const data = await api("GET", "/api/levels");
    const levels = (data && data.levels) || [];
    if (!levels.length) return { choices: () => FALLBACK_PLAYERS, preferred: "computer:greedy" };
    // Each level with its measured strength in the chosen game, where the server gives it per game.
    const choices = (mode) => levels.map((l) => {
      const figure = (l.figures && l.figures[mode]) || l.figure;
      // A short label fits a phone's select; its strength is said below the seat (and in the title).
      return [`computer:${l.player ?? l.name}`, `Computer · ${l.label || l.name}`, figure ? `${l.label || l.name}: ${figure}` : ""];
    });
    const medium = levels.find((l) => l.name === "medium") || levels[Math.min(1, levels.length - 1)];
    return { choices, preferred: `computer:${medium.player ?? medium.name}` };
  } catch {
    return { choices: () => FALLBACK_PLAYERS, preferred: "computer:greedy" };
  }
}

export function lobbyPage(root) {
  let mode = localStorage.getItem("dorf.mode") || "coop";
  let computers = { choices: () => FALLBACK_PLAYERS, preferred: "computer:greedy" };
  let practice = localStorage.getItem("dorf.practice") === "1";
  let first = 1;
  const defaults = (m) => (m === "coop" ? [{ who: "here", name: "" }] : [{ who: "here", name: "" }, { who: computers.preferred, name: "" }]);
  let seats = defaults(mode);

  const modeBox = el("div", { class: "modes", role: "radiogroup", "aria-label": "game" });
  const seatBox = el("div", { class: "seat-list" });
  const firstBox = el("label", { class: "first-choice" });
  // Text, not a number field: the digits go to the server as typed (a JavaScript number keeps 53 bits).
  const seed = el("input", { id: "seed", type: "text", placeholder: "random", inputmode: "numeric", pattern: "\\s*-?[0-9]{1,19}\\s*", maxlength: "24", autocomplete: "off", title: "a whole number" });
  const start = el("button", { id: "start", type: "submit", class: "primary" }, "Start the game");
  const practiceBox = el("input", {
    type: "checkbox", id: "practice", checked: practice,
    onchange: (e) => { practice = e.target.checked; localStorage.setItem("dorf.practice", practice ? "1" : "0"); },
  });

  function drawModes() {
    put(modeBox, ...MODES.map((m) =>
      el("label", { class: `mode${m.id === mode ? " chosen" : ""}` },
        el("input", { type: "radio", name: "mode", value: m.id, checked: m.id === mode, onchange: () => { mode = m.id; localStorage.setItem("dorf.mode", mode); seats = defaults(mode); first = 1; drawModes(); drawSeats(); } }),
        el("span", { class: "mode-art", html: tileIcon(ART[m.id][0], ART[m.id][1], {}, 54) }),
        el("span", {}, el("b", {}, m.name), el("br"), el("small", {}, m.blurb)))));
  }

  function drawSeats() {
    const spec = MODES.find((m) => m.id === mode);
    const kinds = [...PEOPLE, ...computers.choices(mode)];
    put(seatBox, ...seats.map((seat, i) => {
      if (!kinds.some(([value]) => value === seat.who)) seat.who = seat.who.startsWith("computer") ? computers.preferred : "here";
      const about = el("small", { class: "seat-about" });
      const describe = () => {
        const strength = (kinds.find(([value]) => value === seat.who) || [])[2] || "";
        about.textContent = strength;
        about.classList.toggle("hidden", !strength);
        select.title = strength;
      };
      const select = el("select", { "aria-label": `who plays seat ${i + 1}`, class: "seat-kind", onchange: (e) => { seat.who = e.target.value; describe(); drawFirst(); } },
        kinds.map(([value, label, strength]) => el("option", { value, selected: value === seat.who, title: strength || undefined }, label)));
      describe();
      const name = el("input", { class: "seat-name", "aria-label": `name of seat ${i + 1}`, placeholder: `Player ${i + 1}`, value: seat.name, maxlength: "40", oninput: (e) => { seat.name = e.target.value; drawFirst(); } });
      const remove = seats.length > spec.seats[0]
        ? el("button", { type: "button", class: "small secondary", "aria-label": `remove seat ${i + 1}`, onclick: () => { seats.splice(i, 1); first = 1; drawSeats(); } }, "✕")
        : null;
      return el("div", { class: "seat-row" }, el("span", { class: "seat-no" }, String(i + 1)), name, select, remove, about);
    }));
    if (seats.length < spec.seats[1]) {
      seatBox.appendChild(el("button", { type: "button", class: "small secondary", id: "add-seat", onclick: () => { seats.push({ who: "here", name: "" }); drawSeats(); } }, "+ Add a player"));
    }
    drawFirst();
  }

  /** Who starts: the first player, the first to pick in the draft, the first named seat. */
  function drawFirst() {
    firstBox.classList.toggle("hidden", seats.length < 2);
    if (seats.length < 2) {
      practiceBox.disabled = false;
      seed.disabled = false;
      seed.placeholder = "random";
      return;
    }
    const label = (i) => seats[i].name.trim() || `Player ${i + 1}`;
    const what = mode === "head-to-head" ? "Who picks first" : "Who starts";
    put(firstBox, `${what} `, el("select", { id: "first", "aria-label": what.toLowerCase(), onchange: (e) => { first = Number(e.target.value); } },
      seats.map((_, i) => el("option", { value: String(i + 1), selected: first === i + 1 }, `${label(i)} (seat ${i + 1})`))));
    // Undo would take back an online player's move: a practice game is played at one screen.
    const online = seats.some((s) => s.who === "online");
    practiceBox.disabled = online;
    practiceBox.closest("label")?.classList.toggle("disabled", online);
    practiceBox.title = online ? "A practice game is played at one screen (no online seat)" : "";
    // Whoever chose the seed would know every tile: with an online seat the server draws it.
    seed.disabled = online;
    seed.placeholder = online ? "drawn by the server" : "random";
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
      practice: practice && !practiceBox.disabled,
    };
    if (seats.length > 1) body.first = first;
    if (seed.value.trim() && !seed.disabled) body.seed = seed.value.trim();
    start.disabled = true;
    try {
      const made = await api("POST", "/api/games", body);
      rememberGame(made.id, { mode, tokens: made.tokens, invites: made.invites, names: body.seats.map((s, i) => s.name || `Player ${i + 1}`), created: Date.now(), practice: body.practice });
      location.href = `/game/${made.id}`;
    } catch (error) {
      toast(error.message);
      start.disabled = false;
    }
  }

  drawModes();
  drawSeats();
  computerChoices().then((found) => {
    computers = found;
    drawSeats();
  });
  const form = el("form", { class: "new-game card", onsubmit: submit },
    el("h2", {}, "New game"),
    modeBox,
    el("h3", {}, "Players"),
    seatBox,
    el("p", { class: "note" }, "“Here” seats are played at this screen, in turn. An “online” seat gets an invitation link to send. Computer seats play by themselves."),
    el("div", { class: "options" },
      firstBox,
      el("label", { class: "toggle", for: "practice" }, practiceBox, "Practice (undo allowed)")),
    el("details", {}, el("summary", {}, "More"), el("label", { for: "seed" }, "Seed of the shuffle "), seed,
      el("p", { class: "note" }, "A game of a chosen seed does not go into a campaign; with an online seat the server draws the seed.")),
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
        if (g.broken) {
          status.textContent = `broken: ${g.broken}`;
          status.className = "bad";
          return;
        }
        status.textContent = `${g.over ? "finished" : `move ${g.turn}`}${g.practice ? " · practice" : ""}`;
        if (g.over) rememberGame(id, { over: true });
      }).catch((e) => {
        status.textContent = e.code === "broken" ? e.message : "gone";
        if (e.code === "broken") status.className = "bad";
      });
    }
  }
  box.appendChild(list);
  return box;
}

export async function joinPage(root, id, code) {
  const box = el("section", { class: "card join" }, el("h1", { class: "page-title" }, "Join a game"));
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
