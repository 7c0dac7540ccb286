// Lookahead from what a player can see, written once over the game adapters (games/): the battle
// is rebuilt in the simulator (the foe's sets the likeliest ones), then one turn is played for
// each of our candidate actions against each of the foe's likely answers (in singles each move
// its active Pokemon likely has, weighted by how likely; in doubles every pair of its positions'
// two hardest hits), optionally `playOn` more turns of both sides' hardest hits (playon.js), and
// each outcome is scored by what both sides have left (material). At a forced switch each
// Pokemon that could come in is played in (the game says how). Players weigh these values
// against a policy's own preferences (the Python lookahead player).
import {PRNG} from '@pkmn/sim';
import {gameOf} from './games/index.js';
import {lead} from './evaluation.js';
import {playOnce} from './playon.js';

/** For each action in `candidates` (action indices of view's request): [mean material over the
 * foe's likely answers, the worst of them] after the turn (and `playOn` more), each outcome
 * averaged over `samples` draws of the battle's chances; NaN where the simulator refused the
 * action. null where there is nothing to look ahead at (team preview, waiting, no known foe). */
export function lookahead(view, candidates, playOn = 0, samples = 1) {
  const game = gameOf(view.battle.gameType, 'the lookahead');
  const req = view.request;
  if (!req || !req.side || req.teamPreview || req.wait || !(req.active || req.forceSwitch)) return null;
  if (!game.lookahead.faces(view)) return null;
  if (req.forceSwitch) {
    return candidates.map(a => {
      const plan = game.lookahead.switchIn(view, a);
      return plan ? outcome(plan, playOn, samples) : [NaN, NaN];
    });
  }
  const start = game.start(view);
  if (!start) return null;
  const answers = game.lookahead.answers(start);
  const seed = (m, s) => [view.battle.turn & 0xffff, m, s, game.lookahead.salt];
  return candidates.map(a => {
    let choice;
    try {
      choice = game.choice(req, a, start);
    } catch (e) {
      return [NaN, NaN];   // an action the rebuilt battle cannot take
    }
    return outcome({start: () => game.start(view), ours: choice, answers, seed}, playOn, samples);
  });
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

/** [mean, worst] material of a plan: {start: a fresh rebuilt battle, ours: our choice (a rule
 * giving one for the battle, or null for both sides' hardest hits), answers: [the foe's choice,
 * its weight], seed: (answer, draw) => a seed}. The draws' seeds do not depend on our choice, so
 * candidates are compared under the same luck as far as their turns use the same chances. */
function outcome({start, ours, answers, seed}, playOn, samples) {
  let mean = 0, total = 0, worst = Infinity;
  answers.forEach(([theirs, weight], m) => {
    let v = 0;
    for (let s = 0; s < samples && !Number.isNaN(v); s++) v += playTurn(start, ours, theirs, playOn, seed(m, s)) / samples;
    if (Number.isNaN(v)) return;
    mean += weight * v;
    total += weight;
    worst = Math.min(worst, v);
  });
  return total ? [mean / total, worst] : [NaN, NaN];
}

/** Our material minus the foe's after a turn (and `playOn` more) from a freshly rebuilt start;
 * NaN where a choice is refused or nothing could be rebuilt. */
function playTurn(start, ours, theirs, playOn, seed) {
  const built = start();
  if (!built) return NaN;
  const {battle, me} = built;
  battle.prng = new PRNG(seed);
  if (ours === null) {
    playOnce(battle);
  } else {
    const us = battle.sides[me], foe = battle.sides[1 - me];
    const own = typeof ours === 'function' ? ours(battle, us) : ours;
    if (!battle.choose(us.id, own) || !battle.choose(foe.id, theirs)) return NaN;
  }
  for (let t = 0; t < playOn; t++) playOnce(battle);
  return lead(battle, me);
}
