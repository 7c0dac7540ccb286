// @pkmn/client alone, for benchmarks: recorded player streams fed to bare client Battles (lines
// parsed and applied, requests parsed and applied), with nothing of metapvp around them. It is
// the floor under the bridge's cost.
import {Battle} from '@pkmn/client';
import {Protocol} from '@pkmn/protocol';
import {GENS} from './view.js';

/** streams: [[pump, ...], ...] per player, a pump being a list of messages. */
export function feedClientOnly(streams, perspectives) {
  let pumps = 0;
  streams.forEach((pumpsOfOne, i) => {
    const battle = new Battle(GENS, perspectives[i]);
    for (const pump of pumpsOfOne) {
      let request = null;
      for (const message of pump) {
        for (const line of message.split('\n')) {
          if (line.startsWith('|request|')) request = line.length > 9 ? Protocol.parseRequest(line.slice(9)) : null;
          else battle.add(line);
        }
      }
      if (request) battle.update(request);
      pumps++;
    }
  });
  return pumps;
}
