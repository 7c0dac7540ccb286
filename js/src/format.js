// The one reading of which format a client-side battle is in.
import {Dex} from '@pkmn/sim';
import {toID} from './contract.js';

/** The simulator's id of the battle's format (from its |tier| line); `genNcustomgame` where the
 * tier names no format the simulator knows (the battle's generation still holds). */
export function formatOf(battle) {
  const f = Dex.formats.get(toID(battle.tier || ''));
  return f.exists && f.effectType === 'Format' ? f.id : `gen${battle.gen.num}customgame`;
}
