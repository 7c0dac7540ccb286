// Checks a player's view (src/view.js) against the simulator in a staged battle: a Terastallized
// Pokemon of ours that switches back in keeps what its entry did to it (here Sticky Web's Speed
// drop) once the next request arrives.
import {Match} from '../src/simulator.js';
import {GIMMICKS} from '../src/actions.js';

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
