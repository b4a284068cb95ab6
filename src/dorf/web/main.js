// The page router: one HTML page, the path says what to show; only that page's modules load.
// First the words of the page's language (i18n.js), then the header in them and its EN/DE switch.
import { languageSwitch, loadLanguage, translateStatic } from "./i18n.js";

const root = document.getElementById("app");
const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
await loadLanguage().catch((error) => console.error("dorf: the words could not be loaded", error));
const NAV = { "/": "nav.play", "/replay": "nav.replay", "/campaigns": "nav.campaigns", "/how-to-play": "nav.how_to_play" };
for (const link of document.querySelectorAll("header nav a")) {
  const href = link.getAttribute("href");
  if (href === "/" + (parts[0] || "")) link.classList.add("here");
  if (NAV[href]) link.dataset.i18n = NAV[href];
}
document.querySelector("header nav")?.setAttribute("data-i18n-label", "nav.label");
translateStatic();
document.querySelector("header.topbar")?.insertBefore(languageSwitch(), document.getElementById("status"));
// Whoever opens the site is a player at once (the server sets its cookie): its name links to its
// page. Asked before anything else, so that no other first request makes a second player.
const me = await (await import("./players.js")).showMe();
// Attention in the tab (attention.js): what waits for the player in their other games. The front
// page's lobby socket hears it; every other page of a player listens on a quiet lobby socket.
if (me && me.player !== false && parts.length) import("./attention.js").then((m) => m.listen());

async function tilePatterns() {
  // The SVG patterns tiles are drawn with: every page but the campaigns' draws tiles.
  const { defsSVG } = await import("./hex.js");
  const defs = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  defs.setAttribute("class", "defs");
  defs.setAttribute("aria-hidden", "true");
  defs.innerHTML = defsSVG();
  document.body.prepend(defs);
}

if (parts[0] === "campaigns") {
  import("./campaigns.js").then((m) => m.campaignsPage(root, parts[1], parts[2] === "join" ? parts[3] : null));
} else if (parts[0] === "daily") {
  (await import("./daily.js")).dailyPage(root, parts[1]);
} else if (parts[0] === "leaderboard") {
  (await import("./leaderboard.js")).leaderboardPage(root);
} else if (parts[0] === "how-to-play") {
  await tilePatterns();
  (await import("./howto.js")).howToPlayPage(root);
} else {
  await tilePatterns();
  if (parts[0] === "@" && parts[1]) (await import("./profile.js")).profilePage(root, parts[1]);
  else if (parts[0] === "game" && parts[1]) (await import("./game.js")).gamePage(root, parts[1]);
  else if (parts[0] === "join" && parts[1] && parts[2]) (await import("./lobby.js")).joinPage(root, parts[1], parts[2]);
  else if (parts[0] === "replay") (await import("./replay.js")).replayPage(root, parts[1]);
  else (await import("./lobby.js")).lobbyPage(root);
}
