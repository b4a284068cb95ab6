// Small helpers: DOM building, the HTTP API, what this browser remembers (seat tokens, games).
import { language, serverError, t } from "./i18n.js";

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "html") node.innerHTML = value; // only ever our own SVG strings
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
  return node;
}

/** A request to the server: ``body`` an object to send as JSON, or a string already JSON text
 * (sent as it is: a record's 63-bit seed would lose digits through a JavaScript number). */
export async function api(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `${response.status} ${response.statusText}`;
    const code = data && data.error ? data.error.code : String(response.status);
    // Said in the page's language (the server's English is kept as the detail).
    const error = new Error(serverError(code, message));
    error.code = code;
    error.detail = message;
    throw error;
  }
  return data;
}

const KEY = "dorf.games.v1";

export function rememberedGames() {
  try { return JSON.parse(localStorage.getItem(KEY) || "{}"); } catch { return {}; }
}

function save(all) { localStorage.setItem(KEY, JSON.stringify(all)); }

/** Remember a game with the seat tokens (and invitation codes) this browser holds. */
export function rememberGame(id, info) {
  const all = rememberedGames();
  const old = all[id] || { tokens: {}, invites: {} };
  all[id] = {
    ...old, ...info,
    tokens: { ...old.tokens, ...(info.tokens || {}) },
    invites: { ...old.invites, ...(info.invites || {}) },
    seen: Date.now(),
  };
  save(all);
  return all[id];
}

export function forgetGame(id) {
  const all = rememberedGames();
  delete all[id];
  save(all);
}

export function tokensOf(id) {
  const game = rememberedGames()[id];
  return game ? Object.values(game.tokens || {}) : [];
}

export function toast(message, kind = "error") {
  let box = document.getElementById("toasts");
  if (!box) {
    box = el("div", { id: "toasts", role: "status", "aria-live": "polite" });
    document.body.appendChild(box);
  }
  const item = el("div", { class: `toast ${kind}` }, message);
  box.appendChild(item);
  setTimeout(() => item.classList.add("gone"), 4200);
  setTimeout(() => item.remove(), 4800);
}

export const MODE_NAMES = { coop: "The Board Game", duel: "The Duel", "head-to-head": "Head to Head" };

/** A game's name in the page's language ("The Duel", "Das Duell"). */
export function modeName(mode) {
  return mode in MODE_NAMES ? t(`mode.${mode}`) : mode || t("mode.unknown");
}

/** A task type's name ("forest", "forest/grain") in the page's language. */
export function taskName(name) {
  return String(name ?? "").split("/").map((part) => (part in TASK_WORDS ? t(`task.${part}`) : part)).join("/");
}
const TASK_WORDS = { forest: 1, grain: 1, village: 1, track: 1, river: 1, connection: 1, double: 1, task: 1 };

/** A terrain's name by its letter ("F": "forest", "Wald"). */
export function terrainName(letter) {
  const names = { F: "forest", G: "grain", V: "village", M: "meadow", R: "river", T: "track", L: "lake", P: "mountain", X: "multicoloured flag" };
  return letter in names ? t(`terrain.${names[letter]}`) : letter;
}

/** Names joined as the language joins them: "Ann and Ben", "Ann und Ben". */
export function listOf(names) {
  try {
    return new Intl.ListFormat(language(), { type: "conjunction" }).format(names);
  } catch {
    return names.join(", ");
  }
}

export function copyButton(text, label = t("share.copy")) {
  const button = el("button", { class: "small", type: "button" }, label);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = t("share.copied");
    } catch {
      window.prompt(t("share.copy_prompt"), text);
    }
    setTimeout(() => (button.textContent = label), 1500);
  });
  return button;
}

export function describeTask(task) {
  const target = task.value;
  if (task.type === "connection") return t("describe.connection", { n: target });
  if (task.type === "double") return t("describe.double", { name: taskName(task.name), n: target });
  return t("describe.task", { name: taskName(task.name), n: target });
}

export function progressText(task) {
  if (!task.sizes) return "";
  if (task.type === "connection") return t("progress.connection", { size: task.sizes[0], n: task.value });
  const names = (task.type === "double" ? task.name.split("/") : [task.name]).map(taskName);
  return task.sizes
    .map((size, i) => {
      const open = task.open_edges[i];
      return `${names.length > 1 ? names[i] + " " : ""}${size}/${task.value}` + (open === 0 ? ` ${t("progress.closed")}` : ` · ${t("count.open_edges", { count: open })}`);
    })
    .join(", ");
}

/** Replace a node's children, skipping null, undefined and false. */
export function put(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

/** "1 mountain", "2 mountains": a count and its noun. */
export function plural(count, noun, many = `${noun}s`) {
  return `${count} ${count === 1 ? noun : many}`;
}

/** Screens wide enough for two play areas side by side; narrow or short ones (phones, upright
 * or on their side) get the bar (at the bottom, or beside the board) and sheets (style.css). */
export const WIDE = "(min-width: 1200px)";
export const NARROW = "(max-width: 760px), (max-height: 500px)";

export function media(query) {
  return window.matchMedia?.(query).matches ?? false;
}

/** "tap" on a touch screen, "click" with a mouse (the catalog's keys end in either). */
export function tapWord() {
  return media("(pointer: coarse)") ? "tap" : "click";
}

/** A node in a sentence: the text of `text` with its {name} replaced by `node`. */
export function around(text, name, node) {
  const [before, ...after] = text.split(`{${name}}`);
  return after.length ? [before, node, after.join(`{${name}}`)].filter((part) => part !== "") : [text];
}
