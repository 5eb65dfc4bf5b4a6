import { mkdtemp, open, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionLogError } from "../errors/errors.js";
import { createFileSessionStore } from "./file-store.js";
import type { SessionRecord } from "./records.js";

const opening: SessionRecord = { kind: "session-open", formatVersion: 1, sessionId: "s1", agentId: "a", params: {} };
const started = (n: number): SessionRecord => ({ kind: "run-start", runId: `run-${n}`, input: [] });

type Step = string;

/**
 * Wraps FileHandle's write and datasync (on its prototype, for every handle) to record their
 * order in `steps`; sync n first waits for `beforeSync(n)` (default: nothing), and the ones
 * `failSync` picks throw EIO.
 */
async function instrumentHandles(
  directory: string,
  steps: Step[],
  options: { readonly beforeSync?: (n: number) => Promise<void>; readonly failSync?: (n: number) => boolean } = {},
): Promise<() => void> {
  const probe = await open(join(directory, "probe"), "w");
  const proto = Object.getPrototypeOf(probe) as {
    write: (...args: unknown[]) => Promise<unknown>;
    datasync: () => Promise<void>;
  };
  await probe.close();
  const { write, datasync } = proto;
  let syncs = 0;
  proto.write = async function (this: unknown, ...args: unknown[]) {
    const result = await write.apply(this, args);
    steps.push("written");
    return result;
  };
  proto.datasync = async function (this: unknown) {
    const n = ++syncs;
    steps.push(`sync ${n} start`);
    await options.beforeSync?.(n);
    if (options.failSync?.(n)) {
      steps.push(`sync ${n} failed`);
      throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
    }
    await datasync.call(this);
    steps.push(`sync ${n} end`);
  };
  return () => {
    proto.write = write;
    proto.datasync = datasync;
  };
}

/** A promise that resolves once `steps` records `count` writes (checked every millisecond). */
async function writesSeen(steps: readonly Step[], count: number): Promise<void> {
  while (steps.filter((step) => step === "written").length < count) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

let root: string;
let restore: (() => void) | undefined;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-file-sync-"));
});

afterEach(async () => {
  restore?.();
  restore = undefined;
  await rm(root, { recursive: true, force: true });
});

describe("file store syncs", () => {
  it("covers appends made while a sync runs with one further sync, each resolving after a sync that began after its write", async () => {
    const steps: Step[] = [];
    const log = await createFileSessionStore({ directory: root }).open("s1");
    // The first sync lasts until all four appends are written.
    restore = await instrumentHandles(root, steps, {
      beforeSync: (n) => (n === 1 ? writesSeen(steps, 4) : Promise.resolve()),
    });
    const appends = [[opening], [started(1)], [started(2)], [started(3)]].map((records, index) =>
      log.append(records).then(() => {
        steps.push(`append ${index + 1} durable`);
      }),
    );
    await Promise.all(appends);
    await log.close();
    // The first append's sync starts right after its write; the other three are written while
    // it runs and share the second sync.
    expect(steps).toEqual([
      "written",
      "sync 1 start",
      "written",
      "written",
      "written",
      "sync 1 end",
      "append 1 durable",
      "sync 2 start",
      "sync 2 end",
      "append 2 durable",
      "append 3 durable",
      "append 4 durable",
    ]);
    const lines = (await readFile(join(root, "s1.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).seq)).toEqual([1, 2, 3, 4]);
  });

  it("syncs once per append when each is awaited before the next", async () => {
    const steps: Step[] = [];
    const log = await createFileSessionStore({ directory: root }).open("s1");
    restore = await instrumentHandles(root, steps);
    await log.append([opening]);
    await log.append([started(1)]);
    await log.append([]);
    await log.close();
    expect(steps).toEqual(["written", "sync 1 start", "sync 1 end", "written", "sync 2 start", "sync 2 end"]);
  });

  it("an append that may share its sync is covered by the next append's sync", async () => {
    const steps: Step[] = [];
    const log = await createFileSessionStore({ directory: root }).open("s1");
    await log.append([opening]);
    restore = await instrumentHandles(root, steps);
    const shared = log.append([started(1)], { shareSync: true }).then(() => steps.push("shared durable"));
    // The next append comes once the shared one is written, as the next turn's intent does.
    await writesSeen(steps, 1);
    const next = log.append([started(2)]).then(() => steps.push("next durable"));
    await Promise.all([shared, next]);
    await log.close();
    expect(steps).toEqual(["written", "written", "sync 1 start", "sync 1 end", "shared durable", "next durable"]);
  });

  it("an append that may share its sync, with none following, is synced on its own within a few milliseconds", async () => {
    const steps: Step[] = [];
    const log = await createFileSessionStore({ directory: root }).open("s1");
    await log.append([opening]);
    restore = await instrumentHandles(root, steps);
    await log.append([started(1)], { shareSync: true });
    steps.push("durable");
    await log.close();
    expect(steps).toEqual(["written", "sync 1 start", "sync 1 end", "durable"]);
    const lines = (await readFile(join(root, "s1.jsonl"), "utf8")).trim().split("\n");
    expect(lines).toHaveLength(2);
  });

  it("an empty append resolves only once the appends before it are durable", async () => {
    const steps: Step[] = [];
    const log = await createFileSessionStore({ directory: root }).open("s1");
    restore = await instrumentHandles(root, steps);
    const first = log.append([opening]).then(() => steps.push("first durable"));
    const empty = log.append([]).then(() => steps.push("empty resolved"));
    await Promise.all([first, empty]);
    await log.close();
    expect(steps).toEqual(["written", "sync 1 start", "sync 1 end", "first durable", "empty resolved"]);
  });

  it("a failed sync rejects its appends and every later one, and the log refuses further appends", async () => {
    const steps: Step[] = [];
    const log = await createFileSessionStore({ directory: root }).open("s1");
    await log.append([opening]);
    restore = await instrumentHandles(root, steps, {
      beforeSync: (n) => (n === 1 ? writesSeen(steps, 2) : Promise.resolve()),
      failSync: (n) => n === 1,
    });
    const outcomes = await Promise.allSettled([log.append([started(1)]), log.append([started(2)])]);
    const later = await log.append([started(3)]).catch((error: unknown) => error);
    await log.close();
    const [first, second] = outcomes.map((outcome) => (outcome.status === "rejected" ? outcome.reason : undefined));
    expect(first).toBeInstanceOf(SessionLogError);
    expect(first).toMatchObject({ code: "session_log_write_failed" });
    expect((first as Error).cause).toMatchObject({ code: "EIO" });
    expect(second).toMatchObject({ code: "session_log_write_failed", cause: first });
    expect(later).toMatchObject({ code: "session_log_write_failed", cause: first });
    // Both appends were written before the sync failed; the one refused afterwards never was.
    expect(steps.filter((step) => step === "written")).toHaveLength(2);
    const lines = (await readFile(join(root, "s1.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).record.runId ?? null)).toEqual([null, "run-1", "run-2"]);
  });
});
