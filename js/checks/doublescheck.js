// Checks the doubles action table (src/doubles.js) against the simulator itself: battles played
// with random legal joint actions, and at every decision the simulator's verdict on joint actions
// compared with the mask -- every allowed one (up to `offers`, drawn at random past that), and as
// many of the others drawn at random, each offered with the output muted and every trace undone;
// and every allowed action's choice string read back (actionFor) as the same action.
import {Battle as SimBattle, PRNG, Teams} from '@pkmn/sim';
import {TeamGenerators} from '@pkmn/randoms';
import {Protocol} from '@pkmn/protocol';
import {writeMask, choiceFor, actionFor, NUM_ACTIONS, POSITION_ACTIONS, SWITCH0, decodeMove} from '../src/doubles.js';
import {GIMMICKS} from '../src/actions.js';
import {importTeam} from '../src/simulator.js';
import {trial} from './maskcheck.js';

Teams.setGeneratorFactory(TeamGenerators);

/** The gimmicks joint action a asks for, one per position ('' for none). */
const gimmicksOf = a => [Math.floor(a / POSITION_ACTIONS), a % POSITION_ACTIONS]
  .map(p => (p < SWITCH0 ? GIMMICKS[decodeMove(p).gimmick] : ''));

export function checkDoubles({format, battles, seed, offers = 200, p1team, p2team}) {
  const prng = new PRNG(seed);
  const stats = {format, battles: 0, decisions: 0, offered: 0, legal: 0, mismatches: 0, hidden_info: 0,
    not_round_trips: 0,
    turns: 0, examples: [], situations: {}};
  const mask = new Uint8Array(NUM_ACTIONS);
  const draw = () => [0, 0, 0, 0].map(() => prng.random(65536)).join(',');
  for (let b = 0; b < battles; b++) {
    const sim = new SimBattle({formatid: format, seed: draw()});
    if (sim.gameType !== 'doubles') throw new Error(`${format} is not a doubles format`);
    sim.setPlayer('p1', {name: 'p1', seed: draw(), team: p1team ? importTeam(`check-${b}`, p1team) : undefined});
    sim.setPlayer('p2', {name: 'p2', seed: draw(), team: p2team ? importTeam(`check-${b}`, p2team) : undefined});
    while (!sim.ended) {
      const chosen = {};
      for (const side of sim.sides) {
        if (!side.activeRequest || side.activeRequest.wait || side.isChoiceDone()) continue;
        const request = Protocol.parseRequest(JSON.stringify(side.activeRequest));
        writeMask(request, mask, 0);
        stats.decisions++;
        for (const name of situations(request, side)) stats.situations[name] = (stats.situations[name] || 0) + 1;
        const legal = [], others = [];
        for (let a = 0; a < NUM_ACTIONS; a++) (mask[a] ? legal : others).push(a);
        if (!legal.length) throw new Error(`battle ${b}: no legal action for ${side.id} at turn ${sim.turn}`);
        stats.legal += legal.length;
        for (const a of legal) if (actionFor(request, choiceFor(request, a)) !== a) stats.not_round_trips++;
        for (const a of [...sample(legal, offers, prng), ...sample(others, offers, prng)]) {
          let choice = null;
          try { choice = choiceFor(request, a); } catch { /* no choice string: must be masked out */ }
          const verdict = choice === null ? 'rejected' : trial(sim, side.id, choice, gimmicksOf(a));
          if (choice !== null) stats.offered++;
          if (verdict === 'unavailable' && mask[a]) { stats.hidden_info++; continue; }
          if ((verdict === 'accepted') !== !!mask[a]) {
            stats.mismatches++;
            if (stats.examples.length < 10) {
              stats.examples.push({battle: b, turn: sim.turn, side: side.id, action: a, choice,
                mask: mask[a], verdict, request: JSON.stringify(side.activeRequest).slice(0, 3000)});
            }
          }
        }
        chosen[side.id] = choiceFor(request, legal[prng.random(legal.length)]);
      }
      const ids = Object.keys(chosen);
      if (!ids.length && !sim.ended) throw new Error(`battle ${b}: stalled at turn ${sim.turn}`);
      for (const id of ids) if (!sim.choose(id, chosen[id])) sim.choose(id, 'default');  // hidden info
      if (sim.turn > 500) sim.tie();
    }
    stats.turns += sim.turn;
    stats.battles++;
  }
  return stats;
}

/** Up to n of `xs`, drawn without replacement (all of them when there are no more than n). */
function sample(xs, n, prng) {
  if (xs.length <= n) return xs;
  const copy = xs.slice();
  for (let i = 0; i < n; i++) {
    const j = i + prng.random(copy.length - i);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

/** The special cases a decision involves, so that a check can show it met each of them. */
function situations(request, side) {
  const out = [];
  if (request.teamPreview) out.push('team_preview');
  if (request.forceSwitch) {
    out.push(request.forceSwitch.every(Boolean) ? 'forced_switch_both' : 'forced_switch_one');
    const available = request.side.pokemon.filter(p => !p.active && !p.fainted).length;
    if (available < request.forceSwitch.filter(Boolean).length) out.push('forced_pass');
  }
  if (!request.active || request.forceSwitch) return out;
  request.active.forEach((active, k) => {
    if (!active) { out.push('fainted_position'); return; }
    if (request.side.pokemon[k].commanding) out.push('commanding');
    if (active.trapped) out.push('trapped');
    if (active.moves.length === 1) out.push('locked_move');
    if (active.moves.some(m => m.disabled)) out.push('disabled_move');
    if (active.canTerastallize) out.push('can_terastallize');
    if (active.canDynamax) out.push('can_dynamax');
    if (active.maxMoves && !active.canDynamax) out.push('dynamaxed');
    if (active.canMegaEvo) out.push('can_mega');
    if (active.zMoves) out.push('can_zmove');
    for (const m of active.moves) if (m.target) out.push(`target_${m.target}`);
  });
  if (request.active.filter(Boolean).length === 2 && request.active.every(a => a && a.canTerastallize)) {
    out.push('both_can_terastallize');
  }
  if (side.active.some(p => p && p.fainted)) out.push('empty_position');
  return out;
}
