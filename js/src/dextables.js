// Static game data laid out along the contract's vocabularies, for models that want to know
// what a move or a type is without learning it from scratch (metapvp/models reads these once and
// keeps them in the model file, so playing needs no V8).
import {Dex} from '@pkmn/sim';

const CATEGORY = {Physical: 0, Special: 1, Status: 2};

/** Per move id: [base power / 100, accuracy (1 for never-miss), priority / 5, physical,
 * special, status, type id, multi-hit, drains or heals, boosts the user, sets hazards or
 * screens]. */
function moveRow(id, types) {
  const m = Dex.moves.get(id);
  if (!m.exists) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  const cat = CATEGORY[m.category] ?? 2;
  const selfBoost = m.category === 'Status' && (m.target === 'self' || m.target === 'adjacentAllyOrSelf') && !!m.boosts;
  return [
    (m.basePower || 0) / 100,
    m.accuracy === true ? 1 : m.accuracy / 100,
    (m.priority || 0) / 5,
    cat === 0 ? 1 : 0, cat === 1 ? 1 : 0, cat === 2 ? 1 : 0,
    types.get(m.type.toLowerCase()) ?? 2,
    m.multihit ? 1 : 0,
    m.drain || m.heal || m.flags.heal ? 1 : 0,
    selfBoost || m.selfBoost ? 1 : 0,
    m.sideCondition || m.target === 'foeSide' ? 1 : 0,
  ];
}

/** {moves: rows as above, typeChart: [attacking type id][defending type id] multiplier}. */
export function dexTables(contract) {
  const types = contract.vocab.types;
  const typeIds = [...types.keys()];
  const moves = [...contract.vocab.moves.keys()].map(id => moveRow(id, types));
  const typeChart = typeIds.map(att => typeIds.map(def => {
    const a = Dex.types.get(att), d = Dex.types.get(def);
    if (!a.exists || !d.exists) return 1;
    if (!Dex.getImmunity(a.name, d.name)) return 0;
    return 2 ** Dex.getEffectiveness(a.name, d.name);
  }));
  return {moves, typeChart};
}
