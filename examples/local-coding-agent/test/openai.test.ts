// openai.ts as a consumer runs it, against a loopback stand-in for the Responses API: the packed
// packages installed outside the workspace, a copy of the sample project as the workspace, and
// each `node openai.ts` a separate OS process whose approval prompts (stderr) are answered on
// stdin. It checks the tools and search the request binds, the skill's loading, the approved
// patch and commands (in bubblewrap), the restart from history, the Ctrl+C cleanup, and that the
// access token appears nowhere but in the Authorization header.
import { randomBytes, randomInt } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpFixture } from "../../../packages/models/test/support/http-fixture.ts";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { exec, type PackedConsumer } from "../../test-support/pack.ts";
import {
  createExampleConsumer,
  exampleDirectory,
  type Logged,
  resultText,
  sampleCopy,
  sessionRecords,
} from "./consumer.ts";
import {
  type AgentProcess,
  approvalQuestion,
  exitWithin,
  killAgentProcesses,
  startAgent,
} from "./openai-support/agent-process.ts";
import {
  bodies,
  type InputItem,
  outputText,
  type ResponsesBody,
  type Script,
  startResponsesServer,
  textOfContent,
} from "./openai-support/responses-server.ts";

const token = `test-token-${randomBytes(12).toString("hex")}`;
const accountId = `acct-${randomBytes(4).toString("hex")}`;
// A duration no other process on the machine has in its arguments.
const sleepCommand = `sleep 299.${randomInt(100_000, 999_999)}`;

const prompts = {
  fix: "Fix the bug described in docs/ISSUE.md.",
  ask: "What did you change?",
  remove: "Delete the tests.",
  long: "Run the long check.",
  again: "Are you still there?",
} as const;

const patch = [
  "*** Begin Patch",
  "*** Update File: src/cart.js",
  "@@",
  "-  return items.reduce((sum, item) => sum + item.price, 0);",
  "+  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);",
  "*** End Patch",
].join("\n");

let packed: PackedConsumer;
let server: HttpFixture;
let project: { readonly directory: string; remove(): Promise<void> };
let scratch: string;
let sessions: string;
let outside: string;
let probeTarget: string;
const agents: AgentProcess[] = [];

function script(): Script {
  return {
    afterPrompt: {
      [prompts.fix]: { call: "activate_skill", callId: "call_skill", arguments: { name: "change-report" } },
      [prompts.ask]: { text: "I changed src/cart.js: each line item now counts its quantity." },
      [prompts.remove]: { call: "exec_command", callId: "call_rm", arguments: { command: "rm -rf test" } },
      [prompts.long]: { call: "exec_command", callId: "call_sleep", arguments: { command: sleepCommand } },
      [prompts.again]: { text: "Yes: the long check was stopped." },
    },
    afterOutput: {
      call_skill: { call: "apply_workspace_patch", callId: "call_patch", arguments: { patch } },
      call_patch: { call: "exec_command", callId: "call_test", arguments: { command: "npm test" } },
      // Writes outside the workspace: refused by the OS sandbox.
      call_test: {
        call: "exec_command",
        callId: "call_probe",
        arguments: { command: `echo escaped > ${probeTarget}` },
      },
      // What a command's environment holds: neither the token nor any CASTELLAN_* variable.
      call_probe: { call: "exec_command", callId: "call_env", arguments: { command: "env" } },
      call_env: { text: "Fixed src/cart.js; npm test passes." },
      call_sleep: { text: "The long check ended." },
    },
  };
}

beforeAll(async () => {
  scratch = await realpath(await mkdtemp(join(tmpdir(), "castellan-openai-test-")));
  sessions = join(scratch, "sessions");
  outside = join(scratch, "outside");
  probeTarget = join(outside, "escape.txt");
  await mkdir(outside);
  project = await sampleCopy();
  server = await startResponsesServer(script());
  packed = await createExampleConsumer();
}, 300_000);

afterAll(async () => {
  killAgentProcesses();
  await server?.close();
  await project?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  if (packed) await packed.remove();
});

