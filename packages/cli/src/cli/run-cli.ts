import { isCastellanError } from "@castellan/harness";
import { castellanHome } from "../home/castellan-home.js";
import { CliError } from "../process/cli-error.js";
import type { CliIo } from "../process/cli-io.js";
import { describeFailure } from "../process/describe-failure.js";
import { exitCodes } from "../process/exit-codes.js";
import { formatSessions } from "../sessions/format-sessions.js";
import { listSessions } from "../sessions/list-sessions.js";
import { parseCommandLine, UsageError } from "./parse-command-line.js";
import { help, usage } from "./usage.js";
import { castellanVersion } from "./version.js";

/**
 * Runs one `castellan` command line and answers its exit code; output goes to `io`.
 * `castellan serve ...` is not run here: the bin hands it to the executor's own entry.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const line = parseCommandLine(argv);
    switch (line.kind) {
      case "help":
        io.stdout.write(help);
        return exitCodes.done;
      case "version":
        io.stdout.write(`castellan ${castellanVersion}\n`);
        return exitCodes.done;
      case "sessions": {
        const rows = await listSessions({ home: castellanHome(io.env), cwd: io.cwd, all: line.all, limit: line.limit });
        io.stdout.write(line.json ? `${JSON.stringify(rows, null, 2)}\n` : formatSessions(rows, line.all));
        return exitCodes.done;
      }
      case "doctor": {
        const { runDoctor } = await import("../doctor/run-doctor.js");
        return await runDoctor(line.json, io);
      }
      case "print": {
        const { runHeadless } = await import("../headless/run-headless.js");
        return await runHeadless(line, io);
      }
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`castellan: ${error.message}\n${usage}\n`);
      return exitCodes.usage;
    }
    if (io.interrupt?.aborted && isCastellanError(error, "aborted")) return exitCodes.interrupted;
    io.stderr.write(`castellan: ${describeFailure(error)}\n`);
    return error instanceof CliError ? error.exitCode : exitCodes.failed;
  }
}
