/**
 * The replay viewer: draws a `cucumbers-replay/1` game as a card table and steps through it.
 *
 * Markup it enhances (one element per game; the platform's match page and the offline page
 * written by `cucumbers replay --html` both use it):
 *
 *   <details data-replay-viewer data-game="1" data-replay-url="/api/…/replay/" open>…</details>
 *   <div data-replay-viewer data-game="1" data-replay-inline="replay-json"></div>
 *
 * `data-replay-url` is fetched when the element is (or gets) open; `data-replay-inline` names
 * a `<script type="application/json">` holding the replay. The position lives in the URL
 * hash (`#g2-r3-t4-p2`, see model.js) so a moment can be linked.
 *
 * Every name and fault detail comes from bots and their authors: text goes in through
 * `textContent` only, never as HTML.
 *
 * @module viewer
 */
import { cardName, gameInfo, indexOf, parseKey, positionKey, roundsOf, seatDecision, seatView, step, tableAt, timeline } from "./model.js";

/** Keyboard shortcuts, drawn on the page as help. */
export const SHORTCUTS = [
  ["← / →", "previous / next play"],
  ["Shift + ← / →", "previous / next trick"],
  ["PgUp / PgDn or [ / ]", "previous / next round"],
  ["Home / End", "start / end of the game"],
  ["Space", "play / pause"],
  ["V", "next view: every hand, then each seat's own"],
  ["N / P", "in a seat's view: its next / previous move"],
];

/** A bot's output during one move is shown up to this many lines (the rest is counted). */
const OUTPUT_LINES = 40;

const SPEEDS = [0.5, 1, 2, 4];
const STEP_MS = 900; // one play per 0.9 s at 1×: slow enough to follow a trick being built

/** Create an element with attributes (`data-*`, `class`, …) and children (nodes or text). */
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    // Through the CSSOM, not a style attribute: the site's Content-Security-Policy refuses
    // inline style attributes, not styles set by its own script.
    if (key === "style") node.style.cssText = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

/** A card face, named as the game's rules name it; `data-card` keeps the rank. */
const card = (info, value, attrs = {}) => h("span", { class: "cv-card", "data-card": value, ...attrs }, cardName(info, value));

/**
 * One viewer bound to one game's replay inside `root`.
 * Returns a controller: `{goTo(index), move(unit, dir), toggle(), setSeat(seat), key(), index()}`.
 *
 * The table shows every hand (the spectator's view) or, once a seat is chosen, the game as
 * that seat saw it: its own hand, the others face down with their card counts, its legal
 * cards marked when it is to play, and that move's time and output when the replay has them.
 */
