// What the search (search.js) needs to know of doubles, as doubleslookahead.js is the
// lookahead's: the battle rebuilt with every Pokemon at its position (rebuildDoubles, the foe's
// sets drawn in each world), our root choices as joint choice strings, and what each side may
// choose deeper in the tree. A side's options there are restricted to its likely answers: each
// position one of its two hardest hits (greedy.js), so four joint options a side where the
// whole table holds hundreds -- a few dozen visits could not tell hundreds apart. A side the
// simulator asks to replace a fainted Pokemon brings in the first able ('default'), as the
// lookahead's turns played on do.
import {choiceFor, POSITION_ACTIONS, SWITCH0, PASS} from './doubles.js';
import {rebuildDoubles} from './rebuild.js';
import {positionOptions} from './greedy.js';

const OPTIONS = 2;  // hardest hits considered per position below the root

export const DOUBLES = {
  /** Whether there is anything to search: a foe in play that can be faced. */
  faces(view) {
    return view.foe.active.some(p => p && !p.fainted && p.hp);
  },

  /** The rebuilt battle at the decision ({battle, me}); null where it cannot be rebuilt. */
  start(view, random) {
    return rebuildDoubles(view, null, random);
  },

  /** At a forced switch: the battle with joint action a's Pokemon brought in at their positions;
   * null where a brings in none it could. */
  switchIn(view, a, random) {
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
    return brought ? rebuildDoubles(view, order, random) : null;
  },

  /** Joint action a as a choice in the rebuilt battle, whose team keeps the request's order. */
  choice(req, a) {
    return choiceFor(req, a);
  },

  /** A simulated side's options now: every pair of its positions' OPTIONS hardest hits (a
   * position with none: its fallback); 'default' at a forced switch; none where it waits. */
  options(battle, side) {
    const req = side.activeRequest;
    if (!req || req.wait || side.isChoiceDone()) return [];
    if (req.forceSwitch) return ['default'];
    const [left, right] = [0, 1].map(k => hits(battle, side, k).map(([part]) => part));
    const out = [];
    for (const l of left) for (const r of right) out.push(`${l}, ${r}`);
    return out;
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
};

const hits = (battle, side, k) => positionOptions(battle, side, k, OPTIONS);
