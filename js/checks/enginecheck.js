// States for the native search, written by enginestate.js from battles played at random: at each
// of p1's decisions the true battle (p1 as side one) and a world rebuilt from p1's view with the
// foe's sets drawn (rebuild.js). metapvp/tests/test_native_search.py has the engine read each.
import {PRNG} from '@pkmn/sim';
import {scriptedAction} from '../src/games/index.js';
import {drawnWorld, engineState, optionName, pendingMove, ENGINE_STATUS, ENGINE_BOOSTS} from '../src/enginestate.js';
import {playBattles} from './worldcheck.js';
import {Match} from '../src/simulator.js';
import {actionTable} from '../src/actiontable.js';
import {nextSeed} from './maskcheck.js';

/** {true: [state...], drawn: [state...], named: [...]}, at most `max` of each: at each of p1's
 * decisions (forced switches too) where a world can be drawn, the true battle and a world drawn
 * from p1's view as the native search draws it, and for the world {options: the engine's names
 * of p1's legal options, canTera: whether p1's active may Terastallize}. */
export function engineStates({format, battles, seed, max = 200}) {
  const prng = new PRNG(seed);
  const out = {true: [], drawn: [], named: []};
  playBattles({format, battles, prng, name: 'engine'}, (side, view, legal, mask, action, match) => {
    const req = view.request;
    if (side === 'p1' && out.true.length < max && (req.active || (req.forceSwitch && req.forceSwitch[0]))) {
      const world = drawnWorld(view, () => prng.random());
      if (world) {  // the true battle and the world at the same decision, side by side
        out.true.push(engineState(match.sim, 0));
        out.drawn.push(world.state);
        out.named.push({options: Object.keys(world.options), canTera: !!(req.active && req.active[0].canTerastallize)});
      }
    }
    return action;
  });
  return out;
}

/** The turns of battles for the bridge's truth test (metapvp/tests/test_native_search.py): at
 * each round of choices, the true battle as the engine's state (p1 as side one) before it, each
 * side's choice as the engine names it ('none' for a side not choosing), and what the simulator
 * shows before and after it: each side's active Pokemon, every Pokemon's HP and status, the active's stages, and
 * the round's log lines. `choices`: [side, action] pairs to play in order (a recorded battle's,
 * `seed` its seed, `p1team` and `p2team` its teams where it had some), else both sides play at
 * random for `battles` battles. A round whose choice
 * the simulator refused, or that the engine cannot name, is left out (counted in `skipped`). */
export function engineTurns({format, seed, battles = 1, choices = null, max = 1000, p1team, p2team}) {
  const prng = new PRNG(seed);
  const out = {rounds: [], skipped: {}, battles: []};
  const skip = why => { out.skipped[why] = (out.skipped[why] || 0) + 1; };
  for (let b = 0; b < battles && out.rounds.length < max; b++) {
    const match = new Match(`turns-${b}`, {format, seed: choices ? seed : nextSeed(prng), p1team, p2team});
    const table = actionTable(match.sim.gameType);
    const mask = new Uint8Array(table.NUM_ACTIONS);
    let next = 0;
    // a side's choice the simulator took in a round left out (its foe's was refused): the
    // round that plays it names it, not 'none'
    let taken = {};
    while (!match.ended && out.rounds.length < max) {
      const sides = ['p1', 'p2'].filter(s => match.views[s].needsDecision);
      const state = engineState(match.sim, 0);
      const before = [sideSummary(match.sim.sides[0]), sideSummary(match.sim.sides[1])];
      // a side not choosing: 'none', or the move it is still to use after its foe pivoted out
      const names = {};
      for (const [k, side] of ['p1', 'p2'].entries()) {
        const pending = pendingMove(match.sim, match.sim.sides[k]);
        names[side] = taken[side] || (pending === 'NONE' ? 'none' : pending.toLowerCase());
      }
      const picks = {};
      for (const side of sides) {
        const view = match.views[side];
        table.writeMask(view.request, mask, 0);
        const legal = [...mask.keys()].filter(a => mask[a]);
        picks[side] = choices ? choices[next++][1] : legal[prng.random(legal.length)];
        names[side] = optionName(table.choiceFor(view.request, picks[side]), match.sim.getSide(side), view.request);
      }
      const from = match.sim.log.length;
      for (const side of sides) match.act(side, picks[side]);
      const refused = sides.filter(s => match.views[s].lastError);
      if (refused.length) {
        for (const side of sides) if (!refused.includes(side)) taken[side] = names[side];
        skip('refused by the simulator');
        continue;
      }
      taken = {};
      if (sides.some(s => names[s] === null)) skip('a choice the engine cannot name (recharge, Struggle)');
      else {
        out.rounds.push({state, s1: names.p1, s2: names.p2, log: match.sim.log.slice(from), before,
          after: [sideSummary(match.sim.sides[0]), sideSummary(match.sim.sides[1])]});
      }
    }
    out.battles.push({winner: match.winner(), turns: match.sim.turn});
  }
  return out;
}

