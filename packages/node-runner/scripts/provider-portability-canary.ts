// `npm run canary:portability`, or `node --env-file=.env.local packages/node-runner/scripts/provider-portability-canary.ts`:
// the provider portability canary, an opt-in live check that is never part of `npm test`. It packs
// the packages, installs only the tarballs into a temporary consumer, and runs a canary program
// there against real providers: one Agent ("canary.coder", a workspace() with commands, model
// "coding/primary") with that name bound to codex() in one Runner and to openrouter() in another.
// Each provider gets one Session (file store) with two Runs: an exec_command that prints a random
// marker, approved for exactly that input, then a question answered from history alone. Checked:
// every event and the result carry the Run's id, the final turn's text deltas and run-end equal the
// result text, the command's receipt shows it ran and printed the marker, the second answer holds it.
//
// Credentials (read from the environment; values are never printed):
//   codex       CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN; optional CASTELLAN_OPENAI_CODEX_MODEL (default
//               gpt-5-codex), CASTELLAN_OPENAI_CODEX_ACCOUNT_ID (sent as chatgpt-account-id),
//               CASTELLAN_OPENAI_CODEX_BASE_URL (default: the binding's)
//   openrouter  OPENROUTER_API_KEY and OPENROUTER_MODEL; optional OPENROUTER_BASE_URL
// A provider without its credentials is skipped (exit 0 when none is left), or fails with
// --require-live (exit 1). Exit 1 on any failed check, 2 on a usage error.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** A provider the canary runs. */
export type CanaryProvider = "codex" | "openrouter";

const providers: readonly CanaryProvider[] = ["codex", "openrouter"];

/** The variables a provider needs; a blank value counts as missing. */
const requiredVariables: Readonly<Record<CanaryProvider, readonly string[]>> = {
  codex: ["CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN"],
  openrouter: ["OPENROUTER_API_KEY", "OPENROUTER_MODEL"],
};

/** Values kept out of everything printed, should a provider's error ever echo one. */
const secretVariables = [
  "CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN",
  "CASTELLAN_OPENAI_CODEX_ACCOUNT_ID",
  "OPENROUTER_API_KEY",
];

/** The longest the canary program may take before it is stopped and counted as failed. */
const programTimeoutMs = 20 * 60_000;

const usage = `usage: node packages/node-runner/scripts/provider-portability-canary.ts [--provider=codex|openrouter] [--require-live]

  --provider=NAME   run only this provider (default: codex and openrouter)
  --require-live    fail (exit 1) when a selected provider has no credentials, instead of skipping it
  --help            print this text

codex needs CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN (optional CASTELLAN_OPENAI_CODEX_MODEL,
CASTELLAN_OPENAI_CODEX_ACCOUNT_ID, CASTELLAN_OPENAI_CODEX_BASE_URL); openrouter needs
OPENROUTER_API_KEY and OPENROUTER_MODEL (optional OPENROUTER_BASE_URL).
`;

interface Arguments {
  readonly providers: readonly CanaryProvider[];
  readonly requireLive: boolean;
}

function parseArguments(args: readonly string[]): Arguments | "help" | { readonly error: string } {
  let selected: CanaryProvider | undefined;
  let requireLive = false;
  for (const arg of args) {
    if (arg === "--help" || arg === "-h") return "help";
    if (arg === "--require-live") {
      requireLive = true;
    } else if (arg.startsWith("--provider=")) {
      const value = arg.slice("--provider=".length);
      const provider = providers.find((name) => name === value);
      if (!provider) return { error: `unknown provider "${value}"; the providers are ${providers.join(", ")}.` };
      if (selected !== undefined && selected !== provider) return { error: "--provider may be given once." };
      selected = provider;
    } else {
      return { error: `unknown argument "${arg}".` };
    }
  }
  return { providers: selected ? [selected] : providers, requireLive };
}

function missingVariables(provider: CanaryProvider): string[] {
  return requiredVariables[provider].filter((name) => !process.env[name]?.trim());
}

