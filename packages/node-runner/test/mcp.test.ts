// mcp() against real servers through a real Runner: server-everything over stdio and
// Streamable HTTP, server-filesystem, and a fixture server on the SDK's server API for the
// lifetime rules (the catalog across pages, the process group on close and host exit, a crash,
// start failures, names). Every server is started by path under this Node.
import { createHash } from "node:crypto";
import { readdir, readFile, realpath } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { defineAgent, type JsonValue, type RunEvent } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  createFileSessionStore,
  createNodeRunner,
  type McpOptions,
  mcp,
  mcpToolName,
  type NodeRunnerPlugin,
  type ToolApprovalRequest,
} from "../src/index.js";
import { startFixture } from "./fixtures/child.ts";
import { processesWithMarker } from "./fixtures/command-processes.ts";
import {
  approvalPlugin,
  cleanupAfterEach,
  drain,
  extraTempDirs,
  storePlugin,
  tempDirPerTest,
  textOf,
  writeTree,
} from "./support/index.ts";
import { everythingEntry, filesystemEntry, fixtureServerEntry } from "./support/mcp.ts";

const temp = tempDirPerTest("castellan-mcp-");
const extraDir = extraTempDirs();
const cleanups = cleanupAfterEach();
const slow = 60_000;

const everything = (extra: Partial<McpOptions> = {}) =>
  mcp({
    serverName: "everything",
    transport: "stdio",
    command: process.execPath,
    args: [everythingEntry, "stdio"],
    ...extra,
  } as McpOptions);
const fixture = (env: Record<string, string> = {}, extra: Partial<McpOptions> = {}) =>
  mcp({
    serverName: "fixture",
    transport: "stdio",
    command: process.execPath,
    args: [fixtureServerEntry],
    environment: { inherit: "core", set: env },
    ...extra,
  } as McpOptions);
const call = (name: string, input: JsonValue = {}): ScriptedStepSource => ({
  toolCalls: [{ name, input: input as never }],
});

function toolEnds(events: readonly RunEvent[]) {
  return events.flatMap((event) =>
    event.kind === "tool-end"
      ? [{ isError: event.result.isError, text: textOf(event.result), result: event.result }]
      : [],
  );
}

async function runner(options: {
  steps: readonly ScriptedStepSource[];
  capabilities: Parameters<typeof defineAgent>[1]["capabilities"];
  permissions?: "ask-on-write" | "full-access" | "read-only";
  plugins?: NodeRunnerPlugin[];
}) {
  const model = scriptedModel([...options.steps, { text: "done" }]);
  const agent = defineAgent("test.mcp", { model, capabilities: options.capabilities ?? [] });
  const created = await createNodeRunner({
    agent,
    permissions: options.permissions ?? "full-access",
    plugins: options.plugins ?? [],
  });
  cleanups.push(() => created.close());
  return { runner: created, model };
}

async function runOnce(s: Awaited<ReturnType<typeof runner>>, input = "go") {
  const session = cleanups.closeLater(await s.runner.createSession());
  const { events, error } = await drain(session.run(input));
  expect(error).toBeUndefined();
  return { session, ends: toolEnds(events), events };
}

