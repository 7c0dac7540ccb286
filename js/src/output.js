// Collects the records of one batched call into a RecordBuffer that Python reads in place.
// The buffer is replaced (and `generation` bumped) only when a batch outgrows it.
import {RecordBuffer, encode} from './encoder.js';

export class Output {
  constructor(contract, capacity = 64) {
    this.contract = contract;
    this.records = new RecordBuffer(contract, capacity);
    this.generation = 0;
    this.count = 0;
  }

  begin() { this.count = 0; }

  /** Encodes `view` into the next row; returns the row index. */
  add(view) {
    if (this.count === this.records.capacity) this.grow();
    encode(view, this.records, this.count);
    return this.count++;
  }

  grow() {
    const bigger = new RecordBuffer(this.contract, this.records.capacity * 2);
    bigger.u8.set(this.records.u8);
    this.records = bigger;
    this.generation++;
  }

  get buffer() { return this.records.buffer; }
}
