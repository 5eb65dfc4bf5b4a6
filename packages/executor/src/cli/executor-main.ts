// The executor's command line, shared by its bin and by `castellan serve`: `serve [--host H]
// [--port P] [--data-directory DIR] [--transcript-root DIR]` (`--allow-file-remotes` lets tests
// and benches use file:// repositories); `--help` and `--version` print to stdout and exit 0.
// Settings not given as flags come from the environment (docs in the package README). A missing
// token or a malformed setting exits 2 naming it; SIGTERM or SIGINT stops the server and exits 0.
// It owns the process: it exits it, and handles its signals.
import { parseArgs } from "node:util";
import { executorVersion } from "../config/executor-version.js";
import { ExecutorConfigError } from "../errors/errors.js";
import { createExecutorServer } from "../http/server.js";
import { logLine } from "../log/log.js";

const usage =
  "usage: castellan-executor serve [--host HOST] [--port PORT] [--data-directory DIR] [--transcript-root DIR] [--allow-file-remotes]\n" +
  "       castellan-executor --help | --version";

const help = `${usage}

Runs Castellan's headless job server on loopback HTTP (see the @castellan/executor README).

Options (each beats its environment variable):
  --host HOST             address to listen on (CASTELLAN_EXECUTOR_HOST; default 127.0.0.1)
  --port PORT             port, 0 for any free one (PORT; default 27182)
  --data-directory DIR    job records and per-job state (CASTELLAN_EXECUTOR_DATA_DIR;
                          default ~/.castellan/executor)
  --transcript-root DIR   where Session transcripts are kept (HARNESS_TRANSCRIPT_ROOT;
                          default <data directory>/transcripts)
  --allow-file-remotes    accept file:// repositories (tests and benches)
  --help                  print this and exit
  --version               print the version and exit

The bearer token is read from the file named by CASTELLAN_EXECUTOR_TOKEN_FILE (preferred) or
from CASTELLAN_EXECUTOR_TOKEN; at least 32 characters. Log lines are JSON on stderr.
Exit codes: 0 after SIGTERM or SIGINT, 2 for a bad command line or setting.
`;

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function parse(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        "data-directory": { type: "string" },
        "transcript-root": { type: "string" },
        help: { type: "boolean" },
        version: { type: "boolean" },
        // For tests and benches: file:// repositories as remotes.
        "allow-file-remotes": { type: "boolean" },
      },
    });
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`, 2);
  }
}
/**
 * Runs `castellan-executor <argv>` in this process: the same options, environment and exit
 * codes, and the process title `castellan-executor`, whichever bin calls it. Resolves once the server listens; the process then exits on
 * SIGTERM or SIGINT (0), or at once for `--help`, `--version` and a bad command line (2).
 */
export async function executorMain(argv: readonly string[]): Promise<void> {
  // A pattern kill aimed at a service an agent built (`node .*server`) never matches the server.
  process.title = "castellan-executor";
  const parsed = parse(argv);
  // Asking for help or the version never needs a token or a valid command line around it.
  if (parsed.values.help) {
    process.stdout.write(help);
    process.exit(0);
  }
  if (parsed.values.version) {
    process.stdout.write(`castellan-executor ${executorVersion}\n`);
    process.exit(0);
  }
  const [command, ...rest] = parsed.positionals;
  if (command !== "serve" || rest.length > 0) fail(usage, 2);
  const {
    host,
    port,
    "data-directory": dataDirectory,
    "transcript-root": transcriptRoot,
    "allow-file-remotes": allowFileRemotes,
  } = parsed.values;
  if (port !== undefined && !/^\d+$/.test(port)) fail("--port must be a non-negative integer.", 2);

  let server: ReturnType<typeof createExecutorServer>;
  try {
    server = createExecutorServer({
      ...(host !== undefined ? { host } : {}),
      ...(port !== undefined ? { port: Number(port) } : {}),
      ...(dataDirectory !== undefined ? { dataDirectory } : {}),
      ...(transcriptRoot !== undefined ? { transcriptRoot } : {}),
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
  // Where the state and the transcripts go, so an operator sees which folders to back up or watch.
  logLine({
    kind: "executor-listening",
    host: address.host,
    port: address.port,
    dataDirectory: server.options.dataDirectory,
    transcriptRoot: server.options.transcriptRoot,
  });
}
