// A battle's public log told turn by turn, for the page of a player's thoughts
// (metapvp/replays/): each line in words as a Showdown battle log reads (@pkmn/view's
// LogFormatter, which reads the battle as @pkmn/client tracks it), and after each turn every
// revealed Pokemon's HP and status, so the page draws bars without reading the protocol itself.
import {Battle} from '@pkmn/client';
import {Protocol} from '@pkmn/protocol';
import {LogFormatter} from '@pkmn/view';
import {GENS} from './view.js';

/** `lines`: a battle's spectator log (no |split| or |request| lines), told as side
 * `perspective` ('p1' or 'p2') reads it ("the opposing ..."). -> {turns: [{turn, lines:
 * [sentences], sides: {p1: [Pokemon], p2: [Pokemon]}}] (turn 0: before the first |turn|),
 * players: {p1: name, p2: name}, winner}; throws naming the line it cannot read. */
export function narrate(lines, perspective = 'p1') {
  const battle = new Battle(GENS);
  const formatter = new LogFormatter(perspective, battle);
  const turns = [{turn: 0, lines: [], sides: null}];
  let winner = null;
  lines.forEach((line, n) => {
    if (!line.startsWith('|')) return;
    let parsed;
    try {
      parsed = Protocol.parseBattleLine(line);
    } catch (e) {
      throw new Error(`log line ${n + 1} (${line.slice(0, 80)}): ${e.message}`, {cause: e});
    }
    const {args, kwArgs} = parsed;
    if (args[0] === 'turn') {
      turns[turns.length - 1].sides = sides(battle);
      turns.push({turn: Number(args[1]), lines: [], sides: null});
    } else {
      const text = plain(formatter.formatText(args, kwArgs));
      if (text) turns[turns.length - 1].lines.push(...text.split('\n').filter(Boolean));
    }
    if (args[0] === 'win') winner = args[1];
    try {
      battle.add(args, kwArgs);
    } catch (e) {
      throw new Error(`log line ${n + 1} (${line.slice(0, 80)}): ${e.message}`, {cause: e});
    }
  });
  turns[turns.length - 1].sides = sides(battle);
  return {turns, players: {p1: battle.p1.name, p2: battle.p2.name}, winner};
}

/** Saved sets (the simulator's, moves by id) as a reader reads them: species, level, item,
 * ability, Tera type and moves by name. */
export function setsInWords(sets) {
  const dex = GENS.get(9);
  return (sets || []).map(set => ({species: set.species, level: set.level, item: set.item || '',
    ability: set.ability || '', tera: set.teraType || '',
    moves: (set.moves || []).map(m => (dex.moves.get(m) || {name: m}).name || m)}));
}

/** The formatter's marked-up text as plain sentences (its bold and section marks dropped). */
function plain(text) {
  return text.replace(/\*\*/g, '').replace(/^\s*==.*==\s*$/gm, '').replace(/\n{2,}/g, '\n').trim();
}

/** Each side's revealed Pokemon: name, species, level, HP in percent, status, whether fainted
 * and whether active. */
function sides(battle) {
  const out = {};
  for (const side of [battle.p1, battle.p2]) {
    out[side.id] = side.team.map(p => ({name: p.name, species: p.speciesForme, level: p.level,
      hp: p.maxhp ? Math.round(100 * p.hp / p.maxhp) : 0, status: p.status || '', fainted: !!p.fainted,
      active: side.active.includes(p)}));
  }
  return out;
}
