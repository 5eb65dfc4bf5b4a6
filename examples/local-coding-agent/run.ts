// The coding agent on the deterministic mock model, composed with the public createNodeRunner
// API: a file Session store, the mock bound as "coding/primary", the hosted web search, a
// permission hook that only lets the project's tests run, approvals, and automatic compaction.
//
//   node run.ts [--workspace DIR] [--sessions DIR] [--sandbox os|none] [--approve|--deny] "prompt"
//
// Without --workspace it works on a fresh temporary copy of sample-project/. Run it again with
// the same --workspace (and --sessions) to continue the saved Session in a new process.
import { cp, mkdtemp, realpath, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { JsonValue, RunEvent, RunResult } from "@castellan/harness";
import {
  createFileSessionStore,
  createNodeRunner,
  type NodeRunnerPlugin,
  readChildAgentReport,
  readCommandReport,
  type ToolApprovalRequest,
  type ToolPermissionHook,
  terminalApproval,
} from "@castellan/node-runner";
import { codingAgents, codingModel, codingSessionId } from "./agent.ts";
import { mockCodingModel } from "./mock-model.ts";

const usage = 'usage: node run.ts [--workspace DIR] [--sessions DIR] [--sandbox os|none] [--approve|--deny] "prompt"';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    workspace: { type: "string" },
    sessions: { type: "string" },
    sandbox: { type: "string", default: "os" },
    approve: { type: "boolean", default: false },
    deny: { type: "boolean", default: false },
  },
});
const sandbox = values.sandbox;
if (sandbox !== "os" && sandbox !== "none") throw new Error(`--sandbox must be "os" or "none".\n${usage}`);
if (values.approve && values.deny) throw new Error(`Give --approve or --deny, not both.\n${usage}`);
const prompt = positionals.join(" ").trim() || "Fix the bug described in docs/ISSUE.md.";

/** The project to work on: the given directory, or a fresh copy of the sample project. */
async function workspaceDirectory(): Promise<string> {
  if (values.workspace) {
    const directory = await realpath(resolve(values.workspace));
    if (!(await stat(directory)).isDirectory()) throw new Error(`--workspace ${values.workspace} is not a directory.`);
    return directory;
  }
  const copy = join(await realpath(await mkdtemp(join(tmpdir(), "castellan-sample-"))), "sample-project");
  await cp(fileURLToPath(new URL("./sample-project/", import.meta.url)), copy, { recursive: true });
  process.stdout.write(`Working on a fresh copy of sample-project/ at ${copy}\n`);
  return copy;
}

const root = await workspaceDirectory();
const sessions = resolve(values.sessions ?? join(root, ".castellan-sessions"));

