// The coding agent on a real model: openai-agent.ts's coder and reviewer, with "coding/primary"
// bound to an OpenAI Responses model through a ChatGPT (Codex) access token, composed with the
// public createNodeRunner API: a file Session store, the hosted web search, the `ask-on-write`
// preset and approvals at the terminal (the exact final input of every edit, patch and command
// is shown on stderr and answered y/N on stdin; approved commands run in the OS sandbox).
//
//   export CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN=...        # required, never printed or saved
//   export CASTELLAN_WORKSPACE=path/to/project             # default: the current directory
//   node openai.ts "Fix the bug described in docs/ISSUE.md."
//
// Optional: CASTELLAN_OPENAI_CODEX_MODEL (default gpt-5-codex), CASTELLAN_OPENAI_CODEX_ACCOUNT_ID
// (sent as the chatgpt-account-id header), CASTELLAN_OPENAI_CODEX_BASE_URL (https:, or http: on
// loopback only, e.g. a local proxy), CASTELLAN_SANDBOX_ALLOWED_DOMAINS (comma-separated hosts
// the sandboxed commands may reach, also the web search's allowed domains; default none) and
// CASTELLAN_SESSION_DIRECTORY (default <workspace>/.castellan-sessions). Run it again on the same
// workspace to continue the saved Session; Ctrl+C stops the Run and its commands.
import { realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { JsonValue, RunEvent, RunResult } from "@castellan/harness";
import { codex } from "@castellan/models/codex";
import {
  createFileSessionStore,
  createNodeRunner,
  readChildAgentReport,
  readCommandReport,
  terminalApproval,
} from "@castellan/node-runner";
import { codingModel, codingSessionId } from "./agent.ts";
import { openaiCodingAgents } from "./openai-agent.ts";

const tokenVariable = "CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN";

/** Ends the process with a configuration error: the message names variables, never their values. */
function misconfigured(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const accessToken = process.env[tokenVariable]?.trim();
if (!accessToken) {
  misconfigured(`Set ${tokenVariable} to a ChatGPT (Codex) access token; it is never printed or saved.`);
}
// Nothing this process starts needs it: the binding keeps its own copy.
delete process.env[tokenVariable];

/** Whether a URL's host is this machine: 127.0.0.0/8, ::1 or localhost. */
function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** CASTELLAN_OPENAI_CODEX_BASE_URL, checked: https:, or http: only to this machine. */
function baseUrl(): string | undefined {
  const value = process.env.CASTELLAN_OPENAI_CODEX_BASE_URL?.trim();
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    misconfigured("CASTELLAN_OPENAI_CODEX_BASE_URL is not a URL.");
  }
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url))) return url.href.replace(/\/$/, "");
  misconfigured("CASTELLAN_OPENAI_CODEX_BASE_URL must be https:, or http: on loopback (127.0.0.0/8, ::1, localhost).");
}

/** The project to work on: CASTELLAN_WORKSPACE or the current directory, by its real path. */
async function workspaceDirectory(): Promise<string> {
  const given = process.env.CASTELLAN_WORKSPACE?.trim() || process.cwd();
  const directory = await realpath(resolve(given)).catch(() => undefined);
  if (!directory || !(await stat(directory)).isDirectory()) {
    misconfigured(`CASTELLAN_WORKSPACE must be an existing directory; ${given} is not one.`);
  }
  return directory;
}

const model = process.env.CASTELLAN_OPENAI_CODEX_MODEL?.trim() || "gpt-5-codex";
const baseURL = baseUrl();
const accountId = process.env.CASTELLAN_OPENAI_CODEX_ACCOUNT_ID?.trim();
const allowedDomains = (process.env.CASTELLAN_SANDBOX_ALLOWED_DOMAINS ?? "")
  .split(",")
  .map((domain) => domain.trim())
  .filter((domain) => domain.length > 0);
const root = await workspaceDirectory();
const sessions = resolve(process.env.CASTELLAN_SESSION_DIRECTORY?.trim() || join(root, ".castellan-sessions"));
const prompt = process.argv.slice(2).join(" ").trim() || "Fix the bug described in docs/ISSUE.md.";

const stop = new AbortController();
let interrupted = false;
/** Ctrl+C: a SIGINT, or the key pressed at an approval question of a terminal. */
function interrupt(): void {
  if (interrupted) {
    process.stdout.write("\nStill stopping: waiting for the commands to end...\n");
    return;
  }
  interrupted = true;
  process.stdout.write("\nInterrupted: stopping the Run and its commands...\n");
  stop.abort();
}
process.on("SIGINT", interrupt);

