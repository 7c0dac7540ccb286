// States for the native search, written by enginestate.js from battles played at random: at each
// of p1's decisions the true battle (p1 as side one) and a world rebuilt from p1's view with the
// foe's sets drawn (rebuild.js). metapvp/tests/test_native_search.py has the engine read each.
import {PRNG} from '@pkmn/sim';
import {Match} from '../src/simulator.js';
import {actionTable} from '../src/actiontable.js';
import {gameOf} from '../src/games/index.js';
import {engineState} from '../src/enginestate.js';
import {nextSeed} from './maskcheck.js';

/** {true: [state...], drawn: [state...]}, at most `max` of each. */
export function engineStates({format, battles, seed, max = 200}) {
  const prng = new PRNG(seed);
  const out = {true: [], drawn: []};
  for (let b = 0; b < battles; b++) {
    const match = new Match(`engine-${b}`, {format, seed: nextSeed(prng)});
    const table = actionTable(match.sim.gameType);
    const mask = new Uint8Array(table.NUM_ACTIONS);
    while (!match.ended) {
      for (const side of ['p1', 'p2']) {
        const view = match.views[side];
        if (!view.needsDecision) continue;
        table.writeMask(view.request, mask, 0);
        const legal = [...mask.keys()].filter(a => mask[a]);
        if (side === 'p1' && out.true.length < max && view.request.active) {
          out.true.push(engineState(match.sim, 0));
          const world = gameOf(view.battle.gameType).start(view, () => prng.random());
          if (world) out.drawn.push(engineState(world.battle, world.me));
        }
        match.act(side, legal.length ? legal[prng.random(legal.length)] : 0);
      }
    }
  }
  return out;
}
