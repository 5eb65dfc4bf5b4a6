import { Worker } from "node:worker_threads";
import type { LineTester, LongLineTester } from "./line-scanner.js";
import { maxRegexLineUnits } from "./types.js";

/** A regex search ran out of time inside a file: the worker was terminated. */
export class RegexTimeoutError extends Error {
  constructor() {
    super("The regular expression search ran out of time.");
    this.name = "RegexTimeoutError";
  }
}

// Built, this module is .js beside regex-worker.js; under the test runner it is the .ts source.
const workerFile = new URL(
  import.meta.url.endsWith(".ts") ? "./regex-worker.ts" : "./regex-worker.js",
  import.meta.url,
);

/**
 * Matches lines against a RegExp in a worker thread, batch by batch, waiting for each batch
 * at most until `deadline` (a `Date.now()` time): then the worker is terminated and the
 * batch rejects with {@link RegexTimeoutError}. An abort of `signal` terminates it too and
 * rejects with the signal's reason. The worker starts on the first batch; {@link close} ends it.
 */
export class WorkerRegexTester implements LineTester {
  private worker: Worker | undefined;

  constructor(
    private readonly source: string,
    private readonly flags: string,
    private readonly deadline: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  matching(lines: readonly string[]): Promise<number[]> {
    return this.ask(lines);
  }

  /** A long line is gathered up to {@link maxRegexLineUnits} and matched once when it ends. */
  longLine(): LongLineTester {
    let text = "";
    return {
      add: (piece) => {
        if (text.length < maxRegexLineUnits) text += piece.slice(0, maxRegexLineUnits - text.length);
        return false;
      },
      end: async () => (await this.ask([text])).length > 0,
    };
  }

  /** Terminates the worker, if one started. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private ask(lines: readonly string[]): Promise<number[]> {
    this.signal?.throwIfAborted();
    const remaining = this.deadline - Date.now();
    if (remaining <= 0) return Promise.reject(new RegexTimeoutError());
    // Its output is its own (a warning must not land in the host's stderr).
    this.worker ??= new Worker(workerFile, {
      workerData: { source: this.source, flags: this.flags },
      stdout: true,
      stderr: true,
    });
    const worker = this.worker;
    return new Promise<number[]>((resolve, reject) => {
      const settle = (finish: () => void, terminate: boolean) => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        this.signal?.removeEventListener("abort", onAbort);
        if (terminate) void this.close();
        finish();
      };
      const onMessage = (matches: number[]) => settle(() => resolve(matches), false);
      const onError = (error: Error) => settle(() => reject(error), true);
      const onAbort = () => settle(() => reject(this.signal?.reason), true);
      const timer = setTimeout(() => settle(() => reject(new RegexTimeoutError()), true), remaining);
      worker.on("message", onMessage);
      worker.on("error", onError);
      this.signal?.addEventListener("abort", onAbort, { once: true });
      worker.postMessage(lines);
    });
  }
}
