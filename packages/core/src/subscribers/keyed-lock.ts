// Serializes async work per key within this process.
//
// Why: FerretDB v1 does not apply a conditional update atomically (measured: two concurrent
// replaceOne calls with the same `{_id, revision}` condition both match in most rounds), so the
// revision check alone cannot stop lost updates there. The lock makes one process correct on any
// server; across processes the revision condition does the job on MongoDB.
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
