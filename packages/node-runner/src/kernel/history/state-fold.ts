import type { JsonValue } from "@castellan/harness";
import { deepFreeze } from "@castellan/harness";

/** A committed state write, as inspection reports it. */
export interface StateWrite {
  readonly source: "host" | "tool";
  readonly runId: string;
  readonly turn: number;
  readonly changes: Readonly<Record<string, JsonValue>>;
}

/**
 * The state part of the fold: committed changes over the declared initial values, the list
 * of committed writes, and the host writes queued for the next turn.
 */
export class StateFold {
  private overlay: Readonly<Record<string, JsonValue>> = Object.freeze({});
  private readonly writes: StateWrite[] = [];
  private queued: Readonly<Record<string, JsonValue>>[] = [];
  /** The last view made, and what it was made from. */
  private cachedView:
    | {
        readonly initial: Readonly<Record<string, JsonValue>>;
        readonly overlay: Readonly<Record<string, JsonValue>>;
        readonly view: Readonly<Record<string, JsonValue>>;
      }
    | undefined;

  commit(write: StateWrite): void {
    if (Object.keys(write.changes).length === 0) return;
    this.overlay = Object.freeze({ ...this.overlay, ...write.changes });
    this.writes.push(deepFreeze(write));
  }

  queue(changes: Readonly<Record<string, JsonValue>>): void {
    this.queued.push(deepFreeze(changes));
  }

  /** Applies every queued host write as one committed write. */
  commitQueued(runId: string, turn: number, changes: Readonly<Record<string, JsonValue>>): void {
    this.queued = [];
    this.commit({ source: "host", runId, turn, changes });
  }

  /** The queued host writes merged in order, or undefined when none are queued. */
  mergedQueue(): Readonly<Record<string, JsonValue>> | undefined {
    if (this.queued.length === 0) return undefined;
    return Object.assign({}, ...this.queued);
  }

  get pending(): readonly Readonly<Record<string, JsonValue>>[] {
    return this.queued;
  }

  get committedWrites(): readonly StateWrite[] {
    return this.writes;
  }

  /**
   * Committed state: the initial values with every committed change over them, frozen. Asked
   * for several times a turn; the same frozen view is returned until a commit changes it.
   */
  view(initial: Readonly<Record<string, JsonValue>>): Readonly<Record<string, JsonValue>> {
    const cached = this.cachedView;
    if (cached?.initial === initial && cached.overlay === this.overlay) return cached.view;
    const view: Record<string, JsonValue> = { ...initial };
    // Keys no longer declared by the agent are not part of its state.
    for (const [key, value] of Object.entries(this.overlay)) if (Object.hasOwn(initial, key)) view[key] = value;
    Object.freeze(view);
    this.cachedView = { initial, overlay: this.overlay, view };
    return view;
  }
}
