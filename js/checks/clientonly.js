// Floors under the bridge's cost, for benchmarks/bench_engine.py: recorded player streams fed
// without Python in between. feedClientOnly: bare @pkmn/client Battles (lines parsed and applied,
// requests parsed and applied), with nothing of metapvp around them. replayEngine: an Engine
// fed the same way as the Python benchmark feeds it, `battles` at a time, encoding or only
// applying the requests.
import {Battle} from '@pkmn/client';
import {Protocol} from '@pkmn/protocol';
import {GENS} from '../src/view.js';
import {Engine} from '../src/engine.js';

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

/** battles: [{p1: [pump, ...], p2: [...]}, ...]; one Engine.batch per pump round of a group. */
export function replayEngine(contract, battles, batch, encode) {
  const engine = new Engine(contract);
  let decisions = 0;
  for (let g = 0; g < battles.length; g += batch) {
    const views = [];
    battles.slice(g, g + batch).forEach((b, i) => {
      for (const p of ['p1', 'p2']) views.push([`b${g + i}`, p, b[p]]);
    });
    for (const [key, p] of views) engine.open(key, p);
    const rounds = Math.max(...views.map(v => v[2].length));
    for (let r = 0; r < rounds; r++) {
      const live = views.filter(v => r < v[2].length);
      const feed = [];
      for (const [key, p, pumps] of live) for (const m of pumps[r]) feed.push([key, p, m]);
      const out = engine.batch({feed, encode: encode ? live.map(([key, p]) => [key, p]) : []});
      if (out.errors.length) throw new Error(out.errors[0].message);
      for (const rec of out.records) decisions += rec.decision ? 1 : 0;
      if (!encode) for (const [key, p] of live) engine.view(key, p).flush();  // requests applied all the same
    }
    for (const [key, p] of views) engine.close(key, p);
  }
  return decisions;
}