describe("mcp() with server-everything over stdio", () => {
  it(
    "lists the catalog as mcp__everything__* tools and calls echo, get-tiny-image, get-resource-links and get-structured-content",
    async () => {
      const s = await runner({
        steps: [
          call("mcp__everything__echo", { message: "hello" }),
          call("mcp__everything__get-tiny-image"),
          call("mcp__everything__get-resource-links", { count: 2 }),
          call("mcp__everything__get-structured-content", { location: "New York" }),
        ],
        capabilities: [everything()],
      });
      const { ends, session, events } = await runOnce(s);
      const names = s.model.requests[0]?.tools.map((tool) => tool.name) ?? [];
      expect(names).toContain("mcp__everything__get-env");
      expect(names).toContain("mcp__everything__echo");
      // Elicitation is not offered without a handler, so the server does not list its tool.
      expect(names).not.toContain("mcp__everything__trigger-elicitation-request");
      expect(s.model.requests[0]?.system ?? "").toBe("");
      expect(ends[0]).toMatchObject({ isError: false, text: "Echo: hello" });
      expect(ends[1]?.result.content.find((block) => block.type === "image")).toMatchObject({
        type: "image",
        mediaType: "image/png",
      });
      expect(ends[2]?.text).toMatch(/\[resource link[^\]]*\] (demo|test):\/\//);
      expect(ends[3]?.isError).toBe(false);
      expect(ends[3]?.text).toMatch(/temperature/i);
      const start = events.find((event) => event.kind === "tool-start");
      expect(start?.kind === "tool-start" && start.source).toEqual({ kind: "capability", name: "mcp:everything" });
      expect(session.inspect().current.tools.every((tool) => !tool.readOnly)).toBe(true);
    },
    slow,
  );

  it(
    "keeps a short callTimeoutMs alive with progress, times out without it, and cancels on abort",
    async () => {
      const s = await runner({
        steps: [
          call("mcp__everything__trigger-long-running-operation", { duration: 2, steps: 8 }),
          call("mcp__fixture__slow", { ms: 3_000 }),
        ],
        capabilities: [everything({ callTimeoutMs: 1_000 }), fixture({}, { callTimeoutMs: 1_000 })],
      });
      const { ends } = await runOnce(s);
      expect(ends[0]).toMatchObject({ isError: false });
      expect(ends[0]?.text).toContain("Long running operation completed");
      expect(ends[1]?.isError).toBe(true);
      expect(ends[1]?.text).toMatch(/^mcp_call_timeout: /);

      const log = join(await extraDir("castellan-mcp-log-"), "cancelled.log");
      const aborting = await runner({
        steps: [call("mcp__fixture__slow", { ms: 30_000 })],
        capabilities: [fixture({ FIXTURE_LOG: log })],
      });
      const session = cleanups.closeLater(await aborting.runner.createSession());
      const controller = new AbortController();
      const run = session.run("go", { signal: controller.signal });
      const drained = drain(run);
      setTimeout(() => controller.abort(), 500);
      const { error } = await drained;
      expect(error).toMatchObject({ code: "run_aborted" });
      const deadline = Date.now() + 5_000;
      let text = "";
      while (Date.now() < deadline && !text.includes("cancelled")) {
        text = await readFile(log, "utf8").catch(() => "");
        if (!text.includes("cancelled")) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(text).toMatch(/^cancelled \d+\n$/);
    },
    slow,
  );

  it(
    "answers an elicitation through the handler, with the call's context and schema defaults filled in",
    async () => {
      const asked: unknown[] = [];
      const s = await runner({
        steps: [call("mcp__everything__trigger-elicitation-request")],
        capabilities: [
          everything({
            elicitation: async (request) => {
              asked.push(request);
              return { action: "accept", content: { name: "Castellan", check: true } };
            },
          }),
        ],
      });
      const { ends } = await runOnce(s);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        serverName: "everything",
        toolName: "mcp__everything__trigger-elicitation-request",
      });
      expect((asked[0] as { toolCallId: string }).toolCallId).toBeTruthy();
      // The server's defaults were filled in for what the answer left out.
      expect(ends[0]?.text).toContain('"name": "Castellan"');
      expect(ends[0]?.text).toContain('"firstLine": "It was a dark and stormy night."');
      expect(ends[0]?.text).toContain('"integer": 42');
    },
    slow,
  );

  it(
    "sends answer content that does not fit the requested schema back as a JSON-RPC error",
    async () => {
      const s = await runner({
        steps: [call("mcp__everything__trigger-elicitation-request")],
        capabilities: [everything({ elicitation: async () => ({ action: "accept", content: { name: 42 } }) })],
      });
      const { ends } = await runOnce(s);
      expect(ends[0]?.text).toContain("does not fit the requested schema");
      expect(ends[0]?.text).not.toContain('"name": 42');
    },
    slow,
  );

  it(
    "passes the core environment only: HOME and PATH, no test secret or provider key; a secretKeys value reads [redacted] in the result, the events and the log",
    async () => {
      process.env.CASTELLAN_TEST_SECRET_TOKEN = "castellan-secret-value";
      process.env.ANTHROPIC_API_KEY = "anthropic-key-value";
      try {
        const storeDirectory = await extraDir("castellan-mcp-store-");
        const s = await runner({
          steps: [call("mcp__everything__get-env")],
          capabilities: [
            everything({
              environment: { inherit: "core", set: { SERVICE_PASSWORD: "hunter2-secret" } },
              secretKeys: ["SERVICE_PASSWORD"],
            }),
          ],
          plugins: [storePlugin(createFileSessionStore({ directory: storeDirectory }))],
        });
        const session = cleanups.closeLater(await s.runner.createSession({ id: "env" }));
        const { events } = await drain(session.run("go"));
        const [end] = toolEnds(events);
        const env = JSON.parse(end?.text ?? "{}") as Record<string, string>;
        expect(env.HOME).toBeTruthy();
        expect(env.PATH).toBeTruthy();
        expect(env.CASTELLAN_TEST_SECRET_TOKEN).toBeUndefined();
        expect(env.ANTHROPIC_API_KEY).toBeUndefined();
        expect(env.SERVICE_PASSWORD).toBe("[redacted]");
        expect(JSON.stringify(events)).not.toContain("hunter2-secret");
        await session.close();
        for (const file of await readdir(storeDirectory)) {
          expect((await readFile(join(storeDirectory, file))).includes("hunter2-secret")).toBe(false);
        }
      } finally {
        delete process.env.CASTELLAN_TEST_SECRET_TOKEN;
        delete process.env.ANTHROPIC_API_KEY;
      }
      expect(() => everything({ environment: { inherit: "core", set: { ANTHROPIC_API_KEY: "x" } } })).toThrow(
        expect.objectContaining({ code: "environment_invalid" }),
      );
      expect(() => everything({ secretKeys: ["NOT_SET"] })).toThrow(
        expect.objectContaining({ code: "invalid_declaration" }),
      );
    },
    slow,
  );
});