/** The environment of one `node openai.ts`: this one's, without any CASTELLAN_* of its own, plus the test's. */
function agentEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("CASTELLAN_")));
  return {
    ...env,
    CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN: token,
    CASTELLAN_OPENAI_CODEX_BASE_URL: `${server.url}/backend-api/codex`,
    CASTELLAN_WORKSPACE: project.directory,
    CASTELLAN_SESSION_DIRECTORY: sessions,
    ...extra,
  };
}

function run(prompt: string, extra: Record<string, string> = {}): AgentProcess {
  const agent = startAgent({ cwd: packed.directory, env: agentEnv(extra), prompt });
  agents.push(agent);
  return agent;
}

const records = () => sessionRecords(sessions);

/** The receipt of one tool call in the log. */
async function receipt(toolCallId: string): Promise<Logged> {
  const found = (await records()).find((record) => record.kind === "tool-end" && record.toolCallId === toolCallId);
  if (!found) throw new Error(`No receipt for ${toolCallId} in the Session log.`);
  return found;
}

/** What the tests read of an `exec_command` report. */
interface CommandReport {
  readonly state: string;
  readonly outcome?: string;
  readonly exitCode: number | null;
  readonly stderr: { readonly text: string };
}

/** The command report of an `exec_command` receipt. */
async function commandReport(toolCallId: string): Promise<CommandReport> {
  return JSON.parse(resultText(await receipt(toolCallId)));
}

function outputs(body: ResponsesBody): Map<string, string> {
  return new Map(
    body.input
      .filter((item) => item.type === "function_call_output")
      .map((item) => [item.call_id ?? "", outputText(item)] as const),
  );
}

function userTexts(body: ResponsesBody): string[] {
  return body.input.filter((item: InputItem) => item.role === "user").map((item) => textOfContent(item.content));
}

/** The processes of the long command (its shell, bubblewrap, sleep) still alive. */
async function liveSleepers(): Promise<string[]> {
  const { stdout } = await exec("ps", ["-eo", "pid,args"]);
  return stdout.split("\n").filter((line) => line.includes(sleepCommand));
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** The local files a module imports (relative specifiers), transitively, with every specifier each one names. */
async function importsOf(file: string, seen = new Map<string, string[]>()): Promise<Map<string, string[]>> {
  if (seen.has(file)) return seen;
  const text = await readFile(file, "utf8");
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm),
    ...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
    ...text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g),
  ].map((match) => match[1] as string);
  seen.set(file, specifiers);
  for (const specifier of specifiers) {
    if (specifier.startsWith(".")) await importsOf(join(dirname(file), specifier), seen);
  }
  return seen;
}

describe("openai.ts's configuration", () => {
  it("openai-agent.ts imports no @castellan/models module, directly or through agent.ts", async () => {
    const found = await importsOf(join(exampleDirectory, "openai-agent.ts"));
    expect([...found.keys()].map((file) => file.slice(exampleDirectory.length)).sort()).toEqual([
      "agent.ts",
      "openai-agent.ts",
    ]);
    expect(found.get(join(exampleDirectory, "openai-agent.ts"))).toContain("./agent.ts");
    const all = [...found.values()].flat();
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((specifier) => specifier.startsWith("@castellan/models"))).toEqual([]);
    // openai.ts is where the provider is bound.
    expect((await importsOf(join(exampleDirectory, "openai.ts"))).get(join(exampleDirectory, "openai.ts"))).toContain(
      "@castellan/models/codex",
    );
  });

  it("refuses to start without the token, or with an http: base URL off loopback, naming the variable only", async () => {
    const missing = run(prompts.fix, { CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN: "" });
    expect(await exitWithin(missing, 60_000)).toEqual({ code: 2, signal: null });
    expect(missing.output.stderr).toContain("CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN");
    const remote = run(prompts.fix, { CASTELLAN_OPENAI_CODEX_BASE_URL: "http://example.com/v1" });
    expect(await exitWithin(remote, 60_000)).toEqual({ code: 2, signal: null });
    expect(remote.output.stderr).toContain("CASTELLAN_OPENAI_CODEX_BASE_URL");
    expect(remote.output.stderr).not.toContain(token);
    const notADirectory = run(prompts.fix, { CASTELLAN_WORKSPACE: join(scratch, "nowhere") });
    expect(await exitWithin(notADirectory, 60_000)).toEqual({ code: 2, signal: null });
    expect(notADirectory.output.stderr).toContain("CASTELLAN_WORKSPACE");
    // None of them sent anything or saved a Session.
    expect(server.requests).toEqual([]);
    expect(existsSync(sessions)).toBe(false);
  }, 120_000);
});

