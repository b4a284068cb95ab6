// The front page's live part (docs/server.md, "The lobby and pairing"): the open games waiting for
// people, kept live over /ws/lobby (the whole list, then deltas, patch.js), one click takes a seat;
// quick pairing (a mode and a clock: the server pairs the seek, both land in the game page); and
// the player's own games from the server, their move first, a rematch on each finished one.
import { patch } from "./patch.js";
import { api, el, modeName, put, rememberGame, toast } from "./util.js";
import { serverError, t } from "./i18n.js";
import { asPlayer, whoAmI } from "./players.js";
import { attentionControls, handle as attend } from "./attention.js";

/** The clocks the quick pairing box offers (the server takes any M+S or Nd it allows). */
const CLOCKS = ["3+2", "5+3", "10+5", "15+10", "1d", "3d"];
const PAIRED_MODES = ["duel", "head-to-head"];

function clockText(clock) {
  return clock ? (clock.endsWith("d") ? t("play.clock.days", { count: Number(clock.slice(0, -1)) }) : clock) : t("play.clock.none");
}

/** "expires in …": an open game nobody takes leaves the list (30 minutes for real time, a day else). */
function expiresText(expires) {
  if (typeof expires !== "number") return "";
  // Rounded, not raised: the server says when to the second, so a new game may have 30 min 0.4 s.
  const minutes = Math.max(1, Math.round((expires * 1000 - Date.now()) / 60000));
  return minutes < 120 ? t("play.open.expires_minutes", { count: minutes }) : t("play.open.expires_hours", { count: Math.round(minutes / 60) });
}

function ratingText(rating, provisional) {
  if (rating === null || rating === undefined) return "";
  return provisional ? `${rating}?` : String(rating);
}

/** Into a game just seated in: remember the seat's token (the game page says hello with it). */
function land(game, mode, seat, token) {
  rememberGame(game, { mode, tokens: { [String(seat)]: token }, created: Date.now() });
  location.href = `/game/${game}`;
}

