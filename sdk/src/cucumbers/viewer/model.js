/**
 * The replay viewer's model: pure functions from a `cucumbers-replay/1` replay to the table
 * at any moment of the game. No DOM here, so node can test it and the renderer stays dumb.
 *
 * A *position* is a moment between plays: round `round` (index into `replay.rounds`), trick
 * `trick` (index into that round's tricks) and `played` cards of that trick on the table.
 * Only a round's first trick has a `played: 0` position (the fresh deal); every other trick
 * starts with its first card, so stepping forward never shows an empty table mid-round.
 * A round's last position (its last trick complete) is also the moment it is scored.
 *
 * Replays come from bots' games and may be broken (a replay the validator rejects is the one
 * someone wants to look at), so every read tolerates missing keys and wrong types.
 *
 * @module model
 */

/** @typedef {{round: number, trick: number, played: number}} Position */

// BEGIN GAMES: generated from the registry of games (cucumbers.games); do not edit by hand,
// run `python -m cucumbers.viewer_html` (the offline page inlines the live registry instead).
export const GAMES = {
  "five-cucumbers": {
    "title": "Five Cucumbers",
    "unit": "cucumbers",
    "shortUnit": "cuc.",
    "icons": true,
    "dealer": false,
    "penaltyCards": false,
    "cards": {}
  },
  "concombre": {
    "title": "Concombre",
    "unit": "points",
    "shortUnit": "pts",
    "icons": false,
    "dealer": true,
    "penaltyCards": true,
    "cards": {
      "11": "J",
      "12": "Q",
      "13": "K",
      "14": "A"
    }
  }
};
// END GAMES

/**
 * What the viewer draws differently per game: its title, score unit, dealer, penalty cards
 * in front, and the cards' names. A game the table does not know gets plain numbers, its
 * name as the title, and a dealer wherever the replay records one.
 */
export function gameInfo(name) {
  const known = Object.hasOwn(GAMES, name) ? GAMES[name] : null;
  return {
    title: known?.title ?? String(name ?? "?"),
    unit: known?.unit ?? "points",
    shortUnit: known?.shortUnit ?? "pts",
    icons: known?.icons ?? false,
    dealer: known?.dealer ?? null, // null: unknown, show the replay's dealer if any
    penaltyCards: known?.penaltyCards ?? false,
    cards: known?.cards ?? {},
  };
}

/** A card as the game's rules name it (Concombre: 11 is "J"), else its number. */
export const cardName = (info, card) => (Object.hasOwn(info.cards, String(card)) ? info.cards[String(card)] : String(card));

const list = (value) => (Array.isArray(value) ? value : []);
const obj = (value) => (value && typeof value === "object" && !Array.isArray(value) ? value : {});

/** The rounds of a replay, each with its tricks and their plays normalised to lists. */
export function roundsOf(replay) {
  return list(obj(replay).rounds).map((raw) => {
    const round = obj(raw);
    const tricks = list(round.tricks).map((t) => ({ ...obj(t), plays: list(obj(t).plays).map(obj) }));
    return { ...round, tricks };
  });
}

/**
 * Every position of the game in order: the list the viewer steps through.
 * @returns {Position[]}
 */
export function timeline(replay) {
  const positions = [];
  roundsOf(replay).forEach((round, r) => {
    positions.push({ round: r, trick: 0, played: 0 });
    round.tricks.forEach((trick, t) => {
      trick.plays.forEach((_, p) => positions.push({ round: r, trick: t, played: p + 1 }));
    });
  });
  if (positions.length === 0) positions.push({ round: 0, trick: 0, played: 0 });
  return positions;
}

/** True when the position shows a whole trick (its winner is known). */
export function trickComplete(replay, pos) {
  const trick = roundsOf(replay)[pos.round]?.tricks[pos.trick];
  return Boolean(trick) && pos.played > 0 && pos.played === trick.plays.length;
}

/** True when the position is a round's last: the round is scored. */
export function roundOver(replay, pos) {
  const round = roundsOf(replay)[pos.round];
  return Boolean(round) && pos.trick === round.tricks.length - 1 && trickComplete(replay, pos);
}

/**
 * The index reached from `index` by one step of `unit` ("play", "trick" or "round") in
 * direction `dir` (+1 or -1), clamped to the timeline.
 *
 * By trick: forward to the next moment a trick is complete; back to the previous one (or the
 * round's deal). By round: forward to the next deal; back to this round's deal, or the
 * previous round's when already there.
 */
