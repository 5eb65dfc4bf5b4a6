// Runs `node openai.ts` in the packed consumer as a child process, answering each approval prompt
// terminalApproval() writes to stderr with a line on stdin, and keeping what it printed.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

/** The question that ends every terminalApproval() prompt. */
export const approvalQuestion = "Allow? [y/N] ";

/** How a process ended. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running `node openai.ts`. */
export interface AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything it wrote so far. */
  readonly output: { stdout: string; stderr: string };
  /** The text of each approval prompt so far (what stderr showed before its question). */
  readonly prompts: string[];
  readonly exit: Promise<Exit>;
  /** Resolves once stdout or stderr holds `text`; rejects after `timeoutMs` or when the process ends first. */
  waitFor(stream: "stdout" | "stderr", text: string, timeoutMs?: number): Promise<void>;
}

const live = new Set<ChildProcessWithoutNullStreams>();

/** Kills every agent process still running (for afterAll). */
export function killAgentProcesses(): void {
  for (const child of live) child.kill("SIGKILL");
  live.clear();
}

/**
 * Starts `node openai.ts <prompt>` in `cwd` with exactly `env`. Each approval prompt is answered
 * with `answer` (a line on stdin; default `y`) once its question appears on stderr, or left
 * unanswered with `"none"`.
 */
export function startAgent(options: {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly prompt?: string;
  readonly answer?: "y" | "n" | "none";
}): AgentProcess {
  const args = ["openai.ts", ...(options.prompt === undefined ? [] : [options.prompt])];
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: "pipe" });
  live.add(child);
  const output = { stdout: "", stderr: "" };
  const prompts: string[] = [];
  const waiters = new Set<() => void>();
  let answeredUpTo = 0;
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    output.stdout += chunk;
    for (const wake of waiters) wake();
  });
  child.stderr.on("data", (chunk: string) => {
    output.stderr += chunk;
    for (;;) {
      const at = output.stderr.indexOf(approvalQuestion, answeredUpTo);
      if (at < 0) break;
      prompts.push(output.stderr.slice(answeredUpTo, at));
      answeredUpTo = at + approvalQuestion.length;
      if (options.answer !== "none") child.stdin.write(`${options.answer ?? "y"}\n`);
    }
    for (const wake of waiters) wake();
  });
  // A write after the process ended is of no interest.
  child.stdin.on("error", () => undefined);
  const exit = new Promise<Exit>((resolve) => {
    child.on("close", (code, signal) => {
      live.delete(child);
      for (const wake of waiters) wake();
      resolve({ code, signal });
    });
  });
  let ended = false;
  void exit.then(() => {
    ended = true;
  });
  return {
    child,
    output,
    prompts,
    exit,
    waitFor(stream, text, timeoutMs = 90_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (output[stream].includes(text)) finish();
          else if (ended || child.exitCode !== null || child.signalCode !== null) {
            finish(new Error(`The process ended before its ${stream} showed ${JSON.stringify(text)}.`));
          }
        };
        const timer = setTimeout(
          () => finish(new Error(`No ${JSON.stringify(text)} on ${stream} within ${timeoutMs} ms.`)),
          timeoutMs,
        );
        const finish = (error?: Error) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** Waits for the process to end, failing after `timeoutMs`. */
export async function exitWithin(agent: AgentProcess, timeoutMs: number): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`The process did not end within ${timeoutMs} ms.`)), timeoutMs);
  });
  try {
    return await Promise.race([agent.exit, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
