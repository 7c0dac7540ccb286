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

// What only the player was sent: its requests, its own timer's warnings, refusals, its choices
// echoed back; a spectator never sees them.
const PRIVATE = ['|request|', '|inactive|Time left', '|inactive|You ', '|error|', '|sentchoice|', '|init|',
  '|title|', '|j|', '|l|', '|c|', '|raw|', '|uhtml'];
const HP_FIELD = {'switch': 4, 'drag': 4, 'replace': 4, '-damage': 3, '-heal': 3, '-sethp': 3};   // |-damage|POKEMON|HP

/** A player's own log of a live battle (every line its room sent it, as a bot keeps it) as a
 * spectator would have seen the battle: its private lines left out, and its own Pokemon's exact
 * HP ("263/263") shown as the public percentage. -> {log, side: the player's, team: its sets
 * as its last request had them, players: {p1: name, p2: name}, winner: 'p1', 'p2' or '' (a tie
 * or no end)}; throws where no request says whose log it is. */
export function spectatorOf(lines) {
  let request = null;
  for (const line of lines) {
    if (line.startsWith('|request|') && line.length > 9) {
      const req = JSON.parse(line.slice(9));
      if (req.side) request = req;
    }
  }
  if (!request) throw new Error('no |request| in the log: not a player\'s log of a battle');
  const side = request.side.id;
  const log = lines.filter(line => line.startsWith('|') && !PRIVATE.some(p => line.startsWith(p)))
    .map(line => publicHP(line, side));
  const team = request.side.pokemon.map(p => ({species: p.details.split(',')[0], level: level(p.details),
    item: p.item || '', ability: p.ability || p.baseAbility || '', teraType: p.teraType || '', moves: p.moves}));
  const players = {};
  let winner = '';
  for (const line of log) {
    const parts = line.split('|');
    if (parts[1] === 'player' && parts[3]) players[parts[2]] = parts[3];
    if (parts[1] === 'win') winner = Object.keys(players).find(id => players[id] === parts[2]) || '';
  }
  return {log, side, team, players, winner};
}

function level(details) {
  const m = /, L(\d+)/.exec(details);
  return m ? Number(m[1]) : 100;
}

/** `line` with `side`'s exact HP as the public percentage (rounded up, 99 short of full). */
function publicHP(line, side) {
  const parts = line.split('|');
  const at = HP_FIELD[parts[1]];
  if (!at || !parts[2] || !parts[2].startsWith(side) || !parts[at]) return line;
  const m = /^(\d+)\/(\d+)(.*)$/.exec(parts[at]);
  if (!m || m[2] === '100') return line;
  const ratio = Number(m[1]) / Number(m[2]);
  let shown = Math.ceil(100 * ratio);
  if (shown === 100 && ratio < 1) shown = 99;
  parts[at] = `${shown}/100${m[3]}`;
  return parts.join('|');
}

/** Saved sets (the simulator's, moves by id) as a reader reads them: species, level, item,
 * ability, Tera type and moves by name. */
export function setsInWords(sets) {
  const dex = GENS.get(9);
  const named = (table, id) => (id && table.get(id) ? table.get(id).name : id || '');
  return (sets || []).map(set => ({species: set.species, level: set.level, item: named(dex.items, set.item),
    ability: named(dex.abilities, set.ability), tera: set.teraType || '',
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
  for (const [id, side] of [['p1', battle.p1], ['p2', battle.p2]]) {
    out[id] = side.team.map(p => ({name: p.name, species: p.speciesForme, level: p.level,
      hp: p.maxhp ? Math.round(100 * p.hp / p.maxhp) : 0, status: p.status || '', fainted: !!p.fainted,
      active: side.active.includes(p)}));
  }
  return out;
}
