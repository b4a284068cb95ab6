// The replay viewer: open a record file (or a finished game of this server) and step through it.
import { Board } from "./board.js";
import { api, el, toast, modeName, put, tokensOf } from "./util.js";
import { onLanguage, server, t } from "./i18n.js";
import { logWords } from "./words.js";
import { playerName } from "./players.js";
import { talkList } from "./table.js";

/** A step in words, its tile drawn small (issue 61): [picture, "Lea placed a grain tile …"]. */
function stepWords(s) {
  const said = s.tile ? logWords({ kind: "place", tile: s.tile, task: s.spec })
    : s.pick ? logWords({ kind: "pick", tile: s.pick }) : null;
  return said ? [said[0], `${playerName(s.name)} ${said[1]}`] : [null, server(s.text)];
}

/** Draws the page again in another language (the viewer sets it once a record is shown). */
let shown = null;
let redrawn = false;

export function replayPage(root, id) {
  if (!redrawn) onLanguage(() => (shown ? shown() : replayPage(root, id)));
  redrawn = true;
  const host = el("div", { class: "replay" });
  put(root, host);
  if (id) {
    // The seats' tokens this browser holds: a player of the game reads its table talk too.
    const held = { "X-Seat-Tokens": tokensOf(id).join(",") };
    api("GET", `/api/games/${id}/replay`, undefined, held).then((data) => viewer(host, data)).catch((e) => {
      put(host, el("section", { class: "card" }, el("h1", { class: "page-title" }, t("replay.title")), el("p", {}, e.message)));
    });
    return;
  }
  const input = el("input", { type: "file", id: "record-file", accept: ".json,application/json", "aria-label": t("replay.file_label") });
  const drop = el("section", { class: "card drop" },
    el("h1", { class: "page-title" }, t("replay.open_title")),
    el("p", {}, t("replay.open_text")),
    input,
    el("p", { class: "note" }, t("replay.drop")));
  const load = async (file) => {
    try {
      const text = await file.text();
      try { JSON.parse(text); } catch { throw new Error(t("replay.not_json", { name: file.name })); }
      // The file's own text: parsed here, its seed would keep only 53 bits.
      viewer(host, await api("POST", "/api/replay", text));
    } catch (e) {
      toast(e.message);
    }
  };
  input.addEventListener("change", () => input.files[0] && load(input.files[0]));
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); if (e.dataTransfer.files[0]) load(e.dataTransfer.files[0]); });
  put(host, el("div", { class: "lobby narrow" }, drop));
}

/** How the recorded game ended: on time, by resignation, aborted, on points; or unfinished. */
function endText(data) {
  const name = (i) => data.players[i] ?? "?";
  const winner = data.winner ?? null;
  const points = (data.pads || []).map((pad) => pad.total);
  if (data.end === "aborted") return t("clock.aborted");
  if (data.end === "time" || data.end === "resign") {
    if (winner === null) return t("replay.over");
    return t(data.end === "time" ? "clock.lost_on_time" : "clock.resigned", { name: name(1 - winner), winner: name(winner) });
  }
  if (data.end === "normal" || data.finished) {
    if (data.areas < 2) return t("turn.over_points", { points: t("count.points", { count: points[0] ?? 0 }) });
    if (winner === null) return t("end.shared", { a: points[0], b: points[1] });
    return t("end.wins", { name: name(winner), a: points[winner], b: points[1 - winner] });
  }
  return t("replay.unfinished_long");
}

/** The game's table talk, if the replay carries it (issue 63): every message, as text. */
function replayTalk(data) {
  const talk = data.talk || data.table?.talk || [];
  if (!talk.length) return null;
  const list = talkList(talk, (m) => playerName(m.name ?? data.players[m.seat] ?? "?"), { id: "replay-talk", "aria-live": "off", tabindex: "0" });
  // Each after the move it followed (its number, as the list of moves numbers them).
  talk.forEach((m, i) => { if (typeof m.move === "number") list.children[i].prepend(el("span", { class: "log-turn" }, String(m.move))); });
  return el("div", { class: "card card-talk" }, el("h2", { class: "section" }, t("replay.talk")), el("div", { class: "talk-scroll" }, list));
}

