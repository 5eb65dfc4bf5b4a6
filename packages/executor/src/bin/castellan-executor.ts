#!/usr/bin/env node
// The executor's bin: `castellan-executor serve [--host H] [--port P] [--data-directory DIR]`
// (`--allow-file-remotes` lets tests and benches use file:// repositories).
// Settings not given as flags come from the environment (docs in the package README). A missing
// token or a malformed setting exits 2 naming it; SIGTERM or SIGINT stops the server and exits 0.
import { parseArgs } from "node:util";
import { ExecutorConfigError } from "../errors.js";
import { createExecutorServer } from "../http/server.js";
import { logLine } from "../log.js";

const usage =
  "usage: castellan-executor serve [--host HOST] [--port PORT] [--data-directory DIR] [--allow-file-remotes]";

process.title = "castellan-executor";

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        "data-directory": { type: "string" },
        // For tests and benches: file:// repositories as remotes.
        "allow-file-remotes": { type: "boolean" },
      },
    });
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`, 2);
  }
}
const parsed = parse();
const [command, ...rest] = parsed.positionals;
if (command !== "serve" || rest.length > 0) fail(usage, 2);
const { host, port, "data-directory": dataDirectory, "allow-file-remotes": allowFileRemotes } = parsed.values;
if (port !== undefined && !/^\d+$/.test(port)) fail("--port must be a non-negative integer.", 2);

let server: ReturnType<typeof createExecutorServer>;
try {
  server = createExecutorServer({
    ...(host !== undefined ? { host } : {}),
    ...(port !== undefined ? { port: Number(port) } : {}),
    ...(dataDirectory !== undefined ? { dataDirectory } : {}),
    ...(allowFileRemotes ? { allowFileRemotes: true } : {}),
  });
} catch (error) {
  if (error instanceof ExecutorConfigError) fail(`castellan-executor: ${error.message}`, 2);
  throw error;
}

let stopping = false;
async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  logLine({ kind: "executor-stopping", signal });
  // The grace bound holds even if something refuses to settle.
  const deadline = setTimeout(() => process.exit(0), server.options.shutdownGraceMs);
  deadline.unref();
  await server.close();
  logLine({ kind: "executor-stopped" });
  process.exit(0);
}
process.on("SIGTERM", (signal) => void stop(signal));
process.on("SIGINT", (signal) => void stop(signal));

const address = await server.listen();
logLine({ kind: "executor-listening", host: address.host, port: address.port });
