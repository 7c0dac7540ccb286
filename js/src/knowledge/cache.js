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
