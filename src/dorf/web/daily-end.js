// A daily challenge's game on the game page (issue 32): a card says which day it is and whether
// this is the counted attempt or practice; once the game is over, the daily end: the score and
// its rank among the day's players, the expert computer's score on the same shuffle (beaten or
// not) and the median (GET /api/daily/DATE), and the coach's three biggest lessons
// (POST /api/games/ID/lessons), each with a button that shows the board as it stood then with
// the better placement on it. Nothing of that shows before the end. Methods of the game page.
import { Board } from "./board.js";
import { rotate, tileIcon, turnAreas } from "./hex.js";
import { api, el, put, toast, tokensOf } from "./util.js";
import { server, t } from "./i18n.js";
import { dayText, expertText, points, rankText, startDaily } from "./daily.js";

/** The expert's score against another player's (`name`): in the third person. */
function expertOfText(expert, score, name) {
  if (score > expert) return t("daily.expert_beaten_by", { expert, count: score - expert, name });
  if (score < expert) return t("daily.expert_won_over", { expert, count: expert - score, name });
  return t("daily.expert_level_with", { expert, name });
}

/** Seconds between asking again for the day's figures while the expert's score is not there. */
const AGAIN = [1, 1, 2, 2, 3, 3, 5, 5, 5, 10, 10, 10, 15, 15, 30, 30, 30, 60, 60, 60];

/** The tile placed as `where` says ({at, rot}): its edges and areas turned to that rotation. */
function placedAs(tile, rot, tasks) {
  return {
    edges: rotate(tile.face || tile.edges, rot),
    areas: turnAreas(tile.areas, rot - (tile.rot ?? 0)),
    task: tile.task !== undefined && tasks[tile.task] ? tasks[tile.task] : null,
    flag: tile.flag,
  };
}

