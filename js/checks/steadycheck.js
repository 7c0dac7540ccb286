// The search's steady chance (search.js, `steady`) against the simulator: one turn of a
// high-critical-hit move played from many seeds, with and without it. Steady, the damage is the
// same from every seed and never critical; drawn, it varies and is sometimes critical.
import {Battle as SimBattle} from '@pkmn/sim';
import {steadyChance} from '../src/search.js';

// Night Slash (100% accurate, no secondary effect) with Scope Lens: a critical hit one time in
// two where chance is drawn; the target only splashes.
const SET = {level: 50, nature: 'Serious', evs: {}, ivs: {}, ability: 'Pressure'};
const ATTACKER = {...SET, name: 'Absol', species: 'Absol', item: 'Scope Lens', moves: ['nightslash']};
const TARGET = {...SET, name: 'Snorlax', species: 'Snorlax', item: '', ability: 'Immunity', moves: ['splash']};

/** {damage, crits} over `seeds` battles, each one turn long, steady or not. */
export function steadyHits({seeds, steady}) {
  const damage = [];
  let crits = 0;
  for (let s = 1; s <= seeds; s++) {
    const battle = new SimBattle({formatid: 'gen9customgame', seed: `${s},${s * 7},${s * 13},${s * 31}`});
    if (steady) steadyChance(battle);
    battle.setPlayer('p1', {name: 'p1', team: [ATTACKER]});
    battle.setPlayer('p2', {name: 'p2', team: [TARGET]});
    for (let guard = 0; guard < 6 && battle.turn < 2 && !battle.ended; guard++) {
      for (const side of battle.sides) {
        if (side.activeRequest && !side.activeRequest.wait && !side.isChoiceDone()) battle.choose(side.id, 'default');
      }
    }
    const target = battle.p2.active[0];
    damage.push(target.maxhp - target.hp);
    crits += battle.log.filter(line => line.startsWith('|-crit|')).length;
  }
  return {damage, crits};
}
