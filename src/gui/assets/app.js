// Cubist GUI: draws every layer of the cube, talks to the server over one
// WebSocket per game (actions out, state and engine reports in), and replays
// match records. The server checks every move; the page only draws.
"use strict";

const ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII"];
const FILES = "abcdefgh";
// Filled glyphs for both colours (coloured by CSS); the Duke is the fleur-de-lis.
const GLYPH = { k: "\u265A", q: "\u265B", d: "\u269C", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const NAMES = { q: "Queen", d: "Duke", r: "Rook", b: "Bishop", n: "Knight" };

const $ = (id) => document.getElementById(id);
const ui = {
  cfg: null,      // /api/config
  game: null,     // the last state of the live game
  ws: null,
  viewPly: null,  // null: the live position; else a ply being looked at
  viewBoard: null,
  selected: null,
  targets: [],
  infos: [],      // the latest info per PV line of the latest search
  infoPly: -1,    // the ply that search is about
  infoEngine: "",
  replay: null,   // {data, ply, timer, text, file}
  clockAt: 0,
};

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
    opts.headers["Content-Type"] = typeof body === "string" ? "text/plain" : "application/json";
  }
  const res = await fetch(path, opts);
  const data = await res.json().catch(() => ({ type: "error", error: res.statusText }));
  if (!res.ok || data.type === "error") throw new Error(data.error || res.statusText);
  return data;
}

function showError(text) {
  const e = $("error");
  e.textContent = text || "";
  e.hidden = !text;
}

// ---- the board ----------------------------------------------------------

function parsePlacement(fen) {
  const pieces = {};
  const layers = fen.split(" ")[0].split("|");
  layers.forEach((layer, z) => {
    layer.split("/").forEach((row, i) => {
      const rank = 8 - i;
      let file = 0;
      for (const c of row) {
        if (c >= "0" && c <= "9") file += Number(c);
        else { pieces[FILES[file] + rank + "-" + ROMAN[z]] = c; file += 1; }
      }
    });
  });
  return { pieces, layers: layers.length };
}

function buildBoards(variant) {
  const root = $("boards");
  root.innerHTML = "";
  root.dataset.layers = variant.layers;
  root.dataset.kind = variant.kind;
  root.style.gridTemplateColumns = `repeat(${Math.min(4, variant.layers)}, auto)`;
  for (let z = 0; z < variant.layers; z++) {
    const layer = document.createElement("div");
    layer.className = "layer";
    layer.dataset.layer = ROMAN[z];
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = ROMAN[z];
    layer.appendChild(name);
    for (let rank = 8; rank >= 1; rank--) {
      const label = document.createElement("div");
      label.className = "coord";
      label.textContent = rank;
      layer.appendChild(label);
      for (let f = 0; f < 8; f++) {
        const sq = document.createElement("div");
        const parity = variant.kind === "hdc" ? f + rank - 1 + z : f + rank - 1;
        sq.className = "sq " + (parity % 2 === 0 ? "dark" : "light");
        sq.dataset.sq = FILES[f] + rank + "-" + ROMAN[z];
        sq.addEventListener("click", () => onSquare(sq.dataset.sq));
        layer.appendChild(sq);
      }
    }
    layer.appendChild(document.createElement("div"));
    for (let f = 0; f < 8; f++) {
      const label = document.createElement("div");
      label.className = "coord";
      label.textContent = FILES[f];
      layer.appendChild(label);
    }
    root.appendChild(layer);
  }
}

function drawBoard(board, variant) {
  const root = $("boards");
  if (root.dataset.layers !== String(variant.layers) || root.dataset.kind !== variant.kind) buildBoards(variant);
  const { pieces } = parsePlacement(board.fen);
  const last = board.last || [];
  const targets = new Map(ui.targets.map((t) => [t.to, t]));
  for (const el of root.querySelectorAll(".sq")) {
    const sq = el.dataset.sq;
    const p = pieces[sq];
    el.classList.toggle("last", last.includes(sq));
    el.classList.toggle("check", board.king_in_check === sq);
    el.classList.toggle("attacker", (board.checkers || []).includes(sq));
    el.classList.toggle("sel", ui.selected === sq);
    el.classList.toggle("target", targets.has(sq));
    el.classList.toggle("occupied", !!p);
    if (p) {
      const white = p === p.toUpperCase();
      el.dataset.piece = p;
      el.innerHTML = `<span class="piece ${white ? "w" : "b"}">${GLYPH[p.toLowerCase()]}\uFE0E</span>`;
      el.title = `${white ? "White" : "Black"} ${p.toLowerCase() === "d" ? "Duke" : ""}`.trim();
    } else {
      delete el.dataset.piece;
      el.innerHTML = "";
      el.title = "";
    }
  }
  drawArrow();
}

