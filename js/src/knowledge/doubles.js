// Battle knowledge for one doubles decision: the calculator's damage of each of our positions'
// moves (with each gimmick) on each foe in play, and the most each foe in play threatens to deal
// to each of our Pokemon with its likely moves. Rows are damageRow's: [expected, min, max, ko
// chance] as fractions of the target's HP left. Spread moves are scored by the caller (the
// calculator is given a singles field, so its results are single-target damage).
import {damage, damageRow, fieldOf} from './damage.js';
import {possibleSets} from './sets.js';
import {ownMon, revealed, foeMon, moveName, withGimmick, likelyStats} from './mons.js';
import {GIMMICKS} from '../actions.js';
import {formatOf} from '../format.js';

const POSITIONS = 2;
const FOE_MOVES = 6;  // the foe's likeliest moves considered

/** {foes: [foe Pokemon (client) or null] by position, dealt(k, slot, g, f): the row of our
 * position k's move slot with gimmick g on foe position f (null where the calculator has
 * none), dealtAlly(k, slot, g): the same on our other position, bestHit(j): our request row j's
 * best expected hit on a foe in play, threat(f, j): the most foe position f is expected to deal
 * to our request row j}. */
export function doublesKnowledge(view) {
  if (view._doubles && view._doubles.request === view.request && view._doubles.turn === view.battle.turn) {
    return view._doubles;
  }
  const battle = view.battle, gen = battle.gen.num, req = view.request;
  const format = formatOf(battle);
  const us = fieldOf(battle, view.self, view.foe), them = fieldOf(battle, view.foe, view.self);
  const foes = view.foe.active.slice(0, POSITIONS).map(p => (p && !p.fainted ? p : null));
  const foeMons = foes.map(p => {
    if (!p) return null;
    const sets = possibleSets(format, p.baseSpeciesForme, revealed(p));
    const mon = foeMon(view, p, sets);
    const stats = likelyStats(gen, mon);
    mon.maxhp = stats ? stats.hp : 100;
    mon.hp = Math.max(1, Math.round(mon.hpFraction * mon.maxhp));
    return {mon, moves: sets ? sets.moves.slice(0, FOE_MOVES) : revealed(p).moves.map(m => [m, 1])};
  });
  const ours = req.side.pokemon.map((_, j) => ownMon(view, j));
  const dealtCache = new Map();
  const k = {
    request: req, turn: battle.turn, foes,
    dealt(pos, slot, g, f) {
      const key = ((pos * 4 + slot) * GIMMICKS.length + g) * POSITIONS + f;
      if (dealtCache.has(key)) return dealtCache.get(key);
      let row = null;
      const active = req.active && req.active[pos];
      if (active && active.moves[slot] && foeMons[f] && ours[pos]) {
        const [att, variant] = withGimmick(battle, ours[pos], g);
        const r = damage(gen, att, foeMons[f].mon, moveName(active.moves[slot].id), us, variant);
        row = r ? damageRow(r, foeMons[f].mon.hp) : null;
      }
      dealtCache.set(key, row);
      return row;
    },
    // what position pos's move hits our ally for (a move that hits every Pokemon beside it)
    dealtAlly(pos, slot, g) {
      const active = req.active && req.active[pos];
      const ally = ours[1 - pos];
      if (!active || !active.moves[slot] || !ally || ally.fainted || !ours[pos]) return null;
      const [att, variant] = withGimmick(battle, ours[pos], g);
      const r = damage(gen, att, ally, moveName(active.moves[slot].id), us, variant);
      return r ? damageRow(r, ally.hp) : null;
    },
    // the best expected hit of our request row j on any foe in play (its moves as the request lists them)
    bestHit(j) {
      const mon = ours[j];
      if (!mon || mon.fainted) return 0;
      let best = 0;
      for (const f of foeMons) {
        if (!f) continue;
        for (const id of mon.moves) {
          const r = damage(gen, mon, f.mon, moveName(id), us);
          if (r) best = Math.max(best, damageRow(r, f.mon.hp)[0]);
        }
      }
      return best;
    },
    threat(f, j) {
      const foe = foeMons[f], mon = ours[j];
      if (!foe || !mon || mon.fainted) return 0;
      let most = 0;
      for (const [id, prob] of foe.moves) {
        const r = damage(gen, foe.mon, mon, moveName(id), them);
        if (r) most = Math.max(most, damageRow(r, mon.hp)[0] * Math.min(1, prob * 2));
      }
      return most;
    },
  };
  view._doubles = k;
  return k;
}
