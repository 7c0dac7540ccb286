// The raw simulator in Node, for metapvp/exe/bench.py: @pkmn/sim battles with uniformly random
// legal choices and nothing else. Prints {"battles", "turns", "decisions", "seconds"} as JSON.
//   node js/tools/raw-sim.mjs FORMAT BATTLES SEED
import {playRaw} from '../checks/rawsim.js';

const [format = 'gen9randombattle', battles = '50', seed = '1'] = process.argv.slice(2);
const start = process.hrtime.bigint();
const out = playRaw({format, battles: Number(battles), seed: `${seed},2,3,4`});
out.seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(JSON.stringify(out));
