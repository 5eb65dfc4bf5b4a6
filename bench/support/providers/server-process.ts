// Where the fixture server runs: in a child process (the bench's choice: the loopback server
// parses every request body, and on a shared core that work would be timed as the client's),
// or in this process (for tests that read the request bodies).
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { WireFormat } from "./answers.ts";
import { type ServerStats, startFixtureServer } from "./fixture-server.ts";

export type ServerPlacement = "child-process" | "in-process";

/** A running fixture server, wherever it runs. */
export interface BenchServer {
  readonly url: string;
  readonly placement: ServerPlacement;
  stats(): Promise<ServerStats>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const childEntry = fileURLToPath(new URL("./server-child.ts", import.meta.url));

/** Starts a fixture server for `format`; `keepBodies` only in process. */
export async function startBenchServer(
  format: WireFormat,
  placement: ServerPlacement,
  options: { readonly keepBodies?: boolean } = {},
): Promise<BenchServer> {
  if (placement === "in-process") {
    const server = await startFixtureServer(format, options);
    return {
      url: server.url,
      placement,
      stats: async () => server.stats(),
      reset: async () => server.reset(),
      close: () => server.close(),
    };
  }
  // No inherited flags: a profiled or inspected bench must not profile its server.
  const child = fork(childEntry, [format], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const { url } = (await reply(child, undefined)) as { url: string };
    return {
      url,
      placement,
      stats: async () => ((await reply(child, "stats")) as { stats: ServerStats }).stats,
      reset: async () => {
        await reply(child, "reset");
      },
      async close() {
        if (child.connected) child.disconnect();
        await exited;
      },
    };
  } catch (error) {
    child.kill();
    await exited;
    throw error;
  }
}

/** Sends `message` (if any) and waits for the child's next message. One request at a time. */
function reply(child: ChildProcess, message: string | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`The fixture server exited (${code}).`));
    child.once("exit", onExit);
    child.once("message", (answer) => {
      child.off("exit", onExit);
      resolve(answer);
    });
    if (message !== undefined) child.send(message);
  });
}
