// A sandbox worker's entry: one `@anthropic-ai/sandbox-runtime` instance (its manager is global
// to a JavaScript realm, so a process of its own gives each workspace Session its own profile,
// proxies and temporary directory), driven by the host through `SandboxWorkerCall`s over the
// IPC channel. A process rather than a thread: the runtime forks helpers (socat bridges,
// `which`, ripgrep), and a fork from the host would copy the host's page tables and hold its
// memory lock while it did. Compiled to dist/platform/sandbox-worker/worker.js, the fixed entry every
// host starts, with its `SandboxWorkerData` as JSON in argv[2].
import { CastellanError, errorMessage } from "@castellan/harness";
import { createSandboxRuntimeAdapter } from "../sandbox/runtime-adapter.js";
import type { SandboxWorkerAnswer, SandboxWorkerCall, SandboxWorkerData } from "./protocol.js";

if (!process.send) throw new Error("The sandbox worker runs only as a child process with an IPC channel.");
const adapter = createSandboxRuntimeAdapter(JSON.parse(process.argv[2] ?? "{}") as SandboxWorkerData);

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

const answer = (message: SandboxWorkerAnswer) => {
  if (process.connected) process.send?.(message);
};

process.on("message", (call: SandboxWorkerCall) => {
  serve(call).then(
    (value) => answer({ id: call.id, ok: true, value }),
    (error: unknown) =>
      answer({
        id: call.id,
        ok: false,
        error: {
          name: error instanceof Error ? error.name : "Error",
          message: errorMessage(error),
          ...(error instanceof CastellanError ? { code: error.code } : {}),
        },
      }),
  );
});

// The host let go (terminate, or it died): the runtime's proxies and bridges go with this process.
process.on("disconnect", () => {
  const exit = setTimeout(() => process.exit(0), 5_000);
  adapter.reset().then(
    () => process.exit(0),
    () => process.exit(0),
  );
  exit.unref();
});
