// Scripted players for doubles, run where the battle state is: each reads a PlayerView of a
// doubles battle that has a decision to make and returns a legal joint action (doubles.js).
// Their rules are documented in docs/playing.md.
import {writeMask, NUM_ACTIONS, POSITION_ACTIONS, SWITCH0, TARGETS, decodeMove} from './doubles.js';
import {typesOf} from './species.js';
import {doublesKnowledge} from './knowledge/doubles.js';

const mask = new Uint8Array(NUM_ACTIONS);
const SPREAD = 0.75;  // a move that hits more than one target deals 3/4 to each
const SPREAD_TARGETS = new Set(['allAdjacentFoes', 'allAdjacent']);
const alive = p => (p && !p.fainted ? p : null);

/** MaxDamage for doubles: for each position, the move and target with the most base power x
 * type effectiveness x STAB summed over the Pokemon it hits -- a spread move counted at 3/4 on
 * each foe, less what it would deal to our ally -- never aimed at our own side; the pair with
 * the highest total that the simulator takes together; the first legal action where nothing
 * deals damage, and at forced switches and team preview. */
export function maxdamage(view) {
  const req = view.request;
  writeMask(req, mask, 0);
  let best = -1, bestScore = -Infinity;
  if (req.forceSwitch || req.teamPreview || !req.active) {
    best = mask.indexOf(1);
    return best < 0 ? 0 : best;
  }
  const scores = [0, 1].map(k => positionScores(view, k));
  for (let a = 0; a < NUM_ACTIONS; a++) {
    if (!mask[a]) continue;
    const score = scores[0][Math.floor(a / POSITION_ACTIONS)] + scores[1][a % POSITION_ACTIONS];
    if (score > bestScore) { bestScore = score; best = a; }
  }
  return best < 0 ? 0 : best;  // nothing legal: let the simulator say so
}

/** Damage scores of position k's actions (0 for those that deal none, and for gimmicks). */
function positionScores(view, k) {
  const scores = new Float64Array(POSITION_ACTIONS);
  const me = view.self.active[k];
  if (!me) return scores;
  const battle = view.battle, gen = battle.gen;
  const myTypes = typesOf(battle, me);
  const hit = (m, p) => (m.basePower || 0) * gen.types.totalEffectiveness(m.type, typesOf(battle, p)) *
    (myTypes.includes(m.type) ? 1.5 : 1);
  const foes = view.foe.active.map(p => (alive(p) ? p : null));
  for (const {p, gimmick, move, hits, share, ally} of moveActions(view, k, foes)) {
    if (gimmick) continue;
    scores[p] = share * (hits.reduce((s, f) => s + hit(move, foes[f]), 0) - (ally ? hit(move, ally) : 0));
  }
  return scores;
}

/** Position pos's damaging move actions that hit a foe in `foes` (per foe position, null where
 * none stands): {p: the position action, slot, gimmick, move, hits: the foe positions hit,
 * spread: whether it hits all of them at once, share: the part of its damage each target takes
 * (3/4 for a spread move hitting more than one, 1/n for a move hitting one of n at random),
 * ally: our ally where the move hits it too}. */
function* moveActions(view, pos, foes) {
  const active = view.request.active[pos];
  if (!active) return;
  const gen = view.battle.gen;
  const live = [0, 1].filter(f => foes[f]);
  for (let p = 0; p < SWITCH0; p++) {
    const {slot, target, gimmick} = decodeMove(p);
    if (!active.moves[slot]) continue;
    const move = gen.moves.get(active.moves[slot].id);
    if (!move || move.category === 'Status') continue;
    const t = TARGETS[target];
    const aimed = t === 'foe1' ? [0] : t === 'foe2' ? [1] : t === '' ? live : [];
    const hits = aimed.filter(f => foes[f]);
    if (!hits.length) continue;
    const spread = SPREAD_TARGETS.has(move.target) && t === '';
    const ally = spread && move.target === 'allAdjacent' ? alive(view.self.active[1 - pos]) : null;
    const share = spread ? (hits.length + (ally ? 1 : 0) > 1 ? SPREAD : 1) : t === '' ? 1 / hits.length : 1;
    yield {p, slot, gimmick, move, hits, spread, share, ally};
  }
}

