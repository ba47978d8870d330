// Unit tests of the viewer's pure model (cucumbers/viewer/model.js) on node's own test
// runner, no npm package. Run by tests/sdk/test_viewer.py with the known games as JSON files
// (model.js is a plain .js module without a package.json, hence the detect flag on node 20):
//   VIEWER_REPLAYS=five.json:concombre.json node --experimental-detect-module --test tests/sdk/viewer_model_test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  faultPosition, indexOf, legalCards, moveFacts, nextPlay, parseKey, positionKey, seatDecision, seatView, step, tableAt, timeline,
} from "../../sdk/src/cucumbers/viewer/model.js";

const files = (process.env.VIEWER_REPLAYS ?? "").split(":").filter(Boolean);
assert.ok(files.length, "VIEWER_REPLAYS names no replay file");
const replays = files.map((f) => JSON.parse(readFileSync(f, "utf-8")));
const sorted = (cards) => [...cards].sort((a, b) => a - b);

for (const replay of replays) {
  const positions = timeline(replay);
  const name = `${replay.game} seed ${replay.seed}`;

  test(`${name}: one position per play plus one per deal`, () => {
    const plays = replay.rounds.flatMap((r) => r.tricks.flatMap((t) => t.plays)).length;
    assert.equal(positions.length, plays + replay.rounds.length);
  });

  test(`${name}: a deal shows the dealt hands and the previous scores`, () => {
    replay.rounds.forEach((round, r) => {
      const table = tableAt(replay, { round: r, trick: 0, played: 0 });
      round.hands.forEach((hand, seat) => assert.deepEqual(table.seats[seat].hand, hand ? sorted(hand) : []));
      assert.deepEqual(table.seats.map((s) => s.score), r ? replay.rounds[r - 1].scores : round.scores.map(() => 0));
      assert.equal(table.result, null);
    });
  });

  test(`${name}: a round's end shows its loser, penalty, scores and empty hands`, () => {
    replay.rounds.forEach((round, r) => {
      const last = round.tricks.length - 1;
      const table = tableAt(replay, { round: r, trick: last, played: round.tricks[last].plays.length });
      assert.equal(table.trick.winner, round.loser);
      assert.equal(table.result.loser, round.loser);
      assert.equal(table.result.penalty, round.penalty);
      assert.deepEqual(table.seats.map((s) => s.score), round.scores);
      table.seats.forEach((s) => assert.deepEqual(s.hand, []));
      for (const seat of round.eliminated) assert.equal(table.seats[seat].out, "eliminated");
    });
  });

  test(`${name}: every trick's winner shows when the trick is complete, not before`, () => {
    replay.rounds.forEach((round, r) => round.tricks.forEach((trick, t) => {
      const n = trick.plays.length;
      assert.equal(tableAt(replay, { round: r, trick: t, played: n }).trick.winner, trick.winner);
      assert.equal(tableAt(replay, { round: r, trick: t, played: n - 1 }).trick.winner, null);
    }));
  });

  test(`${name}: position keys round-trip through the URL hash`, () => {
    positions.forEach((pos, i) => {
      const key = positionKey(3, pos);
      const parsed = parseKey(`#${key}`);
      assert.equal(parsed.game, 3);
      assert.equal(indexOf(positions, parsed), i, key);
    });
  });

  test(`${name}: a seat view's key round-trips too, and says whose view it is`, () => {
    positions.forEach((pos, i) => {
      const parsed = parseKey(positionKey(1, pos, 2));
      assert.equal(parsed.seat, 2);
      assert.equal(indexOf(positions, parsed), i);
    });
    assert.equal(parseKey(positionKey(1, positions[0])).seat, null);
  });

  test(`${name}: in a seat view, every decision of that seat and nothing else is to move`, () => {
    const seats = replay.players.length;
    let decisions = 0;
    positions.forEach((pos) => {
      const next = nextPlay(replay, pos);
      for (let seat = 0; seat < seats; seat++) {
        const view = seatView(replay, pos, seat);
        const table = tableAt(replay, pos);
        assert.deepEqual(view.counts, table.seats.map((s) => (s.inPlay ? s.hand.length : 0)));
        const mine = next !== null && next.play.seat === seat && !next.play.auto;
        assert.equal(view.toMove, mine, JSON.stringify({ pos, seat }));
        if (!mine) continue;
        decisions += 1;
        const trick = replay.rounds[pos.round].tricks[next.trick];
        const high = Math.max(0, ...trick.plays.slice(0, next.index).map((p) => p.card));
        const hand = table.seats[seat].hand;
        // rules.md, shared trick rule 2: at least the high card, or the lowest card.
        const expected = [...new Set(hand.filter((c) => c >= high || c === Math.min(...hand)))].sort((a, b) => a - b);
        assert.deepEqual(view.legal, expected);
        assert.ok(view.legal.includes(view.chosen));
        assert.equal(view.chosen, next.play.card);
        assert.deepEqual(view.facts, { ms: null, output: null });
      }
    });
    const plays = replay.rounds.flatMap((r) => r.tricks.flatMap((t) => t.plays)).filter((p) => !p.auto).length;
    assert.equal(decisions, plays, "one decision per play the bots chose");
  });

  test(`${name}: stepping by a seat's moves visits exactly its decisions, both ways`, () => {
    for (let seat = 0; seat < replay.players.length; seat++) {
      const expected = positions.map((pos, i) => (seatView(replay, pos, seat).toMove ? i : -1)).filter((i) => i >= 0);
      const forward = [];
      for (let i = -1, next; (next = seatDecision(replay, positions, i, seat, 1)) !== i; i = next) forward.push(next);
      assert.deepEqual(forward, expected);
      const back = [];
      for (let i = positions.length, next; (next = seatDecision(replay, positions, i, seat, -1)) !== i; i = next) back.push(next);
      assert.deepEqual(back, [...expected].reverse());
    }
  });

  test(`${name}: stepping by trick stops at complete tricks, by round at deals`, () => {
    let i = 0;
    while (i < positions.length - 1) {
      const next = step(replay, positions, i, "trick", 1);
      const pos = positions[next];
      const trick = replay.rounds[pos.round].tricks[pos.trick];
      const deal = pos.trick === 0 && pos.played === 0;
      assert.ok(deal || pos.played === trick.plays.length, JSON.stringify(pos));
      assert.ok(next > i);
      i = next;
    }
    const deals = [];
    for (let j = 0; j < positions.length - 1; j = step(replay, positions, j, "round", 1)) deals.push(j);
    assert.deepEqual(deals.map((j) => positions[j].played), deals.map(() => 0));
    assert.equal(deals.length, replay.rounds.length);
    assert.equal(step(replay, positions, deals.at(-1) + 2, "round", -1), deals.at(-1));
  });

  test(`${name}: a fault shows at its auto play, then the seat is disqualified`, () => {
    for (const fault of replay.faults) {
      const at = faultPosition(replay, fault);
      const play = replay.rounds[at.round].tricks[at.trick].plays[at.played - 1];
      assert.deepEqual([play.seat, play.auto], [fault.seat, true]);
      const now = tableAt(replay, at);
      assert.deepEqual(now.faultsNow, [fault]);
      assert.ok(now.seats[fault.seat].faulted);
      assert.equal(tableAt(replay, { ...at, played: at.played - 1 }).faultsNow.length, 0);
      assert.equal(tableAt(replay, { round: at.round + 1, trick: 0, played: 0 }).seats[fault.seat].out, "disqualified");
    }
  });

  if (replay.game === "concombre") {
    test(`${name}: penalty cards lie in front; a half-cucumber keeps only its highest`, () => {
      replay.rounds.forEach((round, r) => {
        const next = tableAt(replay, { round: r + 1, trick: 0, played: 0 });
        if (r + 1 >= replay.rounds.length) return;
        if (!round.half.includes(round.loser) && !round.eliminated.includes(round.loser)) {
          assert.ok(next.seats[round.loser].penaltyCards.includes(round.card));
        }
        for (const seat of round.half) assert.deepEqual(next.seats[seat].penaltyCards, [round.scores[seat]]);
        for (const seat of round.eliminated) assert.deepEqual(next.seats[seat].penaltyCards, []);
      });
    });
  }
}

