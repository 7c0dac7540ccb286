// Writes contracts/vocab/*.json from the pinned @pkmn/dex, the union over gens 1-9.
// Every vocabulary starts with the same reserved ids (see RESERVED); the rest is sorted, so a
// regenerated vocabulary only changes where the dex itself changed.
import {Dex} from '@pkmn/dex';
import {Dex as SimDex, toID} from '@pkmn/sim';
import {writeFileSync, mkdirSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'contracts', 'vocab');
// 0: nothing there (empty slot, no item); 1: there but not revealed; 2: a value the vocabulary lacks.
const RESERVED = ['<none>', '<unknown>', '<other>'];
const GENS = [1, 2, 3, 4, 5, 6, 7, 8, 9];
const SKIP = new Set(['CAP', 'Custom', 'LGPE', 'Future']);

function collect(kind, keep = () => true) {
  const ids = new Set();
  for (const gen of GENS) {
    for (const e of Dex.forGen(gen)[kind].all()) {
      if (e.exists && !SKIP.has(e.isNonstandard) && keep(e)) ids.add(e.id);
    }
  }
  return ids;
}

// Hidden Power is revealed with its type ("Hidden Power Fire 60"): keep one id per type.
const moves = collect('moves');
for (const type of Dex.types.all()) {
  if (!['normal', 'fairy', 'stellar'].includes(type.id)) moves.add(`hiddenpower${type.id}`);
}
// Cosmetic formes (Furfrou-Matron, Vivillon-Fancy...) are shown as such but the dex lists
// only their base species.
const species = collect('species');
for (const id of [...species]) {
  for (const name of Dex.species.get(id).cosmeticFormes || []) species.add(toID(name));
}
const vocab = {
  species,
  moves,
  items: collect('items'),
  abilities: collect('abilities'),
  types: new Set(Dex.types.all().map(t => t.id).concat(['stellar'])),
  status: new Set(['brn', 'par', 'slp', 'frz', 'psn', 'tox']),
  weather: new Set(['raindance', 'sunnyday', 'sandstorm', 'hail', 'snowscape', 'snow',
    'desolateland', 'primordialsea', 'deltastream']),
  terrain: new Set(['electricterrain', 'grassyterrain', 'mistyterrain', 'psychicterrain']),
  pseudo_weather: collect('moves', m => !!m.pseudoWeather),
  side_conditions: new Set([...collect('moves', m => !!m.sideCondition)].map(
    id => Dex.moves.get(id).sideCondition.toLowerCase().replace(/[^a-z0-9]/g, ''))),
  // Volatile effects the client tracks on an active Pokemon: move-made volatiles, the dex's own
  // conditions, and the client's bookkeeping ids. Anything else maps to <other>.
  volatiles: new Set([
    ...collect('moves', m => !!m.volatileStatus).values(),
    ...[...collect('moves', m => !!m.volatileStatus)].map(id => Dex.moves.get(id).volatileStatus),
    ...Object.keys(SimDex.data.Conditions),
    'typechange', 'typeadd', 'transform', 'illusion', 'dynamax', 'smackdown', 'stockpile1',
    'stockpile2', 'stockpile3', 'perish0', 'perish1', 'perish2', 'perish3', 'protosynthesis',
    'quarkdrive', 'slowstart', 'flashfire', 'unburden', 'charge', 'mustrecharge', 'lockedmove',
    'partiallytrapped', 'trapped', 'confusion', 'substitute', 'leechseed', 'encore', 'taunt',
    'torment', 'disable', 'attract', 'curse', 'nightmare', 'yawn', 'focusenergy', 'laserfocus',
    'saltcure', 'syrupbomb', 'glaiverush', 'fallen1', 'fallen2', 'fallen3', 'fallen4', 'fallen5',
  ].map(x => String(x).toLowerCase().replace(/[^a-z0-9]/g, '')).filter(x => x)),
};

mkdirSync(OUT, {recursive: true});
for (const [name, ids] of Object.entries(vocab)) {
  const list = RESERVED.concat([...ids].filter(x => !RESERVED.includes(x)).sort());
  writeFileSync(join(OUT, `${name}.json`), JSON.stringify(list, null, 0).replace(/","/g, '",\n"') + '\n');
  console.log(`${name}: ${list.length}`);
}
