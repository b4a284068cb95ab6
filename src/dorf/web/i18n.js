// The page's words in English and German: one catalog per language (lang/en.json, lang/de.json),
// each key -> text with {placeholders}; a text that depends on a number is an object of plural
// forms ({"one": ..., "other": ...}, chosen by the parameter `count`, else `n`).
//
// The language: the one chosen with the switch (remembered, localStorage "dorf.lang"), else the
// page's <html lang> (the server sets it from the browser's Accept-Language), else the browser's.
//
// The server speaks English (log lines, the coach's reasons, score pad rows, errors): `server(text)`
// reads such a text against the English catalog's "server." templates and says it in the page's
// language with the same parameters; a text no template reads stays as it is. An error is said by
// its code where its text is not read (`serverError`).

export const LANGUAGES = ["en", "de"];
const NAMES = { en: "English", de: "Deutsch" };
const KEY = "dorf.lang";

let lang = "en";
let words = {};
let english = {};
let templates = null;
const said = new Map();

function supported(code) {
  const short = String(code || "").toLowerCase().split("-")[0];
  return LANGUAGES.includes(short) ? short : null;
}

/** The language to speak: chosen, else the page's, else the browser's, else English. */
export function chosenLanguage() {
  let stored = null;
  try { stored = localStorage.getItem(KEY); } catch { stored = null; }
  return supported(stored) || supported(document.documentElement.getAttribute("lang")) || supported(navigator.language) || "en";
}

export function language() {
  return lang;
}

async function catalog(code) {
  const response = await fetch(new URL(`./lang/${code}.json`, import.meta.url));
  if (!response.ok) throw new Error(`no catalog ${code}: ${response.status}`);
  return response.json();
}

/** Load the catalogs (English always: the fallback, and what the server's texts are read by). */
export async function loadLanguage(code = chosenLanguage()) {
  lang = supported(code) || "en";
  const [en, own] = await Promise.all([catalog("en"), lang === "en" ? null : catalog(lang).catch(() => null)]);
  english = en;
  words = own || en;
  if (!own) lang = "en";
  templates = null;
  said.clear();
  document.documentElement.lang = lang;
  return lang;
}

const numbers = {};
function number(value) {
  const format = numbers[lang] || (numbers[lang] = new Intl.NumberFormat(lang, { useGrouping: false, maximumFractionDigits: 2 }));
  return format.format(value);
}

function form(entry, params) {
  if (entry === null || typeof entry !== "object") return entry;
  const count = Number(params.count ?? params.n ?? 0);
  const which = new Intl.PluralRules(lang).select(count);
  return entry[which] ?? entry.other ?? Object.values(entry)[0];
}

function fill(text, params) {
  return String(text).replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? number(value) : String(value ?? "");
  });
}

/** The text of `key` in the page's language, its {placeholders} filled from `params`. */
export function t(key, params = {}) {
  let entry = words[key];
  if (entry === undefined) entry = english[key];
  if (entry === undefined) {
    console.warn(`dorf: no text for ${key}`);
    return key;
  }
  return fill(form(entry, params), params);
}

/** Whether the catalog has `key` (for words that come from data: a level, a terrain). */
export function has(key) {
  return key in words || key in english;
}

/** `t(prefix + name)` if the catalog has it, else `name` as it came. */
export function term(prefix, name) {
  return name !== undefined && name !== null && has(prefix + name) ? t(prefix + name) : name;
}

// --- the server's English --------------------------------------------------------------------

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/** What a placeholder of the server's texts holds, by its name (without trailing digits): its
 * words in the page's language, or null if the value is not of that kind (then the template does
 * not read the text). */
const KINDS = {
  task: (v) => {
    const m = /^([a-z]+(?:\/[a-z]+)?) (\d+)$/.exec(v);
    if (!m) return null;
    const names = m[1].split("/").map((n) => (has(`task.${n}`) ? t(`task.${n}`) : null));
    return names.includes(null) ? null : `${names.join("/")} ${m[2]}`;
  },
  terrain: (v) => (has(`terrain.${v}`) ? t(`terrain.${v}`) : null),
  flag: (v) => (has(`flagname.${v}`) ? t(`flagname.${v}`) : null),
  colour: (v) => (has(`colour.${v.toLowerCase()}`) ? t(`colour.${v.toLowerCase()}`) : null),
  kind: (v) => (has(`taskkind.${v.toLowerCase()}`) ? t(`taskkind.${v.toLowerCase()}`) : null),
  level: (v) => (has(`level.${v.toLowerCase()}`) ? t(`level.${v.toLowerCase()}`) : null),
  face: (v) => (/^[A-Z]{6}$/.test(v) ? v : null),
  tile: (v) => (/^[A-Z]{6}(\s|$)/.test(v) ? server(v) : null),
  reason: (v) => server(v),
  pct: (v) => (/^\d+%$/.test(v) ? t("format.percent", { n: Number(v.slice(0, -1)) }) : null),
  n: (v) => (NUMBER.test(v) ? number(Number(v)) : null),
  count: (v) => (NUMBER.test(v) ? Number(v) : null),
};

