// What a reader of a player's thoughts needs that only the battle's JavaScript side knows: each
// legal action of a decision named as a player would say it ("Thunderbolt + Tera", "switch to
// Garchomp"), and the foe's team as a drawn world holds it. Read only when thoughts are recorded
// (metapvp/arena/thoughts.py), so that playing without them costs nothing.
import {legalChoices} from './actiontable.js';

const GIMMICK_NAMES = {terastallize: 'Tera', mega: 'Mega', megax: 'Mega X', megay: 'Mega Y', zmove: 'Z',
  dynamax: 'Dynamax', ultra: 'Ultra Burst'};

/** One choice string of `req` in words: each position's part, joined by " / " in doubles. */
export function choiceLabel(choice, req) {
  return choice.split(',').map((part, pos) => partLabel(part.trim(), req, pos)).join(' / ');
}

function partLabel(part, req, pos) {
  const [verb, ...rest] = part.split(' ');
  const mons = (req.side && req.side.pokemon) || [];
  if (verb === 'move') {
    const slot = Number(rest[0]) - 1;
    const active = req.active && req.active[pos];
    const move = active && active.moves && active.moves[slot];
    let label = move ? move.move : `move ${rest[0]}`;
    for (const word of rest.slice(1)) {
      if (GIMMICK_NAMES[word]) label += ` + ${GIMMICK_NAMES[word]}`;
      else if (/^-?\d$/.test(word)) label += Number(word) > 0 ? ` at foe ${word}` : ' at ally';
    }
    return label;
  }
  if (verb === 'switch') return `switch to ${monName(mons[Number(rest[0]) - 1], rest[0])}`;
  if (verb === 'team') return `lead ${monName(mons[Number(rest[0][0]) - 1], rest[0][0])}`;
  return part;   // pass, default
}

function monName(row, number) {
  return row ? row.ident.replace(/^p\d[a-z]?: /, '') : `Pokemon ${number}`;
}

/** Per [battle, perspective] pair: {action index: its label} for every legal action of the
 * view's request, or {error} (never stopping the others). */
function labels(keys) {
  return keys.map(([battle, perspective]) => {
    try {
      const view = this.view(battle, perspective);
      if (!view.request) return {error: `no request yet for ${perspective}`};
      const legal = legalChoices(view.request, view.table);
      return Object.fromEntries(Object.entries(legal).map(([a, choice]) => [a, choiceLabel(choice, view.request)]));
    } catch (e) {
      return {error: e.message};
    }
  });
}

/** The foe's team in a drawn world (an @pkmn/sim side), as a reader compares it with the
 * truth: species, item, ability, moves and Tera type of each. */
export function teamAsDrawn(side) {
  return side.pokemon.map(p => ({species: p.species.name, item: p.getItem().name || '',
    ability: p.getAbility().name || '', moves: p.moveSlots.map(s => s.move), tera: p.teraType || ''}));
}

export const thoughtMethods = {labels};
