// The attack corpus of the MCP client: what a misbehaving server, or one that reflects what it
// was sent, can do to the host. Each case runs against the shipped configuration, and again
// against a deliberately unsafe one built here (an unbounded or re-joining line reader, a
// redactor with the old 8-character minimum), to show that the case detects the attack: a
// check that passes against the unsafe configuration would prove nothing.
import { spawn } from "node:child_process";
import { inspect } from "node:util";
import { createRedactor, defineAgent, type Redactor } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { LineReader, maxMessageBytes } from "../src/capabilities/mcp/line-reader.js";
import { createNodeRunner, McpStartError, mcp } from "../src/index.js";
import { rejection } from "./support/index.ts";
import { floodServerEntry } from "./support/mcp.ts";
import { startReflectingMcpServer } from "./support/reflecting-mcp-server.ts";

const mebibyte = 1024 * 1024;

/** A line reader under test: takes a chunk, false once it refuses more. */
type Push = (chunk: Buffer) => boolean;

/**
 * The flood attack: a real server process writes 128 MiB with no newline; its stdout is fed to
 * `push` as the pipe delivers it, and the process is killed once `push` refuses. Resolves with
 * the host's peak RSS growth and whether the reader stopped the flood.
 */
async function flood(push: Push): Promise<{ growth: number; stopped: boolean }> {
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let stopped = false;
  const child = spawn(process.execPath, [floodServerEntry], {
    env: { PATH: process.env.PATH ?? "", FLOOD_AT_START: "1" },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  try {
    await new Promise<void>((resolve) => {
      let total = 0;
      child.stdout.on("data", (chunk: Buffer) => {
        total += chunk.length;
        if (!stopped && !push(chunk)) {
          stopped = true;
          child.kill("SIGKILL");
        }
        // The whole flood arrived: the fixture then waits forever.
        if (total >= 128 * mebibyte) child.kill("SIGKILL");
      });
      child.once("exit", () => resolve());
    });
  } finally {
    clearInterval(sampler);
    child.stdout.destroy();
    child.stdin.destroy();
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  return { growth: peak - baseline, stopped };
}

/** The flood is contained: stopped by the reader, and the host grew by less than 64 MiB. */
const floodContained = (outcome: { growth: number; stopped: boolean }) =>
  outcome.stopped && outcome.growth < 64 * mebibyte;

/**
 * The slow-drip attack: one unterminated line of nearly 10 MiB in 256-byte chunks, as a server
 * writing small pieces produces. True when `push` took it all within `budgetMs` (a reader
 * that re-joins or re-scans its pending bytes on each chunk gives up the budget long before).
 */
function linearWithin(push: Push, budgetMs: number): boolean {
  const chunk = Buffer.alloc(256, "x");
  const started = performance.now();
  for (let sent = 0; sent + chunk.length <= maxMessageBytes; sent += chunk.length) {
    push(chunk);
    if (performance.now() - started > budgetMs) return false;
  }
  return true;
}

/** The unsafe reader of before: joins the pending bytes with every chunk and scans from the start. */
function joiningReader(): Push {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    let buffer = Buffer.concat([pending, chunk]);
    for (let newline = buffer.indexOf(10); newline !== -1; newline = buffer.indexOf(10))
      buffer = buffer.subarray(newline + 1);
    pending = Buffer.from(buffer);
    return true;
  };
}

const readerPush =
  (reader: LineReader): Push =>
  (chunk) =>
    reader.push(chunk, () => undefined);

describe("MCP attack: a stdio server floods 128 MiB without a newline", () => {
  it("is contained by the shipped reader (10 MiB bound)", async () => {
    expect(floodContained(await flood(readerPush(new LineReader())))).toBe(true);
  }, 60_000);

  it("is detected against an unbounded reader", async () => {
    expect(floodContained(await flood(readerPush(new LineReader(Number.POSITIVE_INFINITY))))).toBe(false);
  }, 60_000);
});

describe("MCP attack: a stdio server drips one long line in small chunks", () => {
  it("is read in linear time by the shipped reader", () => {
    expect(linearWithin(readerPush(new LineReader()), 1_000)).toBe(true);
  });

  it("is detected against a reader that re-joins its buffer on every chunk", () => {
    expect(linearWithin(joiningReader(), 1_000)).toBe(false);
  });
});

/** Whether `token` can be seen in `error`: any text it carries, down its causes, or util.inspect of it. */
function observable(error: unknown, token: string): boolean {
  const seen = new Set<unknown>();
  const texts: string[] = [];
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== "object" || seen.has(value)) return;
    seen.add(value);
    for (const key of Object.getOwnPropertyNames(value)) {
      const entry = (value as Record<string, unknown>)[key];
      if (typeof entry === "string") texts.push(entry);
      else visit(entry);
    }
  };
  visit(error);
  return texts.some((text) => text.includes(token)) || inspect(error, { depth: 30, showHidden: true }).includes(token);
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/**
 * The reflection attack at the redaction boundary: a real Streamable HTTP server on loopback
 * answers `initialize` with a 500 quoting the Authorization header; the SDK's error becomes
 * the cause of an McpStartError, which `boundary` is given with the header's secrets.
 * Resolves with what left the boundary.
 */
async function reflectedOpenError(
  token: string,
  boundary: (error: McpStartError, secrets: readonly string[]) => unknown,
): Promise<unknown> {
  const server = await startReflectingMcpServer("initialize");
  closers.push(() => server.close());
  const header = `Bearer ${token}`;
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: header } },
  });
  const client = new Client({ name: "attack", version: "0.0.0" });
  const cause = await rejection(client.connect(transport));
  await client.close().catch(() => undefined);
  const error = new McpStartError("reflect", `The MCP server "reflect" did not start: ${String(cause)}`, { cause });
  return boundary(error, [header, token]);
}