function describeMissing(names: readonly string[]): string {
  return names.length === 1 ? `${names[0]} is not set` : `${names.join(" and ")} are not set`;
}

function redact(text: string): string {
  let result = text;
  for (const name of secretVariables) {
    const value = process.env[name]?.trim();
    if (value && value.length >= 4) result = result.split(value).join("[redacted]");
  }
  return result;
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // A failed child process (npm, tsc) says what it printed; the compiler's diagnostics go to stdout.
  // (tsc --listFiles also lists every file it read: those lines are left out.)
  const output = error as Error & { stdout?: unknown; stderr?: unknown };
  const printed = [output.stdout, output.stderr]
    .filter((text): text is string => typeof text === "string")
    .flatMap((text) => text.split("\n"))
    .filter((line) => line.trim() !== "" && !/^(\/|[A-Za-z]:[\\/]).*\.[cm]?ts$/.test(line.trim()));
  return [error.message, ...printed].join("\n").trim();
}

/** Packs the packages, installs them into a temporary consumer, and runs the canary program there. */
async function runLive(ready: readonly CanaryProvider[]): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let scratch: string | undefined;
  let removeConsumer: (() => Promise<void>) | undefined;
  try {
    scratch = await realpath(await mkdtemp(join(tmpdir(), "castellan-canary-")));
    const workspaceDirectory = join(scratch, "workspace");
    const sessionsDirectory = join(scratch, "sessions");
    await mkdir(workspaceDirectory);
    await mkdir(sessionsDirectory);
    process.stdout.write("canary: packing the packages and installing the tarballs into a temporary consumer\n");
    const { createPackedConsumer } = await import("../../../examples/test-support/pack.ts");
    const packed = await createPackedConsumer([]);
    removeConsumer = packed.remove;
    if (stop.signal.aborted) return 130;
    await writeFile(join(packed.directory, "canary.ts"), canaryProgram);
    process.stdout.write("canary: typechecking the canary program against the packed type declarations\n");
    await packed.typecheck();
    if (stop.signal.aborted) return 130;
    return await runProgram(packed.directory, stop.signal, {
      CANARY_PROVIDERS: ready.join(","),
      CANARY_WORKSPACE: workspaceDirectory,
      CANARY_SESSIONS: sessionsDirectory,
    });
  } catch (error) {
    if (stop.signal.aborted) return 130;
    process.stderr.write(`FAILED: setup: ${redact(errorText(error))}\n`);
    return 1;
  } finally {
    await removeConsumer?.();
    if (scratch) await rm(scratch, { recursive: true, force: true });
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** Runs canary.ts in the consumer with Node's type stripping, passing on its lines redacted; resolves to its exit code. */
function runProgram(directory: string, signal: AbortSignal, settings: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["canary.ts"], {
      cwd: directory,
      env: { ...process.env, ...settings },
      stdio: ["ignore", "pipe", "pipe"],
      signal,
      timeout: programTimeoutMs,
    });
    const relay = (stream: NodeJS.ReadableStream, to: NodeJS.WriteStream) => {
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
        to.write(`${redact(line)}\n`);
      });
    };
    relay(child.stdout, process.stdout);
    relay(child.stderr, process.stderr);
    child.on("error", (error) => {
      if (!signal.aborted) process.stderr.write(`FAILED: the canary program: ${redact(errorText(error))}\n`);
    });
    child.on("close", (code, killedBy) => {
      if (signal.aborted) return resolve(130);
      if (code === null) {
        process.stderr.write(`FAILED: the canary program was stopped (${killedBy ?? "no signal"}).\n`);
        return resolve(1);
      }
      resolve(code === 0 ? 0 : 1);
    });
  });
}

