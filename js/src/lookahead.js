// Lookahead from what a player can see (in doubles: doubleslookahead.js). The battle is rebuilt
// in the simulator (rebuild.js, the foe's sets the likeliest ones), then one turn is played for each candidate action of ours against each move the foe's active Pokemon likely has (at a forced switch: for
// each Pokemon that could come in), optionally more turns of both sides' hardest hits, and each
// outcome is scored by what both sides have left (material). Players weigh these values against
// a policy's own preferences (metapvp/players/lookahead.py).
import {PRNG} from '@pkmn/sim';
import {GIMMICKS} from './actions.js';
import {rebuild, ourChoice} from './rebuild.js';
import {lead} from './evaluation.js';
import {playOnce, hardestHit} from './greedy.js';
import {doublesLookahead} from './doubleslookahead.js';

const G = GIMMICKS.length;

/** For each action in `candidates` (action indices of view's request): the expected material
 * after one turn, [mean over the foe's likely moves, the worst of them]; NaN where the
 * simulator refused the action. At a forced switch, the turn looked at is the one after it,
 * the Pokemon sent in taking its hardest hit. null where there is nothing to look ahead at
 * (team preview, waiting, no known foe). */
export function lookahead(view, candidates, playOn = 0, samples = 1) {
  if (view.battle.gameType === 'doubles') return doublesLookahead(view, candidates, playOn, samples);
  if (view.battle.gameType !== 'singles') throw new Error(`the lookahead plays singles and doubles battles, not ${view.battle.gameType}`);
  const req = view.request;
  if (!req || !req.side || req.teamPreview || req.wait || !(req.active || req.forceSwitch)) return null;
  const foeActive = view.foe.active[0];
  if (!foeActive || foeActive.fainted) return null;
  if (req.forceSwitch) return switchIns(view, candidates, playOn, samples);
  const start = rebuild(view);
  if (!start) return null;
  const foeMoves = start.foeMoves;
  const out = [];
  for (const a of candidates) {
    let choice;
    try {
      choice = ourChoice(req, a, start.slots);
    } catch (e) {
      out.push([NaN, NaN]);
      continue;
    }
    out.push(againstFoe(view, foeMoves, () => rebuild(view), choice, playOn, samples));
  }
  return out;
}

function switchIns(view, candidates, playOn, samples) {
  const out = [];
  for (const a of candidates) {
    const j = Math.floor(a / G) - 4;
    const r = view.request.side.pokemon[j];
    const start = j >= 0 && r && !r.fainted && r.hp ? rebuild(view, j) : null;
    if (!start) {
      out.push([NaN, NaN]);
      continue;
    }
    out.push(againstFoe(view, start.foeMoves, () => rebuild(view, j), hardestHit, playOn, samples));
  }
  return out;
}

/** [mean, worst] material after our `choice` against each of the foe's likely moves, each
 * outcome averaged over `samples` draws of the battle's chances (damage rolls, accuracy,
 * critical hits). The draws' seeds do not depend on our choice, so candidates are compared
 * under the same luck as far as their turns use the same chances. */
function againstFoe(view, foeMoves, start, choice, playOn, samples) {
  let mean = 0, total = 0, worst = Infinity;
  for (let m = 0; m < foeMoves.length; m++) {
    let v = 0;
    for (let s = 0; s < samples && !Number.isNaN(v); s++) {
      v += playTurn(start, choice, `move ${m + 1}`, playOn, [view.battle.turn & 0xffff, m, s, 17]) / samples;
    }
    if (Number.isNaN(v)) continue;
    mean += foeMoves[m] * v;
    total += foeMoves[m];
    worst = Math.min(worst, v);
  }
  return total ? [mean / total, worst] : [NaN, NaN];
}

/** lookahead() for many decisions: `views` are functions giving each decision's view. A
 * decision whose lookahead fails gets {error} and never stops the others. */
export function lookaheadMany(views, candidates, playOn, samples) {
  return views.map((viewOf, i) => {
    try {
      return lookahead(viewOf(), candidates[i], playOn, samples);
    } catch (e) {
      return {error: e.message};
    }
  });
}

/** Material after one turn from a freshly rebuilt start (rebuild()): our material minus the
 * foe's; NaN where a choice is refused. `ours`: a choice, or a rule giving one for the battle. */
function playTurn(start, ours, theirs, playOn, seed) {
  const {battle, me} = start();
  battle.prng = new PRNG(seed);
  const us = battle.sides[me], foe = battle.sides[1 - me];
  const own = typeof ours === 'function' ? ours(battle, us) : ours;
  if (!battle.choose(us.id, own) || !battle.choose(foe.id, theirs)) return NaN;
  for (let t = 0; t < playOn; t++) playOnce(battle);
  return lead(battle, me);
}
