import { parseArgs } from "node:util";
import { castellanHome } from "../home/castellan-home.js";
import { formatSessions } from "../sessions/format-sessions.js";
import { defaultSessionsLimit, listSessions } from "../sessions/list-sessions.js";
import { help, usage } from "./usage.js";
import { castellanVersion } from "./version.js";

/** What one `castellan` invocation runs with: the process's, or a test's. */
export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/** Exit codes of `castellan`. */
export const exitCodes = { done: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** A bad command line: printed with the usage, exit 2. */
class UsageError extends Error {}

function parse(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        all: { type: "boolean" },
        json: { type: "boolean" },
        limit: { type: "string" },
        help: { type: "boolean" },
        version: { type: "boolean" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--limit`: a whole number from 1 to 10,000. */
function parseLimit(text: string | undefined): number {
  if (text === undefined) return defaultSessionsLimit;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(limit) || limit < 1 || limit > 10_000) {
    throw new UsageError(`--limit must be a whole number from 1 to 10000, not ${JSON.stringify(text)}.`);
  }
  return limit;
}

/** Runs one `castellan` command line and answers its exit code; output goes to `io`. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv);
    if (values.help) {
      io.stdout.write(help);
      return exitCodes.done;
    }
    if (values.version) {
      io.stdout.write(`castellan ${castellanVersion}\n`);
      return exitCodes.done;
    }
    const [command, ...rest] = positionals;
    if (command === "sessions" && rest.length === 0) {
      const all = values.all ?? false;
      const rows = await listSessions({
        home: castellanHome(io.env),
        cwd: io.cwd,
        all,
        limit: parseLimit(values.limit),
      });
      io.stdout.write(values.json ? `${JSON.stringify(rows, null, 2)}\n` : formatSessions(rows, all));
      return exitCodes.done;
    }
    throw new UsageError(
      command === undefined ? "no command given." : `unknown command ${JSON.stringify(positionals.join(" "))}.`,
    );
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`castellan: ${error.message}\n${usage}\n`);
      return exitCodes.usage;
    }
    io.stderr.write(`castellan: ${(error as Error).message}\n`);
    return exitCodes.failed;
  }
}
