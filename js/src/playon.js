// Play-on: turns played past a looked-at position, both sides taking their hardest-hitting move:
// what a turn set up (a switch, a boost, a status) shows in what follows. The lookahead
// (lookahead.js) plays them after each candidate's turn, the search (search.js) at its leaves.
// In doubles each position takes its own hardest hit. (Python's "greedy" is another thing: a
// player's most probable action.)

/** One more turn, both sides taking their hardest-hitting move (replacing fainted Pokemon with
 * the first able one). */
export function playOnce(battle) {
  const turn = battle.turn;
  for (let guard = 0; guard < 6 && !battle.ended && battle.turn === turn; guard++) {
    for (const side of battle.sides) {
      const req = side.activeRequest;
      if (!req || req.wait || side.isChoiceDone()) continue;
      const choice = req.forceSwitch ? 'default' : hardestHit(battle, side);
      if (!battle.choose(side.id, choice)) battle.choose(side.id, 'default');
      if (battle.ended) return;
    }
  }
}

/** How hard `move` of Pokemon `me` hits `target`: base power x type effectiveness x same-type
 * bonus; 0 where it cannot hit it. */
function hitScore(battle, me, move, target) {
  if (!target || target.fainted) return 0;
  const types = target.getTypes();
  if (!battle.dex.getImmunity(move.type, types)) return 0;
  return (move.basePower || 0) * 2 ** battle.dex.getEffectiveness(move.type, types) * (me.hasType(move.type) ? 1.5 : 1);
}

/** Side's hardest-hitting move on the foe's active Pokemon as a choice; 'default' where it has
 * none. In doubles, each position's hardest hit (positionHits) joined into one choice. */
export function hardestHit(battle, side) {
  if (side.active.length > 1) return doublesHardestHit(battle, side);
  const req = side.activeRequest;
  const me = side.active[0], foe = side.foe.active[0];
  if (!me || !foe || !req.active) return 'default';
  let best = 'default', bestScore = 0;
  req.active[0].moves.forEach((m, i) => {
    if (m.disabled) return;
    const move = battle.dex.moves.get(m.id);
    if (!move.exists || move.category === 'Status') return;
    const score = hitScore(battle, me, move, foe);
    if (score > bestScore) { bestScore = score; best = `move ${i + 1}`; }
  });
  return best;
}

const SPREAD = new Set(['allAdjacentFoes', 'allAdjacent']);
const AIMED = new Set(['normal', 'any', 'adjacentFoe']);  // a foe chosen by the player

/** Position k's damaging moves as [part of a doubles choice, score], hardest first: a move
 * aimed at one foe once per foe it can hit, a spread move counted at 3/4 on each Pokemon it hits
 * (less what it deals our ally), any other damaging move at its best on a foe. Empty where the
 * position has no Pokemon able to move or no damaging move. */
export function positionHits(battle, side, k) {
  const req = side.activeRequest;
  const me = side.active[k];
  if (!me || me.fainted || !req || !req.active || !req.active[k]) return [];
  const foes = side.foe.active, ally = side.active[1 - k];
  const out = [];
  req.active[k].moves.forEach((m, i) => {
    if (m.disabled) return;
    const move = battle.dex.moves.get(m.id);
    if (!move.exists || move.category === 'Status') return;
    const hits = foes.map(f => hitScore(battle, me, move, f));
    if (SPREAD.has(move.target)) {
      const score = 0.75 * (hits[0] + hits[1] - (move.target === 'allAdjacent' ? hitScore(battle, me, move, ally) : 0));
      if (score > 0) out.push([`move ${i + 1}`, score]);
    } else if (AIMED.has(move.target)) {
      hits.forEach((score, f) => { if (score > 0) out.push([`move ${i + 1} ${f + 1}`, score]); });
    } else {
      const score = Math.max(...hits);
      if (score > 0) out.push([`move ${i + 1}`, score]);
    }
  });
  return out.sort((a, b) => b[1] - a[1]);
}

/** What position k does where it has no damaging move: pass where it cannot move, else its
 * first usable move at a target the simulator takes. */
export function positionFallback(side, k) {
  const req = side.activeRequest, me = side.active[k];
  const active = req && req.active && req.active[k];
  if (!me || me.fainted || !active) return 'pass';
  const i = Math.max(0, active.moves.findIndex(m => !m.disabled));
  const target = active.moves[i] && active.moves[i].target;
  const foe = side.foe.active.findIndex(f => f && !f.fainted);
  if (AIMED.has(target)) return `move ${i + 1} ${Math.max(foe, 0) + 1}`;
  if (target === 'adjacentAlly') return `move ${i + 1} -${2 - k}`;
  if (target === 'adjacentAllyOrSelf') return `move ${i + 1} -${k + 1}`;
  return `move ${i + 1}`;
}

/** Position k's `n` hardest hits as [part of a choice, score]; its fallback alone (score 1)
 * where it has none: a side's likely answers in the doubles lookahead and search. */
export function positionOptions(battle, side, k, n) {
  const found = positionHits(battle, side, k).slice(0, n);
  return found.length ? found : [[positionFallback(side, k), 1]];
}

function doublesHardestHit(battle, side) {
  return [0, 1].map(k => {
    const hits = positionHits(battle, side, k);
    return hits.length ? hits[0][0] : positionFallback(side, k);
  }).join(', ');
}