export function step(replay, positions, index, unit, dir) {
  const last = positions.length - 1;
  if (unit === "play") return clamp(index + dir, 0, last);
  const stop =
    unit === "trick"
      ? (p) => trickComplete(replay, p) || (p.played === 0 && p.trick === 0)
      : (p) => p.played === 0;
  for (let i = index + dir; i >= 0 && i <= last; i += dir) {
    if (stop(positions[i])) return i;
  }
  return dir > 0 ? last : 0;
}

const clamp = (n, lo, hi) => Math.max(lo, Math.min(hi, n));

/**
 * The URL-hash key of a position: `g2-r3-t4-p2` (game, round number, trick and plays from 1),
 * and `-s1` when the table is seen as seat 1 sees it (the seat view).
 */
export function positionKey(game, pos, seat = null) {
  const key = `g${game}-r${pos.round + 1}-t${pos.trick + 1}-p${pos.played}`;
  return Number.isInteger(seat) ? `${key}-s${seat}` : key;
}

/**
 * Parse a key made by {@link positionKey} (a leading `#` is allowed).
 * @returns {{game: number, round: number, trick: number, played: number, seat: (number|null)} | null}
 *   indexes from 0 for round and trick, the seat view's seat (null: every hand), or null if
 *   it is not a position key.
 */
export function parseKey(text) {
  const m = /^#?g(\d+)(?:-r(\d+)(?:-t(\d+)(?:-p(\d+))?)?)?(?:-s(\d+))?$/.exec(String(text).trim());
  if (!m) return null;
  const [game, round, trick, played, seat] = m.slice(1).map((v) => (v === undefined ? null : Number(v)));
  return { game, round: Math.max((round ?? 1) - 1, 0), trick: Math.max((trick ?? 1) - 1, 0), played: played ?? 0, seat };
}

/**
 * The timeline index nearest to a parsed key: the exact position if it exists, otherwise the
 * last position not after it (e.g. `t3-p0`, which does not exist, gives trick 2 complete).
 */
export function indexOf(positions, target) {
  const order = (p) => [p.round, p.trick, p.played];
  const before = (a, b) => {
    for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i];
    return true;
  };
  let best = 0;
  positions.forEach((p, i) => {
    if (before(order(p), order(target))) best = i;
  });
  return best;
}

/**
 * Where a fault happened: the timeline position of the faulted seat's (auto) play in the
 * fault's round and trick, or that trick's first play when the replay does not show it.
 */
export function faultPosition(replay, fault) {
  const rounds = roundsOf(replay);
  const r = rounds.findIndex((round, i) => (round.number ?? i + 1) === fault.round);
  if (r < 0) return null;
  const t = clamp((Number(fault.trick) || 1) - 1, 0, Math.max(rounds[r].tricks.length - 1, 0));
  const plays = rounds[r].tricks[t]?.plays ?? [];
  const p = plays.findIndex((play) => play.seat === fault.seat);
  return { round: r, trick: t, played: p >= 0 ? p + 1 : Math.min(1, plays.length) };
}

const atOrAfter = (pos, mark) =>
  pos.round !== mark.round
    ? pos.round > mark.round
    : pos.trick !== mark.trick
      ? pos.trick > mark.trick
      : pos.played >= mark.played;

/**
 * The table at a position: everything the viewer draws.
 *
 * @returns {{
 *   game: string, info: ReturnType<typeof gameInfo>, roundNumber: number, rounds: number,
 *   trickNumber: number, tricks: number, dealer: (number|null), leader: (number|null),
 *   seats: Array<{seat: number, name: string, owner: (string|null), version: (number|null),
 *     hand: number[], inPlay: boolean, score: number, half: boolean, penaltyCards: number[],
 *     out: (""|"eliminated"|"disqualified"), faulted: boolean}>,
 *   trick: {plays: Array<{seat: number, card: number, auto: boolean}>, complete: boolean,
 *     winner: (number|null), leader: (number|null)},
 *   result: (null|{loser: number, card: number, penalty: number, doubled: boolean,
 *     eliminated: number[], half: number[], disqualified: number[]}),
 *   faultsNow: object[], faultsThisRound: object[], placement: (number[]|null)
 * }}
 */
