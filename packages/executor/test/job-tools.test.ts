// What a job's agent is given besides the workspace, through the real server, real git and
// bubblewrap: the artifact upload variables in its commands' environment (the token redacted
// everywhere it is shown), the body's skills (activatable; a checkout's own skills and tool
// server files ignored), the real server-everything as a body tool server over stdio (narrowed
// to echo, its secret kept from the agent's commands and redacted), the MCP loop cap and a
// body's raise of it, and the refusal of a cleartext off-box tool server.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { ModelRequest } from "@castellan/harness";
import type { ScriptedStepSource } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { ExecutorServerOptions } from "../src/index.js";
import { runSampleJob, type SampleJobRun } from "./sample-job.ts";
import { command, fixAndCommit } from "./sample-project.ts";
import { git, jobBody, send, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-job-tools-");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const require = createRequire(import.meta.url);
const everythingEntry = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

const call = (name: string, input: Record<string, unknown> = {}): ScriptedStepSource => ({
  toolCalls: [{ name, input: input as never }],
});
const skillText = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

interface JobRun extends SampleJobRun {
  /** Every file the server left under its directories (records, transcripts), read whole. */
  readonly stored: () => Promise<string>;
}

async function runJob(options: {
  readonly steps: readonly ScriptedStepSource[];
  readonly body: Record<string, unknown>;
  readonly server?: ExecutorServerOptions;
  readonly files?: Readonly<Record<string, string>>;
}): Promise<JobRun> {
  const run = await runSampleJob({
    ...options,
    base: temp.path,
    started: (server) => cleanups.push(() => server.close()),
  });
  const stored = async () => {
    const texts: string[] = [];
    for (const entry of await readdir(run.directory, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      texts.push(await readFile(join(entry.parentPath, entry.name), "utf8").catch(() => ""));
    }
    return texts.join("\n");
  };
  return { ...run, stored };
}

/** The text a tool call returned, from the request after it. */
function toolResultText(request: ModelRequest | undefined, toolCallId: string): string {
  for (const message of request?.messages ?? []) {
    if (message.role === "tool" && message.toolCallId === toolCallId) {
      return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    }
  }
  throw new Error(`No result of ${toolCallId} in the request.`);
}

/** The stdout of an exec_command report. */
const stdoutOf = (report: string) => (JSON.parse(report) as { stdout: { text: string } }).stdout.text;

const toolNames = (request: ModelRequest | undefined) => (request?.tools ?? []).map((tool) => tool.name);

describeNeeding(osSandboxPrograms, "a job's agent capabilities", () => {
  it("puts ARTIFACT_UPLOAD_URL and ARTIFACT_UPLOAD_TOKEN in the sandboxed commands' environment, the token redacted wherever it is shown", async () => {
    const token = "artifact-session-token-0123456789abcdef";
    const url = "http://127.0.0.1:9/upload";
    const run = await runJob({
      body: {
        artifactUpload: { url, token },
        dependencyInstall: { command: 'echo "install sees $ARTIFACT_UPLOAD_URL with $ARTIFACT_UPLOAD_TOKEN"' },
      },
      steps: [
        command("env"),
        command('printf %s "$ARTIFACT_UPLOAD_TOKEN" | sha256sum'),
        ...fixAndCommit(`Uploaded to ${url} with ${token}.`),
      ],
    });
    expect(run.view.state, JSON.stringify(run.view.error)).toBe("succeeded");
    // The agent's own `env`: both variables, the token's exact value (its hash, so it is shown nowhere here).
    const env = stdoutOf(toolResultText(run.requests[1], "call_1"));
    expect(env).toMatch(new RegExp(`^ARTIFACT_UPLOAD_URL=${url}$`, "m"));
    expect(env).toMatch(/^ARTIFACT_UPLOAD_TOKEN=/m);
    expect(stdoutOf(toolResultText(run.requests[2], "call_2"))).toContain(sha256(token));
    // The install had them too.
    expect(run.view.result.install.outputTail).toBe(`install sees ${url} with [redacted]\n`);
    expect(run.view.result.summary).toBe(`Uploaded to ${url} with [redacted].`);
    // The event stream carries the agent's `env` report, scrubbed.
    const envEnd = run.events.find((event) => event.event === "tool-end" && event.data.toolCallId === "call_1");
    expect(JSON.stringify(envEnd?.data)).toContain("ARTIFACT_UPLOAD_TOKEN=[redacted]");
    const jobEnd = run.events.find((event) => event.event === "job-end");
    expect(jobEnd?.data.result.summary).toBe(`Uploaded to ${url} with [redacted].`);
    for (const text of [
      JSON.stringify(run.view),
      JSON.stringify(run.events),
      JSON.stringify(run.logged),
      await run.stored(),
    ]) {
      expect(text).not.toContain(token);
    }
    // Nothing of the seam reached the repository.
    const files = await git(["ls-tree", "-r", "--name-only", run.branch], run.bare);
    expect(files).not.toContain("env");
  }, 180_000);

  it("offers the body's skills, which the agent activates, and none of the checkout's own skills or tool server files", async () => {
    const repoServers = JSON.stringify({
      mcpServers: { repo: { command: process.execPath, args: [everythingEntry] } },
    });
    const run = await runJob({
      files: {
        ".castellan/skills/repo-skill/SKILL.md": skillText("repo-skill", "The checkout's own skill", "# Repo\n"),
        ".claude/skills/claude-skill/SKILL.md": skillText("claude-skill", "A Claude skill of the checkout", "# C\n"),
        ".mcp.json": repoServers,
        ".castellan/mcp.json": repoServers,
      },
      body: {
        skills: [
          {
            name: "fix-tests",
            content: skillText("fix-tests", "Fix failing tests", "# Fix tests\nRun the suite first, then fix.\n"),
            resources: [{ path: "references/guide.md", content: "The guide.\n", encoding: "utf8" }],
          },
        ],
      },
      steps: [
        call("activate_skill", { name: "fix-tests" }),
        call("read_skill_resource", { name: "fix-tests", path: "references/guide.md" }),
        call("activate_skill", { name: "repo-skill" }),
        call("activate_skill", { name: "claude-skill" }),
        ...fixAndCommit(),
      ],
    });
    expect(run.view.state, JSON.stringify(run.view.error)).toBe("succeeded");
    const [first, second, third] = run.requests;
    expect(first?.system).toContain("- fix-tests: Fix failing tests");
    expect(first?.system).not.toContain("Run the suite first, then fix.");
    expect(toolNames(first)).toContain("activate_skill");
    expect(second?.system).toContain("## skill:fix-tests\n\n# Fix tests\nRun the suite first, then fix.\n");
    expect(toolResultText(third, "call_2")).toBe("The guide.\n");
    for (const id of ["call_3", "call_4"]) {
      expect(toolResultText(run.requests[4], id)).toMatch(/^skill_not_available: /);
    }
    for (const request of run.requests) {
      expect(toolNames(request).filter((name) => name.startsWith("mcp__"))).toEqual([]);
      expect(request.system).not.toContain("repo-skill: ");
      expect(request.system).not.toContain("claude-skill: ");
    }
    // The skill was written outside the checkout: nothing of it is on the branch.
    const files = await git(["ls-tree", "-r", "--name-only", run.branch], run.bare);
    expect(files).not.toContain("fix-tests");
    expect(files).not.toContain("guide.md");
  }, 180_000);

  it("serves the real server-everything narrowed to echo, its secret kept from the agent's commands and redacted", async () => {
    const secret = "mcp-secret-thing-0123456789abcdef";
    const run = await runJob({
      body: {
        mcpServers: [
          {
            name: "tools",
            transport: "stdio",
            command: process.execPath,
            args: [everythingEntry, "stdio"],
            env: { SECRET_THING: secret, PLAIN_SETTING: "plain-setting-value" },
            secretKeys: ["SECRET_THING"],
            allowedTools: ["echo"],
          },
        ],
      },
      steps: [
        call("mcp__tools__echo", { message: `passing ${secret} along` }),
        command("env"),
        ...fixAndCommit(`Echoed ${secret}.`),
      ],
    });
    expect(run.view.state, JSON.stringify(run.view.error)).toBe("succeeded");
    for (const request of run.requests) {
      expect(toolNames(request).filter((name) => name.startsWith("mcp__"))).toEqual(["mcp__tools__echo"]);
    }
    // What the server answered is redacted of the secret before the model sees it.
    expect(toolResultText(run.requests[1], "call_1")).toBe("Echo: passing [redacted] along");
    const env = stdoutOf(toolResultText(run.requests[2], "call_2"));
    expect(env).toMatch(/^PATH=/m);
    expect(env).not.toContain("SECRET_THING");
    expect(env).not.toContain("PLAIN_SETTING");
    expect(env).not.toContain(secret);
    expect(run.view.result.summary).toBe("Echoed [redacted].");
    const echoStart = run.events.find(
      (event) => event.event === "tool-start" && event.data.toolName === "mcp__tools__echo",
    );
    expect(JSON.stringify(echoStart?.data)).toContain("passing [redacted] along");
    for (const text of [
      JSON.stringify(run.view),
      JSON.stringify(run.events),
      JSON.stringify(run.logged),
      await run.stored(),
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(process.env.SECRET_THING).toBeUndefined();
  }, 180_000);

  it("fails the job with guard-mcp-loop at the server's cap of consecutive MCP calls", async () => {
    const echo = (index: number) => call("mcp__tools__echo", { message: `lookup ${index}` });
    const run = await runJob({
      server: { maxConsecutiveMcpCalls: 3 },
      body: {
        mcpServers: [
          {
            name: "tools",
            transport: "stdio",
            command: process.execPath,
            args: [everythingEntry, "stdio"],
            allowedTools: ["echo"],
          },
        ],
      },
      steps: [echo(1), echo(2), echo(3), echo(4), ...fixAndCommit()],
    });
    expect(run.view.state).toBe("failed");
    expect(run.view.error.code).toBe("guard-mcp-loop");
    expect(run.view.error.evidence.guard).toMatchObject({ consecutiveMcpCalls: 3 });
    const ended = run.events.filter(
      (event) => event.event === "tool-end" && event.data.toolName === "mcp__tools__echo",
    );
    // Three answered; a call the model had already asked for when the guard stopped the job ends aborted.
    expect(ended.filter((event) => !event.data.result.isError)).toHaveLength(3);
    for (const event of ended.slice(3)) expect(event.data.result.isError).toBe(true);
    expect(run.events.at(-1)).toMatchObject({
      event: "job-end",
      data: { state: "failed", error: { code: "guard-mcp-loop" } },
    });
  }, 180_000);

  it("lets a body raise the MCP cap, never lower it", async () => {
    const servers = [
      {
        name: "tools",
        transport: "stdio",
        command: process.execPath,
        args: [everythingEntry, "stdio"],
        allowedTools: ["echo"],
      },
    ];
    const lowered = await startServer({ maxConsecutiveMcpCalls: 3 });
    cleanups.push(() => lowered.server.close());
    const refused = await send(lowered.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ mcpServers: servers, tuning: { guardLimits: { maxConsecutiveMcpCalls: 2 } } })),
    });
    expect(refused.status).toBe(400);
    expect(refused.json.error.fields).toEqual([
      { path: "tuning.guardLimits.maxConsecutiveMcpCalls", message: "may only raise the server's limit of 3." },
    ]);

    const echo = (index: number) => call("mcp__tools__echo", { message: `lookup ${index}` });
    const run = await runJob({
      server: { maxConsecutiveMcpCalls: 3 },
      body: { mcpServers: servers, tuning: { guardLimits: { maxConsecutiveMcpCalls: 5 } } },
      steps: [echo(1), echo(2), echo(3), echo(4), ...fixAndCommit()],
    });
    expect(run.view.state, JSON.stringify(run.view.error)).toBe("succeeded");
    expect(toolResultText(run.requests[4], "call_4")).toBe("Echo: lookup 4");
  }, 180_000);
});

describe("a body's tool servers at the job boundary", () => {
  it("refuse an http tool server that is neither https nor loopback with 400 at POST", async () => {
    const started = await startServer();
    cleanups.push(() => started.server.close());
    const posted = await send(started.port, "POST", "/run", {
      body: JSON.stringify(
        jobBody({ mcpServers: [{ name: "remote", transport: "http", url: "http://example.invalid/mcp" }] }),
      ),
    });
    expect(posted.status).toBe(400);
    expect(posted.json.error.code).toBe("invalid-body");
    // The body's URL rule and the tool server rule both name it.
    const paths = new Set(posted.json.error.fields.map((field: { path: string }) => field.path));
    expect([...paths]).toEqual(["mcpServers[0].url"]);
    expect(posted.text).not.toContain("example.invalid");
    expect((await send(started.port, "GET", "/jobs")).json.jobs).toEqual([]);
  });
});
