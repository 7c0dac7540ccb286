// The simulator alone, for benchmarks: battles played with uniformly random legal choices read
// straight from the simulator's own requests, with no client and no encoder. It is the cost
// that everything else in metapvp is measured against.
import {Battle as SimBattle, PRNG, Teams} from '@pkmn/sim';
import {TeamGenerators} from '@pkmn/randoms';
import {writeMask, choiceFor, NUM_ACTIONS} from '../src/actions.js';

Teams.setGeneratorFactory(TeamGenerators);  // also run standalone in Node (js/tools/raw-sim.mjs)

export function playRaw({format, battles, seed}) {
  const prng = new PRNG(seed);
  const mask = new Uint8Array(NUM_ACTIONS);
  const legal = [];
  let turns = 0;
  let decisions = 0;
  for (let b = 0; b < battles; b++) {
    const s = () => [0, 0, 0, 0].map(() => prng.random(65536)).join(',');
    const sim = new SimBattle({formatid: format, seed: s()});
    sim.setPlayer('p1', {name: 'p1', seed: s()});
    sim.setPlayer('p2', {name: 'p2', seed: s()});
    while (!sim.ended) {
      const before = decisions;
      for (const side of sim.sides) {
        const request = side.activeRequest;
        if (!request || request.wait || side.isChoiceDone()) continue;
        writeMask(request, mask, 0);
        legal.length = 0;
        mask.forEach((m, a) => { if (m) legal.push(a); });
        decisions++;
        if (!sim.choose(side.id, choiceFor(request, legal[prng.random(legal.length)]))) {
          sim.choose(side.id, 'default');
        }
      }
      if (sim.turn > 1000) sim.tie();
      if (decisions === before && !sim.ended) throw new Error(`raw battle ${b} stalled at turn ${sim.turn}`);
    }
    turns += sim.turn;
  }
  return {battles, turns, decisions};
}
