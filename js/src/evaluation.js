// How good a simulated position is for one side, without a network: a score of what each side
// has left (material). Lookahead (lookahead.js) compares the score after a turn; the search
// (search.js) squashes the change in score since the root into a value in [0, 1]. Each Pokemon
// counts its HP share, less for a status, and the active one a little per stage of its attack,
// special attack and speed. (A richer scoring, "worth", was measured and not kept: docs/agent.md.)
const MATERIAL = {
  boost: 0.04,
  stages: ['atk', 'spa', 'spe'],
  status: {slp: 0.25, frz: 0.25, par: 0.12, brn: 0.12, tox: 0.12, psn: 0.08},
};
// A lead of one healthy Pokemon more than at the root is worth 0.85 by material (tanh(1.2) =
// 0.83); the leading open search bot squashes a lead of about 1.4 Pokemon to 0.92.
const LEAD_SCALE = 1.2;

/** One side's material. A healthy team of six is 6. */
export function sideScore(side) {
  let m = 0;
  for (const p of side.pokemon) {
    if (p.fainted || !p.hp) continue;
    m += p.hp / p.maxhp - (MATERIAL.status[p.status] || 0);
    if (!p.isActive) continue;
    for (const stat of MATERIAL.stages) m += (p.boosts[stat] || 0) * MATERIAL.boost;
  }
  return m;
}

/** Side `me`'s (0: p1, 1: p2) lead in score over the other in a simulated battle. */
export const lead = (battle, me) => sideScore(battle.sides[me]) - sideScore(battle.sides[1 - me]);

/** Side `me`'s value of a position in [0, 1]: the result where the battle has ended, else its
 * lead relative to `rootLead` squashed. */
export function value(battle, rootLead, me) {
  if (battle.ended) return won(battle, me);
  return 0.5 + 0.5 * Math.tanh(LEAD_SCALE * (lead(battle, me) - rootLead));
}

function won(battle, me) {
  if (!battle.winner) return 0.5;
  const mine = battle.sides[me], other = battle.sides[1 - me];
  if (mine.name !== other.name) return battle.winner === mine.name ? 1 : 0;
  return mine.pokemonLeft > 0 ? 1 : 0;  // players of one name: the side with Pokemon left won
}
