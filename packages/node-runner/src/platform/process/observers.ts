import type { CommandObserverFailure, CommandResult } from "./types.js";

interface PendingObserver {
  readonly ownerKey: string;
  readonly settled: Promise<void>;
}

/**
 * The `onTerminal` calls of one supervisor: each is started once and not awaited, so a slow
 * or failing observer never holds a command's end; what fails is kept until drained.
 */
export class ObserverLedger {
  readonly #pending = new Set<PendingObserver>();
  #failures: CommandObserverFailure[] = [];

  /** Calls `observer` with `result` now; a throw or a rejection is recorded as a failure. */
  notify(
    ownerKey: string,
    commandId: string,
    observer: (result: CommandResult) => void | Promise<void>,
    result: CommandResult,
  ): void {
    const fail = (error: unknown) => {
      this.#failures.push(Object.freeze({ commandId, ownerKey, error }));
    };
    let returned: unknown;
    try {
      returned = observer(result);
    } catch (error) {
      fail(error);
      return;
    }
    if (!isThenable(returned)) return;
    const pending: PendingObserver = {
      ownerKey,
      settled: Promise.resolve(returned).then(
        () => {
          this.#pending.delete(pending);
        },
        (error: unknown) => {
          this.#pending.delete(pending);
          fail(error);
        },
      ),
    };
    this.#pending.add(pending);
  }

  /**
   * Waits for every observer call of `ownerKey` (of every owner when omitted) still under way,
   * then returns their failures since the last drain, oldest first, and forgets them.
   */
  async drain(ownerKey?: string): Promise<readonly CommandObserverFailure[]> {
    const mine = (entry: { ownerKey: string }) => ownerKey === undefined || entry.ownerKey === ownerKey;
    for (;;) {
      const waiting = [...this.#pending].filter(mine);
      if (waiting.length === 0) break;
      await Promise.all(waiting.map((entry) => entry.settled));
    }
    const drained = this.#failures.filter(mine);
    this.#failures = this.#failures.filter((failure) => !mine(failure));
    return Object.freeze(drained);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}
