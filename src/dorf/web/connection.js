// The game page's line to the server (docs/server.md, "The protocol"): one websocket to the game,
// a hello with the seat tokens this browser holds, tried again with a back-off when it drops;
// requests numbered; deltas applied to the description held ({you, game}, patch.js), the whole
// state asked for again when one does not fit; the connection's status in the top bar, with
// "saving…" while a move made is not yet stored ("Nothing lost"). The page hears what the server
// says through the callbacks it gives (game.js).
import { patch } from "./patch.js";
import { toast, tokensOf } from "./util.js";
import { t } from "./i18n.js";

export class Connection {
  /** A connection to game `id`, at once. `on` has the page's callbacks:
   *  state(doc)   the description {you, game}: a whole state, or the one held with a delta applied;
   *  ok(msg)      a move or an undo of ours is made;
   *  preview(msg) a placement preview;
   *  table(msg)   the table's choice and proposals changed ({choice, proposals}; a state's table too);
   *  talk(msg)    a message of table talk ({message});
   *  error(msg)   a request refused (nothing changed);
   *  lost()       the socket closed: it is tried again;
   *  gone()       it closed for good: no such game, or stop() was called. */
  constructor(id, on) {
    this.id = id;
    this.on = on;
    this.doc = null;
    this.nextId = 1;
    this.retry = 0;
    this.status = document.getElementById("status");
    this.connect();
    document.addEventListener("visibilitychange", () => {
      // Back on the page while disconnected: try again now rather than at the end of a back-off.
      if (document.visibilityState === "visible" && this.ws && this.ws.readyState === WebSocket.CLOSED && !this.gone) {
        clearTimeout(this.reconnectTimer);
        this.connect();
      }
    });
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(this.id)}`);
    this.ws = ws;
    this.setStatus(t("status.connecting"), "wait");
    ws.onopen = () => {
      this.retry = 0;
      this.waits = [];
      this.made = 0;
      this.saved = 0;
      this.setStatus(t("status.connected"), "ok");
      ws.send(JSON.stringify({ type: "hello", tokens: tokensOf(this.id) }));
    };
    ws.onmessage = (event) => this.onMessage(JSON.parse(event.data));
    ws.onclose = (event) => {
      if (event.code === 4404 || this.gone) {
        this.gone = true;
        this.on.gone();
        return;
      }
      this.on.lost();
      // Quick while someone looks at the page (a restarted server is found within 2 s); slower in the background.
      const cap = document.visibilityState === "visible" ? 2000 : 10000;
      const wait = Math.min(cap, 250 * 2 ** this.retry++);
      this.waits = [...(this.waits || []), wait];
      this.setStatus(t("status.reconnecting", { n: wait / 1000 }), "bad");
      if (this.status) {
        this.status.dataset.retries = String(this.retry);
        this.status.dataset.waits = JSON.stringify(this.waits);
      }
      this.reconnectTimer = setTimeout(() => this.connect(), wait);
    };
  }

  /** Try no more once the socket closes: the game is not there, or cannot be loaded. */
  stop() {
    this.gone = true;
  }

  /** Send a request, numbered; its number (the answer repeats it), or null when not connected. */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      toast(t("game.not_connected"));
      return null;
    }
    message.id = this.nextId++;
    this.ws.send(JSON.stringify(message));
    return message.id;
  }

  /** The status in the top bar (the page's own word too: the game cannot be loaded). */
  setStatus(text, kind) {
    if (!this.status) return;
    this.status.textContent = text;
    this.status.title = text;
    this.status.className = `conn ${kind}`;
  }

  onMessage(msg) {
    // The server's time (ms), with each state and delta: the clocks count down from it (at `rate`
    // times real time: 1 but where a test server runs its clocks faster).
    if (typeof msg.now === "number") {
      this.serverAt = msg.now;
      this.receivedAt = Date.now();
      this.rate = typeof msg.rate === "number" ? msg.rate : 1;
    }
    if (msg.type === "state") {
      this.hold({ you: msg.you, game: msg.game });
      if (msg.table) this.on.table?.(msg.table); // the table beside the game's description
    }
    else if (msg.type === "delta") this.onDelta(msg);
    else if (msg.type === "saved") this.onSaved(msg.version);
    else if (msg.type === "preview") this.on.preview(msg);
    else if (msg.type === "rematch") this.on.rematch?.(msg); // offered to this screen's player
    else if (msg.type === "table") this.on.table?.(msg); // the active choice, the proposals (issue 63)
    else if (msg.type === "talk") this.on.talk?.(msg); // a message of table talk
    else if (msg.type === "ok") {
      this.on.ok(msg);
      this.onMade(msg.version);
    } else if (msg.type === "error") this.on.error(msg);
  }

  hold(doc) {
    this.doc = doc;
    this.on.state(doc);
  }

  /** What changed since the state we hold; if we do not hold the state it starts from, ask for it. */
  onDelta(msg) {
    if (!this.doc?.game || this.doc.game.version !== msg.from) {
      this.send({ type: "sync" });
      return;
    }
    let doc;
    try {
      doc = patch(this.doc, msg.ops);
    } catch {
      this.send({ type: "sync" });
      return;
    }
    this.hold(doc);
  }

  /** Our move is made (everyone has been told); it is stored once "saved" comes for its version. */
  onMade(version) {
    if (typeof version !== "number") return;
    this.made = Math.max(this.made || 0, version);
    if ((this.saved || 0) >= this.made) return;
    document.body.dataset.saved = "0";
    clearTimeout(this.savingTimer);
    // Only a slow write is worth a word (it takes milliseconds when the database is free).
    this.savingTimer = setTimeout(() => {
      if ((this.saved || 0) < this.made) this.setStatus(t("status.saving"), "wait");
    }, 500);
  }

  onSaved(version) {
    this.saved = Math.max(this.saved || 0, version);
    if (this.saved < (this.made || 0)) return;
    document.body.dataset.saved = "1";
    clearTimeout(this.savingTimer);
    if (this.status && this.status.textContent === t("status.saving")) this.setStatus(t("status.connected"), "ok");
  }
}
