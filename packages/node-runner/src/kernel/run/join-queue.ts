import type { ContentBlock } from "@castellan/harness";
import { SessionStateError } from "../errors/errors.js";

interface Joined {
  readonly input: readonly ContentBlock[];
  readonly inputId?: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Input joined into a running Run, waiting for the loop to take it at a turn boundary. */
export class JoinQueue {
  private readonly queue: Joined[] = [];
  private closedWith: unknown;

  /** Queues input; resolves once the Run has saved it, rejects if the Run ends first. */
  push(input: readonly ContentBlock[], inputId?: string): Promise<void> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    return new Promise<void>((resolve, reject) =>
      this.queue.push({ input, ...(inputId !== undefined ? { inputId } : {}), resolve, reject }),
    );
  }

  /** True when a queued input carries `inputId`. */
  holds(inputId: string): boolean {
    return this.queue.some((entry) => entry.inputId === inputId);
  }

  get size(): number {
    return this.queue.length;
  }

  /** Takes every queued input, in order; call `settle` on each once it is saved. */
  take(): readonly Joined[] {
    return this.queue.splice(0, this.queue.length);
  }

  /** Refuses later joins and rejects the queued ones. */
  close(runId: string): void {
    this.closedWith = new SessionStateError("run_ended", `Run "${runId}" has ended; start a new Run instead.`);
    for (const joined of this.take()) joined.reject(this.closedWith);
  }
}
