// The doubles game, as the planners (lookahead.js, search.js) and the scripted players' dispatch
// (games/index.js) see it: the battle rebuilt with every Pokemon at its position (the foe's sets
// drawn in a search's worlds), our joint actions as choice strings, and what each side may choose
// below the root: each position one of its two hardest hits (playon.js), so four joint options a
// side where the whole table holds hundreds (a few dozen visits could not tell hundreds apart). A
// side the simulator asks to replace a fainted Pokemon brings in the first able ('default'), as
// the turns played on do.
import * as table from '../doubles.js';
import {rebuildDoubles} from '../rebuild.js';
import {positionOptions} from '../playon.js';
import {maxdamage, heuristic} from '../doublesscripted.js';

const {choiceFor, POSITION_ACTIONS, SWITCH0, PASS} = table;
const OPTIONS = 2;  // hardest hits considered per position below the root, and per foe position ahead

export const DOUBLES = {
  name: 'doubles',
  table,
  scripted: {maxdamage, heuristic},

  /** Whether there is anything to search: a foe in play that can be faced. */
  faces: view => view.foe.active.some(p => p && !p.fainted && p.hp),

  /** The rebuilt battle at the decision ({battle, me}); null where it cannot be rebuilt. */
  start: (view, random) => rebuildDoubles(view, null, random),

  /** At a forced switch: the battle with joint action a's Pokemon brought in at their positions;
   * null where a brings in none it could. */
  switchIn(view, a, random) {
    const order = switchOrder(view, a);
    return order && order.brought ? rebuildDoubles(view, order.order, random) : null;
  },

  /** Joint action a as a choice in the rebuilt battle, whose team keeps the request's order. */
  choice: (req, a) => choiceFor(req, a),

  /** A simulated side's options now: every pair of its positions' OPTIONS hardest hits (a
   * position with none: its fallback); 'default' at a forced switch; none where it waits. */
  options(battle, side) {
    const req = side.activeRequest;
    if (!req || req.wait || side.isChoiceDone()) return [];
    if (req.forceSwitch) return ['default'];
    return pairs(battle, side);
  },

  /** A prior over `options`, each pair weighted by the product of its two parts' hit scores. */
  priors(battle, side, options) {
    const out = new Map();
    if (options.length < 2) {
      for (const o of options) out.set(o, 1 / options.length);
      return out;
    }
    const [left, right] = [0, 1].map(k => new Map(hits(battle, side, k)));
    let total = 0;
    for (const o of options) {
      const [l, r] = o.split(', ');
      const w = (left.get(l) || 1) * (right.get(r) || 1);
      out.set(o, w);
      total += w;
    }
    for (const o of options) out.set(o, out.get(o) / total);
    return out;
  },

  lookahead: {
    /** The doubles lookahead looks wherever the battle can be rebuilt. */
    faces: () => true,
    /** The foe's likely joint answers: every pair of its positions' OPTIONS hardest hits, alike. */
    answers: start => pairs(start.battle, start.battle.sides[1 - start.me]).map(answer => [answer, 1]),
    salt: 29,  // the last word of each turn's seed
    /** At a forced switch, joint action a's turn: its Pokemon brought in at their positions, then
     * a turn of both sides' hardest hits; null where a brings in one it could not. */
    switchIn(view, a) {
      const order = switchOrder(view, a);
      if (!order) return null;
      return {start: () => rebuildDoubles(view, order.order), ours: null, answers: [[null, 1]],
        seed: (m, s) => [view.battle.turn & 0xffff, 7, s, 31]};
    },
  },
};

/** The team order with joint action a's Pokemon in their positions, and how many it brings in;
 * null where it names one that cannot come in. */
function switchOrder(view, a) {
  const team = view.request.side.pokemon;
  const order = team.map((_, j) => j);
  let brought = 0;
  for (const [k, p] of [[0, Math.floor(a / POSITION_ACTIONS)], [1, a % POSITION_ACTIONS]]) {
    if (p === PASS) continue;
    const j = p - SWITCH0;
    if (p < SWITCH0 || j >= team.length || team[j].active) return null;
    [order[k], order[j]] = [order[j], order[k]];
    brought++;
  }
  return {order, brought};
}

const hits = (battle, side, k) => positionOptions(battle, side, k, OPTIONS);

/** Every pair of a side's two positions' OPTIONS hardest hits, as joint choices. */
function pairs(battle, side) {
  const [left, right] = [0, 1].map(k => hits(battle, side, k).map(([part]) => part));
  const out = [];
  for (const l of left) for (const r of right) out.push(`${l}, ${r}`);
  return out;
}
