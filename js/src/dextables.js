// Static game data laid out along the contract's vocabularies, for models that want to know
// what a move or a type is without learning it from scratch (the Python models read these once and
// keeps them in the model file, so playing needs no V8).
import {Dex} from '@pkmn/sim';

/** Per move id, the columns a contract may name in `tables.moves`. */
const MOVE_COLUMNS = {
  base_power: m => (m.basePower || 0) / 100,
  accuracy: m => (m.accuracy === true ? 1 : m.accuracy / 100),
  priority: m => (m.priority || 0) / 5,
  physical: m => (m.category === 'Physical' ? 1 : 0),
  special: m => (m.category === 'Special' ? 1 : 0),
  status: m => (m.category !== 'Physical' && m.category !== 'Special' ? 1 : 0),
  type: (m, types) => types.get(m.type.toLowerCase()) ?? 2,
  multihit: m => (m.multihit ? 1 : 0),
  heals: m => (m.drain || m.heal || m.flags.heal ? 1 : 0),
  boosts_self: m => ((m.category === 'Status' && (m.target === 'self' || m.target === 'adjacentAllyOrSelf') &&
    !!m.boosts) || m.selfBoost ? 1 : 0),
  sets_field: m => (m.sideCondition || m.target === 'foeSide' ? 1 : 0),
};

function moveRow(id, types, columns) {
  const m = Dex.moves.get(id);
  return columns.map(name => (m.exists ? MOVE_COLUMNS[name](m, types) : 0));
}

/** {moves: rows as above, typeChart: [attacking type id][defending type id] multiplier}. */
export function dexTables(contract) {
  const columns = (contract.tables.moves || {}).columns;
  if (!columns) throw new Error(`contract ${contract.name}: no tables.moves.columns`);
  for (const name of columns) {
    if (!MOVE_COLUMNS[name]) {
      throw new Error(`contract ${contract.name}: tables.moves has no column '${name}' (known: ${Object.keys(MOVE_COLUMNS).join(', ')})`);
    }
  }
  const types = contract.vocab.types;
  const typeIds = [...types.keys()];
  const moves = [...contract.vocab.moves.keys()].map(id => moveRow(id, types, columns));
  const typeChart = typeIds.map(att => typeIds.map(def => {
    const a = Dex.types.get(att), d = Dex.types.get(def);
    if (!a.exists || !d.exists) return 1;
    if (!Dex.getImmunity(a.name, d.name)) return 0;
    return 2 ** Dex.getEffectiveness(a.name, d.name);
  }));
  return {moves, typeChart};
}