// The canary program, written into the consumer as canary.ts: it imports only the installed
// tarballs. It is typechecked there against their declarations before it runs. (No backticks or
// template placeholders inside: it is one template literal here.)
const canaryProgram = `// The provider portability canary's program (written by provider-portability-canary.ts into a
// consumer of the packed packages). One Agent, one model name, one Runner per provider.
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { defineAgent, type ModelBinding, type RunEvent, type RunResult } from "@castellan/harness";
import { codex } from "@castellan/models/codex";
import { openrouter } from "@castellan/models/openrouter";
import {
  checkSandboxDependencies,
  createFileSessionStore,
  createNodeRunner,
  type NodeRunnerPlugin,
  type Session,
  type ToolApprovalAnswer,
  type ToolApprovalRequest,
  workspace,
} from "@castellan/node-runner";

type Provider = "codex" | "openrouter";

const env = process.env;
const setting = (name: string): string => {
  const value = env[name]?.trim();
  if (!value) throw new Error(name + " is not set.");
  return value;
};
const optional = (name: string): string | undefined => env[name]?.trim() || undefined;
const secrets = ["CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN", "CASTELLAN_OPENAI_CODEX_ACCOUNT_ID", "OPENROUTER_API_KEY"]
  .map((name) => env[name]?.trim() ?? "")
  .filter((value) => value.length >= 4);
const redact = (text: string): string => secrets.reduce((result, secret) => result.split(secret).join("[redacted]"), text);
const say = (line: string): void => {
  process.stdout.write(redact(line) + "\\n");
};
const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return (typeof code === "string" ? code + ": " : "") + error.message;
};

const selected = setting("CANARY_PROVIDERS")
  .split(",")
  .filter((name): name is Provider => name === "codex" || name === "openrouter");
const root = pathToFileURL(setting("CANARY_WORKSPACE") + "/");
const sessions = pathToFileURL(setting("CANARY_SESSIONS") + "/");
const runTimeoutMs = 5 * 60_000;

let sandbox: "os" | "none" = "os";
try {
  checkSandboxDependencies();
  say("canary: commands run in the OS sandbox (sandbox: \\"os\\")");
} catch (error) {
  sandbox = "none";
  say("note: the OS sandbox is unavailable here (" + describe(error) + "); commands run with sandbox: \\"none\\"");
}

// The one Agent of every provider's Session: only the registered binding of "coding/primary" differs.
const Coder = defineAgent("canary.coder", {
  model: "coding/primary",
  instructions:
    "You are the Castellan provider portability canary. Do exactly what the user asks, call a tool only when asked to, and keep replies to one short sentence.",
  capabilities: [workspace({ root, sandbox, commands: { executionTimeoutMs: 30_000 } })],
});

function binding(provider: Provider): ModelBinding {
  if (provider === "codex") {
    const accountId = optional("CASTELLAN_OPENAI_CODEX_ACCOUNT_ID");
    const baseURL = optional("CASTELLAN_OPENAI_CODEX_BASE_URL");
    return codex({
      accessToken: setting("CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN"),
      model: optional("CASTELLAN_OPENAI_CODEX_MODEL") ?? "gpt-5-codex",
      ...(accountId ? { headers: { "chatgpt-account-id": accountId } } : {}),
      ...(baseURL ? { baseURL } : {}),
    });
  }
  const baseURL = optional("OPENROUTER_BASE_URL");
  return openrouter({
    apiKey: setting("OPENROUTER_API_KEY"),
    model: setting("OPENROUTER_MODEL"),
    appName: "Castellan portability canary",
    ...(baseURL ? { baseURL } : {}),
  });
}

interface Observed {
  readonly runId: string;
  readonly events: readonly RunEvent[];
  readonly result: RunResult | undefined;
  readonly error: unknown;
}

async function observe(session: Session, input: string, started: (runId: string) => void): Promise<Observed> {
  const run = session.run(input, { signal: AbortSignal.timeout(runTimeoutMs) });
  started(run.id);
  const events: RunEvent[] = [];
  for await (const event of run) events.push(event);
  try {
    return { runId: run.id, events, result: await run.result, error: undefined };
  } catch (error) {
    return { runId: run.id, events, result: undefined, error };
  }
}

/** The identity and text checks every Run must pass; returns what failed, or the result. */
function checkRun(label: string, observed: Observed, problems: string[]): RunResult | undefined {
  const { runId, events, result } = observed;
  if (!result) {
    problems.push(label + " failed: " + describe(observed.error));
    return undefined;
  }
  if (result.runId !== runId) problems.push(label + ": result.runId " + result.runId + " is not run.id " + runId);
  const foreign = events.filter((event) => event.runId !== runId);
  if (foreign.length > 0) problems.push(label + ": " + foreign.length + " event(s) carry another runId than run.id");
  const ends = events.filter((event) => event.kind === "run-end");
  const end = ends[0];
  if (ends.length !== 1 || events.at(-1) !== end) {
    problems.push(label + ": expected one run-end event, last; got " + ends.length);
  } else if (end?.kind === "run-end" && end.status === "completed") {
    if (end.result.runId !== runId) problems.push(label + ": the run-end result's runId is not run.id");
    if (end.result.text !== result.text) problems.push(label + ": the run-end result's text differs from result.text");
  } else {
    problems.push(label + ": run-end is not completed");
  }
  let finalTurn: number | undefined;
  for (const event of events) if (event.kind === "assistant-message") finalTurn = event.turn;
  if (finalTurn === undefined) {
    problems.push(label + ": no assistant-message event");
  } else {
    let streamed = "";
    for (const event of events) {
      if (event.kind === "assistant-text-delta" && event.turn === finalTurn) streamed += event.text;
    }
    if (streamed !== result.text) {
      problems.push(
        label + ": the final turn's streamed text (" + streamed.length + " chars) differs from result.text (" + result.text.length + " chars)",
      );
    }
  }
  if (result.text.trim() === "") problems.push(label + ": the final answer has no text");
  if (result.truncated) problems.push(label + ": the final answer was cut off (stopReason " + result.stopReason + ")");
  return result;
}

/** Whether a tool-end of exec_command shows the command ran to exit 0 and printed the marker. */
function ranMarker(event: RunEvent, marker: string): boolean {
  if (event.kind !== "tool-end" || event.toolName !== "exec_command" || event.result.isError) return false;
  const block = event.result.content[0];
  if (block?.type !== "text") return false;
  try {
    const report = JSON.parse(block.text) as {
      type?: unknown;
      state?: unknown;
      outcome?: unknown;
      exitCode?: unknown;
      stdout?: { text?: unknown };
    };
    return (
      report.type === "command-session-report" &&
      report.state === "terminal" &&
      report.outcome === "exit" &&
      report.exitCode === 0 &&
      typeof report.stdout?.text === "string" &&
      report.stdout.text.includes(marker)
    );
  } catch {
    return false;
  }
}

function execSummary(events: readonly RunEvent[]): string {
  const ends = events.filter((event) => event.kind === "tool-end");
  if (ends.length === 0) return "no tool was called";
  return ends
    .map((event) => {
      if (event.kind !== "tool-end") return "";
      const first = event.result.content[0];
      const text = first?.type === "text" ? first.text : "";
      return event.toolName + (event.result.isError ? " (error: " + text.slice(0, 160) + ")" : " (" + text.slice(0, 160) + ")");
    })
    .join(", ");
}

async function canary(provider: Provider): Promise<boolean> {
  const marker = "castellan-canary-" + randomBytes(8).toString("hex");
  const command = "echo " + marker;
  const problems: string[] = [];
  const denied: string[] = [];
  let approved = 0;
  let execRunId: string | undefined;
  let turns = 0;
  // Approves exactly { command } (or with workdir "."), in the first Run only; anything else is denied.
  const approve = async (request: ToolApprovalRequest): Promise<ToolApprovalAnswer> => {
    const input = request.input;
    const fields =
      input !== null && typeof input === "object" && !Array.isArray(input)
        ? (input as { readonly [key: string]: unknown })
        : undefined;
    const exact =
      request.toolName === "exec_command" &&
      request.runId === execRunId &&
      fields !== undefined &&
      fields.command === command &&
      Object.keys(fields).every((key) => key === "command" || (key === "workdir" && fields.workdir === "."));
    if (exact) {
      approved++;
      return { decision: "allow", reason: "the canary's marker command" };
    }
    denied.push(request.toolName + " " + JSON.stringify(request.input).slice(0, 200));
    return { decision: "deny", reason: "The canary approves only the exact command it asked for." };
  };
  let model: ModelBinding;
  try {
    model = binding(provider);
    say("canary: " + provider + ": " + model.specifier);
    if (provider === "openrouter") {
      const entry = await (model as ReturnType<typeof openrouter>).check({ signal: AbortSignal.timeout(60_000) });
      if (!entry.tools) throw new Error("OpenRouter's catalog says " + entry.id + " does not support tools.");
    }
  } catch (error) {
    say("FAILED: " + provider + ": " + describe(error));
    return false;
  }
  const host: NodeRunnerPlugin = {
    name: "canary.host",
    apply(registry) {
      registry.registerModel("coding/primary", model);
      registry.registerSessionStore(createFileSessionStore({ directory: sessions }));
      registry.registerApproval({ request: approve });
    },
  };
  try {
    const runner = await createNodeRunner({
      agent: Coder,
      permissions: "ask-on-write",
      plugins: [host],
      limits: { maxTurns: 12 },
    });
    try {
      const session = await runner.createSession({ id: "canary-" + provider });
      try {
        const first = await observe(
          session,
          "Call the exec_command tool once with exactly this command and no other fields: " +
            command +
            "\\nThen reply with one short sentence saying what it printed.",
          (runId) => {
            execRunId = runId;
          },
        );
        const firstResult = checkRun("run 1", first, problems);
        turns += firstResult?.turns ?? 0;
        if (!first.events.some((event) => ranMarker(event, marker))) {
          problems.push(
            "run 1: no exec_command receipt ran the marker command and printed the marker (" +
              execSummary(first.events) +
              ")",
          );
        }
        if (approved === 0) problems.push("run 1: the approval adapter was never asked about the marker command");
        const second = await observe(
          session,
          "Without calling any tool: what exact marker did the command you ran earlier in this conversation print? Reply with the marker only.",
          () => undefined,
        );
        const secondResult = checkRun("run 2", second, problems);
        turns += secondResult?.turns ?? 0;
        if (secondResult && !secondResult.text.includes(marker)) {
          problems.push("run 2: the answer does not contain the marker: " + JSON.stringify(secondResult.text.slice(0, 200)));
        }
        if (second.runId === first.runId) problems.push("run 2 has the id of run 1");
      } finally {
        await session.close();
      }
    } finally {
      await runner.close();
    }
  } catch (error) {
    problems.push(describe(error));
  }
  if (denied.length > 0) say("canary: " + provider + ": denied " + denied.length + " call(s): " + denied.join("; "));
  if (problems.length > 0) {
    say("FAILED: " + provider + ": " + problems.join("; "));
    return false;
  }
  say("ok: " + provider + " (2 runs, " + turns + " turns)");
  return true;
}

let failed = selected.length === 0;
for (const provider of selected) {
  if (!(await canary(provider))) failed = true;
}
process.exitCode = failed ? 1 : 0;
`;

const parsed = parseArguments(process.argv.slice(2));
if (parsed === "help") {
  process.stdout.write(usage);
} else if ("error" in parsed) {
  process.stderr.write(`${parsed.error}\n${usage}`);
  process.exitCode = 2;
} else {
  const ready: CanaryProvider[] = [];
  const unmet: string[] = [];
  for (const provider of parsed.providers) {
    const missing = missingVariables(provider);
    if (missing.length === 0) ready.push(provider);
    else unmet.push(`${provider}: ${describeMissing(missing)}`);
  }
  if (parsed.requireLive && unmet.length > 0) {
    for (const line of unmet) process.stderr.write(`FAILED: ${line} (--require-live needs live credentials)\n`);
    process.exitCode = 1;
  } else {
    for (const line of unmet) process.stdout.write(`skipped: ${line}\n`);
    process.exitCode = ready.length === 0 ? 0 : await runLive(ready);
  }
}