// The best move of the engine (analysis or the engine thinking) as an arrow over the boards.
function drawArrow() {
  const svg = $("arrows");
  for (const old of svg.querySelectorAll("line")) old.remove();
  for (const el of document.querySelectorAll(".sq.best")) el.classList.remove("best");
  const best = ui.infos.find((i) => i.multipv === 1);
  const g = ui.game;
  if (!best || !best.pv.length || ui.replay || !g || !g.analysis || g.over) return;
  const shown = ui.viewPly === null ? g.moves.length : ui.viewPly;
  if (ui.infoPly !== shown || g.analysis.ply !== shown) return;
  const m = best.pv[0].match(/^([a-h][1-8]-[IVX]+)([a-h][1-8]-[IVX]+)/);
  if (!m) return;
  const a = document.querySelector(`[data-sq="${m[1]}"]`);
  const b = document.querySelector(`[data-sq="${m[2]}"]`);
  if (!a || !b) return;
  a.classList.add("best");
  b.classList.add("best");
  const base = $("boardwrap").getBoundingClientRect();
  const ra = a.getBoundingClientRect();
  const rb = b.getBoundingClientRect();
  const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
  line.setAttribute("x1", ra.left + ra.width / 2 - base.left);
  line.setAttribute("y1", ra.top + ra.height / 2 - base.top);
  line.setAttribute("x2", rb.left + rb.width / 2 - base.left);
  line.setAttribute("y2", rb.top + rb.height / 2 - base.top);
  line.setAttribute("stroke", "#1565c0");
  line.setAttribute("stroke-width", "4");
  line.setAttribute("stroke-opacity", "0.7");
  line.setAttribute("marker-end", "url(#head)");
  svg.appendChild(line);
}

// ---- the live game --------------------------------------------------------

function humanToMove() {
  const g = ui.game;
  if (!g || g.over || ui.replay || ui.viewPly !== null) return false;
  return g.human[g.board.side === "w" ? 0 : 1];
}

function onSquare(sq) {
  if (!humanToMove()) return;
  const target = ui.targets.find((t) => t.to === sq);
  if (ui.selected && target) {
    if (target.promotions.length) choosePromotion(target);
    else send({ type: "move", move: target.move });
    return;
  }
  const { pieces } = parsePlacement(ui.game.board.fen);
  const p = pieces[sq];
  const mine = p && (p === p.toUpperCase()) === (ui.game.board.side === "w");
  ui.selected = mine && ui.selected !== sq ? sq : null;
  ui.targets = [];
  if (ui.selected) send({ type: "targets", from: sq });
  render();
}

function choosePromotion(target) {
  const box = $("promo-choices");
  box.innerHTML = "";
  const white = ui.game.board.side === "w";
  for (const letter of target.promotions) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.promo = letter;
    b.title = NAMES[letter];
    b.innerHTML = `<span class="piece ${white ? "w" : "b"}">${GLYPH[letter]}\uFE0E</span>`;
    b.addEventListener("click", () => {
      $("promo").hidden = true;
      send({ type: "move", move: target.move + letter });
    });
    box.appendChild(b);
  }
  $("promo").hidden = false;
}

function send(msg) {
  if (ui.ws && ui.ws.readyState === WebSocket.OPEN) ui.ws.send(JSON.stringify(msg));
  else showError("not connected to the game");
}

