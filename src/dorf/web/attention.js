// Attention in the tab (issue 63; docs/server.md, "Attention"): when something waits for the player
// in any of their games (their move, a rematch offered, a proposal at their table, a campaign's next
// game), the tab says so: its title ("(1) Your move · dorf") and its icon (the favicon with a dot),
// a short sound if the player switched it on, and the browser's notification if they allowed it
// (asked only when they click "Notify me", never on load). It clears when the player looks at the
// tab showing that game (or page).
//
// For other modules: raise(kind, text, url, game) and clear(kind, game). The server's messages
// ({"type": "attention", "kind", "game", "mode", "text"} on the lobby socket) go through handle();
// the front page's lobby socket hands them here, every other page listens with listen().
import { t } from "./i18n.js";
import { el, modeName } from "./util.js";

let icon = null; // the page's icon (its build's address), and the same with the dot
const dotted = (href) => href.replace(/favicon\.svg$/, "favicon-dot.svg");
const SOUND_KEY = "dorf.attention.sound";
const NOTIFY_KEY = "dorf.attention.notify";

/** What waits for the player, oldest first: { kind, game, text, urls } (the pages that show it). */
const waiting = [];
/** When each kind and game was last seen raised on the page looked at (the same told twice, by the
 * game's socket and the lobby's, is seen once). */
const seenAt = new Map();
const SEEN_FOR = 5000;
let base = null; // the page's own title
let shown = null; // the title set here (a page that sets another is the new base)

/** Whether the player looks at this tab now. */
function looking() {
  return !document.hidden && document.hasFocus();
}

/** Whether this tab shows what `url` names (or one of `urls`). */
function here(url) {
  return Array.isArray(url) ? url.includes(location.pathname) : location.pathname === url;
}

function setIcon(dot) {
  const link = document.querySelector("link[rel~='icon']");
  if (!link) return;
  icon = icon || link.getAttribute("href");
  const href = dot ? dotted(icon) : icon;
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
}

function draw() {
  if (document.title !== shown) base = document.title;
  if (!waiting.length) {
    if (shown !== null && document.title === shown) document.title = base;
    shown = null;
    setIcon(false);
    document.documentElement.removeAttribute("data-attention");
    return;
  }
  const last = waiting[waiting.length - 1];
  shown = `(${waiting.length}) ${last.text} · ${base}`;
  document.title = shown;
  setIcon(true);
  document.documentElement.dataset.attention = String(waiting.length);
}

function ring() {
  if (localStorage.getItem(SOUND_KEY) !== "1") return;
  try {
    const Audio = window.AudioContext || window.webkitAudioContext;
    const audio = new Audio();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
    tone.onended = () => audio.close();
  } catch { /* no sound here: the title and icon still say it */ }
}

function notify(item, body) {
  if (localStorage.getItem(NOTIFY_KEY) !== "1" || typeof window.Notification !== "function" || Notification.permission !== "granted") return;
  try {
    const note = new Notification(item.text, { body: body || "", tag: `${item.kind}:${item.game ?? ""}`, icon: dotted(icon || "/static/favicon.svg") });
    note.onclick = () => { window.focus(); if (!here(item.urls)) location.href = item.urls[0]; note.close(); };
  } catch { /* some browsers allow notifications from a service worker only */ }
}

/** Say in the tab that `kind` waits for the player (`text`, short: it goes into the title), shown
 * by the page at `url`; `game` tells one from another (a second of the same kind and game replaces
 * the first, and either page clears it). Nothing when the player looks at that page now. Whether
 * it was raised. */
export function raise(kind, text, url, game = null, body = "") {
  const key = `${kind}:${game ?? ""}`;
  const old = waiting.findIndex((w) => w.kind === kind && w.game === game);
  if (here(url) && looking()) { // seen here and now: no more waiting elsewhere either
    seenAt.set(key, Date.now());
    if (old >= 0) { waiting.splice(old, 1); draw(); }
    return false;
  }
  if (Date.now() - (seenAt.get(key) || 0) < SEEN_FOR) return false;
  const urls = old >= 0 ? [...new Set([url, ...waiting[old].urls])] : [url];
  if (old >= 0) waiting.splice(old, 1);
  const item = { kind, game, text, urls };
  waiting.push(item);
  draw();
  ring();
  if (!looking()) notify(item, body);
  return true;
}