export function mountViewer(root, replay, { game = 1, onMove = () => {} } = {}) {
  const positions = timeline(replay);
  const state = { index: 0, timer: null, speed: 1, seat: null };
  const seatCount = Array.isArray(replay?.players) ? replay.players.length : 0;
  const validSeat = (seat) => (Number.isInteger(seat) && seat >= 0 && seat < seatCount ? seat : null);
  const parts = skeleton(root, replay, game);

  function render() {
    const pos = positions[state.index];
    const table = tableAt(replay, pos);
    const view = state.seat === null ? null : seatView(replay, pos, state.seat, table);
    root.dataset.positionKey = positionKey(game, pos, state.seat);
    root.dataset.view = view ? String(view.seat) : "all";
    parts.view.value = root.dataset.view;
    for (const button of parts.seatButtons) button.hidden = view === null;
    root.dataset.positionIndex = String(state.index);
    parts.position.textContent = `Round ${table.roundNumber} of ${table.rounds} · trick ${table.trickNumber} of ${table.tricks} · move ${state.index} of ${positions.length - 1}`;
    parts.scrub.value = String(state.index);
    parts.seats.replaceChildren(...table.seats.map((seat) => drawSeat(seat, table, view)));
    parts.center.replaceChildren(...drawCenter(table, view));
    for (const item of parts.rounds.querySelectorAll("[data-round]")) {
      item.toggleAttribute("aria-current", Number(item.dataset.round) === pos.round + 1);
    }
    parts.link.href = `#${root.dataset.positionKey}`;
  }

  function goTo(index, { user = true } = {}) {
    state.index = Math.max(0, Math.min(positions.length - 1, index));
    render();
    if (state.index === positions.length - 1) pause();
    if (user) onMove(controller);
  }

  function pause() {
    clearInterval(state.timer);
    state.timer = null;
    parts.toggle.setAttribute("aria-pressed", "false");
    parts.toggle.textContent = "Play";
    root.dataset.playing = "false";
  }

  function play() {
    if (state.index === positions.length - 1) goTo(0);
    clearInterval(state.timer);
    state.timer = setInterval(() => goTo(state.index + 1), STEP_MS / state.speed);
    parts.toggle.setAttribute("aria-pressed", "true");
    parts.toggle.textContent = "Pause";
    root.dataset.playing = "true";
  }

  const controller = {
    game,
    root,
    goTo,
    move(unit, dir) {
      if (unit !== "decision") goTo(step(replay, positions, state.index, unit, dir));
      else if (state.seat !== null) goTo(seatDecision(replay, positions, state.index, state.seat, dir));
    },
    toggle: () => (state.timer ? pause() : play()),
    key: () => root.dataset.positionKey,
    /** See the table as `seat` saw it, or every hand (`null`). */
    setSeat(seat) {
      state.seat = validSeat(seat);
      render();
      onMove(controller);
    },
    /** The next view: every hand, seat 0, seat 1, … and back to every hand. */
    nextView: () => controller.setSeat(state.seat === null ? 0 : state.seat + 1),
    index: () => state.index,
    /** Go to a parsed hash position ({@link parseKey}). */
    show(target) {
      state.seat = validSeat(target.seat);
      goTo(indexOf(positions, target), { user: false });
    },
    setSpeed(speed) {
      state.speed = speed;
      if (state.timer) play();
    },
    pause,
  };

  wireControls(parts, controller, positions);
  render();
  return controller;
}

/** The static parts of a viewer: controls, table, round list and help. */
function skeleton(root, replay, game) {
  const button = (action, label, title) => h("button", { type: "button", "data-action": action, title, "aria-label": title }, label);
  const toggle = h("button", { type: "button", "data-action": "toggle", "aria-pressed": "false", title: "Play / pause (Space)" }, "Play");
  const speed = h("select", { "data-speed": true, "aria-label": "Speed" }, ...SPEEDS.map((s) => h("option", { value: s, selected: s === 1 }, `${s}×`)));
  const scrub = h("input", { type: "range", min: 0, max: timeline(replay).length - 1, value: 0, "data-scrub": true, "aria-label": "Position in the game" });
  const position = h("span", { class: "cv-position", "data-position": true, "aria-live": "polite" });
  const link = h("a", { class: "cv-link", "data-link": true, title: "Link to this moment" }, "link");
  const seats = h("div", { class: "cv-seats", "data-seats": true });
  const center = h("div", { class: "cv-center", "data-center": true });
  const rounds = h("ol", { class: "cv-rounds", "data-rounds": true }, ...roundsOf(replay).map((round, r) => roundItem(replay, round, r)));
  const players = Array.isArray(replay?.players) ? replay.players.length : 0;
  const view = h(
    "select",
    { "data-view": true, "aria-label": "Whose view: every hand, or what one seat saw (V)", title: "Whose view (V)" },
    h("option", { value: "all" }, "Every hand"),
    ...Array.from({ length: players }, (_, seat) => h("option", { value: seat }, `Seen by ${seatName(replay, seat)}`)),
  );
  // Shown in a seat's view only: step from one of its moves to the next.
  const seatButtons = [button("decision-back", "◀ Its move", "Previous move of this seat (P)"), button("decision-forward", "Its move ▶", "Next move of this seat (N)")];
  const controls = h(
    "div",
    { class: "cv-controls", role: "toolbar", "aria-label": "Replay controls" },
    button("round-back", "◀ Round", "Previous round (PgUp or [)"),
    button("trick-back", "◀ Trick", "Previous trick (Shift+←)"),
    button("play-back", "◀", "Previous play (←)"),
    toggle,
    button("play-forward", "▶", "Next play (→)"),
    button("trick-forward", "Trick ▶", "Next trick (Shift+→)"),
    button("round-forward", "Round ▶", "Next round (PgDn or ])"),
    speed,
    view,
    ...seatButtons,
    link,
  );
  root.classList.add("cv");
  root.dataset.viewerGame = String(game);
  root.dataset.seats = String(players);
  root.tabIndex = 0;
  root.replaceChildren(
    h("p", { class: "cv-title" }, `${gameInfo(replay?.game).title} · seed ${replay?.seed ?? "?"} · ${players} players`),
    controls,
    h("div", { class: "cv-scrubber" }, scrub, position),
    h("div", { class: "cv-table", "data-table": true, style: `--seats: ${Math.max(players, 2)}` }, seats, center),
    h("details", { class: "cv-round-list" }, h("summary", {}, "Rounds"), rounds),
    h("p", { class: "cv-help", "data-shortcuts": true }, "Keys: ", ...SHORTCUTS.flatMap(([keys, what], i) => [i ? " · " : "", h("kbd", {}, keys), ` ${what}`])),
  );
  return { controls, toggle, speed, view, seatButtons, scrub, position, link, seats, center, rounds };
}

