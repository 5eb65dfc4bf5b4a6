/**
 * The probe of each Session's current Run, started by the Run's first request and shared by its
 * later ones (including a retry after compaction, and the Run resumed in this process): the
 * facts are frozen for the Run. A Session's entry is replaced when a request of another Run of
 * that Session arrives, so at most one Run per Session is held (the turn number is not used for
 * this, since a resumed Run does not restart at turn 1), and dropped when the Session closes.
 */
export class RunProbes<T> {
  readonly #probe: (sessionId: string) => Promise<T>;
  /** By Session id: which Run the probe is for, and its result. */
  readonly #current = new Map<string, { readonly runId: string; readonly result: Promise<T> }>();
  readonly #running = new Set<Promise<T>>();

  /** `probe` must not reject; it is called once per Run, with the Run's Session id. */
  constructor(probe: (sessionId: string) => Promise<T>) {
    this.#probe = probe;
  }

  /** The facts of the Run `runId` of Session `sessionId`, probing them if this Run has none yet. */
  forRun(sessionId: string, runId: string): Promise<T> {
    const held = this.#current.get(sessionId);
    if (held?.runId === runId) return held.result;
    const result = this.#probe(sessionId);
    this.#current.set(sessionId, { runId, result });
    this.#running.add(result);
    void result.finally(() => this.#running.delete(result));
    return result;
  }

  /** Drops a closed Session's entry. */
  forget(sessionId: string): void {
    this.#current.delete(sessionId);
  }

  /** How many Sessions have an entry; for tests of the bound. */
  get size(): number {
    return this.#current.size;
  }

  /** Drops every entry and waits for probes still running (each git invocation is bounded by its timeout). */
  async close(): Promise<void> {
    this.#current.clear();
    await Promise.allSettled([...this.#running]);
  }
}
