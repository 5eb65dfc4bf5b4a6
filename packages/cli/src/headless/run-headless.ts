import type { RunResult } from "@castellan/harness";
import { castellanHome } from "../home/castellan-home.js";
import { CliError } from "../process/cli-error.js";
import type { CliIo } from "../process/cli-io.js";
import { describeFailure } from "../process/describe-failure.js";
import { exitCodes } from "../process/exit-codes.js";
import type { AgentFlags } from "../session/agent-flags.js";
import { openCliSession } from "../session/open-cli-session.js";
import { headlessApproval } from "./headless-approval.js";

/** What `castellan -p` was asked. */
export interface HeadlessRequest {
  /** The task text, or `-` to read it from stdin. */
  readonly task: string;
  /** Print every Run event as one JSON line instead of the final text. */
  readonly json: boolean;
  /** `--approval-wait` in ms. Default 0. */
  readonly approvalWaitMs: number;
  readonly flags: AgentFlags;
}

/** Reads the whole of stdin as UTF-8 text. */
async function readAll(stdin: AsyncIterable<string | Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * One headless Run of the CLI Agent: the Session id on stderr as `session: <id>`, then either
 * the final text on stdout or, with `json`, each Run event as one JSON line (the last is
 * `run-end`). Answers the exit code: 0 completed, 1 failed, 130 interrupted through
 * `io.interrupt`, whose abort also waits for the Run's commands to end before the Session closes.
 */
export async function runHeadless(request: HeadlessRequest, io: CliIo): Promise<number> {
  const task = request.task === "-" ? await readAll(io.stdin) : request.task;
  if (task.trim() === "") throw new CliError("input_invalid", "the task is empty.");
  const opened = await openCliSession({
    home: castellanHome(io.env),
    cwd: io.cwd,
    env: io.env,
    flags: request.flags,
    approval: headlessApproval({ waitMs: request.approvalWaitMs }),
    ...(io.interrupt ? { signal: io.interrupt } : {}),
  });
  let result: RunResult | undefined;
  let failure: unknown;
  try {
    io.stderr.write(`session: ${opened.session.id}\n`);
    const run = opened.session.run(task, io.interrupt ? { signal: io.interrupt } : {});
    for await (const event of run) {
      if (request.json) io.stdout.write(`${JSON.stringify(event)}\n`);
    }
    result = await run.result.catch((error: unknown) => {
      failure = error;
      return undefined;
    });
  } finally {
    // Waits for the Run's commands to end before the log is released.
    await opened.close();
  }
  if (io.interrupt?.aborted) return exitCodes.interrupted;
  if (result === undefined) {
    io.stderr.write(`castellan: the Run failed: ${describeFailure(failure)}\n`);
    return exitCodes.failed;
  }
  if (!request.json) io.stdout.write(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
  return exitCodes.done;
}