/** One entry of the round list: its number, loser and penalty; a button that jumps there. */
function roundItem(replay, round, r) {
  const name = seatName(replay, round.loser);
  const unit = gameInfo(replay?.game).shortUnit;
  return h("li", {}, h("button", { type: "button", "data-round": r + 1 }, `R${round.number ?? r + 1}`, h("small", {}, ` ${name} +${round.penalty ?? "?"} ${unit}`)));
}

const seatName = (replay, seat) => {
  const player = (Array.isArray(replay?.players) ? replay.players : []).find((p) => p?.seat === seat);
  return String(player?.name ?? `seat ${seat}`);
};

function wireControls(parts, viewer, positions) {
  const actions = {
    "round-back": () => viewer.move("round", -1),
    "trick-back": () => viewer.move("trick", -1),
    "play-back": () => viewer.move("play", -1),
    toggle: () => viewer.toggle(),
    "play-forward": () => viewer.move("play", 1),
    "trick-forward": () => viewer.move("trick", 1),
    "round-forward": () => viewer.move("round", 1),
    "decision-back": () => viewer.move("decision", -1),
    "decision-forward": () => viewer.move("decision", 1),
  };
  viewer.root.addEventListener("click", (event) => {
    const target = event.target.closest("[data-action], [data-round]");
    if (!target || !viewer.root.contains(target)) return;
    if (target.dataset.action) actions[target.dataset.action]?.();
    else viewer.goTo(indexOf(positions, { round: Number(target.dataset.round) - 1, trick: 0, played: 0 }));
  });
  parts.speed.addEventListener("change", () => viewer.setSpeed(Number(parts.speed.value)));
  parts.view.addEventListener("change", () => viewer.setSeat(parts.view.value === "all" ? null : Number(parts.view.value)));
  parts.scrub.addEventListener("input", () => viewer.goTo(Number(parts.scrub.value)));
  parts.link.addEventListener("click", (event) => {
    event.preventDefault();
    viewer.goTo(viewer.index());
  });
  // A mouse click on a control leaves no focus on that button (Space keeps meaning
  // play/pause rather than pressing the button clicked last) and gives the viewer the keys.
  parts.controls.addEventListener("mousedown", (event) => {
    if (!event.target.closest("button")) return;
    event.preventDefault();
    viewer.root.focus({ preventScroll: true });
  });
}

/** Keys → viewer actions; null for keys the viewer leaves alone. */
export function actionFor(event) {
  const { key, shiftKey, altKey, ctrlKey, metaKey } = event;
  if (altKey || ctrlKey || metaKey) return null;
  const table = {
    ArrowLeft: shiftKey ? ["trick", -1] : ["play", -1],
    ArrowRight: shiftKey ? ["trick", 1] : ["play", 1],
    PageUp: ["round", -1],
    "[": ["round", -1],
    PageDown: ["round", 1],
    "]": ["round", 1],
    Home: ["start"],
    End: ["end"],
    " ": ["toggle"],
    v: ["view"],
    V: ["view"],
    n: ["decision", 1],
    N: ["decision", 1],
    p: ["decision", -1],
    P: ["decision", -1],
  };
  return table[key] ?? null;
}

