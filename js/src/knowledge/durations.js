// The turns a field or side condition has left, as a player counts them from the battle's lines:
// @pkmn/client counts each down from when it began, both without and with the item that extends
// it (Damp Rock, Light Clay, Terrain Extender...); which of the two holds follows from the item
// its setter held, which the player knows of its own Pokemon, sees where the foe's was revealed,
// and otherwise takes from the set a world drew for that Pokemon. A condition still up after the
// shorter count ran out was extended, whatever the item shown now.
import {toID} from '../contract.js';

// The simulator's weather by @pkmn/client's id for it (the client names weather and terrain as
// the damage calculator does: "Sun", "Electric")
export const SIM_WEATHER = {sand: 'sandstorm', sun: 'sunnyday', rain: 'raindance', hail: 'hail', snow: 'snowscape',
  harshsunshine: 'desolateland', heavyrain: 'primordialsea', strongwinds: 'deltastream'};
/** The simulator's terrain by the client's id for it ('electric'). */
export const simTerrain = id => (id ? `${id}terrain` : '');

// the item that makes each condition last longer (8 turns instead of 5) when its setter holds it
const EXTENDERS = {raindance: 'damprock', primordialsea: 'damprock', sunnyday: 'heatrock', desolateland: 'heatrock',
  sandstorm: 'smoothrock', hail: 'icyrock', snow: 'icyrock', snowscape: 'icyrock',
  electricterrain: 'terrainextender', grassyterrain: 'terrainextender', mistyterrain: 'terrainextender',
  psychicterrain: 'terrainextender', reflect: 'lightclay', lightscreen: 'lightclay', auroraveil: 'lightclay'};

/** The turns `state` (the client's record of a condition `id`: {minDuration, maxDuration}) has
 * left; `setterItem()` gives the item id its setter held ('' none, null unknown: then the
 * shorter count). null where the client keeps no count (hazards, a weather with no end). */
export function turnsLeft(id, state, setterItem) {
  if (!state || !state.minDuration && !state.maxDuration) return null;
  if (!state.maxDuration) return state.minDuration;
  if (!state.minDuration) return state.maxDuration;  // outlasted the shorter count: extended
  const extender = EXTENDERS[id];
  return extender && setterItem() === extender ? state.maxDuration : state.minDuration;
}

/** The ident ('p2a: Pelipper') of whoever began the condition the last line matching `started`
 * began, in `view`'s history: the Pokemon its ability names ("[of] ..."), else the user of the
 * move before it; null where none is found. */
export function setterOf(view, started) {
  const h = view.history;
  for (let i = h.length - 1; i >= 0; i--) {
    const line = h[i];
    if (typeof line !== 'string' || !started(line)) continue;
    const of = line.split('|').find(part => part.startsWith('[of] '));
    if (of) return of.slice(5);
    for (let j = i - 1; j >= 0; j--) {
      const prev = h[j];
      if (typeof prev !== 'string') continue;
      if (prev.startsWith('|move|')) return prev.split('|')[2];
      if (prev.startsWith('|turn|')) return null;
    }
    return null;
  }
  return null;
}

/** Whether `line` begins the weather `id`, the terrain or pseudo-weather `id` (a field
 * condition), or the side condition `id` on side `sideId`. */
export const startsWeather = id => line => line.startsWith('|-weather|') && !line.includes('[upkeep]') &&
  toID(line.split('|')[2]) === id;
export const startsField = id => line => line.startsWith('|-fieldstart|') && toID(line.split('|')[2].replace(/^move: /, '')) === id;
export const startsSide = (sideId, id) => line => line.startsWith(`|-sidestart|${sideId}`) &&
  toID(line.split('|')[3].replace(/^move: /, '')) === id;