const EXPECTED = 0, KO = 3;                     // columns of a damage row (knowledge/damage.js)

/** Heuristic for doubles: the battle knowledge (@smogon/calc damage with the foe's likely sets)
 * read as rules. Each pair of actions is valued by what it does to each foe: the damage the two
 * deal to it together (capped at what it has left, so two attacks do not waste themselves on one
 * foe that either knocks out) plus the chance it is knocked out, less what a move that hits
 * every Pokemon beside it deals to our ally; spread moves count 3/4 on each target; a gimmick
 * only where it clearly pays. Forced switches bring in the Pokemon with the best matchup (its
 * best hit on the foes in play less what they threaten it with); team preview leads in order. */
export function heuristic(view) {
  const req = view.request;
  writeMask(req, mask, 0);
  const first = Math.max(0, mask.indexOf(1));
  if (req.teamPreview || (!req.active && !req.forceSwitch)) return first;
  const k = doublesKnowledge(view);
  if (req.forceSwitch) {
    const matchup = j => k.bestHit(j) - k.threat(0, j) - k.threat(1, j);
    const value = p => (p >= SWITCH0 && p < SWITCH0 + 6 ? 10 + matchup(p - SWITCH0) : 0);
    return bestPair(p0 => value(p0), p1 => value(p1), () => 0, first);
  }
  const effects = [0, 1].map(pos => positionEffects(view, k, pos));
  const pairValue = (p0, p1) => {
    const a = effects[0][p0], b = effects[1][p1];
    let v = -(a ? a.cost : 0) - (b ? b.cost : 0);
    for (let f = 0; f < 2; f++) {
      const dealt = (a ? a.dealt[f] : 0) + (b ? b.dealt[f] : 0);
      const ko = 1 - (1 - (a ? a.ko[f] : 0)) * (1 - (b ? b.ko[f] : 0));
      v += Math.min(dealt, 1) + ko;
    }
    return v;
  };
  return bestPair(() => 0, () => 0, pairValue, first);
}

/** The legal joint action with the highest left(p0) + right(p1) + pair(p0, p1). */
function bestPair(left, right, pair, fallback) {
  let best = fallback, bestValue = -Infinity;
  for (let a = 0; a < NUM_ACTIONS; a++) {
    if (!mask[a]) continue;
    const p0 = Math.floor(a / POSITION_ACTIONS), p1 = a % POSITION_ACTIONS;
    const v = left(p0) + right(p1) + pair(p0, p1);
    if (v > bestValue) { bestValue = v; best = a; }
  }
  return best;
}

/** What each of position pos's legal move actions does: {dealt: [expected share of each foe
 * position's HP], ko: [chance of knocking each out], cost: what it deals our ally, plus a small
 * price on a gimmick}; undefined for actions that deal nothing. */
function positionEffects(view, k, pos) {
  const out = new Array(POSITION_ACTIONS);
  for (const {p, slot, gimmick, hits, spread, share, ally} of moveActions(view, pos, k.foes)) {
    const e = {dealt: [0, 0], ko: [0, 0], cost: gimmick ? 0.05 : 0};
    for (const f of hits) {
      const row = k.dealt(pos, slot, gimmick, f);
      if (!row) continue;
      e.dealt[f] = row[EXPECTED] * share;
      e.ko[f] = row[KO] * (spread ? 0.75 : share);
    }
    if (ally) {
      const row = k.dealtAlly(pos, slot, gimmick);
      if (row) e.cost += (row[EXPECTED] + row[KO]) * share;
    }
    out[p] = e;
  }
  return out;
}

