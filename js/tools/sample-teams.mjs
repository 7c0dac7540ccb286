// Prints N teams drawn by the gen 9 random-battle generator, in Showdown's export format, separated
// by a line "===". Used once to make the sample user teams under static/teams/.
import {Teams} from '@pkmn/sim';
import {TeamGenerators} from '@pkmn/randoms';
const n = Number(process.argv[2] || 2);
const gen = TeamGenerators.getTeamGenerator('gen9randombattle', [7, 7, 7, 7]);
for (let i = 0; i < n; i++) {
  if (i) console.log('===');
  console.log(Teams.export(gen.getTeam()).trim());
}
