// Species data and a Pokemon's current types, as the encoder and the scripted players read them.

// Species data by (gen, forme), memoised: the dex builds a new wrapper object on every lookup.
// One Map per generation, so that a lookup builds no key string.
const SPECIES = Array.from({length: 10}, () => new Map());
export function speciesOf(battle, forme) {
  const byForme = SPECIES[battle.gen.num];
  let s = byForme.get(forme);
  if (s === undefined) {
    const sp = battle.gen.species.get(forme);
    s = sp ? {types: sp.types, baseStats: sp.baseStats, mega: !!(sp.isMega || sp.isPrimal)} : null;
    byForme.set(forme, s);
  }
  return s;
}

// The client's Pokemon#types, without its per-call dex lookup.
export function typesOf(battle, p) {
  let types;
  if (p.terastallized && p.terastallized !== 'Stellar') types = [p.terastallized];
  else if (p.volatiles.typechange) types = p.volatiles.typechange.apparentType.split('/');
  else types = speciesOf(battle, p.speciesForme)?.types || [];
  return p.actualTypes(types);
}