export function tableAt(replay, pos) {
  const data = obj(replay);
  const rounds = roundsOf(data);
  const players = list(data.players).map(obj);
  const seatCount = Math.max(players.length, ...rounds.map((r) => list(r.hands).length), 0);
  const info = gameInfo(data.game);
  const round = rounds[pos.round] ?? { tricks: [], hands: [] };
  const number = round.number ?? pos.round + 1;
  const over = roundOver(data, pos);
  const scored = over ? pos.round + 1 : pos.round; // rounds whose results are on the table
  const history = rounds.slice(0, scored);
  const faults = list(data.faults).map(obj);
  const faultsWithPos = faults.map((f) => ({ fault: f, at: faultPosition(data, f) }));
  const disqualified = new Set(
    faultsWithPos.filter(({ at }) => at && (at.round < pos.round || (at.round === pos.round && over))).map(({ fault }) => fault.seat),
  );
  const eliminated = new Set(history.flatMap((r) => list(r.eliminated)));
  const half = new Set(history.flatMap((r) => list(r.half)));
  const lastScores = list(history.at(-1)?.scores);
  const cards = info.penaltyCards ? penaltyCards(history, seatCount, disqualifiedBy(faults)) : null;
  const played = playedCards(round, pos);
  const faulted = new Set(faultsWithPos.filter(({ at }) => at && at.round === pos.round && atOrAfter(pos, at)).map(({ fault }) => fault.seat));
  const seats = Array.from({ length: seatCount }, (_, seat) => {
    const player = players.find((p) => p.seat === seat) ?? players[seat] ?? {};
    const dealt = list(list(round.hands)[seat]);
    return {
      seat,
      name: String(player.name ?? `seat ${seat}`),
      owner: player.owner == null ? null : String(player.owner),
      version: Number.isInteger(player.version) ? player.version : null,
      hand: without(dealt, played[seat] ?? []).sort((a, b) => a - b),
      inPlay: Array.isArray(list(round.hands)[seat]),
      score: Number(lastScores[seat] ?? 0),
      half: half.has(seat),
      penaltyCards: cards ? cards[seat] : [],
      out: disqualified.has(seat) ? "disqualified" : eliminated.has(seat) ? "eliminated" : "",
      faulted: faulted.has(seat),
    };
  });
  const trick = round.tricks[pos.trick] ?? { plays: [] };
  const shown = trick.plays.slice(0, pos.played).map((p) => ({ seat: p.seat, card: p.card, auto: p.auto === true }));
  const complete = trickComplete(data, pos);
  return {
    game: String(data.game ?? ""),
    info,
    roundNumber: number,
    rounds: rounds.length,
    trickNumber: pos.trick + 1,
    tricks: round.tricks.length,
    dealer: round.dealer ?? null,
    leader: round.leader ?? null,
    seats,
    trick: { plays: shown, complete, winner: complete ? (trick.winner ?? null) : null, leader: trick.leader ?? null },
    result: over
      ? {
          loser: round.loser,
          card: round.card,
          penalty: round.penalty,
          doubled: round.doubled === true,
          eliminated: list(round.eliminated),
          half: list(round.half),
          disqualified: faults.filter((f) => f.round === number).map((f) => f.seat),
        }
      : null,
    faultsNow: faultsWithPos.filter(({ at }) => at && samePos(at, pos)).map(({ fault }) => fault),
    faultsThisRound: faultsWithPos.filter(({ at }) => at && at.round === pos.round && atOrAfter(pos, at)).map(({ fault }) => fault),
    placement: over && pos.round === rounds.length - 1 ? list(data.placement) : null,
  };
}

const samePos = (a, b) => a.round === b.round && a.trick === b.trick && a.played === b.played;

/** Cards each seat has played in `round` up to `pos`, by seat. */
function playedCards(round, pos) {
  const bySeat = {};
  round.tricks.forEach((trick, t) => {
    const upto = t < pos.trick ? trick.plays.length : t === pos.trick ? pos.played : 0;
    trick.plays.slice(0, upto).forEach((p) => (bySeat[p.seat] ??= []).push(p.card));
  });
  return bySeat;
}

