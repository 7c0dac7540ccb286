// States for the native search, written by enginestate.js from battles played at random: at each
// of p1's decisions the true battle (p1 as side one) and a world rebuilt from p1's view with the
// foe's sets drawn (rebuild.js). metapvp/tests/test_native_search.py has the engine read each.
import {PRNG} from '@pkmn/sim';
import {gameOf} from '../src/games/index.js';
import {engineState} from '../src/enginestate.js';
import {playBattles} from './worldcheck.js';

/** {true: [state...], drawn: [state...]}, at most `max` of each. */
export function engineStates({format, battles, seed, max = 200}) {
  const prng = new PRNG(seed);
  const out = {true: [], drawn: []};
  playBattles({format, battles, prng, name: 'engine'}, (side, view, legal, mask, action, match) => {
    if (side === 'p1' && out.true.length < max && view.request.active) {
      out.true.push(engineState(match.sim, 0));
      const world = gameOf(view.battle.gameType).start(view, () => prng.random());
      if (world) out.drawn.push(engineState(world.battle, world.me));
    }
    return action;
  });
  return out;
}