/** What the simulator shows of a side after a round, in the engine's terms (outcomes.rs). */
function sideSummary(side) {
  const active = side.active[0];
  const team = side.pokemon.slice(0, 6);
  return {active: active ? active.species.id : '', species: team.map(p => p.species.id),
    hp: team.map(p => Math.max(0, p.hp)), status: team.map(p => ENGINE_STATUS[p.status] || 'NONE'),
    boosts: ENGINE_BOOSTS.map(b => (active ? active.boosts[b] || 0 : 0))};
}

/** Positions and how their battles ended, for fitting the native search's learned leaf value
 * (studies/leaf_value.py): `battles` battles of `format` whose sides both play the scripted
 * `player`, each decision at random instead with chance `explore` (for positions the player
 * would not reach itself). At each round, the true battle as the engine's state (p1 as side
 * one); per battle, the index of its first state and whether p1 won (null: a tie). */
export function engineGames({format, battles, seed, player = 'heuristic', explore = 0.1}) {
  const prng = new PRNG(seed);
  const out = {states: [], battles: []};
  for (let b = 0; b < battles; b++) {
    const match = new Match(`games-${b}`, {format, seed: nextSeed(prng)});
    const table = actionTable(match.sim.gameType);
    const mask = new Uint8Array(table.NUM_ACTIONS);
    const first = out.states.length;
    while (!match.ended) {
      const sides = ['p1', 'p2'].filter(s => match.views[s].needsDecision);
      if (sides.some(s => match.views[s].request.active)) out.states.push(engineState(match.sim, 0));
      for (const side of sides) {
        const view = match.views[side];
        table.writeMask(view.request, mask, 0);
        const legal = [...mask.keys()].filter(a => mask[a]);
        const action = prng.random() < explore ? legal[prng.random(legal.length)] : scriptedAction(player, view);
        match.act(side, action);
      }
    }
    const winner = match.winner();
    out.battles.push({first, p1won: winner === 'p1' ? true : winner === 'p2' ? false : null});
  }
  return out;
}

/** The starts of `battles` gen 9 random battles (teams from the format's generator, one battle
 * seed each drawn from `seed`), each as the engine's state at the first decision (the leads out,
 * p1 as side one), for self-play inside the engine (`metapvp selfplay`). */
export function engineStarts({format, battles, seed}) {
  const prng = new PRNG(seed);
  const states = [];
  for (let b = 0; b < battles; b++) {
    const match = new Match(`start-${b}`, {format, seed: nextSeed(prng)});
    if (!match.views.p1.request || !match.views.p1.request.active) {
      throw new Error(`engineStarts: battle ${b} of ${format} has no first move to choose (team preview?)`);
    }
    states.push(engineState(match.sim, 0));
  }
  return states;
}

/** The positions of recorded battles (head2head's kept logs: each its seed and its input log),
 * replayed in the simulator, for fitting the leaf value to the search's own games
 * (studies/leaf_value.py --logs): at each round where a side chooses a move, the true battle as
 * the engine's state (p1 as side one); per battle, the index of its first state, whether p1 won
 * (null: a tie) and whether the replay ended as the record did (a record it cannot reproduce is
 * named, not fitted). */
export function engineReplays({format, battles}) {
  const out = {states: [], battles: []};
  for (const [b, {seed, inputLog, winner}] of battles.entries()) {
    const match = new Match(`replay-${b}`, {format, seed});
    const first = out.states.length;
    let recorded = -1;
    for (const line of inputLog) {
      const m = /^>(p[12]) (.*)$/.exec(line);
      if (!m) continue;
      const choosing = match.sim.sides.some(s => s.activeRequest && !s.activeRequest.wait && s.activeRequest.active);
      if (choosing && match.sim.log.length !== recorded) {
        out.states.push(engineState(match.sim, 0));
        recorded = match.sim.log.length;
      }
      match.sim.choose(m[1], m[2]);
      match.outbox = [];   // the views are not needed: the simulator's own state is the truth
    }
    const replayed = match.winner();
    out.battles.push({first, p1won: replayed === 'p1' ? true : replayed === 'p2' ? false : null,
      reproduced: replayed === (winner || '')});
  }
  return out;
}
