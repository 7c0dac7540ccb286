// The environment contract, as the encoder uses it: the byte layout of one observation record
// (computed by the same rule as the Python package's contract module) and id lookups for every vocabulary.

import {actionTable} from './actiontable.js';

export const RESERVED = {none: 0, unknown: 1, other: 2};
const DTYPE_BYTES = {int32: 4, float32: 4, uint8: 1};

export class Contract {
  /** @param spec the contract JSON; @param vocabs {name: [id, ...]} as listed by the contract */
  constructor(spec, vocabs) {
    this.name = spec.name;
    this.vocab = {};
    for (const name of Object.keys(spec.vocabularies)) {
      const list = vocabs[name];
      if (!Array.isArray(list)) throw new Error(`contract ${spec.name}: vocabulary '${name}' missing`);
      this.vocab[name] = new Map(list.map((id, i) => [id, i]));
    }
    this.features = [];
    let offset = 0;
    for (const f of spec.features) {
      const bytes = DTYPE_BYTES[f.dtype];
      if (!bytes) throw new Error(`contract ${spec.name}: feature ${f.name} has unknown dtype ${f.dtype}`);
      if (f.vocab && f.dtype === 'float32' && f.shape[f.shape.length - 1] !== this.vocab[f.vocab].size) {
        throw new Error(`contract ${spec.name}: feature ${f.name} is ${f.shape} wide but vocabulary ` +
          `'${f.vocab}' has ${this.vocab[f.vocab].size} entries`);
      }
      offset = align4(offset);
      const count = f.shape.reduce((a, b) => a * b, 1);
      const width = f.shape[f.shape.length - 1];
      if (f.columns && (f.columns.length !== width || new Set(f.columns).size !== width)) {
        throw new Error(`contract ${spec.name}: feature ${f.name} names ${f.columns.length} columns ` +
          `(${f.columns.join(', ')}) for ${width}, or names one twice`);
      }
      this.features.push({...f, offset, count, bytes, width});
      offset += count * bytes;
    }
    this.recordBytes = align4(offset);
    this.tables = spec.tables || {};
    this.heads = spec.actions.heads;
    this.names = {};
    // the battles its records are for: singles or doubles (actiontable.js)
    this.gameType = spec.actions.table || 'singles';
    this.table = actionTable(this.gameType);
    this.numActions = this.heads.reduce((n, h) => n * h.size, 1);
    if (this.numActions !== this.table.NUM_ACTIONS) {
      throw new Error(`contract ${spec.name}: its action heads make ${this.numActions} actions, the ` +
        `${this.gameType} action table ${this.table.NUM_ACTIONS}`);
    }
  }

  feature(name) {
    const f = this.features.find(x => x.name === name);
    if (!f) throw new Error(`contract ${this.name} has no feature ${name}`);
    return f;
  }

  /** Vocabulary id of `id` (already a Showdown ID); <other> where the vocabulary lacks it. */
  lookup(vocab, id) {
    if (!id) return RESERVED.none;
    const v = this.vocab[vocab].get(id);
    return v === undefined ? RESERVED.other : v;
  }

  /** Vocabulary id of a name as the protocol writes it ("Hidden Power Fire 60", "Choice Band"),
   * memoised: the encoder asks for the same few hundred names over and over. */
  idOf(vocab, name) {
    if (!name) return RESERVED.none;
    let cache = this.names[vocab];
    if (!cache) cache = this.names[vocab] = new Map();
    let v = cache.get(name);
    if (v === undefined) {
      const id = toID(name);
      v = this.vocab[vocab].get(id);
      // "Hidden Power Fire 60", "Return 102": the power is not part of the move
      if (v === undefined && vocab === 'moves') v = this.vocab[vocab].get(id.replace(/[0-9]+$/, ''));
      if (v === undefined) v = RESERVED.other;
      cache.set(name, v);
    }
    return v;
  }
}

/** A Showdown ID: lower-case letters and digits ('' for nothing). */
export function toID(text) { return String(text || '').toLowerCase().replace(/[^a-z0-9]+/g, ''); }

function align4(n) { return (n + 3) & ~3; }
