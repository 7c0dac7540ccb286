// Checks a player's view (src/view.js) against the simulator, which knows the true battle:
//  - over battles played at random, both active Pokemon as the view has them (checkViewTruth);
//  - in a staged battle, a Terastallized Pokemon of ours that switches back in keeps what its
//    entry did to it (Sticky Web's Speed drop) once the next request arrives.
import {PRNG} from '@pkmn/sim';
import {Match} from '../src/simulator.js';
import {GIMMICKS} from '../src/actions.js';
import {playBattles} from './worldcheck.js';
import {toID} from '../src/contract.js';
import {SIM_WEATHER} from '../src/knowledge/durations.js';

const G = GIMMICKS.length;
const TERA = GIMMICKS.indexOf('terastallize');

/** A set in Showdown's export format, every stat's EVs at 84 and a neutral nature. */
export function exportedSet(species, item, ability, level, moves, tera = '') {
  return [`${species} @ ${item}`, `Ability: ${ability}`, `Level: ${level}`, ...(tera ? [`Tera Type: ${tera}`] : []),
    'EVs: 84 HP / 84 Atk / 84 Def / 84 SpA / 84 SpD / 84 Spe', 'Hardy Nature', ...moves.map(m => `- ${m}`)].join('\n');
}

/** {tera: our active's Terastallization, spe: its Speed stage, as the view has them after it
 * came back in over Sticky Web; team: how many Pokemon the view holds for our side}. */
export function checkTeraReentry() {
  const ours = [exportedSet('Jolteon', 'Leftovers', 'Volt Absorb', 80, ['Calm Mind', 'Thunderbolt'], 'Electric'),
    exportedSet('Chansey', 'Eviolite', 'Natural Cure', 80, ['Soft-Boiled', 'Seismic Toss'])].join('\n\n');
  const foe = exportedSet('Ribombee', 'Focus Sash', 'Shield Dust', 80, ['Sticky Web', 'Stun Spore']);
  const match = new Match('tera-reentry', {format: 'gen9randombattle', seed: '1,2,3,4', p1team: ours, p2team: foe});
  const turn = (ourAction, theirAction) => { match.act('p1', ourAction); match.act('p2', theirAction); };
  turn(TERA, 0);          // Jolteon Terastallizes and sets up; Sticky Web
  turn((4 + 1) * G, G);   // Chansey comes in; Stun Spore
  turn((4 + 1) * G, G);   // Jolteon comes back in, over Sticky Web
  const view = match.views.p1;
  const p = view.self.active[0];
  return {species: p.speciesForme, tera: p.terastallized || '', spe: p.boosts.spe || 0, team: view.self.team.length};
}

const BOOSTS = ['atk', 'def', 'spa', 'spd', 'spe', 'accuracy', 'evasion'];
// the client's weather ids by the simulator's
const WEATHERS = Object.fromEntries(Object.entries(SIM_WEATHER).map(([client, sim]) => [sim, client]));
const MAX_EXAMPLES = 5;

/** Battles both sides play at random (mostly moves): at each of p1's decisions with a move to
 * choose, every active Pokemon (singles or doubles) as p1's view has them against the
 * simulator's own: boosts, status,
 * Terastallization, HP (ours exact, the foe's to its shown percentage); each side's fainted
 * count, team size and side conditions; weather and terrain. {decisions, compared, wrong: {what: count}, examples}. */
export function checkViewTruth({format, battles, seed}) {
  const prng = new PRNG(seed);
  const out = {decisions: 0, compared: 0, wrong: {}, examples: []};
  const wrong = (what, example) => {
    out.wrong[what] = (out.wrong[what] || 0) + 1;
    if (out.examples.length < MAX_EXAMPLES) out.examples.push(`${what}: ${example}`);
  };
  playBattles({format, battles, prng, name: 'view'}, (side, view, legal, mask, action, match) => {
    const moves = legal.filter(a => a < 4 * G);
    const pick = moves.length && prng.random(100) < 80 ? moves[prng.random(moves.length)] : action;
    if (side !== 'p1' || [].concat(view.request.forceSwitch || []).some(Boolean)) return pick;
    out.decisions++;
    [[view.self, match.sim.sides[0], true], [view.foe, match.sim.sides[1], false]].forEach(([seen, truth, ours]) => {
      const at = `${view.key} turn ${view.battle.turn} ${ours ? 'ours' : 'foe'}`;
      const fainted = [seen.team, truth.pokemon].map(team => team.filter(p => p.fainted).length);
      if (fainted[0] !== fainted[1]) wrong('fainted', `${at}: ${fainted[0]} seen, ${fainted[1]} true`);
      if (seen.team.length > truth.pokemon.length) wrong('team', `${at}: ${seen.team.length} seen`);
      // the client keeps Future Sight as a side condition, the simulator as its target's slot's
      // (a Wish, the simulator's other slot condition, the client does not keep)
      const slots = truth.slotConditions.flatMap(c => Object.keys(c || {})).filter(id => id === 'futuresight');
      const conditions = [Object.keys(seen.sideConditions).sort().join(','),
        [...new Set([...Object.keys(truth.sideConditions), ...slots])].sort().join(',')];
      if (conditions[0] !== conditions[1]) wrong('side', `${at}: '${conditions[0]}' seen, '${conditions[1]}' true`);
      if (ours) {
        const field = [[toID(view.battle.field.weather), WEATHERS[toID(match.sim.field.weather)] || ''],
          [toID(view.battle.field.terrain), toID(match.sim.field.terrain).replace('terrain', '')]];
        for (const [a, b] of field) if (a !== b) wrong('field', `${at}: '${a}' seen, '${b}' true`);
      }
      truth.active.forEach((s, k) => {
        const v = seen.active[k];
        if (!v || !s || s.fainted) return;
        out.compared++;
        compareActive(wrong, `${at} ${s.name}`, v, s, ours, view.battle.gen.num);
      });
    });
    return pick;
  });
  return out;
}

/** One active Pokemon as the view has it (`v`) against the simulator's (`s`). */
function compareActive(wrong, at, v, s, ours, gen) {
  for (const b of BOOSTS) {
    if (b === 'spd' && gen === 1) continue;  // gen 1's one Special: the log boosts spa
    if ((v.boosts[b] || 0) !== (s.boosts[b] || 0)) wrong('boosts', `${at}: ${b} ${v.boosts[b] || 0} seen, ${s.boosts[b]} true`);
  }
  if ((v.status || '') !== (s.status || '')) wrong('status', `${at}: '${v.status}' seen, '${s.status}' true`);
  if ((v.terastallized || '') !== (s.terastallized || '')) wrong('tera', `${at}: '${v.terastallized}' seen, '${s.terastallized}' true`);
  const hp = ours ? v.hp === s.hp : Math.abs(v.hp / v.maxhp - s.hp / s.maxhp) <= 0.011;
  if (!hp) wrong('hp', `${at}: ${v.hp}/${v.maxhp} seen, ${s.hp}/${s.maxhp} true`);
}
