// The singles game, as the planners (lookahead.js, search.js) and the scripted players' dispatch
// (games/index.js) see it: its action table, the battle rebuilt from a view, our actions as
// choices there, each side's options and a prior over them, the foe's likely answers, and the
// scripted players' rules.
import * as table from '../actions.js';
import {legalChoices} from '../actiontable.js';
import {rebuild, ourChoice} from '../rebuild.js';
import {hardestHit} from '../playon.js';
import {maxdamage, heuristic} from '../scripted.js';

const G = table.GIMMICKS.length;

export const SINGLES = {
  name: 'singles',
  table,
  scripted: {maxdamage, heuristic},

  /** Whether a foe stands to be faced. */
  faces: view => !!view.foe.active[0] && !view.foe.active[0].fainted,

  /** The battle rebuilt at the decision ({battle, me, slots, foeMoves}; the foe's sets drawn by
   * `random`, the likeliest without it); null where it cannot be rebuilt. */
  start: (view, random, truth) => rebuild(view, -1, random, truth),

  /** At a forced switch: the battle with action a's Pokemon brought in leading; null where a
   * brings in none that could come. */
  switchIn(view, a, random) {
    const j = Math.floor(a / G) - 4;
    const r = view.request.side.pokemon[j];
    return j >= 0 && r && !r.fainted && r.hp ? rebuild(view, j, random) : null;
  },

  /** Our action a as a choice in the rebuilt battle (an error where it cannot be taken there). */
  choice: (req, a, start) => ourChoice(req, a, start.slots),

  /** What a simulated side may choose now: choice strings, none where it waits. */
  options(battle, side) {
    const req = side.activeRequest;
    if (!req || req.wait || side.isChoiceDone()) return [];
    return Object.values(legalChoices(req));
  },

  /** A prior over a simulated side's options, each move weighted by how hard it hits the foe's
   * active Pokemon (base power, type effectiveness, same-type bonus), status moves as a middling
   * hit, a gimmick at half its move, switches a little. */
  priors(battle, side, options) {
    const out = new Map();
    const me = side.active[0], foe = side.foe.active[0];
    const moves = side.activeRequest.active ? side.activeRequest.active[0].moves : [];
    let total = 0;
    for (const o of options) {
      let w = 0.3;
      const m = /^move (\d)( \w+)?/.exec(o);
      if (m && me && foe) {
        const move = battle.dex.moves.get(moves[Number(m[1]) - 1].id);
        w = 0.6;
        if (move.category !== 'Status') {
          const immune = !battle.dex.getImmunity(move.type, foe.getTypes());
          w = immune ? 0.05 : 0.25 + (move.basePower || 60) / 100 * 2 ** battle.dex.getEffectiveness(move.type, foe.getTypes()) *
            (me.hasType(move.type) ? 1.5 : 1);
        }
        if (m[2]) w *= 0.5;
      }
      out.set(o, w);
      total += w;
    }
    for (const o of options) out.set(o, out.get(o) / total);
    return out;
  },

  lookahead: {
    /** Whether there is a foe to look ahead against: as for the search. */
    faces: view => SINGLES.faces(view),
    /** The foe's likely answers in the rebuilt battle: each of its active Pokemon's moves,
     * weighted by how likely it has it. */
    answers: start => start.foeMoves.map((w, m) => [`move ${m + 1}`, w]),
    salt: 17,  // the last word of each turn's seed
    /** At a forced switch, action a's turn: the Pokemon brought in takes its hardest hit against
     * each of the foe's likely moves; null where a brings in none. */
    switchIn(view, a) {
      const start = SINGLES.switchIn(view, a);
      if (!start) return null;
      const j = Math.floor(a / G) - 4;
      return {start: () => rebuild(view, j), ours: hardestHit, answers: SINGLES.lookahead.answers(start),
        seed: (m, s) => [view.battle.turn & 0xffff, m, s, SINGLES.lookahead.salt]};
    },
  },
};
