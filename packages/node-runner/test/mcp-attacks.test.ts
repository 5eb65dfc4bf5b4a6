// The attack corpus of the MCP client: what a misbehaving server, or one that reflects what it
// was sent, can do to the host. Each case runs against the shipped configuration, and again
// against a deliberately unsafe one built here (an unbounded or re-joining line reader, a
// redactor with the old 8-character minimum), to show that the case detects the attack: a
// check that passes against the unsafe configuration would prove nothing.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { LineReader, maxMessageBytes } from "../src/mcp/line-reader.js";
import { floodServerEntry } from "./support/mcp.ts";

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