function compile() {
  const list = [];
  for (const [key, entry] of Object.entries(english)) {
    if (!key.startsWith("server.")) continue;
    for (const text of typeof entry === "object" ? Object.values(entry) : [entry]) {
      const names = [];
      const pattern = text.split(/(\{\w+\})/).map((part) => {
        const m = /^\{(\w+)\}$/.exec(part);
        if (!m) return escape(part);
        names.push(m[1]);
        return "(.+?)";
      }).join("");
      const literal = text.replace(/\{\w+\}/g, "").length;
      list.push({ key, names, re: new RegExp(`^${pattern}$`, "s"), literal });
    }
  }
  // The most particular first: "Completed tasks (S1)" before "{kind} tasks ({field})".
  list.sort((a, b) => b.literal - a.literal || a.names.length - b.names.length);
  return list;
}

/** A text the server made in English, in the page's language where a template reads it. */
export function server(text) {
  if (lang === "en" || typeof text !== "string" || !text) return text;
  if (said.has(text)) return said.get(text);
  templates = templates || compile();
  let out = text;
  for (const { key, names, re } of templates) {
    const m = re.exec(text);
    if (!m) continue;
    const params = {};
    let ok = true;
    names.forEach((name, i) => {
      const kind = KINDS[name.replace(/\d+$/, "")];
      const value = kind ? kind(m[i + 1]) : m[i + 1];
      if (value === null || value === undefined) ok = false;
      params[name] = value;
    });
    if (!ok) continue;
    out = fill(form(words[key] ?? english[key], params), params);
    break;
  }
  if (said.size > 2000) said.clear();
  said.set(text, out);
  return out;
}

/** Whether `server` reads the text (a test asks; the page needs not). */
export function understood(text) {
  templates = templates || compile();
  return templates.some(({ re }) => re.test(text));
}

/** An error the server sent (its code, its English message) in the page's language. */
export function serverError(code, message) {
  if (lang === "en") return message;
  const read = server(message);
  if (read !== message) return read;
  return has(`error.${code}`) ? t(`error.${code}`) : t("error.other", { message });
}

// --- the switch -------------------------------------------------------------------------------

const redraws = [];
const switches = [];

/** What to do when the language changes on this page instead of loading the page again (a page
 * that can draw itself anew: the replay of a file, which a reload would lose). */
export function onLanguage(redraw) {
  redraws.push(redraw);
}

async function choose(code) {
  try { localStorage.setItem(KEY, code); } catch { /* private mode: for this page only */ }
  if (!redraws.length) {
    location.reload();
    return;
  }
  await loadLanguage(code);
  translateStatic();
  for (const draw of [...switches, ...redraws]) draw();
}

/** The EN/DE switch: a button per language, the page's pressed. */
export function languageSwitch() {
  const box = document.createElement("span");
  box.className = "lang-switch";
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", t("lang.switch"));
  const draw = () => {
    box.setAttribute("aria-label", t("lang.switch"));
    box.replaceChildren(...LANGUAGES.map((code) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `lang${code === lang ? " here" : ""}`;
      button.textContent = code.toUpperCase();
      button.lang = code;
      button.title = NAMES[code];
      button.setAttribute("aria-pressed", String(code === lang));
      button.dataset.lang = code;
      button.addEventListener("click", () => { if (code !== lang) choose(code); });
      return button;
    }));
  };
  draw();
  switches.push(draw);
  return box;
}

/** The words of the page's own HTML (the header): each element with data-i18n="key" (its text)
 * or data-i18n-label="key" (its aria-label). */
export function translateStatic(root = document) {
  if (lang === "en" && root === document && !translateStatic.done) return; // the HTML is English
  translateStatic.done = true;
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
}