describe("mcp() options from params", () => {
  it(
    "evaluates command, args and environment.set from the Session's params at open, redacting a secret given so",
    async () => {
      const model = scriptedModel([call("mcp__params__get-env"), { text: "done" }]);
      const agent = defineAgent("test.mcp-params", {
        model,
        params: ["entry", "token"],
        capabilities: [
          mcp({
            serverName: "params",
            transport: "stdio",
            command: () => process.execPath,
            args: (params) => [String(params.entry), "stdio"],
            environment: { inherit: "core", set: (params) => ({ SERVICE_SECRET: String(params.token) }) },
            secretKeys: ["SERVICE_SECRET"],
          }),
        ],
      });
      const created = await createNodeRunner({ agent, permissions: "full-access" });
      cleanups.push(() => created.close());
      const session = cleanups.closeLater(
        await created.createSession({ params: { entry: everythingEntry, token: "params-secret-123" } }),
      );
      const { events } = await drain(session.run("go"));
      const env = JSON.parse(toolEnds(events)[0]?.text ?? "{}") as Record<string, string>;
      expect(env.SERVICE_SECRET).toBe("[redacted]");
      expect(JSON.stringify(events)).not.toContain("params-secret-123");
    },
    slow,
  );
});

describe("mcp() with server-filesystem", () => {
  const filesystem = (root: string, extra: Partial<McpOptions> = {}) =>
    mcp({
      serverName: "fs",
      transport: "stdio",
      command: process.execPath,
      args: [filesystemEntry, root],
      ...extra,
    } as McpOptions);

  it(
    "asks for read_text_file despite its readOnlyHint (denied without an adapter), runs it unasked when listed in readOnlyTools, and returns the server's error for a path outside its root",
    async () => {
      const root = await realpath(temp.path);
      await writeTree(root, { "note.txt": "filesystem note\n" });
      const path = join(root, "note.txt");
      const denied = await runner({
        steps: [call("mcp__fs__read_text_file", { path })],
        capabilities: [filesystem(root)],
        permissions: "ask-on-write",
      });
      const first = await runOnce(denied);
      expect(first.ends[0]?.isError).toBe(true);
      expect(first.ends[0]?.text).toMatch(/approval/);

      const asked: ToolApprovalRequest[] = [];
      const allowed = await runner({
        steps: [
          call("mcp__fs__read_text_file", { path }),
          call("mcp__fs__write_file", { path: "/tmp/castellan-outside-fs.txt", content: "x" }),
        ],
        capabilities: [filesystem(root, { readOnlyTools: ["read_text_file"] })],
        permissions: "ask-on-write",
        plugins: [
          approvalPlugin(async (request) => {
            asked.push(request);
            return { decision: "allow" };
          }),
        ],
      });
      const second = await runOnce(allowed);
      expect(second.ends[0]).toMatchObject({ isError: false, text: "filesystem note\n" });
      expect(second.ends[1]?.isError).toBe(true);
      expect(second.ends[1]?.text).toMatch(/outside|denied|allowed/i);
      expect(asked.map((request) => request.toolName)).toEqual(["mcp__fs__write_file"]);
      expect(asked[0]?.source).toEqual({ kind: "capability", name: "mcp:fs" });
    },
    slow,
  );
});

