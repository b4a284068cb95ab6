// The page router: one HTML page, the path says what to show; only that page's modules load.
const root = document.getElementById("app");
const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
for (const link of document.querySelectorAll("header nav a")) {
  if (link.getAttribute("href") === "/" + (parts[0] || "")) link.classList.add("here");
}

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
  import("./campaigns.js").then((m) => m.campaignsPage(root, parts[1]));
} else {
  await tilePatterns();
  if (parts[0] === "game" && parts[1]) (await import("./game.js")).gamePage(root, parts[1]);
  else if (parts[0] === "join" && parts[1] && parts[2]) (await import("./lobby.js")).joinPage(root, parts[1], parts[2]);
  else if (parts[0] === "replay") (await import("./replay.js")).replayPage(root, parts[1]);
  else (await import("./lobby.js")).lobbyPage(root);
}
