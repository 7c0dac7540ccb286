// Entry point of build/engine.js, the bundle that Python loads into mini-racer. mini-racer has
// no Node APIs, so everything reaches Python through the `metapvp` global: Python evaluates
// `metapvp.call(handle, method, json)` and reads results as JSON strings, and reads records
// in place from each object's output buffer.
import {Contract} from './contract.js';
import {bindWriters} from './encoder.js';
import {Engine} from './engine.js';
import {Simulator, teamSeeds, importTeam} from './simulator.js';
import {Teams} from '@pkmn/sim';
import {legalChoices} from './actiontable.js';
import {Protocol} from '@pkmn/protocol';
import {linesFor} from './perspective.js';
import {narrate, setsInWords, spectatorOf} from './narrate.js';
import {dexTables} from './dextables.js';
import {stats as damageStats} from './knowledge/damage.js';
import {knowledgeCacheSizes} from './knowledge/index.js';

const objects = [];
const freed = [];  // handles of destroyed objects, for reuse
let contract = null;

const metapvp = {
  /** Loads the environment contract; every object made after this uses it. */
  init(spec, vocabs) {
    contract = new Contract(spec, vocabs);
    bindWriters(contract);
    return JSON.stringify({recordBytes: contract.recordBytes, numActions: contract.numActions,
      features: contract.features.map(f => ({name: f.name, offset: f.offset}))});
  },
  /** Makes an Engine or a Simulator; returns its handle. */
  create(kind) {
    if (!contract) throw new Error('metapvp.init has not been called');
    const made = kind === 'engine' ? new Engine(contract) : kind === 'simulator' ? new Simulator(contract) : null;
    if (!made) throw new Error(`unknown object kind '${kind}'`);
    const handle = freed.length ? freed.pop() : objects.length;
    objects[handle] = made;
    return handle;
  },
  /** Drops an object (its battles, views and output buffer go to the garbage collector). */
  destroy(handle) {
    if (objects[handle]) {
      objects[handle] = null;
      freed.push(handle);
    }
  },
  /** How many objects are alive (for leak checks). */
  liveObjects() { return objects.filter(Boolean).length; },
  /** Calls `method` of object `handle` with one JSON-able argument; returns its result as JSON. */
  call(handle, method, arg) {
    const obj = objects[handle];
    if (!obj) throw new Error(`no object ${handle}`);
    if (typeof obj[method] !== 'function') throw new Error(`${obj.constructor.name} has no method ${method}`);
    return JSON.stringify(obj[method](...(Array.isArray(arg) ? arg : [arg])) ?? null);
  },
  /** An object's output buffer: its batches' records. */
  buffer(handle) {
    return objects[handle].output.buffer;
  },
  /** A team file's text (export or packed format) in packed format, for `>player`. */
  packTeam(text) {
    try {
      return Teams.pack(importTeam('team', text));
    } catch (e) {
      throw new Error(e.detail || e.message, {cause: e});
    }
  },
  teamSeeds(seed) { return JSON.stringify(teamSeeds(seed)); },
  /** What a spectator sees of simulator `update` messages (their |split| pairs resolved). */
  spectatorLines(messages) { return JSON.stringify(messages.flatMap(m => linesFor(m.split('\n'), 'spectator'))); },
  /** A spectator log told turn by turn, in words, with HP after each turn (narrate.js). */
  narrate(lines, perspective) { return JSON.stringify(narrate(lines, perspective)); },
  /** A player's own log of a live battle as a spectator saw it (narrate.js). */
  spectatorOf(lines) { return JSON.stringify(spectatorOf(lines)); },
  /** Saved sets with their moves by name (narrate.js). */
  setsInWords(sets) { return JSON.stringify(setsInWords(sets)); },
  /** Move data and the type chart along the contract's vocabularies (see dextables.js). */
  /** Counts of the damage calculator's work so far in this context (for benchmarks). */
  knowledgeStats() { return JSON.stringify({...damageStats, cached: knowledgeCacheSizes()}); },
  dexTables() { return JSON.stringify(dexTables(contract)); },
  /** The legal actions and their choice strings for one raw request JSON (for tests and tools). */
  legalActions(requestJSON) {
    return JSON.stringify(legalChoices(Protocol.parseRequest(requestJSON)));
  },
  /** The one entry point of calls from Python: `text` is the JSON of [function name, arguments].
   * Arguments arrive as a string value, never inside source code: V8 keeps every distinct script
   * it compiles, so a call written as code kept its arguments' size in the heap for good. */
  invoke(text) {
    const [name, args] = JSON.parse(text);
    return metapvp[name](...args);
  },
};

/** The contract loaded by init (for the checks bundle, js/checks/index.js). */
export function loadedContract() { return contract; }

globalThis.metapvp = metapvp;
