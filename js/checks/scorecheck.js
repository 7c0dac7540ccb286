// The material of evaluation.js on simulator positions: one change at a time to p1's side of a
// fresh one-on-one battle, and how much material says it changed p1's score.
import {Battle as SimBattle} from '@pkmn/sim';
import {sideScore} from '../src/evaluation.js';

const SET = {level: 50, nature: 'Serious', evs: {}, ivs: {}, item: '', moves: ['tackle']};
const TEAM = [{...SET, name: 'Absol', species: 'Absol', ability: 'Pressure'},
  {...SET, name: 'Snorlax', species: 'Snorlax', ability: 'Immunity'}];

function fresh() {
  const battle = new SimBattle({formatid: 'gen9customgame', seed: [1, 2, 3, 4]});
  battle.setPlayer('p1', {name: 'p1', team: TEAM});
  battle.setPlayer('p2', {name: 'p2', team: TEAM});
  for (const side of battle.sides) if (!side.isChoiceDone()) battle.choose(side.id, 'default');  // team preview
  return battle;
}

const CHANGES = {
  attackUp2: b => { b.p1.active[0].boosts.atk = 2; },
  speedDown1: b => { b.p1.active[0].boosts.spe = -1; },
  benchAttackUp2: b => { b.p1.pokemon[1].boosts.atk = 2; },   // boosts count on the active only
  halfHp: b => { const p = b.p1.active[0]; p.hp = Math.floor(p.maxhp / 2); },
  paralysed: b => { b.p1.active[0].status = 'par'; },
  fainted: b => { const p = b.p1.pokemon[1]; p.hp = 0; p.fainted = true; },
  substitute: b => { b.p1.active[0].volatiles.substitute = {id: 'substitute'}; },
  reflect: b => { b.p1.sideConditions.reflect = {id: 'reflect'}; },
};

/** {change: p1's material after it less before}. */
export function scoreChanges() {
  const out = {};
  for (const [change, apply] of Object.entries(CHANGES)) {
    const battle = fresh();
    const before = sideScore(battle.p1);
    apply(battle);
    out[change] = Math.round((sideScore(battle.p1) - before) * 1000) / 1000;
  }
  return out;
}