function drawSeat(seat, table, view) {
  const result = table.result;
  const winner = table.trick.complete && table.trick.winner === seat.seat;
  const loser = result !== null && result.loser === seat.seat;
  const labels = [
    table.dealer === seat.seat && table.info.dealer !== false ? h("span", { class: "cv-tag" }, "dealer") : null,
    seat.half ? h("span", { class: "cv-tag cv-half", title: "half-cucumber used" }, "½ ", cucumber()) : null,
    seat.out ? h("span", { class: "cv-tag cv-out-tag" }, seat.out) : null,
    seat.faulted && !seat.out ? h("span", { class: "cv-tag cv-fault-tag" }, "faulted · auto-played") : null,
  ];
  return h(
    "section",
    {
      class: "cv-seat",
      "data-seat": seat.seat,
      "data-out": seat.out || null,
      "data-faulted": seat.faulted,
      "data-half": seat.half,
      "data-trick-winner": winner,
      "data-loser": loser,
      "data-in-play": seat.inPlay,
      "data-viewpoint": view?.seat === seat.seat,
      style: `--i: ${seat.seat}`,
    },
    h(
      "header",
      {},
      h("b", { class: "cv-name", "data-name": true }, seat.name + (seat.version !== null && !seat.name.endsWith(` v${seat.version}`) ? ` v${seat.version}` : "")),
      seat.owner ? h("span", { class: "cv-owner", "data-owner": true }, ` by ${seat.owner}`) : null,
      ...labels,
    ),
    drawScore(seat, table.info),
    seat.penaltyCards.length ? h("div", { class: "cv-penalty", "data-penalty-cards": true, title: "penalty cards in front" }, ...seat.penaltyCards.map((c) => card(table.info, c, { class: "cv-card cv-small" }))) : null,
    view && view.seat !== seat.seat ? faceDown(view.counts[seat.seat]) : drawHand(seat, table.info, view),
  );
}

/** A hand face up; in its own seat view, its legal cards marked when it is to play. */
function drawHand(seat, info, view) {
  const legal = new Set(view?.toMove ? view.legal : []);
  let chosen = view?.toMove ? view.chosen : null;
  const cards = seat.hand.map((c) => {
    const mark = { "data-legal": legal.has(c), "data-chosen": c === chosen };
    if (c === chosen) chosen = null; // one copy of a pair is the one played
    return card(info, c, mark);
  });
  return h("div", { class: "cv-hand", "data-hand": true, "data-to-move": Boolean(view?.toMove) }, ...cards);
}

/** Another seat's hand in a seat view: card backs and their count, never the cards. */
function faceDown(count) {
  const backs = Array.from({ length: count }, () => h("span", { class: "cv-card cv-back", "aria-hidden": "true" }));
  const label = `${count} card${count === 1 ? "" : "s"}, face down`;
  return h("div", { class: "cv-hand cv-hidden", "data-hand": true, "data-hidden-count": count, role: "img", "aria-label": label, title: label }, ...backs);
}

const cucumber = () => h("i", { class: "cv-cucumber" });

/** Cucumbers as icons (Five Cucumbers: 6 is out) or points (Concombre: 21 is the line). */
function drawScore(seat, info) {
  const attrs = { class: "cv-score", "data-score": seat.score };
  if (!info.icons) return h("div", attrs, `${seat.score} ${info.shortUnit}`);
  // Drawn with CSS rather than an emoji, which not every system has a font for.
  const icons = Array.from({ length: Math.min(Math.max(seat.score, 0), 12) }, cucumber);
  return h("div", { ...attrs, title: `${seat.score} cucumbers` }, h("span", { class: "cv-icons", "aria-hidden": "true" }, ...icons), ` ${seat.score} cucumber${seat.score === 1 ? "" : "s"}`);
}

