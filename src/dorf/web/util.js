// Small helpers: DOM building, the HTTP API, what this browser remembers (seat tokens, games).

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
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `${response.status} ${response.statusText}`;
    const error = new Error(message);
    error.code = data && data.error ? data.error.code : String(response.status);
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

export function copyButton(text, label = "Copy") {
  const button = el("button", { class: "small", type: "button" }, label);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch {
      window.prompt("Copy this link", text);
    }
    setTimeout(() => (button.textContent = label), 1500);
  });
  return button;
}

export function describeTask(task) {
  const target = task.value;
  if (task.type === "connection") return `connection: ${target} tiles around it`;
  if (task.type === "double") return `${task.name}: either territory exactly ${target} tiles`;
  return `${task.name}: exactly ${target} tiles`;
}

export function progressText(task) {
  if (!task.sizes) return "";
  if (task.type === "connection") return `${task.sizes[0]} of ${task.value} tiles around`;
  const names = task.type === "double" ? task.name.split("/") : [task.name];
  return task.sizes
    .map((size, i) => {
      const open = task.open_edges[i];
      return `${names.length > 1 ? names[i] + " " : ""}${size}/${task.value}` + (open === 0 ? " closed" : ` · ${open} open edge${open === 1 ? "" : "s"}`);
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

/** Screens wide enough for two play areas side by side; narrow ones (phones) get the bottom bar. */
export const WIDE = "(min-width: 1200px)";
export const NARROW = "(max-width: 760px)";

export function media(query) {
  return window.matchMedia?.(query).matches ?? false;
}

/** "tap" on a touch screen, "click" with a mouse. */
export function tapWord() {
  return media("(pointer: coarse)") ? "tap" : "click";
}