const { coder } = openaiCodingAgents({ allowedDomains });
const store = createFileSessionStore({ directory: pathToFileURL(`${sessions}/`) });
const runner = await createNodeRunner({
  agent: coder,
  permissions: "ask-on-write",
  plugins: [
    {
      name: "example.openai-composition",
      apply: (host) => {
        host.registerModel(
          codingModel,
          codex({
            accessToken,
            model,
            ...(baseURL ? { baseURL } : {}),
            headers: accountId ? { "chatgpt-account-id": accountId } : {},
          }),
        );
        host.registerHostedTool({
          name: "web_search",
          hosted: { kind: "web-search", ...(allowedDomains.length > 0 ? { allowedDomains } : {}) },
        });
        host.registerSessionStore(store);
      },
    },
    // At a terminal, Ctrl+C during a question denies it and stops the Run like a SIGINT.
    terminalApproval({ onInterrupt: interrupt }),
  ],
});

/** A call's input for one line of output: compact JSON, cut at 160 characters. */
function bounded(input: JsonValue | undefined): string {
  const text = JSON.stringify(input ?? {});
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

let midLine = false;
/** Writes one line, first ending streamed text that did not end its line. */
function line(text: string): void {
  process.stdout.write(`${midLine ? "\n" : ""}${text}\n`);
  midLine = false;
}

const commands = new Map<string, string>();

function show(event: RunEvent, depth = 0): void {
  const pad = "  ".repeat(depth);
  switch (event.kind) {
    case "assistant-text-delta":
      // A child's text reaches the parent as its tool result; only the coder's streams here.
      if (depth === 0 && event.text.length > 0) {
        process.stdout.write(event.text);
        midLine = !event.text.endsWith("\n");
      }
      break;
    case "tool-call":
      line(`${pad}-> ${event.toolCall.name} ${bounded(event.toolCall.input)}`);
      break;
    case "tool-permission":
      line(
        `${pad}   ${event.decision === "allow" ? "allowed" : "denied"} by ${event.decidedBy}${event.reason ? `: ${event.reason}` : ""}`,
      );
      break;
    case "tool-start":
      if (event.toolName === "exec_command") {
        commands.set(event.toolCallId, String((event.input as { command?: unknown }).command));
        line(`${pad}   running: ${commands.get(event.toolCallId)}`);
      }
      break;
    case "tool-end": {
      const text = event.result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      const report = readCommandReport(event);
      const child = readChildAgentReport(event);
      if (report) {
        const command = commands.get(event.toolCallId) ?? "(polled command)";
        if (report.state === "terminal") line(`${pad}   exit ${report.exitCode ?? "none"}: ${command}`);
        else line(`${pad}   still running: ${command}`);
      } else if (child) {
        line(`${pad}   reviewer ${child.status}: ${child.text.split("\n")[0] ?? ""}`);
      } else if (!event.result.isError) {
        line(`${pad}   done: ${event.toolName}`);
      }
      if (event.result.isError) line(`${pad}   error: ${text.slice(0, 200)}`);
      break;
    }
    case "hosted-tool-start":
      line(`${pad}-> ${event.toolName} ${bounded([...event.queries])}`);
      break;
    case "hosted-tool-end":
      line(`${pad}   ${event.toolName} ${event.ok ? `found ${event.sources.length} source(s)` : "failed"}`);
      break;
    case "child-event":
      if (event.event.kind === "run-start") line(`${pad}   [${event.childSessionId} started]`);
      else if (event.event.kind === "run-end") line(`${pad}   [${event.childSessionId} ended: ${event.event.status}]`);
      else show(event.event, depth + 2);
      break;
    case "run-interrupted":
      line(`${pad}(the earlier Run ${event.interruptedRunId} had stopped unsettled; it is now settled as interrupted)`);
      break;
    case "compaction-end":
      line(`${pad}(compacted: the older conversation is summarized, ${event.keptMessages} recent messages kept)`);
      break;
    default:
  }
}

let result: RunResult | undefined;
let failure: unknown;
try {
  const session = await runner.createSession({
    id: codingSessionId,
    params: { workspace: pathToFileURL(`${root}/`).href },
  });
  try {
    process.stdout.write(`Workspace: ${root}\nHistory: ${sessions}\n\n> ${prompt}\n\n`);
    const run = session.run(prompt, { signal: stop.signal });
    for await (const event of run) show(event);
    result = await run.result.catch((error: unknown) => {
      failure = error;
      return undefined;
    });
  } finally {
    // Waits for the Session's commands to end (an interrupted one is stopped) before closing.
    await session.close();
  }
} catch (error) {
  failure ??= error;
} finally {
  await runner.close();
}

if (result) line(`(done in ${result.turns} turn(s))`);
else if (midLine) process.stdout.write("\n");
if (interrupted) {
  process.stdout.write("The Run was stopped; run again to continue the Session.\n");
  process.exit(130);
}
if (failure) {
  // Errors of the binding name what failed (a refused token, a rate limit, ...) and never hold the token.
  process.stderr.write(`The Run failed: ${failure instanceof Error ? failure.message : String(failure)}\n`);
  process.exit(1);
}