function drawCenter(table, view) {
  const name = (seat) => table.seats[seat]?.name ?? `seat ${seat}`;
  const trick = table.trick;
  const plays = trick.plays.map((p) =>
    h(
      "figure",
      { class: "cv-play", "data-play-seat": p.seat, "data-card": p.card, "data-auto": p.auto, "data-winner": trick.complete && trick.winner === p.seat && p === lastOfWinner(trick) },
      card(table.info, p.card),
      h("figcaption", {}, name(p.seat), p.auto ? h("em", {}, " auto") : null),
    ),
  );
  const out = [
    h("p", { class: "cv-status", "data-status": true }, `Round ${table.roundNumber} · trick ${table.trickNumber}`),
    h("div", { class: "cv-trick", "data-trick": table.trickNumber, "data-trick-winner-seat": trick.complete ? trick.winner : null }, ...(plays.length ? plays : [h("span", { class: "cv-empty" }, "new deal")])),
  ];
  if (trick.complete) out.push(h("p", { class: "cv-winner-line", "data-trick-winner-line": true }, `${name(trick.winner)} wins the trick`));
  if (table.result) out.push(drawResult(table, name));
  for (const fault of table.faultsThisRound) out.push(drawFault(fault, name, table.faultsNow.includes(fault)));
  if (view) out.push(drawDecision(table, view, name));
  if (table.placement) out.push(h("ol", { class: "cv-placement", "data-placement": true }, ...table.placement.map((s) => h("li", { "data-seat": s }, name(s)))));
  return out;
}

/** The winning play: the last play of the trick by its winner (ties go to the last played). */
const lastOfWinner = (trick) => [...trick.plays].reverse().find((p) => p.seat === trick.winner);

function drawResult(table, name) {
  const r = table.result;
  const unit = table.info.unit;
  const lines = [h("b", {}, `${name(r.loser)} loses the round`), ` with ${cardName(table.info, r.card)}: +${r.penalty} ${unit}`, r.doubled ? " (doubled: a 1 in the last trick)" : ""];
  const seats = (list) => list.map(name).join(", ");
  return h(
    "div",
    { class: "cv-result", "data-round-result": true, "data-loser-seat": r.loser, "data-penalty": r.penalty },
    h("p", {}, ...lines),
    r.half.length ? h("p", { "data-result-half": true }, `half-cucumber: ${seats(r.half)}`) : null,
    r.eliminated.length ? h("p", { "data-result-eliminated": true }, `eliminated: ${seats(r.eliminated)}`) : null,
    r.disqualified.length ? h("p", { "data-result-disqualified": true }, `disqualified (faulted): ${seats(r.disqualified)}`) : null,
  );
}

/** In a seat view: whose view it is and, when it is that seat's move, what it could play,
 * what it played, how long it took and what it printed (the owner's replay only). */
function drawDecision(table, view, name) {
  const info = table.info;
  const cards = (list) => list.map((c) => cardName(info, c)).join(" ");
  if (!view.toMove) {
    return h("p", { class: "cv-viewpoint", "data-viewpoint-line": true }, `Seen by ${name(view.seat)}: the other hands are face down.`);
  }
  const { ms, output } = view.facts;
  const lines = output ?? [];
  return h(
    "div",
    { class: "cv-decision", "data-decision": true, "data-legal": view.legal.join(" "), "data-chosen": view.chosen },
    h("p", {}, h("b", {}, `${name(view.seat)} to play`), ` · legal: ${cards(view.legal)} · it played ${cardName(info, view.chosen)}`, ms === null ? "" : h("span", { "data-move-ms": ms }, ` · ${formatMs(ms)}`)),
    lines.length
      ? h(
          "details",
          { class: "cv-output", "data-move-output": true, open: true },
          h("summary", {}, `its output during this move (${lines.length} line${lines.length === 1 ? "" : "s"})`),
          h("pre", {}, lines.slice(0, OUTPUT_LINES).join("\n") + (lines.length > OUTPUT_LINES ? `\n… ${lines.length - OUTPUT_LINES} more lines` : "")),
        )
      : null,
  );
}