class LobbySocket {
  constructor(on) {
    this.on = on;
    this.doc = null;
    this.nextId = 1;
    this.waiting = new Map();
    this.retry = 0;
    this.connect();
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/lobby`);
    this.ws = ws;
    ws.onopen = () => { this.retry = 0; this.on.open(); };
    ws.onmessage = (event) => this.onMessage(JSON.parse(event.data));
    ws.onclose = () => {
      this.on.lost();
      for (const [, reject] of this.waiting.values()) reject(new Error(t("play.lost")));
      this.waiting.clear();
      setTimeout(() => this.connect(), Math.min(5000, 250 * 2 ** this.retry++));
    };
  }

  onMessage(message) {
    if (message.type === "lobby") {
      this.doc = { version: message.version, games: message.games };
      this.on.games(this.doc.games);
    } else if (message.type === "delta") {
      if (!this.doc || message.from !== this.doc.version) {
        this.send({ type: "sync" });
        return;
      }
      try {
        this.doc = patch(this.doc, message.ops);
        this.on.games(this.doc.games);
      } catch {
        this.send({ type: "sync" });
      }
    } else if (message.type === "paired") {
      this.on.paired(message);
    } else if (message.type === "seekers") {
      this.on.seekers(message.pools || []);
    } else if (message.type === "rematch") {
      this.on.rematch?.(message); // offered to this player just now
    } else if (message.type === "attention") {
      this.on.attention?.(message); // something waits for this player (attention.js)
    }
    const pending = message.id !== undefined && this.waiting.get(message.id);
    if (pending) {
      this.waiting.delete(message.id);
      if (message.type === "error") {
        const error = new Error(serverError(message.code, message.message));
        error.code = message.code;
        pending[1](error);
      } else pending[0](message);
    } else if (message.type === "error") {
      toast(serverError(message.code, message.message));
    }
  }

  send(message) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** Open again at once (a player just made: the new socket carries its cookie). */
  reopen() {
    return new Promise((resolve) => {
      const opened = this.on.open;
      this.on.open = () => { this.on.open = opened; opened(); resolve(); };
      this.ws.onclose = null;
      this.ws.close();
      this.connect();
    });
  }

  request(message) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.ws.readyState !== WebSocket.OPEN) {
        reject(new Error(t("play.lost")));
        return;
      }
      this.waiting.set(id, [resolve, reject]);
      this.ws.send(JSON.stringify({ ...message, id }));
    });
  }
}

/** The live lobby's three cards: quick pairing, the open games, your games (the server's list of
 * the player's games, then ``remembered(ids)``: the rows of the games only this browser knows). */
export function liveLobby(remembered = () => []) {
  let me = null;
  const openList = el("ul", { class: "open-games", id: "open-games", "aria-live": "polite" });
  const openBox = el("section", { class: "card lobby-open" }, el("h2", {}, t("play.open.title")), openList);
  const status = el("p", { class: "note seek-status", id: "seek-status", role: "status" });
  // How many are looking in each pool (counts only, live: "seekers"), and how long you have waited.
  const poolsLine = el("p", { class: "note seek-pools", id: "seek-pools" });
  const waitedLine = el("p", { class: "note seek-waited", id: "seek-waited", "aria-live": "off" });
  let pools = [];
  let seekStarted = 0;
  let waitTimer = null;
  let seeking = null;
  let lastGames = {};

  const modeSelect = el("select", { id: "pair-mode", "aria-label": t("play.pair.mode") },
    PAIRED_MODES.map((m) => el("option", { value: m, selected: m === (localStorage.getItem("dorf.pair.mode") || "duel") }, modeName(m))));
  let clock = localStorage.getItem("dorf.pair.clock") || "3+2";
  const clockBox = el("div", { class: "clock-choices", role: "radiogroup", "aria-label": t("play.pair.clock") });
  /** How many look in the pool of the mode chosen, clock `c`, rated or not as chosen. */
  const lookingIn = (c) => {
    const pool = pools.find((p) => p.mode === modeSelect.value && p.clock === c && p.rated === rated.checked);
    return pool ? pool.count : 0;
  };
  const drawClocks = () => put(clockBox, ...CLOCKS.map((c) => {
    const n = pools.length ? lookingIn(c) : 0;
    return el("button", { type: "button", class: `clock-choice small${c === clock ? " chosen" : " secondary"}`, role: "radio", "aria-checked": c === clock ? "true" : "false", "data-clock": c,
      "data-looking": String(n), title: n ? t("play.pair.looking", { count: n }) : null,
      onclick: () => { clock = c; localStorage.setItem("dorf.pair.clock", c); drawClocks(); } }, clockText(c),
    n ? el("span", { class: "looking-count", "aria-label": t("play.pair.looking", { count: n }) }, String(n)) : null);
  }));
  const drawPools = () => {
    drawClocks();
    put(poolsLine, pools.length
      ? [t("play.pair.pools"), " ", ...pools.flatMap((p, i) => [i ? " · " : "", el("span", { class: "seek-pool", "data-mode": p.mode, "data-clock": p.clock ?? "", "data-rated": String(p.rated), "data-count": String(p.count) },
        `${modeName(p.mode)} ${clockText(p.clock)} ${p.rated ? t("play.rated") : t("play.casual")}: `, el("b", {}, String(p.count)))])]
      : t("play.pair.nobody"));
  };
  const rated = el("input", { type: "checkbox", id: "pair-rated", checked: localStorage.getItem("dorf.pair.rated") !== "0",
    onchange: (e) => { localStorage.setItem("dorf.pair.rated", e.target.checked ? "1" : "0"); drawClocks(); } });
  modeSelect.addEventListener("change", () => drawClocks());
  drawClocks();
  const drawWaited = () => {
    if (!seeking) { waitedLine.textContent = ""; return; }
    const s = Math.max(0, Math.floor((Date.now() - seekStarted) / 1000));
    waitedLine.textContent = t("play.pair.waited", { time: `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}` });
  };
  const seekButton = el("button", { type: "button", id: "seek", class: "primary" }, t("play.pair.go"));
  const cancelButton = el("button", { type: "button", id: "seek-cancel", class: "secondary hidden" }, t("play.pair.cancel"));
  const quickBox = el("section", { class: "card quick-pairing" },
    el("h2", {}, t("play.pair.title")),
    el("p", { class: "note" }, t("play.pair.note")),
    el("label", { for: "pair-mode" }, t("play.pair.mode"), " "), modeSelect,
    clockBox,
    el("label", { class: "toggle", for: "pair-rated" }, rated, t("play.pair.rated")),
    el("div", { class: "actions" }, seekButton, cancelButton),
    status, waitedLine, poolsLine);

  const mineList = el("div", { class: "my-games", id: "my-games" });
  // The tab says when something waits for the player (attention.js): notifications and sound are theirs to switch on.
  const mineBox = el("section", { class: "card your-games" }, el("h2", {}, t("lobby.your_games")), mineList, attentionControls());

  function drawGames(games) {
    lastGames = games;
    const entries = Object.values(games).sort((a, b) => a.since - b.since);
    if (!entries.length) {
      put(openList, el("li", { class: "note empty" }, t("play.open.none")));
      return;
    }
    put(openList, ...entries.map((g) => {
      const mine = me && g.name === me.name;
      const take = el("button", { type: "button", class: "small", "data-game": g.id,
        onclick: async () => {
          take.disabled = true;
          try {
            if (mine) {
              await socket.request({ type: "withdraw", game: g.id });
              return;
            }
            await playerSocket();
            const seated = await socket.request({ type: "take", game: g.id });
            land(seated.game, seated.mode, seated.seat, seated.token);
          } catch (error) {
            toast(error.message);
            take.disabled = false;
          }
        } }, mine ? t("play.open.withdraw") : t("play.open.take"));
      for (const name of mine ? ["secondary", "withdraw"] : ["take"]) take.classList.add(name);
      const free = g.seats > 2 ? t("play.open.free_of", { free: g.free, seats: g.seats }) : t("play.open.free", { count: g.free });
      return el("li", { class: "open-game", "data-game": g.id },
        el("span", { class: "open-mode" }, el("b", {}, modeName(g.mode)), " ", el("small", {}, clockText(g.clock))),
        el("span", { class: "open-kind" }, g.rated ? t("play.rated") : t("play.casual")),
        el("span", { class: "open-who" }, g.name, g.rating !== null ? el("small", { class: "rating" }, ` ${ratingText(g.rating, g.provisional)}`) : null),
        el("span", { class: "open-free" }, free, el("small", { class: "open-expires", "data-expires": String(g.expires) }, expiresText(g.expires))),
        take);
    }));
  }

  function seekDone(message) {
    seeking = null;
    if (waitTimer) clearInterval(waitTimer);
    waitTimer = null;
    drawWaited();
    seekButton.disabled = false;
    cancelButton.classList.add("hidden");
    status.textContent = message || "";
  }

  let socket = null;
  /** Before a seek or a take: a visitor becomes a player, and the socket opens again with its cookie. */
  async function playerSocket() {
    if (me && me.player !== false) return;
    me = await asPlayer();
    drawGames(lastGames);
    await socket.reopen();
  }
  // The socket after /api/me (a visitor's socket: it watches; playerSocket opens another once it is a player).
  const connect = () => new LobbySocket({
    open: () => { if (seeking) seekDone(t("play.pair.again")); },
    lost: () => { put(openList, el("li", { class: "note" }, t("play.lost"))); },
    games: drawGames,
    seekers: (counted) => { pools = counted; drawPools(); },
    rematch: () => api("GET", "/api/me/games").then(drawMine).catch(() => {}),
    attention: (message) => {
      attend(message);
      if (message.kind === "your-move") api("GET", "/api/me/games").then(drawMine).catch(() => {});
    },
    paired: (message) => {
      status.textContent = t("play.pair.found");
      land(message.game, message.mode, message.seat, message.token);
    },
  });

  seekButton.addEventListener("click", async () => {
    seekButton.disabled = true;
    localStorage.setItem("dorf.pair.mode", modeSelect.value);
    try {
      if (!socket) throw new Error(t("play.lost"));
      await playerSocket();
      const answer = await socket.request({ type: "seek", mode: modeSelect.value, clock, rated: rated.checked });
      seeking = answer.seek.id;
      seekStarted = Date.now();
      drawWaited();
      waitTimer = setInterval(drawWaited, 1000);
      cancelButton.classList.remove("hidden");
      status.textContent = t("play.pair.waiting", { mode: modeName(answer.seek.mode), clock: clockText(answer.seek.clock), rating: answer.seek.rating });
    } catch (error) {
      seekDone("");
      toast(error.message);
    }
  });
  cancelButton.addEventListener("click", async () => {
    if (!seeking) return;
    try { await socket.request({ type: "cancel", seek: seeking }); } catch { /* paired or gone meanwhile */ }
    seekDone(t("play.pair.cancelled"));
  });

  function drawMine(data) {
    const games = (data && data.games) || [];
    const offers = (data && data.offers) || [];
    const rows = [];
    for (const offer of offers) {
      const accept = el("button", { type: "button", class: "small", onclick: async () => {
        accept.disabled = true;
        try {
          const seated = await socket.request({ type: "take", game: offer.id });
          land(seated.game, seated.mode, seated.seat, seated.token);
        } catch (error) { toast(error.message); accept.disabled = false; }
      } }, t("play.mine.accept"));
      rows.push(el("li", { class: "my-game offer" }, el("b", {}, modeName(offer.mode)), " ", t("play.mine.offer", { name: offer.name }), " ", accept));
    }
    for (const g of games) {
      const state = g.over ? (g.result ? t(`play.result.${g.result}`) : t("play.mine.over")) : g.your_move ? t("play.mine.your_move") : t("play.mine.their_move");
      const rematch = g.over && g.rematch ? el("button", { type: "button", class: "small secondary rematch", "data-game": g.id, onclick: async () => {
        rematch.disabled = true;
        try {
          const made = await api("POST", `/api/games/${g.id}/rematch`, {});
          rememberGame(made.id, { mode: made.mode, tokens: made.tokens, created: Date.now() });
          location.href = `/game/${made.id}`;
        } catch (error) { toast(error.message); rematch.disabled = false; }
      } }, t("play.mine.rematch")) : null;
      rows.push(el("li", { class: `my-game${g.your_move ? " my-move" : ""}`, "data-game": g.id },
        el("a", { href: `/game/${g.id}` }, modeName(g.mode)), " ",
        el("span", {}, (g.opponents || []).join(", ")), " ",
        el("small", {}, [...(PAIRED_MODES.includes(g.mode) ? [clockText(g.clock), g.rated ? t("play.rated") : t("play.casual")] : []), state].join(" · ")), " ", rematch));
    }
    rows.push(...remembered(new Set(games.map((g) => g.id))));
    // Nothing yet: a newcomer's place to start learning (issue 61).
    put(mineList, rows.length ? el("ul", { class: "games" }, rows) : el("p", { class: "note", id: "no-games" }, t("lobby.no_games"), " ",
      el("a", { class: "howto-link", href: "/how-to-play" }, t("howto.new"))));
  }

  whoAmI().then((found) => {
    me = found;
    drawGames(lastGames);
  }).catch(() => {}).finally(() => { socket = connect(); });
  api("GET", "/api/me/games").then(drawMine).catch(() => drawMine(null));
  // "expires in …" counts down while the page is open.
  setInterval(() => {
    for (const span of openList.querySelectorAll(".open-expires")) span.textContent = expiresText(Number(span.dataset.expires));
  }, 30000);

  return { quickBox, openBox, mineBox };
}