test("per-move facts are read as revision 2 writes them, defensively", () => {
  assert.deepEqual(moveFacts({ seat: 0, card: 3 }), { ms: null, output: null });
  assert.deepEqual(moveFacts({ seat: 0, card: 3, ms: 1.5, output: ["a", "b"] }), { ms: 1.5, output: ["a", "b"] });
  assert.deepEqual(moveFacts({ ms: "12", output: 5 }), { ms: null, output: null });
  assert.deepEqual(moveFacts({ ms: -1, output: "a\nb" }), { ms: null, output: null });
  assert.deepEqual(moveFacts({ ms: Infinity }), { ms: null, output: null });
  assert.deepEqual(moveFacts({ output: ["x", 1] }), { ms: null, output: ["x", "1"] });
  assert.deepEqual(legalCards([2, 5, 5, 9, 13], 7), [2, 9, 13]);
  assert.deepEqual(legalCards([4, 4], 9), [4]);
});

test("a broken replay draws without throwing", () => {
  for (const broken of [{}, null, { rounds: [{ tricks: "x" }], players: 3 }, { rounds: [{ hands: [[1], null], tricks: [{ plays: [{ seat: 0 }] }] }] }]) {
    for (const pos of timeline(broken)) {
      tableAt(broken, pos);
      seatView(broken, pos, 0);
    }
  }
  assert.equal(parseKey("#nope"), null);
});
