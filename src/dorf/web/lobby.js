// The start page: today's challenge (daily.js) at the top, quick pairing and the open games
// (lobby-live.js), the leaderboards (leaderboard.js), then choose a game, its seats (here, online,
// computer) and start; the player's games (the server's list and those only this browser knows,
// one list); and the page an invited player opens to take a seat.
import { api, el, forgetGame, rememberGame, rememberedGames, toast, modeName, listOf, put } from "./util.js";
import { tileIcon } from "./hex.js";
import { language, server, t, term } from "./i18n.js";
import { liveLobby } from "./lobby-live.js";
import { dailyCard } from "./daily.js";
import { leaderboardCards } from "./leaderboard.js";
import { asPlayer } from "./players.js";

// The games (their names and blurbs are the catalog's mode.ID and lobby.blurb.ID).
const MODES = [
  { id: "coop", seats: [1, 6] },
  { id: "duel", seats: [2, 2] },
  { id: "head-to-head", seats: [2, 2] },
];

/** The computer players offered when the server does not list its levels (GET /api/levels). */
const FALLBACK_PLAYERS = () => [
  ["computer:random", t("lobby.computer", { level: t("lobby.fallback.random") })],
  ["computer:greedy", t("lobby.computer", { level: t("lobby.fallback.greedy") })],
  ["computer:search:1s", t("lobby.computer", { level: t("lobby.fallback.search1") })],
  ["computer:search:3s", t("lobby.computer", { level: t("lobby.fallback.search3") })],
];
const PEOPLE = () => [
  ["here", t("lobby.seat.here")],
  ["online", t("lobby.seat.online")],
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
    if (!levels.length) return { choices: FALLBACK_PLAYERS, preferred: "computer:greedy" };
    // Each level with its measured strength in the chosen game, where the server gives it per game.
    const choices = (mode) => levels.map((l) => {
      const figure = (l.figures && l.figures[mode]) || l.figure;
      // A short label fits a phone's select; its strength is said below the seat (and in the title).
      const label = term("level.", l.name) !== l.name ? t(`level.${l.name}`) : l.label || l.name;
      return [`computer:${l.player ?? l.name}`, t("lobby.computer", { level: label }), figure ? t("lobby.strength", { level: label, figure: server(figure) }) : ""];
    });
    const medium = levels.find((l) => l.name === "medium") || levels[Math.min(1, levels.length - 1)];
    return { choices, preferred: `computer:${medium.player ?? medium.name}` };
  } catch {
    return { choices: FALLBACK_PLAYERS, preferred: "computer:greedy" };
  }
}

/** A seat's name when none is typed: the server's default in English ("Player 2", "Computer 2
 * (medium)"); in another language the page names the seat in it. */
function defaultName(kind, player, i) {
  if (language() === "en") return undefined;
  if (kind === "computer") return t("seat.computer", { n: i + 1, level: term("level.", player) });
  return t("seat.player", { n: i + 1 });
}