const formatMs = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 10 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`);

function drawFault(fault, name, now) {
  return h(
    "div",
    { class: "cv-fault", role: now ? "alert" : null, "data-fault": fault.kind, "data-fault-seat": fault.seat, "data-fault-now": now },
    h("b", {}, `${name(fault.seat)} faulted: ${fault.kind}`),
    h("span", { "data-fault-detail": true }, ` — ${fault.detail ?? ""}`),
    h("small", {}, " The engine plays its lowest card to the end of the round; then it is disqualified."),
  );
}

/**
 * Find every `[data-replay-viewer]` in `doc`, load its replay (inline, or fetched when open)
 * and connect the viewers to the keyboard and the URL hash.
 */
export function autoMount(doc = document) {
  const hub = { viewers: new Map(), active: null, pending: null };
  const elements = [...doc.querySelectorAll("[data-replay-viewer]")];
  const syncHash = (viewer) => {
    hub.active = viewer;
    // A viewer that plays by itself (`data-autoplay`) leaves the page's address alone.
    if (viewer.root.closest("[data-autoplay]")) return;
    history.replaceState(null, "", `#${viewer.key()}`);
  };
  const load = async (el) => {
    if (el.dataset.loading) return;
    el.dataset.loading = "true";
    const game = Number(el.dataset.game || 1);
    const host = el.querySelector("[data-viewer-body]") ?? el;
    try {
      const replay = el.dataset.replayInline
        ? JSON.parse(doc.getElementById(el.dataset.replayInline).textContent)
        : await fetchReplay(el.dataset.replayUrl);
      const viewer = mountViewer(host, replay, { game, onMove: syncHash });
      hub.viewers.set(game, viewer);
      host.addEventListener("focusin", () => (hub.active = viewer));
      // A click on the table (not on a control) gives the viewer the keyboard.
      host.addEventListener("pointerdown", (event) => {
        hub.active = viewer;
        if (!event.target.closest?.("button, a, select, input, summary")) host.focus({ preventScroll: true });
      });
      if (hub.pending?.game === game) {
        viewer.show(hub.pending);
        hub.active = viewer;
        host.focus({ preventScroll: true }); // a linked moment: its viewer has the keys
      } else if (el.dataset.replayInline && elements.length === 1) {
        host.focus({ preventScroll: true }); // the offline page is this one viewer
      }
      // `data-autoplay` (the landing page): it plays at once, unless motion is unwanted.
      if ("autoplay" in el.dataset && !window.matchMedia?.("(prefers-reduced-motion: reduce)").matches) viewer.toggle();
      el.dataset.loaded = "true";
    } catch (error) {
      host.replaceChildren(h("p", { class: "cv-error", "data-viewer-error": true }, `Could not load the replay: ${error.message}`));
    }
  };
  const followHash = () => {
    const target = parseKey(location.hash);
    if (!target) return;
    const el = elements.find((e) => Number(e.dataset.game || 1) === target.game);
    if (!el) return;
    hub.pending = target;
    const viewer = hub.viewers.get(target.game);
    if (viewer) {
      viewer.show(target);
      hub.active = viewer;
      (el.querySelector("[data-viewer-body]") ?? el).focus({ preventScroll: true });
    } else if ("open" in el) el.open = true; // the toggle event loads it
    else load(el);
    el.scrollIntoView({ block: "start" });
  };
  for (const el of elements) {
    if ("open" in el && el.tagName === "DETAILS") el.addEventListener("toggle", () => el.open && load(el));
  }
  followHash();
  for (const el of elements) if (!("open" in el && el.tagName === "DETAILS") || el.open) load(el);
  window.addEventListener("hashchange", followHash);
  doc.addEventListener("keydown", (event) => onKey(event, hub));
  return hub;
}

/**
 * Keys go to the viewer that holds the focus (a click on its table, Tab, or a linked moment
 * gives it), never to a viewer elsewhere on the page: the page keeps Space, the arrows,
 * Home/End and PgUp/PgDn for scrolling everywhere else.
 */
function onKey(event, hub) {
  const root = event.target.closest?.("[data-viewer-game]");
  const viewer = root ? hub.viewers.get(Number(root.dataset.viewerGame)) : null;
  if (!viewer || event.target.closest?.("input, select, textarea")) return;
  const action = actionFor(event);
  // Space on a focused button (reached with Tab) presses that button, as everywhere else.
  if (!action || (action[0] === "toggle" && event.target.closest?.("button, a, summary"))) return;
  event.preventDefault();
  const [what, dir] = action;
  if (what === "toggle") viewer.toggle();
  else if (what === "start") viewer.goTo(0);
  else if (what === "end") viewer.goTo(Infinity);
  else if (what === "view") viewer.nextView();
  else viewer.move(what, dir);
}

async function fetchReplay(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

if (typeof document !== "undefined" && document.querySelector("[data-replay-viewer]")) autoMount(document);