/** The SKILL.md body: what activate_skill loads, without its front matter. */
async function skillBody(): Promise<string> {
  const text = await readFile(join(exampleDirectory, "skills", "change-report", "SKILL.md"), "utf8");
  return text.replace(/^---\n[\s\S]*?\n---\n/, "").trim();
}

/** The requests one process sent: those after the first `before` of them. */
function sentSince(before: number): ResponsesBody[] {
  return bodies(server).slice(before);
}

describeNeeding(osSandboxPrograms, "openai.ts against a loopback Responses API, commands in bubblewrap", () => {
  it("binds the tools and search, loads the skill, and runs the approved patch and commands in the sandbox", async () => {
    const first = run(prompts.fix, {
      CASTELLAN_OPENAI_CODEX_ACCOUNT_ID: accountId,
      CASTELLAN_SANDBOX_ALLOWED_DOMAINS: " registry.npmjs.org, ,example.com,",
    });
    expect(await exitWithin(first, 120_000), first.output.stderr).toEqual({ code: 0, signal: null });
    const sent = sentSince(0);
    expect(sent).toHaveLength(6);

    // Tool and search binding: the first request, as the codex binding sends it to the base URL.
    const request = server.requests[0];
    expect(request?.path).toBe("/backend-api/codex/responses");
    expect(request?.headers.authorization).toBe(`Bearer ${token}`);
    expect(request?.headers["chatgpt-account-id"]).toBe(accountId);
    const body = sent[0] as ResponsesBody;
    expect(body.model).toBe("gpt-5-codex");
    const functions = (body.tools ?? []).filter((tool) => tool.type === "function").map((tool) => tool.name);
    expect(functions).toEqual(
      expect.arrayContaining([
        "list_workspace",
        "search_workspace",
        "read_workspace_file",
        "edit_workspace_file",
        "apply_workspace_patch",
        "exec_command",
        "command_session",
        "activate_skill",
        "read_skill_resource",
        "agent_example_reviewer",
      ]),
    );
    // No docs server here: the docs are read with the workspace tools.
    expect(functions.filter((name) => name?.startsWith("mcp__"))).toEqual([]);
    expect((body.tools ?? []).filter((tool) => tool.type !== "function")).toEqual([
      { type: "web_search", filters: { allowed_domains: ["registry.npmjs.org", "example.com"] } },
    ]);
    expect(body.instructions).toContain(
      `docs/ folder, ${project.directory}/docs/; read them with the workspace tools.`,
    );

    // Skill loading: listed first, its body in the instructions from the turn after activate_skill.
    expect(body.instructions).toMatch(/^## skills\n\n- change-report: /m);
    expect(body.instructions).not.toContain("## skill:change-report");
    const afterSkill = sent[1] as ResponsesBody;
    expect(outputs(afterSkill).get("call_skill")).toContain('Activated the skill "change-report"');
    // The activation's saved text is projected as the last system section, `skill:change-report`.
    expect(afterSkill.instructions?.split("\n## skill:change-report\n")[1]?.trim()).toBe(await skillBody());

    // Approvals: a prompt on stderr for each edit and command, with the exact final input, answered y on stdin.
    expect(first.prompts).toHaveLength(4);
    const [patchPrompt, testPrompt, probePrompt, envPrompt] = first.prompts as [string, string, string, string];
    expect(patchPrompt).toContain("tool:   apply_workspace_patch (not read-only: may make changes)");
    expect(patchPrompt).toContain(`  input:\n${JSON.stringify({ patch }, null, 2)}\n`);
    expect(testPrompt).toContain("tool:   exec_command (not read-only: may make changes)");
    expect(testPrompt).toContain(`  input:\n${JSON.stringify({ command: "npm test" }, null, 2)}\n`);
    expect(probePrompt).toContain(
      `  input:\n${JSON.stringify({ command: `echo escaped > ${probeTarget}` }, null, 2)}\n`,
    );
    expect(envPrompt).toContain(`  input:\n${JSON.stringify({ command: "env" }, null, 2)}\n`);
    expect(first.output.stdout.match(/ {3}allowed by approval\n/g)).toHaveLength(4);
    // Each call ran only after its approval was asked and answered.
    const log = await records();
    const at = (kind: string, toolCallId: string) =>
      log.findIndex(
        (record) =>
          record.kind === kind &&
          (record.toolCallId === toolCallId || (record.toolCall as { id?: string } | undefined)?.id === toolCallId),
      );
    for (const toolCallId of ["call_patch", "call_test", "call_probe", "call_env"]) {
      const asked = at("approval-request", toolCallId);
      const answered = at("approval-answer", toolCallId);
      expect(asked).toBeGreaterThan(-1);
      expect(log[answered]).toMatchObject({ decision: "allow" });
      expect(answered).toBeGreaterThan(asked);
      expect(at("tool-start", toolCallId)).toBeGreaterThan(answered);
    }

    // The patch applied, `npm test` passed in the sandbox, and the write outside the workspace was refused by it.
    expect((await receipt("call_patch")).result).toMatchObject({ isError: false });
    expect(await readFile(join(project.directory, "src", "cart.js"), "utf8")).toContain(
      "sum + item.price * item.quantity",
    );
    expect(await commandReport("call_test")).toMatchObject({ state: "terminal", outcome: "exit", exitCode: 0 });
    expect(first.output.stdout).toContain("exit 0: npm test\n");
    const probe = await commandReport("call_probe");
    expect(probe.exitCode).not.toBe(0);
    expect(probe.stderr.text).toContain("<sandbox_violations>");
    expect(probe.stderr.text).toContain(probeTarget);
    expect(existsSync(probeTarget)).toBe(false);
    const env = (await commandReport("call_env")) as CommandReport & { stdout: { text: string } };
    expect(env).toMatchObject({ state: "terminal", exitCode: 0 });
    expect(env.stdout.text).toContain("SANDBOX_RUNTIME=1");
    expect(env.stdout.text).not.toContain("CASTELLAN_");
    expect(env.stdout.text).not.toContain(token);
    // The fix holds outside the agent too.
    await exec("npm", ["test"], { cwd: project.directory });
  }, 150_000);

  it("a second process continues the Session: its first request holds the first one's conversation", async () => {
    const before = server.requests.length;
    const earlier = outputs(bodies(server).at(-1) as ResponsesBody);
    const second = run(prompts.ask);
    expect(await exitWithin(second, 120_000), second.output.stderr).toEqual({ code: 0, signal: null });
    const sent = sentSince(before);
    expect(sent).toHaveLength(1);
    const body = sent[0] as ResponsesBody;
    expect(userTexts(body)).toEqual([prompts.fix, prompts.ask]);
    const restored = outputs(body);
    expect([...restored.keys()]).toEqual(["call_skill", "call_patch", "call_test", "call_probe", "call_env"]);
    for (const [callId, output] of earlier) expect(restored.get(callId)).toBe(output);
    // The activated skill survives the restart.
    expect(body.instructions).toContain("## skill:change-report");
    expect(second.prompts).toEqual([]);
    expect(second.output.stdout).toContain("I changed src/cart.js: each line item now counts its quantity.");
  }, 150_000);

  it("Ctrl+C at an approval prompt withdraws it: nothing runs, the Run is aborted, the process exits 130", async () => {
    const before = (await records()).length;
    const stopped = startAgent({ cwd: packed.directory, env: agentEnv(), prompt: prompts.remove, answer: "none" });
    agents.push(stopped);
    await stopped.waitFor("stderr", approvalQuestion);
    expect(stopped.prompts[0]).toContain(`  input:\n${JSON.stringify({ command: "rm -rf test" }, null, 2)}\n`);
    stopped.child.kill("SIGINT");
    expect(await exitWithin(stopped, 15_000), stopped.output.stderr).toEqual({ code: 130, signal: null });
    expect(stopped.output.stderr).toContain("(approval request withdrawn)");
    expect(existsSync(join(project.directory, "test", "cart.test.js"))).toBe(true);
    const log = (await records()).slice(before);
    expect(log.find((record) => record.kind === "approval-request")).toMatchObject({ toolCallId: "call_rm" });
    expect(log.some((record) => record.kind === "tool-start")).toBe(false);
    expect(log.find((record) => record.kind === "run-end")).toMatchObject({ status: "aborted" });
  }, 60_000);

  it("Ctrl+C during an approved command aborts the Run, ends the command's processes and exits 130; a rerun continues", async () => {
    const interrupted = run(prompts.long);
    // The command is running once its processes show up.
    await until(async () => (await liveSleepers()).length > 0, 90_000, `${sleepCommand} to start`);
    const running = await liveSleepers();
    expect(interrupted.prompts).toHaveLength(1);
    expect(interrupted.prompts[0]).toContain(`  input:\n${JSON.stringify({ command: sleepCommand }, null, 2)}\n`);
    // It runs in bubblewrap: the sandbox's process holds the command.
    expect(running.some((line) => /\/bwrap .*--unshare-net/.test(line))).toBe(true);
    interrupted.child.kill("SIGINT");
    expect(await exitWithin(interrupted, 15_000), interrupted.output.stderr).toEqual({ code: 130, signal: null });
    // Nothing of the command outlives the process: its shell, its sandbox and the sleep are gone.
    expect(await liveSleepers()).toEqual([]);
    expect(interrupted.output.stdout).toContain("Interrupted: stopping the Run and its commands...");

    const log = await records();
    const start = log.findLast((record) => record.kind === "run-start");
    expect(JSON.stringify(start?.input)).toContain(prompts.long);
    expect(log.find((record) => record.kind === "run-end" && record.runId === start?.runId)).toMatchObject({
      status: "aborted",
    });
    expect(log.find((record) => record.kind === "tool-start" && record.runId === start?.runId)).toBeDefined();
    // The command's receipt: ended by the Session's cleanup, saved before the Run's end.
    const sleepReceipt = await receipt("call_sleep");
    expect(sleepReceipt.runId).toBe(start?.runId);
    expect(JSON.parse(resultText(sleepReceipt))).toMatchObject({ state: "terminal", outcome: "cleanup" });
    expect(log.indexOf(sleepReceipt)).toBeLessThan(
      log.findIndex((record) => record.kind === "run-end" && record.runId === start?.runId),
    );

    const before = server.requests.length;
    const again = run(prompts.again);
    expect(await exitWithin(again, 120_000), again.output.stderr).toEqual({ code: 0, signal: null });
    const body = sentSince(before)[0] as ResponsesBody;
    expect(userTexts(body)).toEqual([prompts.fix, prompts.ask, prompts.remove, prompts.long, prompts.again]);
    expect(body.input.some((item) => item.type === "function_call" && item.call_id === "call_sleep")).toBe(true);
    expect(outputs(body).get("call_sleep")).toBe(resultText(sleepReceipt));
    expect(again.output.stdout).toContain("Yes: the long check was stopped.");
  }, 150_000);

  it("the token appears nowhere but in the Authorization header", async () => {
    expect(agents.length).toBeGreaterThanOrEqual(5);
    for (const agent of agents) {
      expect(agent.output.stdout).not.toContain(token);
      expect(agent.output.stderr).not.toContain(token);
    }
    // Every file of the Session directory (the log among them) and of the workspace.
    const read: string[] = [];
    for (const directory of [sessions, project.directory]) {
      for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const path = join(entry.parentPath, entry.name);
        expect(await readFile(path, "utf8"), path).not.toContain(token);
        read.push(path);
      }
    }
    expect(read).toContain(join(sessions, "local-coding-agent.jsonl"));
    for (const request of server.requests) {
      expect(request.body).not.toContain(token);
      const { authorization, ...others } = request.headers;
      expect(authorization).toBe(`Bearer ${token}`);
      expect(JSON.stringify(others)).not.toContain(token);
    }
  });
});
