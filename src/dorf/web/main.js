// The page router: one HTML page, the path says what to show.
import { defsSVG } from "./hex.js";
import { gamePage } from "./game.js";
import { joinPage, lobbyPage } from "./lobby.js";
import { replayPage } from "./replay.js";
import { campaignsPage } from "./campaigns.js";

const defs = document.createElementNS("http://www.w3.org/2000/svg", "svg");
defs.setAttribute("class", "defs");
defs.setAttribute("aria-hidden", "true");
defs.innerHTML = defsSVG();
document.body.prepend(defs);

const root = document.getElementById("app");
const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
for (const link of document.querySelectorAll("header nav a")) {
  if (link.getAttribute("href") === "/" + (parts[0] || "")) link.classList.add("here");
}
if (parts[0] === "game" && parts[1]) gamePage(root, parts[1]);
else if (parts[0] === "join" && parts[1] && parts[2]) joinPage(root, parts[1], parts[2]);
else if (parts[0] === "replay") replayPage(root, parts[1]);
else if (parts[0] === "campaigns") campaignsPage(root, parts[1]);
else lobbyPage(root);
