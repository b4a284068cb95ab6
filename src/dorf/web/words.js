// Tiles and tasks in words (issue 61): the log and the replay say "a grain tile with a track, a
// Track 6 task" ("ein Plättchen mit Getreidefeld und Gleis, Aufgabe Gleis 6"), never the engine's
// codes ("GGGGTT (track 6 task)"), and draw the tile small beside the words.
import { tileIcon } from "./hex.js";
import { el, listOf, taskName, terrainName } from "./util.js";
import { t } from "./i18n.js";

/** The ground of a tile (named first, the most edges first) and what runs across it. */
const LANDS = "FGVM";
const LINES = { R: "words.a_river", T: "words.a_track", L: "words.a_lake", P: "words.a_mountain" };

/** A tile in words from its face (six edge letters) and flag: "a grain tile with a track". */
export function tileWords(face, flag) {
  const counts = {};
  for (const letter of String(face || "")) counts[letter] = (counts[letter] || 0) + 1;
  const lands = [...LANDS].filter((l) => counts[l]).sort((a, b) => counts[b] - counts[a] || LANDS.indexOf(a) - LANDS.indexOf(b));
  const extras = Object.keys(LINES).filter((l) => counts[l]).map((l) => t(LINES[l]));
  if (flag) extras.push(flag === "X" ? t("words.a_flag_multi") : t("words.a_flag", { flag: terrainName(flag) }));
  if (!lands.length) return t("words.tile_plain", { extras: listOf(extras) });
  const names = lands.map((l) => terrainName(l));
  const params = { lands: listOf(names), extras: listOf(extras) };
  return t(!extras.length ? "words.tile" : lands.length > 1 ? "words.tile_with_many" : "words.tile_with", params);
}

/** A task in words: "Track 6" (its kind and its number). */
export function taskTitle(task) {
  if (!task) return "";
  // A task of the board has its name; a tile set aside carries the record's form ({type, value},
  // a double task its types): "forest/grain".
  const name = taskName(task.name || (task.types ? task.types.join("/") : task.type) || "task");
  return `${name.charAt(0).toUpperCase()}${name.slice(1)} ${task.value ?? ""}`.trim();
}

/** A small picture of a tile for a line of words. */
export function smallTile(edges, areas, flag) {
  if (!edges || !areas) return null;
  return el("span", { class: "log-tile", html: tileIcon(edges, areas, { flag }, 26) });
}

/**
 * The log's lines with what each one says taken from the board (issue 60: a line carries no copy
 * of what the board holds): a placed tile is its area's next tile (an area's n-th place line is
 * its n-th tile), with the task it carries; a tile taken in the draft is the seat's next tile in
 * `owned` (Head to Head: the tiles each seat took, in order); a completed or failed task is the
 * area's task at the line's cell (`at`). A tile set aside is on no board: its line names it.
 * `game`: the state as the page holds it (its log, its areas in seat order, one if shared).
 */
export function boardLog(game) {
  const areas = game.areas || [];
  const placed = new Map(), picked = new Map();
  return (game.log || []).map((entry) => {
    const index = areas.length === 1 ? 0 : entry.seat;
    const area = areas[index];
    if (entry.kind === "place") {
      const n = placed.get(index) || 0;
      placed.set(index, n + 1);
      const tile = area?.tiles?.[n];
      if (entry.tile || !tile) return entry;
      const task = tile.task === undefined || tile.task === null ? null : area.tasks[tile.task];
      return { ...entry, tile, task };
    }
    if (entry.kind === "pick") {
      const n = picked.get(entry.seat) || 0;
      picked.set(entry.seat, n + 1);
      const tile = game.owned?.[entry.seat]?.[n];
      return entry.tile || !tile ? entry : { ...entry, tile };
    }
    if ((entry.kind === "completed" || entry.kind === "failed") && entry.at && !entry.task) {
      const [q, r] = entry.at;
      const task = area?.tasks?.find((x) => x.at && x.at[0] === q && x.at[1] === r);
      return task ? { ...entry, task } : entry;
    }
    return entry;
  });
}

/**
 * A line of the log in words, without the player's name: [picture, text]; null if the entry
 * carries nothing to say it by (an older server's: its text is said instead).
 * `entry`: { kind: place | aside | pick | completed | failed, tile: {face, areas, flag} (a board's
 * tile: its edges too, as placed), task } (a game's line: as `boardLog` makes it).
 */
export function logWords(entry) {
  const { kind, tile, task } = entry;
  const what = tile ? tileWords(tile.face, tile.flag) : "";
  const picture = tile ? smallTile(tile.edges || tile.face, tile.areas, tile.flag) : null;
  let text;
  if ((kind === "place" || kind === "aside" || kind === "pick") && !tile) return null;
  if (kind === "place") text = task ? t("words.log.placed_task", { tile: what, task: taskTitle(task) }) : t("words.log.placed", { tile: what });
  else if (kind === "aside") text = t("words.log.aside", { tile: what });
  else if (kind === "pick") text = t("words.log.took", { tile: what });
  else if ((kind === "completed" || kind === "failed") && task) text = t(`words.log.${kind}`, { task: taskTitle(task) });
  else return null;
  return [picture, text];
}