export const dailyMethods = {
  /** Whether the record (download, replay) may be offered: a daily game's only once its day is over. */
  recordShown() {
    return !this.game.daily || !!(this.dailyInfo && this.dailyInfo.over);
  },

  /** The daily card in the panel, above the others. */
  renderDaily() {
    const card = this.cards.daily;
    const daily = this.game && this.game.daily;
    if (!daily) {
      card.classList.add("hidden");
      return;
    }
    card.classList.remove("hidden");
    card.style.order = "-3";
    if (this.game.over) this.loadDaily();
    if (!this.changed("daily", JSON.stringify([this.game.over, this.game.scores[0].total, this.dailyDrawn || 0]))) return;
    put(card, ...this.dailyNodes(false));
  },

  /** Read the day's figures (again, until the expert's score is there) and the coach's lessons. */
  loadDaily() {
    if (this.dailyLoading) return;
    this.dailyLoading = true;
    this.lessons = { waiting: true };
    const date = this.game.daily.date;
    const ask = async (tries) => {
      const before = JSON.stringify(this.dailyInfo ?? null);
      try {
        this.dailyInfo = await api("GET", `/api/daily/${encodeURIComponent(date)}`);
      } catch (error) {
        this.dailyInfo = this.dailyInfo || { error: error.message };
      }
      // Drawn again only when something changed (a lesson shown on its board keeps its view).
      if (JSON.stringify(this.dailyInfo) !== before) this.dailyChanged();
      const info = this.dailyInfo;
      const mine = info.attempt && info.attempt.game === this.id;
      const waiting = !info.error && (info.expert === null || info.expert === undefined || (mine && !info.attempt.finished));
      if (waiting && tries < AGAIN.length) setTimeout(() => ask(tries + 1), AGAIN[tries] * 1000);
    };
    ask(0);
    this.loadLessons();
  },

  /** The coach's lessons, asked with this browser's seat token (a spectator gets none). */
  async loadLessons() {
    const tokens = tokensOf(this.id);
    if (!tokens.length) {
      this.lessons = { none: true };
      this.dailyChanged();
      return;
    }
    let error = null;
    for (let attempt = 0; attempt < 20; attempt++) {
      for (const token of tokens) {
        try {
          const answer = await api("POST", `/api/games/${encodeURIComponent(this.id)}/lessons`, { token });
          // A placement the coach would have made too is no lesson.
          this.lessons = { list: (answer.lessons || []).filter((lesson) => lesson.loss > 0) };
          this.dailyChanged();
          return;
        } catch (e) {
          error = e;
          if (e.code !== "bad-token" && e.code !== "not-your-seat") break;
        }
      }
      // The end is being stored (a few seconds); or the server computes other lessons of this
      // player or address (429 busy: a minute and more, one after the other).
      if (!error || (error.code !== "not-over" && error.code !== "busy") || (error.code === "not-over" && attempt >= 5)) break;
      await new Promise((done) => setTimeout(done, error.code === "busy" ? 5000 : 1000));
    }
    this.lessons = { error: error ? error.message : t("daily.lessons_none") };
    this.dailyChanged();
  },

  dailyChanged() {
    this.dailyDrawn = (this.dailyDrawn || 0) + 1;
    if (!this.game) return;
    this.renderDaily();
    this.renderTurn();
    this.renderBar();
    if (!this.modal.classList.contains("hidden") && this.modal.querySelector("#daily-end")) this.showDailyEnd();
  },

  /** What the daily card (and the end dialog: `inModal`) says. */
  dailyNodes(inModal) {
    const game = this.game;
    const daily = game.daily;
    const title = el(inModal ? "h2" : "h3", { id: inModal ? "daily-end-title" : "daily-card-title", class: "daily-title" },
      t(inModal ? "daily.end_title" : "daily.title"), " ", el("span", { class: "daily-date" }, dayText(daily.date)),
      daily.practice ? el("span", { class: "badge practice" }, t("turn.practice")) : null);
    if (!game.over) {
      return [title, el("p", { class: "note", id: "daily-before" }, t(daily.practice ? "daily.practice_note" : "daily.counted_note"))];
    }
    const score = game.scores[0].total;
    // Another's board speaks of its player by name, and offers no practice (issue 61).
    const own = tokensOf(this.id).length > 0;
    const player = game.seats[0] ? game.seats[0].name : "";
    const info = this.dailyInfo || {};
    const mine = info.attempt && info.attempt.game === this.id ? info.attempt : null;
    const listed = (info.top || []).find((row) => row.game === this.id);
    const rank = mine ? mine.rank : listed ? listed.rank : null;
    let rankLine;
    if (daily.practice) {
      rankLine = el("p", { class: "daily-rank", id: inModal ? "daily-end-rank" : null, "data-practice": "1" }, t("daily.not_ranked"),
        own && info.attempt && info.attempt.finished ? el("span", { class: "note" }, ` ${t("daily.counted_was", { score: info.attempt.score, rank: rankText(info.attempt.rank, info.players) })}`) : null);
    } else if (rank !== null && info.players) {
      rankLine = el("p", { class: "daily-rank", "data-rank": String(rank), "data-players": String(info.players) }, t(info.over ? "daily.rank_line" : "daily.rank_so_far", { rank, count: info.players }));
    } else if (info.expert_game === this.id) rankLine = null; // the expert's own board: no rank
    else rankLine = el("p", { class: "daily-rank note" }, info.error ? info.error : "…");
    const expert = info.expert_game === this.id ? el("p", { class: "daily-expert-own note", id: inModal ? null : "daily-expert-own" }, t("daily.expert_own"))
      : info.expert !== null && info.expert !== undefined
      ? el("p", { class: `daily-expert${score > info.expert ? " beaten" : ""}`, "data-expert": String(info.expert), "data-beat": String(score > info.expert) }, own ? expertText(info.expert, score) : expertOfText(info.expert, score, player))
      : el("p", { class: "daily-expert-wait note" }, t("daily.expert_wait"));
    const median = info.median !== null && info.median !== undefined
      ? el("p", { class: "daily-median", "data-median": String(info.median) }, t("daily.median", { median: points(info.median) })) : null;
    const again = el("button", { type: "button", class: "secondary", id: inModal ? "daily-again" : null }, t("daily.play_again"));
    again.addEventListener("click", async () => {
      again.disabled = true;
      try {
        await startDaily(info.over ? daily.date : undefined);
      } catch (error) {
        again.disabled = false;
        toast(error.message);
      }
    });
    const actions = el("div", { class: "actions" },
      el("a", { class: "button secondary daily-day-link", href: `/daily/${encodeURIComponent(daily.date)}` }, t("daily.day_board")),
      own ? again : null,
      inModal ? el("button", { type: "button", class: "secondary", id: "daily-pad", onclick: () => this.showPad() }, t("pad.button")) : null,
      inModal ? el("button", { type: "button", class: "secondary", id: "pad-close", onclick: () => this.closePad() }, t("pad.close")) : null,
      inModal ? null : el("button", { type: "button", class: "small", id: "daily-open", onclick: () => this.showDailyEnd() }, t("daily.open")));
    return [
      title,
      el("p", { class: "daily-score" }, el("span", {}, t(tokensOf(this.id).length ? "daily.your_score_label" : "daily.score_label")), " ", el("b", { class: "daily-points", "data-score": String(score) }, String(score))),
      rankLine, expert, median,
      inModal && this.lessonShown !== null && this.lessonShown !== undefined ? this.lessonView() : null,
      this.lessonNodes(inModal),
      actions,
    ];
  },

  /** The coach's lessons: each in words, with a button that shows it on the board. */
  lessonNodes(inModal) {
    const state = this.lessons || { waiting: true };
    const head = el(inModal ? "h3" : "h4", { class: "lessons-title" }, t("daily.lessons"));
    if (state.none) return null;
    if (state.waiting) return [head, el("p", { class: "note lessons-wait", role: "status" }, t("daily.lessons_wait"))];
    if (state.error) return [head, el("p", { class: "note bad lessons-error" }, state.error)];
    if (!state.list.length) return [head, el("p", { class: "note lessons-none" }, t("daily.lessons_none"))];
    const area = this.game.areas[0];
    return [head, el("ol", { class: "lessons" }, state.list.map((lesson, i) => {
      const tile = area.tiles[lesson.tiles_before];
      const icon = tile ? el("span", { class: "lesson-tile", html: tileIcon(tile.face || tile.edges, turnAreas(tile.areas, -(tile.rot ?? 0)), {}, 40) }) : null;
      const reasons = (lesson.reasons || []).map((reason) => el("li", {}, server(reason)));
      const shown = inModal && this.lessonShown === i;
      return el("li", { class: `lesson${shown ? " shown" : ""}`, "data-lesson": String(i), "data-turn": String(lesson.turn) },
        icon,
        el("div", { class: "lesson-words" },
          el("p", { class: "lesson-head" }, el("b", {}, t("daily.lesson_turn", { turn: lesson.turn })), " ",
            el("span", { class: "lesson-loss" }, t("daily.lesson_loss", { n: Math.round(lesson.loss * 10) / 10 }))),
          inModal && reasons.length ? el("p", { class: "lesson-why" }, t("daily.lesson_why")) : null,
          inModal && reasons.length ? el("ul", { class: "lesson-reasons" }, reasons) : null,
          inModal && !reasons.length ? el("p", { class: "lesson-why" }, server(lesson.text || "")) : null),
        el("button", { type: "button", class: "small lesson-show", "aria-pressed": String(shown), onclick: () => this.showLesson(i) }, t("daily.lesson_show")));
    }))];
  },

  /** Show lesson `i` on a board in the end dialog. */
  showLesson(i) {
    this.lessonShown = i;
    this.lessonMine = false;
    this.showDailyEnd();
    this.modal.querySelector(".lesson-view")?.scrollIntoView({ block: "nearest" });
  },

  /** The lesson's board: the tiles as they stood before that placement, the tile placed where
   * the coach would have placed it (or where it was placed), both cells outlined. */
  lessonView() {
    const lesson = this.lessons && this.lessons.list && this.lessons.list[this.lessonShown];
    if (!lesson) return null;
    const host = el("div", { class: "board-host lesson-board", id: "lesson-board" });
    const which = (mine) => el("button", {
      type: "button", class: `small${this.lessonMine === mine ? "" : " secondary"}`, "aria-pressed": String(this.lessonMine === mine),
      id: mine ? "lesson-yours" : "lesson-coach",
      onclick: () => { this.lessonMine = mine; this.showDailyEnd(); },
    }, t(mine ? "daily.lesson_yours" : "daily.lesson_coach"));
    this.lessonHost = host;
    return el("section", { class: "lesson-view", "aria-label": t("daily.lesson_turn", { turn: lesson.turn }) },
      el("p", { class: "lesson-caption" }, el("b", {}, t("daily.lesson_turn", { turn: lesson.turn })), " ",
        t(this.lessonMine ? "daily.lesson_shows_yours" : "daily.lesson_shows_coach")),
      host,
      el("div", { class: "lesson-legend" },
        el("span", { class: "lesson-key preferred" }, t("daily.key_coach")),
        el("span", { class: "lesson-key played" }, t("daily.key_yours")),
        el("span", { class: "lesson-switch", role: "group", "aria-label": t("daily.lesson_which") }, which(false), which(true))));
  },

  /** Draw the lesson on its board, once the dialog holds it (the board measures its box). */
  drawLesson() {
    const lesson = this.lessons && this.lessons.list && this.lessons.list[this.lessonShown];
    if (!lesson || !this.lessonHost) return;
    const area = this.game.areas[0];
    const before = lesson.tiles_before;
    const tasks = area.tasks.map((task) => ({ ...task, status: "open", sizes: null, open_edges: null }));
    const board = new Board(this.lessonHost, { label: t("daily.lesson_board") });
    board.setArea({ tiles: area.tiles.slice(0, before), tasks, flags: [], last: null }, new Map(), {});
    const tile = area.tiles[before];
    const where = this.lessonMine ? lesson.played : lesson.preferred;
    // The tile as placed, outlined only as the legend says (gold: the coach's cell; dashed: yours).
    if (tile) board.setGhost(placedAs(tile, where.rot, tasks), where.at[0], where.at[1]);
    const same = lesson.played.at[0] === lesson.preferred.at[0] && lesson.played.at[1] === lesson.preferred.at[1];
    const marks = [[...lesson.preferred.at, "lesson-preferred", this.lessonMine && !same ? t("daily.cell_coach") : null]];
    if (!same) marks.push([...lesson.played.at, "lesson-played", this.lessonMine ? null : t("daily.cell_yours")]);
    if (this.lessonMine) marks.reverse(); // the cell shown drawn first, the other over it
    board.outline(marks, 2, true); // both cells in view, however far apart
    this.lessonBoard = board;
  },

  /** The daily end in the dialog: opened once when the game ends, and from the card. */
  showDailyEnd() {
    const game = this.game;
    if (!game || !game.daily) return this.showPad();
    const opening = this.modal.classList.contains("hidden");
    if (opening) this.padOpener = document.activeElement;
    const old = this.modal.querySelector("#daily-end");
    const keep = old && old.contains(document.activeElement) ? document.activeElement.id : null;
    const scrolled = old ? old.scrollTop : 0;
    this.lessonHost = null;
    const box = el("div", { class: "modal-box daily-end", id: "daily-end", tabindex: "-1" }, ...this.dailyNodes(true));
    this.modal.setAttribute("aria-labelledby", "daily-end-title");
    put(this.modal, box);
    this.modal.classList.remove("hidden");
    this.padBehind(true);
    this.drawLesson();
    box.scrollTop = scrolled;
    const again = keep && document.getElementById(keep);
    if (again) again.focus();
    else if (opening || !old) box.focus();
  },
};