function viewer(host, data, at = data.steps.length) {
  document.body.classList.add("fill");
  let step = at;
  let focus = 0;
  let timer = null;
  const tabs = el("div", { class: "area-tabs" });
  const boardHost = el("div", { class: "board-host" });
  const wrap = el("section", { class: "board-wrap" }, tabs, boardHost);
  const slider = el("input", { type: "range", min: "0", max: String(data.steps.length), value: String(step), id: "replay-slider", "aria-label": t("replay.step") });
  const label = el("span", { class: "step-label", id: "step-label" });
  const text = el("p", { class: "step-text", id: "step-text" });
  const scores = el("div", { class: "step-scores" });
  const log = el("ol", { class: "log", tabindex: "0", "aria-label": t("replay.moves_label") }); // it scrolls: a keyboard reaches it
  const btn = (text, title, fn, id) => el("button", { type: "button", title, "aria-label": title, onclick: fn, id }, text);
  const play = btn(t("replay.play"), t("replay.play"), () => toggle(), "replay-play");
  const controls = el("div", { class: "replay-controls" },
    btn("⇤", t("replay.first"), () => go(0)), btn("◀", t("replay.back"), () => go(step - 1), "replay-back"), play,
    btn("▶", t("replay.forward"), () => go(step + 1), "replay-forward"), btn("⇥", t("replay.last"), () => go(data.steps.length)), slider, label);
  const panel = el("aside", { class: "panel" },
    el("div", { class: "card" }, el("h1", { class: "page-title" }, t("replay.heading", { mode: modeName(data.mode) })), el("p", {}, data.players.map(playerName).join(", ")),
      el("p", { class: "note" }, t("replay.seed", { seed: String(data.seed_text ?? data.seed) })),
      el("p", { class: "replay-result", id: "replay-result" }, endText(data)), controls, text, scores),
    el("div", { class: "card" }, el("h2", { class: "section" }, t("replay.moves")), log),
    replayTalk(data));
  const board = new Board(boardHost, {});
  put(host, el("div", { class: "game" }, wrap, panel));
  slider.addEventListener("input", () => go(Number(slider.value)));
  data.steps.forEach((s, i) => log.appendChild(el("li", { "data-step": String(i + 1), onclick: () => go(i + 1) }, el("span", { class: "log-turn" }, String(i + 1)), ...stepWords(s))));
  const stop = new AbortController();
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") go(step - 1);
    if (e.key === "ArrowRight") go(step + 1);
  }, { signal: stop.signal });
  // Another language: the same record drawn again in it, at the same step (a reload would lose a file).
  shown = () => {
    stop.abort();
    if (timer) clearInterval(timer);
    viewer(host, data, step);
  };

  function areaAt(index, upto) {
    const tiles = [];
    const tasks = [];
    for (let i = 0; i < upto; i++) {
      const s = data.steps[i];
      if (s.area !== index || !s.tile) continue;
      tiles.push(s.tile);
      if (s.spec) tasks.push({ ...s.spec, at: s.tile.at });
    }
    const statuses = upto > 0 ? data.steps[upto - 1].tasks[index] || "" : "";
    const names = { o: "open", c: "completed", f: "failed" };
    tasks.forEach((t, i) => (t.status = names[statuses[i]] || "open"));
    const last = upto > 0 && data.steps[upto - 1].area === index && data.steps[upto - 1].tile ? data.steps[upto - 1].tile.at : null;
    return { tiles, tasks, last };
  }

  function go(n) {
    step = Math.max(0, Math.min(data.steps.length, n));
    slider.value = String(step);
    label.textContent = `${step} / ${data.steps.length}`;
    const current = step > 0 ? data.steps[step - 1] : null;
    if (current && current.area !== undefined && data.areas > 1 && current.area !== focus) focus = current.area;
    text.textContent = current ? stepWords(current)[1] : t("replay.start");
    const totals = current ? current.scores : data.players.map(() => 0);
    put(scores, ...(data.areas > 1 ? data.players : [t("replay.score")]).map((name, i) => el("p", {}, t("replay.score_line", { name, points: t("count.points", { count: totals[i] ?? 0 }) }))));
    put(tabs, ...(data.areas > 1 ? data.players.map((name, i) =>
      el("button", { type: "button", class: `tab${i === focus ? " active" : ""}`, onclick: () => { focus = i; go(step); } }, name)) : []));
    board.setArea(areaAt(focus, step), new Map(), { follow: false });
    for (const li of log.children) li.classList.toggle("current", Number(li.dataset.step) === step);
    const cur = log.querySelector("li.current");
    // Scroll the list only, never the page (scrollIntoView would move the page on a phone).
    if (cur && (cur.offsetTop < log.scrollTop || cur.offsetTop + cur.offsetHeight > log.scrollTop + log.clientHeight)) {
      log.scrollTop = cur.offsetTop - log.clientHeight / 2;
    }
    if (step >= data.steps.length && timer) toggle();
  }

  function toggle() {
    if (timer) {
      clearInterval(timer);
      timer = null;
      play.textContent = t("replay.play");
    } else {
      if (step >= data.steps.length) go(0);
      timer = setInterval(() => go(step + 1), 450);
      play.textContent = t("replay.pause");
    }
  }

  go(step);
  board.fit();
}
