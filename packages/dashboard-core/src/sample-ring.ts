/**
 * The last `capacity` samples of a set of named values, oldest first: times as float64
 * milliseconds, values as float32 (a plot needs no more, and it halves the memory). A value a
 * sample lacks reads NaN; a name first seen late reads NaN before it.
 */
export class SampleRing {
  private readonly times: Float64Array;
  private readonly columns = new Map<string, Float32Array>();
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.times = new Float64Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  push(timeMs: number, values: Readonly<Record<string, number>>): void {
    const slot = (this.start + this.count) % this.capacity;
    if (this.count < this.capacity) this.count += 1;
    else this.start = (this.start + 1) % this.capacity;
    this.times[slot] = timeMs;
    for (const column of this.columns.values()) column[slot] = NaN;
    for (const [name, value] of Object.entries(values)) {
      let column = this.columns.get(name);
      if (column === undefined) {
        column = new Float32Array(this.capacity).fill(NaN);
        this.columns.set(name, column);
      }
      column[slot] = value;
    }
  }

  /** The samples at or after `sinceMs`, oldest first, each with the values it has. */
  since(sinceMs: number): { timeMs: number; values: Record<string, number> }[] {
    const samples = [];
    for (let i = 0; i < this.count; i += 1) {
      const slot = (this.start + i) % this.capacity;
      const timeMs = this.times[slot] as number;
      if (timeMs < sinceMs) continue;
      const values: Record<string, number> = {};
      for (const [name, column] of this.columns) {
        const value = column[slot] as number;
        if (!Number.isNaN(value)) values[name] = value;
      }
      samples.push({ timeMs, values });
    }
    return samples;
  }

  /** The time of the oldest sample held, or undefined when empty. */
  firstTimeMs(): number | undefined {
    return this.count === 0 ? undefined : this.times[this.start];
  }

  /** Bytes of the typed arrays: what the dashboard's heap figure is made of. */
  bytes(): number {
    return this.times.byteLength + this.columns.size * this.capacity * 4;
  }
}
