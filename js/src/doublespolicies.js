// Scripted players for doubles, run where the battle state is: each reads a PlayerView of a
// doubles battle that has a decision to make and returns a legal joint action (doubles.js).
// Their rules are documented in docs/playing.md.
import {writeMask, NUM_ACTIONS, POSITION_ACTIONS, SWITCH0, TARGETS, decodeMove} from './doubles.js';
import {typesOf} from './encoder.js';

const mask = new Uint8Array(NUM_ACTIONS);
const SPREAD = 0.75;  // a move that hits more than one target deals 3/4 to each
const FOE_TARGETS = {1: 0, 2: 1};  // target index (TARGETS) -> foe position

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

/** Damage scores of position k's actions (0 for those that deal none). */
function positionScores(view, k) {
  const scores = new Float64Array(POSITION_ACTIONS);
  const active = view.request.active[k];
  const me = view.self.active[k];
  if (!active || !me) return scores;
  const battle = view.battle, gen = battle.gen;
  const myTypes = typesOf(battle, me);
  const alive = p => p && !p.fainted;
  const foes = view.foe.active.map(p => (alive(p) ? p : null));
  const ally = alive(view.self.active[1 - k]) ? view.self.active[1 - k] : null;
  const hit = (m, p) => (m.basePower || 0) * gen.types.totalEffectiveness(m.type, typesOf(battle, p)) *
    (myTypes.includes(m.type) ? 1.5 : 1);
  for (let p = 0; p < SWITCH0; p++) {
    const {slot, target, gimmick} = decodeMove(p);
    if (gimmick || !active.moves[slot]) continue;
    const m = gen.moves.get(active.moves[slot].id);
    if (!m || m.category === 'Status') continue;
    const t = TARGETS[target];
    if (t === 'foe1' || t === 'foe2') {
      const foe = foes[FOE_TARGETS[t.slice(3)]];
      if (foe) scores[p] = hit(m, foe);
    } else if (t === '') {
      const hitFoes = foes.filter(Boolean);
      const hitAlly = m.target === 'allAdjacent' && ally ? [ally] : [];
      const spread = ['allAdjacentFoes', 'allAdjacent'].includes(m.target);
      if (spread) {
        const factor = hitFoes.length + hitAlly.length > 1 ? SPREAD : 1;
        scores[p] = factor * (hitFoes.reduce((s, f) => s + hit(m, f), 0) - hitAlly.reduce((s, f) => s + hit(m, f), 0));
      } else if (hitFoes.length) {  // a random foe (Outrage, Struggle...)
        scores[p] = hitFoes.reduce((s, f) => s + hit(m, f), 0) / hitFoes.length;
      }
    }
  }
  return scores;
}

export const DOUBLES_POLICIES = {maxdamage};