/** `hand` minus one copy of each card in `gone` (ranks repeat, so a set would not do). */
function without(hand, gone) {
  const rest = [...hand];
  for (const card of gone) {
    const i = rest.indexOf(card);
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

/** Round number → seats disqualified at its end. */
function disqualifiedBy(faults) {
  const byRound = new Map();
  faults.forEach((f) => byRound.set(f.round, [...(byRound.get(f.round) ?? []), f.seat]));
  return (round, index) => byRound.get(round.number ?? index + 1) ?? [];
}

/**
 * Games that keep penalty cards (Concombre): the penalty cards lying in front of each seat after the rounds in `history`
 * (rules.md: the loser keeps the card; a half-cucumber keeps only its highest; eliminated and
 * disqualified seats give theirs back).
 */
export function penaltyCards(history, seatCount, disqualifiedAt) {
  const lying = Array.from({ length: seatCount }, () => []);
  history.forEach((round, index) => {
    if (Number.isInteger(round.loser) && lying[round.loser]) lying[round.loser].push(round.card);
    list(round.half).forEach((s) => lying[s] && (lying[s] = [Math.max(...lying[s])]));
    [...list(round.eliminated), ...disqualifiedAt(round, index)].forEach((s) => lying[s] && (lying[s] = []));
  });
  return lying;
}

/**
 * The play that comes next after `pos`, with where it is: the next card of this trick, or
 * the first of the round's next trick once this one is complete; null at a round's end.
 */
export function nextPlay(replay, pos) {
  const round = roundsOf(replay)[pos.round];
  if (!round) return null;
  const trick = round.tricks[pos.trick];
  if (trick && pos.played < trick.plays.length) return { play: trick.plays[pos.played], trick: pos.trick, index: pos.played };
  const following = round.tricks[pos.trick + 1];
  return following?.plays.length ? { play: following.plays[0], trick: pos.trick + 1, index: 0 } : null;
}

/**
 * The timeline index of the next (`dir` +1) or previous (-1) position at which `seat` is to
 * play a card it chose (its decisions: not the engine's auto plays), or `index` itself when
 * there is none that way.
 */
export function seatDecision(replay, positions, index, seat, dir) {
  for (let i = index + dir; i >= 0 && i < positions.length; i += dir) {
    const next = nextPlay(replay, positions[i]);
    if (next && next.play.seat === seat && next.play.auto !== true) return i;
  }
  return index;
}

/**
 * The legal cards of a sorted `hand` on a trick whose highest card is `high` (0 when
 * leading), distinct and sorted: every card at least `high`, and the lowest card (rules.md,
 * shared trick rule 2).
 */
export function legalCards(hand, high) {
  const distinct = [...new Set(hand)].sort((a, b) => a - b);
  return distinct.filter((card, i) => i === 0 || card >= high);
}

/**
 * What one move's per-move facts say (replay format revision 2, docs/replay-format.md),
 * read defensively: replays before revision 2 have none, and a public replay never carries a
 * bot's output. `ms` is the time the move took; `output` the lines the bot printed during
 * it, present only in the owner's copy.
 * @returns {{ms: (number|null), output: (string[]|null)}}
 */
export function moveFacts(play) {
  const source = obj(play);
  const ms = typeof source.ms === "number" && Number.isFinite(source.ms) && source.ms >= 0 ? source.ms : null;
  const output = Array.isArray(source.output) ? source.output.map(String) : null;
  return { ms, output };
}

/**
 * The table as seat `seat` saw it at `pos` (the seat view): its own hand only, how many cards
 * each other seat holds, and when the next play is its own decision (not an engine's auto
 * play), its legal cards, the card it chose and that move's facts ({@link moveFacts}).
 * `table` is {@link tableAt} of the same position, when the caller has it already.
 *
 * @returns {{seat: number, counts: number[], toMove: boolean, legal: number[],
 *   chosen: (number|null), facts: (null|{ms: (number|null), output: (string[]|null)})}}
 */
export function seatView(replay, pos, seat, table = tableAt(replay, pos)) {
  const counts = table.seats.map((s) => (s.inPlay ? s.hand.length : 0));
  const next = nextPlay(replay, pos);
  const mine = next !== null && next.play.seat === seat && next.play.auto !== true && Number.isInteger(next.play.card);
  if (!mine) return { seat, counts, toMove: false, legal: [], chosen: null, facts: null };
  const round = roundsOf(replay)[pos.round];
  const before = next.trick === pos.trick ? round.tricks[pos.trick].plays.slice(0, next.index) : [];
  const high = Math.max(0, ...before.map((p) => Number(p.card) || 0));
  const hand = table.seats[seat]?.hand ?? [];
  return { seat, counts, toMove: true, legal: legalCards(hand, high), chosen: next.play.card, facts: moveFacts(next.play) };
}
