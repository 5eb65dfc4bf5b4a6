// A store wrapper that times how long the Runner waits on each append it does not save ahead.
import type { SessionStore } from "@castellan/node-runner";

/** `store`, and the wait of each append made without `shareSync`, in call order, ms. */
export interface TimedStore {
  readonly store: SessionStore;
  /** From the `append` call to its promise settling; filled in as the appends settle. */
  readonly waits: number[];
}

/**
 * Wraps `store` so that every append made without `shareSync` (the ones the Runner waits on
 * before going on: a Run's start, each turn's intent, the final answer) records its wait from
 * call to durable. Appends saved ahead are passed through untimed: their sync is shared with
 * the next timed append, whose wait includes it.
 */
export function timedStore(store: SessionStore): TimedStore {
  const waits: number[] = [];
  return {
    waits,
    store: {
      async open(sessionId, options) {
        const log = await store.open(sessionId, options);
        return {
          sessionId: log.sessionId,
          records: log.records,
          close: () => log.close(),
          append(records, appendOptions) {
            if (appendOptions?.shareSync) return log.append(records, appendOptions);
            const index = waits.push(Number.NaN) - 1;
            const start = performance.now();
            const durable = log.append(records, appendOptions);
            const settle = () => {
              waits[index] = performance.now() - start;
            };
            durable.then(settle, settle);
            return durable;
          },
        };
      },
    },
  };
}
