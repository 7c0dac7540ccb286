// Lookahead for doubles, as lookahead.js is for singles: the battle rebuilt from what the player
// can see (rebuildDoubles, every Pokemon at its position, the foe's sets the likeliest), then
// one turn played for each candidate joint action of ours against each of the foe's likely
// joint answers, optionally more turns of both sides' hardest hits, and each outcome scored by
// what both sides have left (material). The foe's likely answers: each of its positions takes
// one of its two hardest hits (greedy.js: base power x effectiveness x same-type bonus, at the
// target it hurts most, spread moves counted on everything they hit), so up to four answers. At
// a forced switch, the Pokemon sent in are played in their positions through turns of both
// sides' hardest hits. The player weighs the values against the policy's preferences
// (metapvp/players/lookahead.py).
import {PRNG} from '@pkmn/sim';
import {choiceFor, POSITION_ACTIONS, SWITCH0, PASS} from './doubles.js';
import {rebuildDoubles} from './rebuild.js';
import {lead} from './evaluation.js';
import {playOnce, positionOptions} from './greedy.js';

const FOE_OPTIONS = 2;  // hardest hits considered per foe position

/** For each joint action in `candidates`: [mean material over the foe's likely answers, the
 * worst of them] after the turn (and `playOn` more); NaN where the simulator refused it. null
 * where there is nothing to look ahead at (team preview, waiting, no known foe). */
export function doublesLookahead(view, candidates, playOn = 0, samples = 1) {
  const req = view.request;
  if (!req || !req.side || req.teamPreview || req.wait || !(req.active || req.forceSwitch)) return null;
  if (req.forceSwitch) return switchIns(view, candidates, playOn, samples);
  const start = rebuildDoubles(view);
  if (!start) return null;
  const answers = foeAnswers(start.battle.sides[1 - start.me]);
  const seed = (a, s) => [view.battle.turn & 0xffff, a, s, 29];
  return candidates.map(c => {
    let choice;
    try {
      choice = choiceFor(req, c);
    } catch (e) {
      return [NaN, NaN];
    }
    let mean = 0, worst = Infinity, counted = 0;
    for (let a = 0; a < answers.length; a++) {
      let v = 0;
      for (let s = 0; s < samples && !Number.isNaN(v); s++) {
        v += playTurn(() => rebuildDoubles(view), choice, answers[a], playOn, seed(a, s)) / samples;
      }
      if (Number.isNaN(v)) continue;
      mean += v;
      worst = Math.min(worst, v);
      counted++;
    }
    return counted ? [mean / counted, worst] : [NaN, NaN];
  });
}

/** The foe's likely joint answers: every pair of its positions' FOE_OPTIONS hardest hits. */
function foeAnswers(foe) {
  const options = [0, 1].map(k => positionOptions(foe.battle, foe, k, FOE_OPTIONS).map(([part]) => part));
  const out = [];
  for (const left of options[0]) for (const right of options[1]) out.push(`${left}, ${right}`);
  return out;
}

/** At a forced switch: each candidate's Pokemon brought in at their positions, then 1 + playOn
 * turns of both sides' hardest hits. */
function switchIns(view, candidates, playOn, samples) {
  const team = view.request.side.pokemon;
  return candidates.map(c => {
    const order = team.map((_, j) => j);
    for (const [k, p] of [[0, Math.floor(c / POSITION_ACTIONS)], [1, c % POSITION_ACTIONS]]) {
      if (p === PASS) continue;
      const j = p - SWITCH0;
      if (p < SWITCH0 || j >= team.length || team[j].active) return [NaN, NaN];
      [order[k], order[j]] = [order[j], order[k]];
    }
    let v = 0;
    for (let s = 0; s < samples && !Number.isNaN(v); s++) {
      v += playTurn(() => rebuildDoubles(view, order), null, null, playOn, [view.battle.turn & 0xffff, 7, s, 31]) / samples;
    }
    return [v, v];
  });
}

/** Material after a turn from a freshly rebuilt start: our material minus the foe's; NaN where a
 * choice is refused or nothing could be rebuilt. A null choice: both sides' hardest hits. */
function playTurn(start, ours, theirs, playOn, seed) {
  const built = start();
  if (!built) return NaN;
  const {battle, me} = built;
  battle.prng = new PRNG(seed);
  if (ours === null) {
    playOnce(battle);
  } else if (!battle.choose(battle.sides[me].id, ours) || !battle.choose(battle.sides[1 - me].id, theirs)) {
    return NaN;
  }
  for (let t = 0; t < playOn; t++) playOnce(battle);
  return lead(battle, me);
}