/** Take back what waits: of `kind` (all kinds if null) and `game` (all games if null). */
export function clear(kind = null, game = null) {
  let i = waiting.length;
  while (i--) {
    const w = waiting[i];
    if ((kind === null || w.kind === kind) && (game === null || w.game === game)) waiting.splice(i, 1);
  }
  draw();
}

/** What waits now (a copy). */
export function pending() {
  return waiting.map((w) => ({ ...w, urls: [...w.urls] }));
}

/** The player looks at this tab: what it shows no longer waits. */
function seen() {
  if (!looking()) return;
  const before = waiting.length;
  for (let i = waiting.length; i--;) if (here(waiting[i].urls)) waiting.splice(i, 1);
  if (waiting.length !== before) draw();
}
window.addEventListener("focus", seen);
document.addEventListener("visibilitychange", seen);

/** Where each kind is seen: a game's page, or the front page (a rematch is accepted there). */
function urlOf(message) {
  if (message.kind === "rematch") return "/";
  if (message.kind === "campaign" && message.url) return message.url;
  return `/game/${encodeURIComponent(message.game)}`;
}

/** A server's `attention` message: raised in the page's words. */
export function handle(message) {
  const kind = ["your-move", "rematch", "proposal", "campaign"].includes(message.kind) ? message.kind : null;
  if (!kind) return false;
  const mode = message.mode ? modeName(message.mode) : "";
  const text = t(`attention.title.${kind}`);
  const body = t(`attention.body.${kind}`, { mode, name: message.name || "" });
  return raise(kind, text, urlOf(message), message.game ?? null, body);
}

/** On the pages without the lobby's own socket: a quiet lobby socket that hears only attention
 * (`/ws/lobby?only=attention`), opened again when it closes. */
export function listen() {
  let retry = 0;
  const connect = () => {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/lobby?only=attention`);
    ws.onopen = () => { retry = 0; };
    ws.onmessage = (event) => {
      let message = null;
      try { message = JSON.parse(event.data); } catch { return; }
      if (message && message.type === "attention") handle(message);
      else if (message && message.type === "listening") document.documentElement.dataset.attentionListening = "1";
    };
    ws.onclose = () => {
      delete document.documentElement.dataset.attentionListening;
      setTimeout(connect, Math.min(30000, 1000 * 2 ** retry++));
    };
  };
  connect();
}

/** The player's switches: "Notify me" (asks the browser only when clicked) and a short sound. */
export function attentionControls() {
  const supported = typeof window.Notification === "function";
  const state = el("span", { class: "note attention-state", id: "attention-state", role: "status" });
  const button = el("button", { type: "button", class: "small secondary", id: "attention-notify" }, t("attention.notify"));
  const drawNotify = () => {
    const on = supported && Notification.permission === "granted" && localStorage.getItem(NOTIFY_KEY) === "1";
    button.textContent = on ? t("attention.notify_off") : t("attention.notify");
    button.setAttribute("aria-pressed", on ? "true" : "false");
    state.textContent = !supported ? t("attention.notify_none") : Notification.permission === "denied" ? t("attention.notify_denied") : on ? t("attention.notify_on") : "";
    button.disabled = !supported || Notification.permission === "denied";
  };
  button.addEventListener("click", async () => {
    if (localStorage.getItem(NOTIFY_KEY) === "1" && Notification.permission === "granted") {
      localStorage.setItem(NOTIFY_KEY, "0");
    } else {
      const answer = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
      localStorage.setItem(NOTIFY_KEY, answer === "granted" ? "1" : "0");
    }
    drawNotify();
  });
  const sound = el("input", { type: "checkbox", id: "attention-sound", checked: localStorage.getItem(SOUND_KEY) === "1",
    onchange: (e) => { localStorage.setItem(SOUND_KEY, e.target.checked ? "1" : "0"); ring(); } }); // heard once, as it will sound
  drawNotify();
  return el("div", { class: "attention-controls", id: "attention-controls" },
    el("p", { class: "note" }, t("attention.note")),
    el("div", { class: "actions" }, button, el("label", { class: "toggle", for: "attention-sound" }, sound, t("attention.sound"))),
    state);
}