/** A call's input for one line of output: compact JSON, cut at 160 characters. */
function bounded(input: JsonValue | undefined): string {
  const text = JSON.stringify(input ?? {});
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

// The example's policy: only the project's tests may run, and nothing may outlive a Run.
const onlyTests: ToolPermissionHook = (request) => {
  if (request.toolName !== "exec_command") return "defer";
  const input = request.input as { command?: unknown; lifetime?: unknown };
  if (input.command !== "npm test" || input.lifetime === "session") {
    return { decision: "deny", reason: "this example only runs the project's tests" };
  }
  return "defer";
};

/** --approve / --deny: answers every request the same way, printing it as it is answered. */
function scriptedApproval(decision: "allow" | "deny"): NodeRunnerPlugin {
  return {
    name: "example.approval",
    apply: (host) =>
      host.registerApproval({
        request: async (request: ToolApprovalRequest) => {
          const who = request.parent ? ` (in ${request.agent.id})` : "";
          process.stdout.write(`  approval: ${request.toolName}${who} ${bounded(request.input)} -> ${decision}\n`);
          return decision === "allow" ? { decision } : { decision, reason: "denied with --deny" };
        },
      }),
  };
}

const { coder } = codingAgents({ sandbox });
const store = createFileSessionStore({ directory: pathToFileURL(`${sessions}/`) });
const runner = await createNodeRunner({
  agent: coder,
  permissions: "ask-on-write",
  // Small on purpose, so that the flow shows an automatic compaction. Its threshold (80% of
  // 4,425 tokens, about 3,540) sits midway between the request before turn 8 and the one before
  // turn 9 (about 3,450 and 3,630 tokens measured, --sandbox os being some 35 tokens larger for
  // its sandbox rule): the compaction comes at the same point in both modes.
  contextBudget: { contextWindow: 4_925, reserveOutputTokens: 500, keepRecent: 0.1 },
  plugins: [
    {
      name: "example.composition",
      apply: (host) => {
        host.registerModel(codingModel, mockCodingModel());
        host.registerHostedTool({ name: "web_search", hosted: { kind: "web-search", maxUses: 3 } });
        host.registerSessionStore(store);
        host.hooks.toolPermission(onlyTests);
      },
    },
    values.approve ? scriptedApproval("allow") : values.deny ? scriptedApproval("deny") : terminalApproval(),
  ],
});

const stop = new AbortController();
let interrupted = false;
process.on("SIGINT", () => {
  if (interrupted) return;
  interrupted = true;
  process.stdout.write("\nInterrupted: stopping the Run and its commands...\n");
  stop.abort();
});

/** What the Run's events show, for the closing summary. */
const seen = {
  files: new Set<string>(),
  commands: [] as string[],
  verdict: undefined as string | undefined,
  skills: new Set<string>(),
  compactions: 0,
};
const pendingCommands = new Map<string, string>();

function patchedFiles(patch: unknown): string[] {
  if (typeof patch !== "string") return [];
  return [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((match) => match[1] as string);
}

function show(event: RunEvent, depth = 0): void {
  const pad = "  ".repeat(depth);
  switch (event.kind) {
    case "tool-call":
      process.stdout.write(`${pad}-> ${event.toolCall.name} ${bounded(event.toolCall.input)}\n`);
      break;
    case "tool-permission":
      process.stdout.write(
        `${pad}  ${event.decision === "allow" ? "allowed" : "denied"} by ${event.decidedBy}${event.reason ? `: ${event.reason}` : ""}\n`,
      );
      break;
    case "tool-start":
      if (event.toolName === "exec_command") {
        pendingCommands.set(event.toolCallId, String((event.input as { command?: unknown }).command));
      }
      break;
    case "tool-end": {
      const text = event.result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      const report = readCommandReport(event);
      const child = readChildAgentReport(event);
      if (report) {
        const command = pendingCommands.get(event.toolCallId) ?? "(polled command)";
        if (report.state === "terminal") {
          process.stdout.write(`${pad}  exit ${report.exitCode ?? "none"}: ${command}\n`);
          if (depth === 0) seen.commands.push(`${command} (exit ${report.exitCode ?? "none"})`);
        } else {
          process.stdout.write(`${pad}  still running: ${command}\n`);
        }
      } else if (event.toolName === "apply_workspace_patch" && !event.result.isError && depth === 0) {
        process.stdout.write(`${pad}  patch applied\n`);
      } else if (event.toolName === "activate_skill" && !event.result.isError) {
        process.stdout.write(`${pad}  skill activated\n`);
      } else if (child) {
        seen.verdict = child.text.split("\n")[0];
        process.stdout.write(`${pad}  reviewer ${child.status}: ${seen.verdict ?? ""}\n`);
      }
      if (event.result.isError) process.stdout.write(`${pad}  error: ${text.slice(0, 200)}\n`);
      break;
    }
    case "child-event":
      if (event.event.kind === "run-start") process.stdout.write(`${pad}  [child ${event.childSessionId} started]\n`);
      if (event.event.kind === "run-end") {
        process.stdout.write(`${pad}  [child ${event.childSessionId} ended: ${event.event.status}]\n`);
      } else show(event.event, depth + 2);
      break;
    case "compaction-start":
      process.stdout.write(`${pad}(compacting the conversation)\n`);
      break;
    case "compaction-end":
      seen.compactions += 1;
      process.stdout.write(
        `${pad}(compacted: the older conversation is summarized, ${event.keptMessages} recent messages kept)\n`,
      );
      break;
    case "state-changed":
      for (const skill of (event.changes["castellan.skills.active"] as { name?: string }[] | undefined) ?? []) {
        if (skill?.name) seen.skills.add(skill.name);
      }
      break;
    default:
  }
}

let result: RunResult | undefined;
let failure: unknown;
const session = await runner.createSession({
  id: codingSessionId,
  params: { workspace: pathToFileURL(`${root}/`).href },
});
try {
  process.stdout.write(`\n> ${prompt}\n\n`);
  const run = session.run(prompt, { signal: stop.signal });
  let answer = "";
  for await (const event of run) {
    show(event);
    if (event.kind === "assistant-text-delta") answer += event.text;
    if (event.kind === "tool-call" || event.kind === "turn-start") answer = "";
    if (event.kind === "tool-start" && event.toolName === "apply_workspace_patch") {
      for (const file of patchedFiles((event.input as { patch?: unknown }).patch)) seen.files.add(file);
    }
  }
  result = await run.result.catch((error: unknown) => {
    failure = error;
    return undefined;
  });
  if (result) process.stdout.write(`\n${answer.trim() || result.text}\n`);
} finally {
  await session.close();
  await runner.close();
}

process.stdout.write("\n--- summary ---\n");
process.stdout.write(`files changed: ${[...seen.files].join(", ") || "none"}\n`);
process.stdout.write(`commands: ${seen.commands.join("; ") || "none"}\n`);
process.stdout.write(`reviewer: ${seen.verdict ?? "not asked"}\n`);
process.stdout.write(`skills used: ${[...seen.skills].join(", ") || "none"}\n`);
process.stdout.write(`compactions: ${seen.compactions}, turns: ${result?.turns ?? "unfinished"}\n`);
process.stdout.write(`history: ${join(sessions, `${encodeURIComponent(codingSessionId)}.jsonl`)}\n`);

if (interrupted) process.exit(130);
if (failure) {
  process.stderr.write(`The Run failed: ${failure instanceof Error ? failure.message : String(failure)}\n`);
  process.exit(1);
}
