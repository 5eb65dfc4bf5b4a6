import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CastellanError, type CastellanErrorCode } from "@castellan/harness";
import { applyBackgroundPriority } from "../process/background-priority.js";
import type { CommandPreparedSpawn, CommandPrepareRequest } from "../process/index.js";
import type { ResolvedSandboxPolicy } from "../sandbox/config.js";
import type { SandboxRuntimeAdapter } from "../sandbox/runtime-adapter.js";
import { sandboxWorkerEntry } from "./entry.js";
import { SandboxWorkerMissingError, SandboxWorkerStoppedError } from "./errors.js";
import type { SandboxWorkerAnswer, SandboxWorkerData, SandboxWorkerMethod } from "./protocol.js";

/** Options of {@link createSandboxWorkerRuntimeAdapter}: where the runtime finds its programs. */
export interface SandboxWorkerOptions {
  /** Default: `bwrap` in the host's `PATH`. */
  readonly bwrapPath?: string;
  /** Default: `socat` in the host's `PATH`. */
  readonly socatPath?: string;
  /** Default: `rg` in the host's `PATH`. */
  readonly ripgrepPath?: string;
}

/** A sandbox runtime adapter served by a worker process of its own; `terminate` ends the worker. */
export interface SandboxWorkerRuntimeAdapter extends SandboxRuntimeAdapter {
  /** The worker process's pid. */
  readonly pid: number | undefined;
  /** Ends the worker (after `reset`, or instead of it when the worker is stuck); idempotent. Later calls fail. */
  terminate(): Promise<void>;
}

/**
 * Starts a sandbox worker: a child Node process at the package's fixed compiled entry
 * (`dist/platform/sandbox-worker/worker.js`), talking over its IPC channel, holding its own `@anthropic-ai/sandbox-runtime`
 * 0.0.83, so its profile, network grants, proxies and temporary directory belong to one owner
 * (one `workspace()` Session) and never conflict with another's. The worker's `TMPDIR` is a
 * private `castellan-sandbox-*` directory under the host's, removed when the worker exits (a
 * host killed outright leaves it behind). The adapter it returns only
 * transforms argv and env, like the in-process one: the host's supervisor spawns, owns the
 * group and reads the output. A call after the worker stopped, or one it was answering when it
 * crashed, rejects with a `SandboxWorkerStoppedError`, which the command tools report as a host
 * failure. The worker keeps the host's event loop alive only while a call is waiting, and ends
 * (its proxies and bridges with it) when the host terminates it or goes away. A process, not a
 * thread: the runtime forks helpers, and a fork from inside the host would copy the host's
 * page tables, stalling it for a time that grows with its memory.
 *
 * For Node and desktop hosts that integrate the sandbox themselves; agents use `workspace()`.
 *
 * @throws SandboxWorkerMissingError (`sandbox_worker_missing`) when the compiled worker is absent.
 */
export function createSandboxWorkerRuntimeAdapter(options: SandboxWorkerOptions = {}): SandboxWorkerRuntimeAdapter {
  const entry = sandboxWorkerEntry();
  if (!existsSync(entry)) throw new SandboxWorkerMissingError(entry);
  const data: SandboxWorkerData = {
    ...(options.bwrapPath !== undefined ? { bwrapPath: options.bwrapPath } : {}),
    ...(options.socatPath !== undefined ? { socatPath: options.socatPath } : {}),
    ...(options.ripgrepPath !== undefined ? { ripgrepPath: options.ripgrepPath } : {}),
  };
  // The runtime names some of its sockets by process id and a per-realm counter, so two workers
  // of one process would pick the same path, and the later one would unlink the earlier one's
  // live proxy socket. Each worker gets a private temporary directory (0700) of its own.
  const temporary = mkdtempSync(join(tmpdir(), "castellan-sandbox-"));
  const removeTemporary = () => void rm(temporary, { recursive: true, force: true }).catch(() => undefined);
  let worker: ChildProcess;
  try {
    worker = process.getBuiltinModule("node:child_process").fork(entry, [JSON.stringify(data)], {
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      execArgv: [],
      serialization: "advanced",
      env: { ...process.env, TMPDIR: temporary },
    });
  } catch (error) {
    removeTemporary();
    throw error;
  }
  // Background work: lowered before it has started anything of its own.
  applyBackgroundPriority(worker.pid);
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  let nextId = 1;
  let stopped: SandboxWorkerStoppedError | undefined;
  const idle = () => {
    worker.unref();
    worker.channel?.unref();
  };
  idle();

  const stop = (error: SandboxWorkerStoppedError) => {
    stopped ??= error;
    for (const call of pending.values()) call.reject(stopped);
    pending.clear();
  };
  worker.on("message", (answer: SandboxWorkerAnswer) => {
    const call = pending.get(answer.id);
    if (!call) return;
    pending.delete(answer.id);
    if (pending.size === 0) idle();
    if (answer.ok) call.resolve(answer.value);
    else call.reject(rebuildError(answer.error));
  });
  worker.on("error", (error) =>
    stop(new SandboxWorkerStoppedError(`The sandbox worker failed: ${error.message}`, { cause: error })),
  );
  const exited = new Promise<void>((resolve) =>
    worker.once("exit", (code, signal) => {
      stop(
        new SandboxWorkerStoppedError(`The sandbox worker exited ${signal ? `by ${signal}` : `with code ${code}`}.`),
      );
      removeTemporary();
      resolve();
    }),
  );

  const call = <T>(method: SandboxWorkerMethod, argument?: unknown): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.ref();
      worker.channel?.ref();
      worker.send({ id, method, argument }, (error) => {
        if (!error || !pending.has(id)) return;
        pending.delete(id);
        reject(
          new SandboxWorkerStoppedError(`The sandbox worker could not be reached: ${error.message}`, { cause: error }),
        );
      });
    });
  };
  let terminated: Promise<void> | undefined;
  return Object.freeze({
    pid: worker.pid,
    initialize: (policy: ResolvedSandboxPolicy) => call<void>("initialize", policy),
    allowNetworkHosts: (hosts: readonly string[]) => call<void>("allowNetworkHosts", [...hosts]),
    prepare: (request: CommandPrepareRequest) => call<CommandPreparedSpawn>("prepare", request),
    finalize: (request: { readonly commandId: string; readonly command: string; readonly stderr: string }) =>
      call<string>("finalize", request),
    reset: () => call<void>("reset"),
    terminate() {
      terminated ??= (async () => {
        stop(new SandboxWorkerStoppedError("The sandbox worker was terminated."));
        if (worker.exitCode === null && worker.signalCode === null) {
          // Letting go of the channel ends it after its own reset; one that is stuck is killed.
          if (worker.connected) worker.disconnect();
          const kill = setTimeout(() => worker.kill("SIGKILL"), 5_000);
          await exited;
          clearTimeout(kill);
        }
      })();
      return terminated;
    },
  });
}

/** The worker's error as the host sees it: a Castellan error keeps its code. */
function rebuildError(error: { readonly name: string; readonly message: string; readonly code?: string }): Error {
  if (error.code !== undefined) {
    const rebuilt = new CastellanError(error.code as CastellanErrorCode, error.message);
    rebuilt.name = error.name;
    return rebuilt;
  }
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}
