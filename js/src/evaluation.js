// How good a simulated position is for one side, without a network: a score of what each side
// has left. Lookahead (lookahead.js) compares the score after a turn; the search (search.js)
// squashes the change in score since the root into a value in [0, 1]. Two scorings:
//  - material (the lookahead's, and the search's unless told): each Pokemon's HP share, less for
//    a status, and a little per stage of the active one's attack, special attack and speed;
//  - worth (the search's `score: 'worth'`): the same HP share, and besides it what the leading
//    open search bot's evaluation (poke-engine) weighs, on the same scale (a full HP bar is 1):
//    a Pokemon standing 0.3; each stage of attack, special attack or speed 0.3 and of the
//    defences half that, stages past the second worth less each; statuses as much as a quarter
//    of a Pokemon; a substitute, confusion, Leech Seed; screens on the side.
// A scoring's weight a stage (`boost`) can be set apart from the rest (`scoring(name, boost)`):
// the search's boost option, measured in docs/agent.md.
const LINEAR = [0, 1, 2, 3, 4, 5, 6];
const SCORES = {
  material: {
    alive: 0,
    boost: 0.04,
    stages: {atk: 1, spa: 1, spe: 1},
    steps: LINEAR,
    status: {slp: 0.25, frz: 0.25, par: 0.12, brn: 0.12, tox: 0.12, psn: 0.08},
    volatiles: {},
    sides: {},
  },
  worth: {
    alive: 0.3,
    boost: 0.3,
    stages: {atk: 1, spa: 1, spe: 1, def: 0.5, spd: 0.5},
    steps: [0, 1, 2, 2.5, 3, 3.15, 3.3],
    status: {frz: 0.4, slp: 0.25, par: 0.25, tox: 0.3, psn: 0.1, brn: 0.25},
    volatiles: {substitute: 0.4, confusion: -0.2, leechseed: -0.3},
    sides: {reflect: 0.2, lightscreen: 0.2, auroraveil: 0.3},
  },
};
export const SCORE_NAMES = Object.keys(SCORES);
// A lead of one healthy Pokemon more than at the root is worth 0.85 by material (tanh(1.2) =
// 0.83); the leading open search bot squashes a lead of about 1.4 Pokemon to 0.92.
const LEAD_SCALE = 1.2;

/** Scoring `name`'s weights, with `boost` a stage of attack, special attack or speed where
 * given (the defences' stages in proportion); an unknown name is an error naming the scorings. */
export function scoring(name, boost = null) {
  const s = SCORES[name];
  if (!s) throw new Error(`no scoring '${name}' (scorings: ${SCORE_NAMES.join(', ')})`);
  if (boost === null || boost === undefined) return s;
  if (!(typeof boost === 'number' && boost >= 0 && boost <= 10)) {
    throw new Error(`scoring '${name}': boost is a weight a stage from 0 to 10, not ${boost}`);
  }
  return {...s, boost};
}
const MATERIAL = SCORES.material;

/** One side's score by scoring weights `s` (scoring(), above). A healthy team of six is 6 by
 * material. */
export function sideScore(side, s = MATERIAL) {
  let m = 0;
  for (const p of side.pokemon) {
    if (p.fainted || !p.hp) continue;
    m += s.alive + p.hp / p.maxhp - (s.status[p.status] || 0);
    if (!p.isActive) continue;
    for (const stat in s.stages) {
      const b = p.boosts[stat];
      if (b) m += Math.sign(b) * s.steps[Math.abs(b)] * s.stages[stat] * s.boost;
    }
    for (const v in s.volatiles) if (p.volatiles[v]) m += s.volatiles[v];
  }
  for (const c in s.sides) if (side.sideConditions[c]) m += s.sides[c];
  return m;
}

/** Side `me`'s (0: p1, 1: p2) lead in score over the other in a simulated battle. */
export const lead = (battle, me, s = MATERIAL) =>
  sideScore(battle.sides[me], s) - sideScore(battle.sides[1 - me], s);

/** Side `me`'s value of a position in [0, 1]: the result where the battle has ended, else its
 * lead relative to `rootLead` squashed. */
export function value(battle, rootLead, me, s = MATERIAL) {
  if (battle.ended) return won(battle, me);
  return 0.5 + 0.5 * Math.tanh(LEAD_SCALE * (lead(battle, me, s) - rootLead));
}

function won(battle, me) {
  if (!battle.winner) return 0.5;
  const mine = battle.sides[me], other = battle.sides[1 - me];
  if (mine.name !== other.name) return battle.winner === mine.name ? 1 : 0;
  return mine.pokemonLeft > 0 ? 1 : 0;  // players of one name: the side with Pokemon left won
}