export function lobbyPage(root) {
  let mode = localStorage.getItem("dorf.mode") || "coop";
  let computers = { choices: FALLBACK_PLAYERS, preferred: "computer:greedy" };
  let practice = localStorage.getItem("dorf.practice") === "1";
  let first = 1;
  const defaults = (m) => (m === "coop" ? [{ who: "here", name: "" }] : [{ who: "here", name: "" }, { who: computers.preferred, name: "" }]);
  let seats = defaults(mode);

  const modeBox = el("div", { class: "modes", role: "radiogroup", "aria-label": t("lobby.game_label") });
  const seatBox = el("div", { class: "seat-list" });
  const firstBox = el("label", { class: "first-choice" });
  // Text, not a number field: the digits go to the server as typed (a JavaScript number keeps 53 bits).
  const seed = el("input", { id: "seed", type: "text", placeholder: t("lobby.seed.random"), inputmode: "numeric", pattern: "\\s*-?[0-9]{1,19}\\s*", maxlength: "24", autocomplete: "off", title: t("lobby.seed.title") });
  const start = el("button", { id: "start", type: "submit", class: "primary" }, t("lobby.start"));
  // Open: the online seats are for anyone, taken from the lobby's list without a link.
  const openBox = el("input", { type: "checkbox", id: "open-game" });
  // The clock of a Duel or Head to Head (none: as games by link always were; docs/server.md "Clocks").
  const clockBox = el("select", { id: "clock", "aria-label": t("create.clock") },
    ["", "3+2", "5+3", "10+5", "15+10", "1d", "3d", "7d"].map((c) => el("option", { value: c }, c || t("create.clock_none"))));
  const clockLabel = el("label", { class: "clock-choice", for: "clock" }, `${t("create.clock")} `, clockBox);
  const practiceBox = el("input", {
    type: "checkbox", id: "practice", checked: practice,
    onchange: (e) => { practice = e.target.checked; localStorage.setItem("dorf.practice", practice ? "1" : "0"); drawFirst(); },
  });
  // Rated: the Duel or Head to Head between this player and one other, or a computer level
  // (docs/server.md "Rated games"); never practice, never a chosen seed.
  const ratedBox = el("input", { type: "checkbox", id: "rated", onchange: () => drawFirst() });

  function drawModes() {
    put(modeBox, ...MODES.map((m) =>
      el("label", { class: `mode${m.id === mode ? " chosen" : ""}` },
        el("input", { type: "radio", name: "mode", value: m.id, checked: m.id === mode, onchange: () => { mode = m.id; localStorage.setItem("dorf.mode", mode); seats = defaults(mode); first = 1; drawModes(); drawSeats(); } }),
        el("span", { class: "mode-art", html: tileIcon(ART[m.id][0], ART[m.id][1], {}, 54) }),
        el("span", {}, el("b", {}, modeName(m.id)), el("br"), el("small", {}, t(`lobby.blurb.${m.id}`))))));
  }

  function drawSeats() {
    const spec = MODES.find((m) => m.id === mode);
    const kinds = [...PEOPLE(), ...computers.choices(mode)];
    put(seatBox, ...seats.map((seat, i) => {
      if (!kinds.some(([value]) => value === seat.who)) seat.who = seat.who.startsWith("computer") ? computers.preferred : "here";
      const about = el("small", { class: "seat-about" });
      const describe = () => {
        const strength = (kinds.find(([value]) => value === seat.who) || [])[2] || "";
        about.textContent = strength;
        about.classList.toggle("hidden", !strength);
        select.title = strength;
      };
      const select = el("select", { "aria-label": t("lobby.seat.who", { n: i + 1 }), class: "seat-kind", onchange: (e) => { seat.who = e.target.value; describe(); drawFirst(); } },
        kinds.map(([value, label, strength]) => el("option", { value, selected: value === seat.who, title: strength || undefined }, label)));
      describe();
      const name = el("input", { class: "seat-name", "aria-label": t("lobby.seat.name", { n: i + 1 }), placeholder: t("seat.player", { n: i + 1 }), value: seat.name, maxlength: "40", oninput: (e) => { seat.name = e.target.value; drawFirst(); } });
      const remove = seats.length > spec.seats[0]
        ? el("button", { type: "button", class: "small secondary", "aria-label": t("lobby.seat.remove", { n: i + 1 }), onclick: () => { seats.splice(i, 1); first = 1; drawSeats(); } }, "✕")
        : null;
      return el("div", { class: "seat-row" }, el("span", { class: "seat-no" }, String(i + 1)), name, select, remove, about);
    }));
    if (seats.length < spec.seats[1]) {
      seatBox.appendChild(el("button", { type: "button", class: "small secondary", id: "add-seat", onclick: () => { seats.push({ who: "here", name: "" }); drawSeats(); } }, t("lobby.add_player")));
    }
    drawFirst();
  }

  /** Who starts: the first player, the first to pick in the draft, the first named seat. */
  function drawFirst() {
    clockLabel.classList.toggle("hidden", mode === "coop");
    ratedBox.closest("label")?.classList.toggle("hidden", mode === "coop");
    firstBox.classList.toggle("hidden", seats.length < 2);
    if (seats.length < 2) {
      openBox.disabled = true;
      practiceBox.disabled = false;
      ratedBox.disabled = true;
      seed.disabled = false;
      seed.placeholder = t("lobby.seed.random");
      return;
    }
    const label = (i) => seats[i].name.trim() || t("seat.player", { n: i + 1 });
    const what = mode === "head-to-head" ? t("lobby.first.pick") : t("lobby.first.start");
    put(firstBox, `${what} `, el("select", { id: "first", "aria-label": what.toLowerCase(), onchange: (e) => { first = Number(e.target.value); } },
      seats.map((_, i) => el("option", { value: String(i + 1), selected: first === i + 1 }, t("lobby.first.option", { name: label(i), n: i + 1 })))));
    // Undo would take back an online player's move: a practice game is played at one screen.
    const online = seats.some((s) => s.who === "online");
    // A game against oneself is not rated: exactly one seat at this screen.
    const ratable = mode !== "coop" && seats.filter((s) => s.who === "here").length === 1 && !practiceBox.checked;
    ratedBox.disabled = !ratable;
    ratedBox.closest("label")?.classList.toggle("disabled", !ratable);
    ratedBox.title = ratable ? t("lobby.rated.note") : t("lobby.rated.not");
    const rated = ratable && ratedBox.checked;
    practiceBox.disabled = online || rated;
    openBox.disabled = !online;
    openBox.closest("label")?.classList.toggle("disabled", !online);
    practiceBox.closest("label")?.classList.toggle("disabled", online || rated);
    practiceBox.title = online ? t("lobby.practice.online") : "";
    // Whoever chose the seed would know every tile: with an online seat (or rated) the server draws it.
    seed.disabled = online || rated;
    seed.placeholder = online || rated ? t("lobby.seed.server") : t("lobby.seed.random");
  }

  async function submit(event) {
    event.preventDefault();
    const body = {
      mode,
      seats: seats.map((s, i) => {
        const [kind, ...rest] = s.who.split(":");
        // The one seat here of a game against people online goes by this player's name (the server's).
        const own = kind === "here" && seats.filter((x) => x.who === "here").length === 1 && seats.some((x) => x.who === "online");
        const seat = { kind, name: s.name.trim() || (own ? undefined : defaultName(kind, rest.join(":"), i)) };
        if (kind === "computer") seat.player = rest.join(":");
        return seat;
      }),
      practice: practice && !practiceBox.disabled,
    };
    if (openBox.checked && !openBox.disabled) body.open = true;
    if (ratedBox.checked && !ratedBox.disabled) body.rated = true;
    if (seats.length > 1) body.first = first;
    if (clockBox.value && mode !== "coop" && !body.practice) body.clock = clockBox.value;
    if (seed.value.trim() && !seed.disabled) body.seed = seed.value.trim();
    start.disabled = true;
    try {
      await asPlayer().catch(() => null); // the game is this player's (its list, a rated game's rating)
      const made = await api("POST", "/api/games", body);
      rememberGame(made.id, { mode, tokens: made.tokens, invites: made.invites, names: body.seats.map((s, i) => s.name || t("seat.player", { n: i + 1 })), created: Date.now(), practice: body.practice });
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
    el("h2", {}, t("lobby.new_game")),
    modeBox,
    el("h3", {}, t("lobby.players")),
    seatBox,
    el("p", { class: "note" }, t("lobby.seats_note")),
    el("div", { class: "options" },
      firstBox,
      clockLabel,
      el("label", { class: "toggle", for: "rated" }, ratedBox, t("lobby.rated")),
      el("label", { class: "toggle", for: "practice" }, practiceBox, t("lobby.practice")),
      el("label", { class: "toggle", for: "open-game", title: t("play.open.option_note") }, openBox, t("play.open.option"))),
    el("details", {}, el("summary", {}, t("lobby.more")), el("label", { for: "seed" }, t("lobby.seed.label"), " "), seed,
      el("p", { class: "note" }, t("lobby.seed.note"))),
    el("div", { class: "actions" }, start));

  drawFirst();
  const live = liveLobby(rememberedRows);
  put(root, el("div", { class: "lobby" },
    el("section", { class: "intro" },
      el("h1", {}, t("lobby.title")),
      el("p", {}, t("lobby.intro")),
      soloStart()),
    dailyCard(),
    el("div", { class: "play-now" }, live.quickBox, live.openBox),
    leaderboardCards(),
    form,
    el("div", { class: "lobby-side" }, live.mineBox)));
}

/** The one-tap start at the top of the front page (issue 61): a solo game of the Board Game (not
 * practice, not the daily challenge), How to play beside it, and for a first-time player (no game
 * in this browser) word that the daily challenge's first game counts. */
function soloStart() {
  const button = el("button", { type: "button", id: "solo-start", class: "primary" }, t("lobby.solo"));
  button.addEventListener("click", async () => {
    button.disabled = true;
    const seat = { kind: "here", name: defaultName("here", "", 0) };
    try {
      await asPlayer().catch(() => null);
      const made = await api("POST", "/api/games", { mode: "coop", seats: [seat], practice: false });
      rememberGame(made.id, { mode: "coop", tokens: made.tokens, invites: made.invites, names: [seat.name || t("seat.player", { n: 1 })], created: Date.now(), practice: false, tips: true });
      location.href = `/game/${made.id}`;
    } catch (error) {
      toast(error.message);
      button.disabled = false;
    }
  });
  const first = Object.keys(rememberedGames()).length === 0;
  return el("div", { class: "solo-start", id: "solo" },
    el("div", { class: "actions" }, button, el("a", { class: "button secondary", id: "how-to-play-link", href: "/how-to-play" }, t("nav.how_to_play"))),
    el("p", { class: "note" }, t("lobby.solo_note")),
    first ? el("p", { class: "daily-first", id: "daily-first", role: "note" }, t("lobby.daily_first")) : null);
}

/** The games this browser remembers that the server's list of the player's games does not hold
 * (games by link, from before the player had a cookie, or of a seat another browser made): rows
 * for the one "Your games" list, each with its state and a button to forget it. */
function rememberedRows(known) {
  const games = Object.entries(rememberedGames()).filter(([id]) => !known.has(id))
    .sort((a, b) => (b[1].seen || 0) - (a[1].seen || 0)).slice(0, 30);
  return games.map(([id, info]) => {
    const status = el("small", {}, info.over ? t("lobby.game.finished") : "");
    const item = el("li", { class: "my-game remembered", "data-game": id },
      el("a", { href: `/game/${id}` }, modeName(info.mode)),
      " ", el("span", {}, (info.names || []).join(", ")), " ", status,
      el("button", { type: "button", class: "small secondary", "aria-label": t("lobby.forget"), onclick: () => { forgetGame(id); item.remove(); } }, "✕"));
    if (!info.over) {
      api("GET", `/api/games/${id}`).then((g) => {
        if (g.broken) {
          status.textContent = t("lobby.game.broken", { reason: server(g.broken) });
          status.className = "bad";
          return;
        }
        status.textContent = [g.over ? t("lobby.game.finished") : t("lobby.game.move", { n: g.turn }), g.practice ? t("lobby.game.practice") : null].filter(Boolean).join(" · ");
        if (g.over) rememberGame(id, { over: true });
      }).catch((e) => {
        status.textContent = e.code === "broken" ? e.message : t("lobby.game.gone");
        if (e.code === "broken") status.className = "bad";
      });
    }
    return item;
  });
}

export async function joinPage(root, id, code) {
  const box = el("section", { class: "card join" }, el("h1", { class: "page-title" }, t("join.title")));
  put(root, el("div", { class: "lobby narrow" }, box));
  let game;
  try {
    game = await api("GET", `/api/games/${id}`);
  } catch (error) {
    box.appendChild(el("p", {}, error.message));
    return;
  }
  const open = game.seats.filter((s) => s.kind === "online" && !s.claimed);
  const hosts = game.seats.filter((s) => s.kind !== "online").map((s) => s.name);
  box.appendChild(el("p", {}, t(`join.invites.${game.mode === "coop" ? "coop" : "versus"}`, { host: hosts.length ? listOf(hosts) : t("join.someone"), mode: modeName(game.mode) })));
  if (!open.length) {
    box.appendChild(el("p", {}, t("join.full")));
    box.appendChild(el("a", { class: "button", href: `/game/${id}` }, t("join.watch")));
    return;
  }
  const name = el("input", { id: "join-name", placeholder: t("join.name"), maxlength: "40", value: localStorage.getItem("dorf.name") || "" });
  const button = el("button", { id: "join-button", type: "submit", class: "primary" }, t("join.take"));
  const form = el("form", {
    onsubmit: async (event) => {
      event.preventDefault();
      button.disabled = true;
      try {
        if (name.value.trim()) localStorage.setItem("dorf.name", name.value.trim());
        await asPlayer().catch(() => null);
        const seat = await api("POST", `/api/games/${id}/join`, { invite: code, name: name.value.trim() || undefined });
        rememberGame(id, { mode: game.mode, tokens: { [String(seat.seat)]: seat.token }, names: game.seats.map((s) => s.name) });
        location.href = `/game/${id}`;
      } catch (error) {
        toast(error.message);
        button.disabled = false;
      }
    },
  }, el("label", { for: "join-name" }, t("join.name"), " "), name, " ", button);
  box.appendChild(form);
}
