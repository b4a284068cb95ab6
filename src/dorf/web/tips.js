// Short tips for a newcomer's first solo game (issue 61): a game started by the front page's
// one-tap solo start shows one line at the moment it matters (the first tile, the first task, the
// first landscape tile after three tasks, the first flag), each with "Got it"; a tip once
// dismissed is not shown again, and "No more tips" ends them all (remembered in this browser,
// localStorage "dorf.tips.v1").
import { el, rememberedGames } from "./util.js";
import { t } from "./i18n.js";

const KEY = "dorf.tips.v1";

function seen() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(kept) || kept === "off" ? kept : [];
  } catch {
    return [];
  }
}

function remember(value) {
  try { localStorage.setItem(KEY, JSON.stringify(value)); } catch { /* private mode: this page only */ }
}

/** The tip the moment asks for, or null: `game` as the page holds it, `you` its seats. */
function tipFor(game, you) {
  if (game.mode !== "coop" || game.over || game.phase !== "playing" || !(you.seats || []).includes(0) || game.seats.length !== 1) return null;
  const area = game.areas[0] || { tiles: [], tasks: [] };
  const revealed = (game.revealed || [])[0];
  const open = (area.tasks || []).filter((task) => task.status === "open").length;
  if (!area.tiles.length) return "place";
  if (open && area.tiles.length <= 3) return "task";
  if (revealed && revealed.kind === "landscape" && open >= 3) return "landscape";
  if (revealed && revealed.flag) return "flag";
  return null;
}

let box = null;

/** Show (or take away) the tip for the game's state now, on a game this browser started with tips. */
export function showTips(id, game, you) {
  const done = seen();
  const tip = rememberedGames()[id]?.tips ? tipFor(game, you) : null;
  const show = tip && done !== "off" && !done.includes(tip) ? tip : null;
  if (box && box.dataset.tip === show) return;
  box?.remove();
  box = null;
  if (!show) return;
  const close = (all) => {
    remember(all ? "off" : [...seen(), show]);
    box?.remove();
    box = null;
  };
  box = el("div", { class: "first-tip", id: "first-tip", role: "status", "data-tip": show },
    el("p", {}, el("b", {}, t("tips.label")), " ", t(`tips.${show}`)),
    el("div", { class: "first-tip-actions" },
      el("button", { type: "button", class: "small", id: "tip-ok", onclick: () => close(false) }, t("tips.ok")),
      el("button", { type: "button", class: "small secondary", id: "tip-off", onclick: () => close(true) }, t("tips.off")),
      el("a", { href: "/how-to-play", target: "_blank", rel: "noopener" }, t("nav.how_to_play"))));
  document.body.appendChild(box);
}