function connect(id) {
  if (ui.ws) { ui.ws.onclose = null; ui.ws.close(); }
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/games/${id}/ws`);
  ui.ws = ws;
  ws.onopen = () => { $("conn").textContent = "connected"; $("conn").className = "conn on"; };
  ws.onclose = () => {
    $("conn").textContent = "offline"; $("conn").className = "conn off";
    if (ui.ws !== ws) return;
    // Reconnect while the server still has the game (after a restart it is resumed from the Games list).
    setTimeout(async () => {
      if (ui.ws !== ws || !ui.game) return;
      try {
        await api("GET", `/api/games/${ui.game.id}`);
        connect(ui.game.id);
      } catch (e) {
        showError(`the server no longer has game ${ui.game.id} (${e.message}): resume it from the Games list`);
        refreshGames();
      }
    }, 2000);
  };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
}

function onMessage(msg) {
  switch (msg.type) {
    case "state": {
      const moved = !ui.game || ui.game.id !== msg.id || ui.game.moves.length !== msg.moves.length;
      ui.game = msg;
      ui.clockAt = performance.now();
      if (moved) { ui.selected = null; ui.targets = []; }
      // The lines of the search in progress (a page that connects late); the last search's stay shown otherwise.
      if (msg.infos.length) { ui.infos = msg.infos; ui.infoPly = msg.info_ply; ui.infoEngine = msg.info_engine; }
      showError(msg.error);
      render();
      break;
    }
    case "targets":
      if (msg.from === ui.selected) { ui.targets = msg.targets; render(); }
      break;
    case "board":
      ui.viewPly = msg.ply;
      ui.viewBoard = msg;
      if (ui.game && ui.game.analysis && ui.game.analysis.ply !== msg.ply) setAnalysis(true);
      render();
      break;
    case "info": {
      if (msg.ply !== ui.infoPly) { ui.infos = []; ui.infoPly = msg.ply; }
      const i = ui.infos.findIndex((x) => x.multipv === msg.info.multipv);
      if (i >= 0) ui.infos[i] = msg.info; else ui.infos.push(msg.info);
      ui.infos.sort((a, b) => a.multipv - b.multipv);
      ui.infoEngine = msg.engine;
      drawInfos();
      drawArrow();
      break;
    }
    case "error":
      showError(msg.error);
      break;
    case "closed":
      if (ui.game && ui.game.id === msg.id) {
        if (ui.ws) { ui.ws.onclose = null; ui.ws.close(); ui.ws = null; }
        ui.game = null;
        ui.infos = [];
        $("status").textContent = `Game ${msg.id} adjourned: resume it from the Games list.`;
        $("resign").hidden = true;
        $("adjourn").hidden = true;
        refreshGames();
      }
      break;
  }
}

function statusText(g) {
  const side = g.board.side === "w" ? 0 : 1;
  const who = ["White", "Black"][side];
  if (g.over) {
    const words = { "1-0": "White wins", "0-1": "Black wins", "1/2-1/2": "Draw" }[g.result];
    return `Game over: ${g.result} — ${words} by ${g.reason}${g.comment ? " (" + g.comment + ")" : ""}`;
  }
  const check = g.board.king_in_check ? " — check!" : "";
  if (g.human[side]) return `${who} to move (${g.players[side]}: click a piece)${check}`;
  return `${who} to move: ${g.players[side]} is thinking…${check}`;
}

function render() {
  const g = ui.game;
  if (ui.replay) return renderReplay();
  $("resign").hidden = !g;
  $("adjourn").hidden = !g;
  if (!g) return;
  $("title").textContent = `Game ${g.id}: ${g.players[0]} – ${g.players[1]}, ${g.variant.name}, ${g.limit}`;
  $("status").textContent = statusText(g);
  const board = ui.viewPly !== null && ui.viewBoard ? ui.viewBoard : g.board;
  drawBoard(board, g.variant);
  $("live").hidden = ui.viewPly === null;
  $("resign").hidden = g.over || !g.human.some((h) => h);
  $("adjourn").hidden = g.over;
  $("retry").hidden = !g.error || g.over;
  $("analyse").checked = !!g.analysis;
  if (g.analysis) { $("multipv").value = g.analysis.multipv; $("analyse-engine").value = g.analysis.engine; }
  drawMoves(g.moves, ui.viewPly === null ? g.moves.length : ui.viewPly, (ply) => send({ type: "view", ply }), null, g.start_fen);
  drawClocks();
  drawInfos();
}

const MARK_NAMES = { "?!": "inaccuracy", "?": "mistake", "??": "blunder" };

// A move's analysis as text: the eval from White's view (pawns or mate).
function fmtEval(a) {
  if (!a) return "";
  if (a.mate !== null && a.mate !== undefined) return (a.mate > 0 ? "#" : "#-") + Math.abs(a.mate);
  if (a.eval === null || a.eval === undefined) return "";
  return (a.eval > 0 ? "+" : "") + a.eval.toFixed(2);
}

// A better line as the record has it, its `{[%eval X]}` comments shown as `(X)`.
function fmtLine(line) {
  return line.replace(/\{\[%eval ([^\]]*)\]\}/g, "($1)").replace(/[{}]/g, "");
}

// Where a record's moves start: the move number and side to move of its
// start position's 3D-FEN (a game from a FEN is numbered from there).
function fenStart(fen) {
  const f = (fen || "").trim().split(/\s+/);
  const number = parseInt(f[5], 10);
  return { number: number > 0 ? number : 1, black: f[1] === "b" };
}

// Ply `i` (from 0) of a record that starts at `start`: "12." or "12...".
function moveLabel(start, i) {
  const k = i + (start.black ? 1 : 0);
  return `${start.number + Math.floor(k / 2)}${k % 2 ? "..." : "."}`;
}

function drawMoves(moves, current, onPick, notes, startFen) {
  const list = $("moves");
  list.innerHTML = "";
  const start = fenStart(startFen);
  list.start = start.number;
  let li = null;
  if (start.black && moves.length) {
    // Black moved first: White's half of the first numbered move is empty.
    li = document.createElement("li");
    list.appendChild(li);
    const gap = document.createElement("span");
    gap.className = "gap";
    gap.textContent = "…";
    li.appendChild(gap);
  }
  moves.forEach((m, i) => {
    if ((i + (start.black ? 1 : 0)) % 2 === 0) { li = document.createElement("li"); list.appendChild(li); }
    const span = document.createElement("span");
    span.className = "mv" + (i + 1 === current ? " cur" : "");
    span.textContent = m;
    span.dataset.ply = i + 1;
    span.dataset.move = m;
    const a = notes && notes[i];
    if (a && a.mark) {
      const nag = document.createElement("span");
      nag.className = "nag " + MARK_NAMES[a.mark];
      nag.textContent = a.mark;
      span.appendChild(nag);
      span.dataset.mark = a.mark;
    }
    if (a && (a.mark || fmtEval(a))) {
      span.title = [fmtEval(a) && `eval ${fmtEval(a)}`, a.tablebase, a.mark && MARK_NAMES[a.mark],
        a.better && `better: ${fmtLine(a.better)}`].filter(Boolean).join("; ");
    }
    span.addEventListener("click", () => onPick(i + 1));
    li.appendChild(span);
  });
  const cur = list.querySelector(".cur");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

function fmtClock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function drawClocks() {
  const g = ui.game;
  const box = $("clocks");
  if (!g || !g.clocks_ms || ui.replay) { box.hidden = true; return; }
  box.hidden = false;
  const side = g.board.side === "w" ? 0 : 1;
  const c = g.clocks_ms.slice();
  if (!g.over) c[side] -= performance.now() - ui.clockAt;
  $("clock-w").textContent = `White ${fmtClock(c[0])}`;
  $("clock-b").textContent = `Black ${fmtClock(c[1])}`;
  $("clock-w").className = !g.over && side === 0 ? "run" : "";
  $("clock-b").className = !g.over && side === 1 ? "run" : "";
}

function fmtScore(i) {
  if (i.white_mate !== null && i.white_mate !== undefined) return (i.white_mate > 0 ? "#" : "#-") + Math.abs(i.white_mate);
  if (i.white_cp === null || i.white_cp === undefined) return "";
  const v = (i.white_cp / 100).toFixed(2);
  const bound = i.bound === "lowerbound" ? "≥" : i.bound === "upperbound" ? "≤" : "";
  return bound + (i.white_cp > 0 ? "+" + v : v);
}

function drawInfos() {
  const g = ui.game;
  const body = $("infos").querySelector("tbody");
  body.innerHTML = "";
  const head = $("engine-head");
  if (!g || ui.replay) { head.textContent = "Engine: idle"; return; }
  head.textContent = g.analysis ? "Analysis" : g.thinking ? `Engine: ${g.thinking} searching` : "Engine: idle";
  if (ui.infos.length) head.textContent += ` — ${ui.infoEngine}, scores from White's view`;
  for (const i of ui.infos) {
    const tr = document.createElement("tr");
    const cells = [i.multipv, `${i.depth ?? ""}/${i.seldepth ?? ""}`, fmtScore(i), i.nodes ?? "", i.nps ?? "",
      i.hashfull !== null && i.hashfull !== undefined ? (i.hashfull / 10).toFixed(1) + "%" : "", i.pv.slice(0, 12).join(" ")];
    cells.forEach((c, k) => {
      const td = document.createElement("td");
      td.textContent = c;
      if (k === 6) td.className = "pv";
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
}

async function openGame(state) {
  stopReplay();
  ui.game = state;
  ui.viewPly = null;
  ui.selected = null;
  ui.targets = [];
  ui.infos = [];
  ui.infoPly = -1;
  showError("");
  connect(state.id);
  render();
  refreshGames();
}

// ---- new game, resume -----------------------------------------------------

function fillSelect(sel, items) {
  sel.innerHTML = "";
  items.forEach(([value, text]) => {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = text;
    sel.appendChild(o);
  });
}

function formVisibility() {
  const f = $("newform");
  const mode = f.mode.value;
  for (const el of f.querySelectorAll(".m-play, .m-watch")) {
    el.hidden = !el.classList.contains("m-" + mode);
  }
  f.querySelector(".v-hab").hidden = f.variant.value !== "haberkorn";
  for (const k of ["movetime", "clock", "depth"]) {
    for (const el of f.querySelectorAll(".l-" + k)) el.hidden = f.limit.value !== k;
  }
  const layers = Number(f.layers.value);
  const opts = ROMAN.slice(0, layers).map((r, i) => [i + 1, r]);
  const w = f.white_layer.value, b = f.black_layer.value;
  fillSelect(f.white_layer, opts);
  fillSelect(f.black_layer, opts);
  if (f.dataset.layers === String(layers)) {
    f.white_layer.value = w;
    f.black_layer.value = b;
  } else {
    // A new layer count starts from the rules' setup layers for it (/api/config).
    [f.white_layer.value, f.black_layer.value] = ui.cfg.setup_layers[layers];
    f.dataset.layers = String(layers);
  }
}

function newGameRequest() {
  const f = $("newform");
  const req = { variant: f.variant.value };
  if (req.variant === "haberkorn") {
    req.layers = Number(f.layers.value);
    req.white_layer = Number(f.white_layer.value);
    req.black_layer = Number(f.black_layer.value);
    req.random_constellation = f.random_constellation.checked;
    req.en_passant = f.en_passant.checked;
    req.castling = f.castling.checked;
  }
  if (f.fen.value.trim()) req.fen = f.fen.value.trim();
  const e1 = Number(f.engine1.value), e2 = Number(f.engine2.value);
  if (f.mode.value === "play") {
    const white = f.colour.value === "random" ? Math.random() < 0.5 : f.colour.value === "white";
    if (white) req.black = e1; else req.white = e1;
  } else if (f.mode.value === "watch") {
    req.white = e1;
    req.black = e2;
  }
  if (f.limit.value === "movetime") req.limit = { kind: "movetime", ms: Math.round(Number(f.movetime.value) * 1000) };
  if (f.limit.value === "clock") req.limit = { kind: "clock", base_s: Math.round(Number(f.base.value) * 60), inc_s: Number(f.inc.value) };
  if (f.limit.value === "depth") req.limit = { kind: "depth", depth: Number(f.depth.value) };
  req.options = { threads: Number(f.threads.value), hash: Number(f.hash.value), strategy: f.strategy.value };
  return req;
}

async function startGame(ev) {
  ev.preventDefault();
  try {
    const state = await api("POST", "/api/games", newGameRequest());
    await openGame(state);
    if ($("newform").mode.value === "analysis") setAnalysis(true);
  } catch (e) {
    showError(e.message);
  }
}

async function refreshGames() {
  const list = $("games");
  try {
    const data = await api("GET", "/api/games");
    list.innerHTML = "";
    for (const g of data.live) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "open";
      b.addEventListener("click", async () => openGame(await api("GET", `/api/games/${g.id}`)));
      li.append(b, ` game ${g.id}: ${g.players[0]} – ${g.players[1]}, ${g.variant}, ${g.plies} plies${g.over ? ", " + g.result + " " + g.reason : ", in progress"}`);
      list.appendChild(li);
    }
    for (const g of data.unfinished) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "resume";
      b.addEventListener("click", async () => {
        try { await openGame(await api("POST", "/api/resume", { file: g.file })); } catch (e) { showError(e.message); }
      });
      li.append(b, ` ${g.file}: ${g.players[0]} – ${g.players[1]}, ${g.variant}, ${g.plies} plies, unfinished (${g.date})`);
      list.appendChild(li);
    }
    if (!list.children.length) list.innerHTML = "<li>no games yet</li>";
    const recs = await api("GET", "/api/records");
    fillSelect($("records"), recs.records.map((r) => [r.file, `${r.file} (${r.bytes} bytes)`]));
  } catch (e) {
    showError(e.message);
  }
}

function setAnalysis(on) {
  const g = ui.game;
  if (!g) return;
  ui.infos = [];
  const ply = ui.viewPly === null ? g.moves.length : ui.viewPly;
  send({ type: "analyse", on, engine: Number($("analyse-engine").value || 0), multipv: Number($("multipv").value || 1), ply });
}

// ---- replay ---------------------------------------------------------------

function stopReplay() {
  if (ui.replay && ui.replay.timer) clearInterval(ui.replay.timer);
  ui.replay = null;
  $("replay-panel").hidden = true;
  $("evalbox").hidden = true;
  $("move-note").hidden = true;
}

async function loadReplay(source, game) {
  try {
    const data = source.text !== undefined
      ? await api("POST", `/api/replay?game=${game}`, source.text)
      : await api("GET", `/api/records/${encodeURIComponent(source.file)}?game=${game}`);
    if (ui.ws) { ui.ws.onclose = null; ui.ws.close(); ui.ws = null; }
    stopReplay();
    ui.game = null;
    ui.infos = [];
    ui.targets = [];
    ui.selected = null;
    ui.replay = { data, ply: 0, timer: null, source };
    fillReplayPanel(data);
    $("replay-panel").hidden = false;
    showError("");
    renderReplay();
  } catch (e) {
    showError(e.message);
  }
}

// The replay panel's game list and tags.
function fillReplayPanel(data) {
  fillSelect($("replay-game"), data.games.map((g, i) => [i, `game ${i + 1}: ${g.white} – ${g.black} ${g.result} (${g.termination}, ${g.plies} plies)`]));
  $("replay-game").value = data.game;
  const tags = $("tags");
  tags.innerHTML = "";
  for (const [k, v] of data.tags) {
    const tr = document.createElement("tr");
    tr.innerHTML = "<td></td><td></td>";
    tr.children[0].textContent = k;
    tr.children[1].textContent = v;
    tags.appendChild(tr);
  }
  if (data.comment) {
    const tr = document.createElement("tr");
    tr.innerHTML = "<td>Comment</td><td></td>";
    tr.children[1].textContent = data.comment;
    tags.appendChild(tr);
  }
}

// White's winning chances (−1 to 1) after each move of an analysed replay
// (the server's, on the curve of `cubist analyse`); a move without an eval keeps the one before,
// a game's last move that mates scores its result.
function replayChances(d) {
  const result = (d.tags.find((t) => t[0] === "Result") || ["", ""])[1];
  let last = 0;
  return d.analysis.map((a, i) => {
    if (a.chances !== null && a.chances !== undefined) last = a.chances;
    else if (i === d.analysis.length - 1 && (result === "1-0" || result === "0-1")) last = result === "1-0" ? 1 : -1;
    return last;
  });
}

const SVG = "http://www.w3.org/2000/svg";
function svgEl(name, attrs) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

// The evaluation graph under the boards: x is the ply (0 to the last), y White's
// winning chances (+1 at the top); the shown ply is a line, marked moves are dots.
function drawGraph() {
  const r = ui.replay;
  const d = r.data;
  const svg = $("evalgraph");
  const annotated = !!d.summary && d.moves.length > 0;
  $("evalbox").hidden = false;
  svg.toggleAttribute("hidden", !annotated); // an SVG element has no `hidden` property
  $("eval-empty").hidden = annotated;
  const s = d.summary;
  $("eval-summary").textContent = s
    ? `White: ${s.white_marks || "no marks"}, average loss ${s.white_average_loss} cp — Black: ${s.black_marks || "no marks"}, average loss ${s.black_average_loss} cp`
    : "";
  $("eval-summary").title = s ? s.annotator : "";
  svg.innerHTML = "";
  if (!annotated) return;
  // As wide as the boards above: the box takes their width and gives none back (style.css).
  const W = Math.max(320, $("evalbox").clientWidth - 16), H = 130, pad = 6;
  svg.setAttribute("width", W);
  svg.setAttribute("height", H);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const n = d.moves.length;
  const x = (ply) => pad + (ply / n) * (W - 2 * pad);
  const y = (c) => H / 2 - c * (H / 2 - pad);
  const chances = replayChances(d);
  const pts = [[x(0), y(0)], ...chances.map((c, i) => [x(i + 1), y(c)])];
  const line = pts.map((p) => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ");
  svg.appendChild(svgEl("rect", { class: "black", x: 0, y: 0, width: W, height: H }));
  const [y0, yn] = [pts[0][1], pts[n][1]];
  svg.appendChild(svgEl("polygon", { class: "white", points: `0,${H} 0,${y0} ${line} ${W},${yn} ${W},${H}` }));
  svg.appendChild(svgEl("line", { class: "zero", x1: 0, y1: y(0), x2: W, y2: y(0) }));
  svg.appendChild(svgEl("polyline", { class: "curve", points: line }));
  svg.appendChild(svgEl("line", { class: "now", x1: x(r.ply), y1: 0, x2: x(r.ply), y2: H }));
  const start = fenStart(d.boards[0].fen);
  d.analysis.forEach((a, i) => {
    const mark = a.mark ? MARK_NAMES[a.mark] : "";
    const dot = svgEl("circle", { class: "pt " + mark, cx: x(i + 1), cy: y(chances[i]), r: mark ? 4.5 : (n <= 80 ? 1.6 : 0.8) });
    dot.dataset.ply = i + 1;
    const title = svgEl("title", {});
    title.textContent = `${moveLabel(start, i)} ${d.moves[i]}${a.mark || ""} ${fmtEval(a)}`;
    dot.appendChild(title);
    svg.appendChild(dot);
  });
  svg.dataset.ply = r.ply;
}

// The shown move's analysis under the move list: eval, mark and better line.
function drawMoveNote() {
  const r = ui.replay;
  const box = $("move-note");
  const a = r && r.ply > 0 && r.data.analysis ? r.data.analysis[r.ply - 1] : null;
  box.hidden = !a || !(a.mark || fmtEval(a));
  if (box.hidden) return;
  box.innerHTML = "";
  const head = document.createElement("div");
  head.append(`${r.data.moves[r.ply - 1]}`);
  if (a.mark) {
    const nag = document.createElement("span");
    nag.className = "nag " + MARK_NAMES[a.mark];
    nag.textContent = `${a.mark} ${MARK_NAMES[a.mark]}`;
    head.append(" ", nag);
  }
  if (fmtEval(a)) head.append(` — eval ${fmtEval(a)} (White's view)`);
  if (a.tablebase) head.append(` — ${a.tablebase}`);
  box.appendChild(head);
  if (a.better) {
    const better = document.createElement("div");
    better.className = "line";
    better.textContent = "better: " + fmtLine(a.better);
    box.appendChild(better);
  }
}

function onGraphClick(ev) {
  const r = ui.replay;
  if (!r || !r.data.moves.length) return;
  const box = $("evalgraph").getBoundingClientRect();
  const pad = 6, n = r.data.moves.length;
  const ply = Math.round(((ev.clientX - box.left - pad) / (box.width - 2 * pad)) * n);
  replayStep(ply);
}

// Asks the server to analyse the replayed game; the answer replaces the replay (same ply).
async function analyseReplay() {
  const r = ui.replay;
  if (!r || r.busy) return;
  const b = $("analyse-game");
  const nodes = Number($("analyse-nodes").value || 20000);
  const body = { game: r.data.game, nodes };
  if (r.source.text !== undefined) body.text = r.source.text; else body.file = r.source.file;
  r.busy = true;
  b.disabled = true;
  const started = performance.now();
  const tick = () => { b.textContent = `Analysing ${r.data.moves.length + 1} positions… ${Math.round((performance.now() - started) / 1000)} s`; };
  tick();
  const timer = setInterval(tick, 500);
  try {
    const data = await api("POST", "/api/analyse", body);
    if (ui.replay === r) {
      r.data = data;
      r.source = { text: data.record };
      fillReplayPanel(data);
      showError("");
      renderReplay();
    }
  } catch (e) {
    showError("analysis: " + e.message);
  } finally {
    clearInterval(timer);
    r.busy = false;
    b.disabled = false;
    b.textContent = "Analyse";
  }
}

function replayStep(ply) {
  const r = ui.replay;
  if (!r) return;
  r.ply = Math.max(0, Math.min(r.data.moves.length, ply));
  renderReplay();
}

function renderReplay() {
  const r = ui.replay;
  const d = r.data;
  const tag = (k) => (d.tags.find((t) => t[0] === k) || [k, ""])[1];
  $("title").textContent = `Replay: ${tag("White")} – ${tag("Black")} ${tag("Result")}, ${d.variant.name}`;
  $("status").textContent = `Replay, ply ${r.ply} of ${d.moves.length}` + (r.ply === d.moves.length ? ` — ${tag("Result")} (${tag("Termination")})` : "");
  drawBoard(d.boards[r.ply], d.variant);
  drawMoves(d.moves, r.ply, replayStep, d.analysis, d.boards[0].fen);
  drawGraph();
  drawMoveNote();
  $("live").hidden = true;
  $("resign").hidden = true;
  $("adjourn").hidden = true;
  $("retry").hidden = true;
  $("clocks").hidden = true;
  drawInfos();
}

// ---- start ----------------------------------------------------------------

async function init() {
  try {
    ui.cfg = await api("GET", "/api/config");
  } catch (e) {
    showError("the server does not answer: " + e.message);
    return;
  }
  const engines = ui.cfg.engines.map((n, i) => [i, n]);
  const f = $("newform");
  fillSelect(f.engine1, engines);
  fillSelect(f.engine2, engines);
  if (engines.length > 1) f.engine2.value = 1;
  fillSelect($("analyse-engine"), engines);
  f.threads.max = ui.cfg.max_threads;
  for (const name of ["mode", "variant", "limit", "layers"]) f[name].addEventListener("change", formVisibility);
  formVisibility();
  f.addEventListener("submit", startGame);
  $("refresh").addEventListener("click", refreshGames);
  $("resign").addEventListener("click", () => { if (confirm("Resign this game?")) send({ type: "resign" }); });
  $("retry").addEventListener("click", () => send({ type: "retry" }));
  $("adjourn").addEventListener("click", () => send({ type: "close" }));
  $("analyse").addEventListener("change", (e) => setAnalysis(e.target.checked));
  $("multipv").addEventListener("change", () => { if ($("analyse").checked) setAnalysis(true); });
  $("live").addEventListener("click", () => {
    ui.viewPly = null;
    ui.viewBoard = null;
    if (ui.game && ui.game.analysis) setAnalysis(true);
    render();
  });
  $("tilt").addEventListener("change", (e) => { $("boards").classList.toggle("tilt", e.target.checked); drawArrow(); });
  $("promo-cancel").addEventListener("click", () => { $("promo").hidden = true; });
  $("upload").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (file) loadReplay({ text: await file.text() }, 0);
  });
  $("open-record").addEventListener("click", () => { if ($("records").value) loadReplay({ file: $("records").value }, 0); });
  $("replay-game").addEventListener("change", (e) => loadReplay(ui.replay.source, Number(e.target.value)));
  $("rp-first").addEventListener("click", () => replayStep(0));
  $("rp-prev").addEventListener("click", () => replayStep(ui.replay.ply - 1));
  $("rp-next").addEventListener("click", () => replayStep(ui.replay.ply + 1));
  $("rp-last").addEventListener("click", () => replayStep(1e9));
  $("rp-play").addEventListener("click", () => {
    const r = ui.replay;
    if (!r) return;
    if (r.timer) { clearInterval(r.timer); r.timer = null; $("rp-play").textContent = "▶ autoplay"; return; }
    $("rp-play").textContent = "❚❚ pause";
    r.timer = setInterval(() => {
      if (r.ply >= r.data.moves.length) { clearInterval(r.timer); r.timer = null; $("rp-play").textContent = "▶ autoplay"; return; }
      replayStep(r.ply + 1);
    }, 800);
  });
  $("evalgraph").addEventListener("click", onGraphClick);
  $("analyse-game").addEventListener("click", analyseReplay);
  // Replay: the arrow keys step through the game (Home and End jump), unless a field has the focus.
  document.addEventListener("keydown", (e) => {
    const r = ui.replay;
    if (!r || e.altKey || e.ctrlKey || e.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName)) return;
    const to = { ArrowLeft: r.ply - 1, ArrowRight: r.ply + 1, Home: 0, End: 1e9 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    replayStep(to);
  });
  setInterval(drawClocks, 250);
  window.addEventListener("resize", () => { drawArrow(); if (ui.replay) drawGraph(); });
  await refreshGames();
  const id = new URLSearchParams(location.search).get("game");
  if (id) {
    try { await openGame(await api("GET", `/api/games/${id}`)); } catch (e) { showError(e.message); }
  } else {
    buildBoards({ kind: "hdc", layers: 8 });
    drawBoard({ fen: "4r3/pppppppp/8/8/8/8/PPPPPPPP/4R3|4n3/pppppppp/8/8/8/8/PPPPPPPP/4N3|4b3/pppppppp/8/8/8/8/PPPPPPPP/4B3|rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR|4d3/pppppppp/8/8/8/8/PPPPPPPP/4D3|4b3/pppppppp/8/8/8/8/PPPPPPPP/4B3|4n3/pppppppp/8/8/8/8/PPPPPPPP/4N3|4r3/pppppppp/8/8/8/8/PPPPPPPP/4R3 w KQLUkqlu - 0 1" }, { kind: "hdc", layers: 8 });
  }
}

init();