describe("mcp() lifetime, with the fixture server", () => {
  it(
    "lists a catalog across pages, maps dotted and long names, and bounds a big result",
    async () => {
      const s = await runner({
        steps: [call("mcp__fixture__file_read"), call("mcp__fixture__big_text")],
        capabilities: [fixture({ FIXTURE_LONG_NAMES: "1" }, { maxResultBytes: 1_024 })],
      });
      const { ends } = await runOnce(s);
      const names = s.model.requests[0]?.tools.map((tool) => tool.name) ?? [];
      const long = `a_tool_whose_name_goes_on_and_on_far_past_the_limit_${"x".repeat(20)}`;
      expect(names).toEqual([
        "mcp__fixture__spawn_grandchild",
        "mcp__fixture__exit_now",
        "mcp__fixture__ignore_term",
        "mcp__fixture__file_read",
        "mcp__fixture__slow",
        "mcp__fixture__big_text",
        mcpToolName("fixture", long),
      ]);
      const shortened = mcpToolName("fixture", long);
      expect(shortened).toHaveLength(64);
      expect(shortened).toBe(
        `${`mcp__fixture__${long}`.slice(0, 55)}_${createHash("sha256").update(`mcp__fixture__${long}`).digest("hex").slice(0, 8)}`,
      );
      expect(ends[0]?.text).toBe("dotted");
      expect(Buffer.byteLength(ends[1]?.text ?? "")).toBeLessThan(1_200);
      expect(ends[1]?.text).toContain("bytes of the result were cut at the 1024-byte limit");
    },
    slow,
  );

  it(
    "leaves no process of the server's group after close, a SIGTERM ignorer and a grandchild included",
    async () => {
      const s = await runner({
        steps: [call("mcp__fixture__ignore_term"), call("mcp__fixture__spawn_grandchild")],
        capabilities: [fixture()],
      });
      const session = await s.runner.createSession();
      const { events } = await drain(session.run("go"));
      const { pid, pgid } = JSON.parse(toolEnds(events)[1]?.text ?? "{}") as { pid: number; pgid: number };
      expect(() => process.kill(-pgid, 0)).not.toThrow();
      await session.close();
      expect(() => process.kill(-pgid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
      expect(() => process.kill(pid, 0)).toThrow();
    },
    slow,
  );

  it(
    "reports a crash as mcp_server_exited with the stderr tail, then mcp_server_unavailable, and the next open starts afresh",
    async () => {
      const s = await runner({
        steps: [
          call("mcp__fixture__exit_now"),
          call("mcp__fixture__file_read"),
          { text: "crashed" },
          call("mcp__fixture__file_read"),
        ],
        capabilities: [fixture()],
      });
      const session = cleanups.closeLater(await s.runner.createSession());
      const ends = toolEnds((await drain(session.run("go"))).events);
      expect(ends[0]?.text).toMatch(/^mcp_server_exited: .*exit code 3/s);
      expect(ends[0]?.text).toContain("fixture: about to exit mid-call");
      expect(ends[1]?.text).toMatch(/^mcp_server_unavailable: /);
      const again = cleanups.closeLater(await s.runner.createSession());
      expect(toolEnds((await drain(again.run("again"))).events)[0]?.text).toBe("dotted");
    },
    slow,
  );

  it(
    "fails the open for a missing command, an instant exit and a silent initialize, leaving nothing running and the saved files unchanged",
    async () => {
      const storeDirectory = await extraDir("castellan-mcp-failures-");
      const store = createFileSessionStore({ directory: storeDirectory });
      const marker = `castellan-mcp-marker-${process.pid}`;
      const cases: [McpOptions, RegExp][] = [
        [
          { serverName: "missing", transport: "stdio", command: "/nonexistent/castellan-mcp-server" },
          /nonexistent\/castellan-mcp-server/,
        ],
        [
          {
            serverName: "instant",
            transport: "stdio",
            command: process.execPath,
            args: [fixtureServerEntry, marker],
            environment: { inherit: "core", set: { FIXTURE_MODE: "exit" } },
          },
          /fixture: exiting at once/,
        ],
        [
          {
            serverName: "silent",
            transport: "stdio",
            command: process.execPath,
            args: [fixtureServerEntry, marker],
            environment: { inherit: "core", set: { FIXTURE_MODE: "silent" } },
            startupTimeoutMs: 500,
          },
          /within 500 ms/,
        ],
      ];
      const hash = async () => {
        const files = (await readdir(storeDirectory)).sort();
        return Promise.all(
          files.map(async (file) => [
            file,
            createHash("sha256")
              .update(await readFile(join(storeDirectory, file)))
              .digest("hex"),
          ]),
        );
      };
      const saved = await runner({ steps: [{ text: "saved" }], capabilities: [], plugins: [storePlugin(store)] });
      const existing = await saved.runner.createSession({ id: "kept" });
      await existing.run("keep").result;
      await existing.close();
      const before = await hash();
      for (const [options, message] of cases) {
        const s = await runner({ steps: [], capabilities: [mcp(options)], plugins: [storePlugin(store)] });
        const error = await s.runner.createSession({ id: "kept" }).catch((caught: unknown) => caught);
        expect(error).toMatchObject({ code: "mcp_start_failed" });
        expect((error as Error).message).toMatch(message);
        expect((error as Error).message).toContain(`"${options.serverName}"`);
        expect(await processesWithMarker(marker)).toEqual([]);
      }
      expect(await hash()).toEqual(before);
    },
    slow,
  );

  it(
    "refuses a catalog of more than 1,000 tools or 100 pages (mcp_catalog_too_large)",
    async () => {
      const tooMany = await runner({
        steps: [],
        capabilities: [fixture({ FIXTURE_MANY_TOOLS: "1000", FIXTURE_PAGE_SIZE: "500" })],
      });
      await expect(tooMany.runner.createSession()).rejects.toMatchObject({ code: "mcp_catalog_too_large" });
      const tooLong = await runner({
        steps: [],
        capabilities: [fixture({ FIXTURE_MANY_TOOLS: "200", FIXTURE_PAGE_SIZE: "2" })],
      });
      await expect(tooLong.runner.createSession()).rejects.toMatchObject({ code: "mcp_catalog_too_large" });
    },
    slow,
  );

  it(
    "refuses an uncompilable schema, an unknown allow-listed or read-only tool, and a name two servers map alike",
    async () => {
      const bad = await runner({ steps: [], capabilities: [fixture({ FIXTURE_BAD_SCHEMA: "1" })] });
      await expect(bad.runner.createSession()).rejects.toMatchObject({ code: "mcp_tool_schema_invalid" });
      const unknown = await runner({ steps: [], capabilities: [fixture({}, { tools: ["no_such_tool"] })] });
      await expect(unknown.runner.createSession()).rejects.toMatchObject({ code: "mcp_tool_not_found" });
      const notExposed = await runner({
        steps: [],
        capabilities: [fixture({}, { tools: ["slow"], readOnlyTools: ["big_text"] })],
      });
      await expect(notExposed.runner.createSession()).rejects.toMatchObject({ code: "mcp_tool_not_found" });
      // "mcp__fix__ture__slow" from server "fix" tool "ture__slow" and server "fix__ture" tool "slow".
      const first = mcp({
        serverName: "fix__ture",
        transport: "stdio",
        command: process.execPath,
        args: [fixtureServerEntry],
        tools: ["slow"],
      });
      const renamed = await runner({ steps: [], capabilities: [first, fixtureAs("fix", "ture__slow")] });
      const error = await renamed.runner.createSession().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "mcp_tool_name_collision" });
      expect((error as Error).message).toContain('server "fix__ture" tool "slow"');
      expect((error as Error).message).toContain('server "fix" tool "ture__slow"');
    },
    slow,
  );

  it(
    "takes the server's group with the host when the host calls process.exit",
    async () => {
      const child = startFixture("mcp-host-exit.ts", [], { MCP_FIXTURE_SERVER: fixtureServerEntry });
      const exit = await child.exited;
      expect(exit.code).toBe(0);
      const { pgid } = exit.lines[0] as { pgid: number };
      const deadline = Date.now() + 2_000;
      while (Date.now() < deadline) {
        try {
          process.kill(-pgid, 0);
        } catch {
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(() => process.kill(-pgid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    },
    slow,
  );
});

/** A server named `serverName` whose only tool, listed by the fixture as `slow`, is renamed `tool` by a wrapper. */
function fixtureAs(serverName: string, tool: string) {
  return mcp({
    serverName,
    transport: "stdio",
    command: process.execPath,
    args: [fixtureServerEntry],
    environment: { inherit: "core", set: { FIXTURE_RENAME_SLOW: tool } },
    tools: [tool],
  });
}

describe("mcp() over Streamable HTTP", () => {
  let server: ReturnType<typeof startFixture> | undefined;
  afterEach(() => {
    server?.kill();
    server = undefined;
  });

  async function freePort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const address = probe.address();
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    if (address === null || typeof address === "string") throw new Error("no port");
    return address.port;
  }

  it(
    "lists and calls server-everything's streamableHttp mode on a loopback port",
    async () => {
      const port = await freePort();
      server = startFixture("mcp-http-everything.ts", [everythingEntry], { PORT: String(port) });
      await server.waitFor((line) => line.listening === true);
      const s = await runner({
        steps: [call("mcp__web__echo", { message: "over http" })],
        capabilities: [mcp({ serverName: "web", transport: "http", url: `http://127.0.0.1:${port}/mcp` })],
      });
      const { ends } = await runOnce(s);
      expect(s.model.requests[0]?.tools.map((tool) => tool.name)).toContain("mcp__web__get-env");
      expect(ends[0]).toMatchObject({ isError: false, text: "Echo: over http" });
    },
    slow,
  );

  it("never follows a redirect: the open fails and the redirect's target is never asked", async () => {
    const { createServer: createHttpServer } = await import("node:http");
    let targetHits = 0;
    const target = createHttpServer((_request, response) => {
      targetHits++;
      response.end();
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const targetPort = (target.address() as { port: number }).port;
    const redirecting = createHttpServer((_request, response) => {
      response.writeHead(307, { Location: `http://127.0.0.1:${targetPort}/mcp` });
      response.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    const port = (redirecting.address() as { port: number }).port;
    try {
      const s = await runner({
        steps: [],
        capabilities: [
          mcp({ serverName: "moved", transport: "http", url: `http://127.0.0.1:${port}/mcp`, startupTimeoutMs: 5_000 }),
        ],
      });
      await expect(s.runner.createSession()).rejects.toMatchObject({ code: "mcp_start_failed" });
      expect(targetHits).toBe(0);
    } finally {
      await new Promise<void>((resolve) => redirecting.close(() => resolve()));
      await new Promise<void>((resolve) => target.close(() => resolve()));
    }
  });

  it("refuses a public or private http: URL at declaration, before any lookup or socket", () => {
    for (const url of ["http://example.com/mcp", "http://10.1.2.3/mcp", "ftp://127.0.0.1/mcp"]) {
      expect(() => mcp({ serverName: "web", transport: "http", url })).toThrow(
        expect.objectContaining({ code: "mcp_url_refused" }),
      );
    }
    for (const url of [
      "https://example.com/mcp",
      "http://127.0.0.1:1/mcp",
      "http://[::1]:1/mcp",
      "http://localhost:1/mcp",
    ]) {
      expect(() => mcp({ serverName: "web", transport: "http", url })).not.toThrow();
    }
  });
});
