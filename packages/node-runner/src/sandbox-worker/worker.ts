// A sandbox worker's entry: one `@anthropic-ai/sandbox-runtime` instance (its manager is global
// to a JavaScript realm, so a worker thread gives each workspace Session its own profile,
// proxies and temporary directory), driven by the host thread through `SandboxWorkerCall`s.
// Compiled to dist/sandbox-worker/worker.js, the fixed entry every host starts.
import { parentPort, workerData } from "node:worker_threads";
import { CastellanError } from "@castellan/harness";
import { createSandboxRuntimeAdapter } from "../commands/sandbox/runtime-adapter.js";
import type { SandboxWorkerAnswer, SandboxWorkerCall, SandboxWorkerData } from "./protocol.js";

const port = parentPort;
if (!port) throw new Error("The sandbox worker runs only as a worker thread.");
const adapter = createSandboxRuntimeAdapter((workerData ?? {}) as SandboxWorkerData);

const serve = async (call: SandboxWorkerCall): Promise<unknown> => {
  const argument = call.argument as never;
  switch (call.method) {
    case "initialize":
      return await adapter.initialize(argument);
    case "allowNetworkHosts":
      return await adapter.allowNetworkHosts(argument);
    case "prepare":
      return await adapter.prepare(argument);
    case "finalize":
      return await adapter.finalize(argument);
    case "reset":
      return await adapter.reset();
    default:
      throw new Error(`The sandbox worker has no method ${JSON.stringify(call.method)}.`);
  }
};

port.on("message", (call: SandboxWorkerCall) => {
  serve(call).then(
    (value) => port.postMessage({ id: call.id, ok: true, value } satisfies SandboxWorkerAnswer),
    (error: unknown) =>
      port.postMessage({
        id: call.id,
        ok: false,
        error: {
          name: error instanceof Error ? error.name : "Error",
          message: error instanceof Error ? error.message : String(error),
          ...(error instanceof CastellanError ? { code: error.code } : {}),
        },
      } satisfies SandboxWorkerAnswer),
  );
});
