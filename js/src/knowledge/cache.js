// A bounded memo for the battle knowledge's caches. It keeps two generations of at most `limit`
// entries each: when the newer fills, it becomes the older and the older is dropped. An entry
// read from the older generation moves into the newer, so what is in use survives a turnover
// (clearing everything at the limit made every live battle compute its results again) and
// memory stays under two generations' worth.
export class BoundedCache {
  constructor(limit) {
    this.limit = limit;
    this.newer = new Map();
    this.older = new Map();
  }

  get(key) {
    const v = this.newer.get(key);
    if (v !== undefined || !this.older.size) return v;
    const old = this.older.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key, value) {
    if (this.newer.size >= this.limit) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, value);
  }

  get size() {
    return this.newer.size + this.older.size;
  }
}

// The same, keyed by two numbers (a nested Map): numbers hash at a fraction of the cost of a
// key text built afresh for every lookup, and two of them hold more than one number can.
export class BoundedPairCache {
  constructor(limit) {
    this.limit = limit;
    this.newer = new Map();
    this.older = new Map();
    this.count = 0;  // entries in newer
  }

  get(a, b) {
    const inner = this.newer.get(a);
    const v = inner && inner.get(b);
    if (v !== undefined || !this.older.size) return v;
    const oldInner = this.older.get(a);
    const old = oldInner && oldInner.get(b);
    if (old !== undefined) this.set(a, b, old);
    return old;
  }

  set(a, b, value) {
    if (this.count >= this.limit) {
      this.older = this.newer;
      this.newer = new Map();
      this.count = 0;
    }
    let inner = this.newer.get(a);
    if (!inner) this.newer.set(a, inner = new Map());
    if (!inner.has(b)) this.count++;
    inner.set(b, value);
  }

  get size() {
    let n = 0;
    for (const m of [this.newer, this.older]) for (const inner of m.values()) n += inner.size;
    return n;
  }
}