/** The shipped boundary: the one redactor over the whole error. */
const shipped = (error: McpStartError, secrets: readonly string[]) => createRedactor(secrets).scrubError(error);

/** The executor's old redactor: secrets under 8 characters ignored. */
function eightCharacterMinimum(secrets: readonly string[]): Pick<Redactor, "scrub"> {
  const known = secrets.filter((secret) => secret.length >= 8).sort((a, b) => b.length - a.length);
  return { scrub: (text) => known.reduce((clean, secret) => clean.split(secret).join("[redacted]"), text) };
}

/** The old MCP boundary: the message scrubbed, the cause kept as it was. */
const messageOnly = (error: McpStartError, secrets: readonly string[]) => {
  const redactor = createRedactor(secrets);
  Object.defineProperty(error, "message", { value: redactor.scrub(error.message) });
  return error;
};

/** The old rule at the boundary: everything scrubbed, but with the 8-character minimum. */
const oldMinimum = (error: McpStartError, secrets: readonly string[]) => {
  const old = eightCharacterMinimum(secrets);
  const scrubbed = old.scrub(error.message);
  const cause = error.cause as Error;
  cause.message = old.scrub(cause.message);
  cause.stack = old.scrub(cause.stack ?? "");
  return new McpStartError("reflect", scrubbed, { cause });
};

describe("MCP attack: an HTTP server reflects the Authorization header in a 500 at initialize", () => {
  it("leaves no token in the error, its causes or util.inspect, through mcp() and a Runner", async () => {
    const token = "tok-attack-91c2";
    const server = await startReflectingMcpServer("initialize");
    closers.push(() => server.close());
    const agent = defineAgent("test.mcp-attack", {
      model: scriptedModel([]),
      capabilities: [
        mcp({
          serverName: "reflect",
          transport: "http",
          url: server.url,
          headers: { Authorization: `Bearer ${token}` },
          secretKeys: ["Authorization"],
        }),
      ],
    });
    const runner = await createNodeRunner({ agent, permissions: "full-access" });
    closers.push(() => runner.close());
    expect(observable(await rejection(runner.createSession()), token)).toBe(false);
  });

  it("is contained by the shipped redactor, for a long token and for one of two characters", async () => {
    for (const token of ["tok-attack-91c2", "k3"]) {
      expect(observable(await reflectedOpenError(token, shipped), token)).toBe(false);
    }
  });

  it("is detected against a boundary that scrubs the message and keeps the cause as it was", async () => {
    expect(observable(await reflectedOpenError("tok-attack-91c2", messageOnly), "tok-attack-91c2")).toBe(true);
  });

  it("is detected against the old redactor that ignores secrets under 8 characters", async () => {
    expect(observable(await reflectedOpenError("k3", oldMinimum), "k3")).toBe(true);
    // The same boundary holds for a long token: the minimum is what lets the short one through.
    expect(observable(await reflectedOpenError("tok-attack-91c2", oldMinimum), "tok-attack-91c2")).toBe(false);
  });
});
