import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@castellan/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createFileSessionStore,
  openSession,
  type Session,
  type SessionRecord,
  type SessionStore,
} from "../src/index.js";
import { type ChildExit, killRemaining, startFixture } from "./fixtures/child.ts";
import { crashAgent, factOfEvent, factOfRecord } from "./fixtures/crash-agent.ts";
import { collect, mulberry32 } from "./support/index.ts";

// A writer child works on three Sessions at once with the file store and is killed with
// SIGKILL at a pseudo-random point; after each kill this process reopens every Session and
// checks that everything the writer acknowledged is saved, in order, and that the history
// opens and folds. The next writer continues the same Sessions, resuming the interrupted Runs
// or starting new ones (alternately). Each kill is one kill point per Session.

const seed = 0x5eed_c0de;
const iterations = 20;
const sessionIds = ["s0", "s1", "s2"];

/** Checks that `acknowledged` appears in `saved` in order (saved may hold more); names the first fact missing. */
function expectInOrder(acknowledged: readonly string[], saved: readonly string[], sessionId: string): void {
  let position = 0;
  for (let index = 0; index < acknowledged.length; index++) {
    while (position < saved.length && saved[position] !== acknowledged[index]) position++;
    if (position === saved.length) {
      const where = saved.indexOf(acknowledged[index] as string);
      throw new Error(
        `Session ${sessionId}: acknowledged fact #${index} ${JSON.stringify(acknowledged[index])} ${
          where < 0 ? "is not saved" : `is saved out of order (at ${where})`
        }.`,
      );
    }
    position++;
  }
}

/** Every tool call of the conversation has exactly one result before the next message of another role. */
function expectWellFormed(messages: readonly Message[]): void {
  let open = new Set<string>();
  for (const message of messages) {
    if (message.role === "tool") {
      expect(open.delete(message.toolCallId), `an unexpected result for ${message.toolCallId}`).toBe(true);
      continue;
    }
    expect([...open], "calls without a result").toEqual([]);
    if (message.role === "assistant") open = new Set(message.toolCalls.map((call) => call.id));
  }
  expect([...open], "calls without a result").toEqual([]);
}

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "castellan-crash-"));
});
afterAll(async () => {
  await killRemaining();
  await rm(directory, { recursive: true, force: true });
});

/** Opens a Session as the checker: the file store, recording the records it read at open. */
async function openChecked(sessionId: string): Promise<{ session: Session; records: readonly SessionRecord[] }> {
  const files = createFileSessionStore({ directory });
  let records: readonly SessionRecord[] = [];
  const store: SessionStore = {
    async open(id, options) {
      const log = await files.open(id, options);
      records = log.records;
      return log;
    },
  };
  // Opening folds the whole history: a history that does not fit together is refused here.
  const session = await openSession({
    agent: crashAgent("checker").agent,
    id: sessionId,
    store,
    permissions: "full-access",
  });
  return { session, records };
}

/** Where a writer is killed. */
type KillPlan =
  | { readonly kind: "after-acks"; readonly count: number }
  | { readonly kind: "after-first-ack"; readonly delayMs: number }
  | { readonly kind: "after-open"; readonly delayMs: number };

/**
 * The kill point of iteration `index`: after a random count (1-45) of acknowledged lines, a
 * random delay (0-40 ms) after the first one, or a random delay (0-15 ms) after the first
 * Session opened (early in a Run, or while the other Sessions are still being opened).
 */
function planKill(index: number, random: () => number): KillPlan {
  if (index % 5 === 4) return { kind: "after-open", delayMs: Math.floor(random() * 15) };
  if (index % 2 === 1) return { kind: "after-first-ack", delayMs: Math.floor(random() * 40) };
  return { kind: "after-acks", count: 1 + Math.floor(random() * 45) };
}

async function runWriter(mode: "resume" | "new", retry: boolean, plan: KillPlan): Promise<ChildExit> {
  const child = startFixture("crash-writer.ts", [mode, retry ? "retry" : "no-retry"], {
    SESSION_DIRECTORY: directory,
    SESSION_IDS: sessionIds.join(","),
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let acks = 0;
  let opened = false;
  child.onLine((line) => {
    if (plan.kind === "after-open" && line.began !== undefined && !opened) {
      opened = true;
      timer = setTimeout(() => child.kill(), plan.delayMs);
    }
    if (line.ack === undefined) return;
    acks++;
    if (plan.kind === "after-acks" && acks >= plan.count) child.kill();
    if (plan.kind === "after-first-ack" && acks === 1) timer = setTimeout(() => child.kill(), plan.delayMs);
  });
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
    child.kill();
  }
}

describe("crash safety of the file store through the runner", () => {
  it(`keeps every acknowledged fact across ${iterations * sessionIds.length} SIGKILL points (seed ${seed})`, async () => {
    // A seeded PRNG, so the kill schedule is the same on every run.
    const random = mulberry32(seed);
    const acknowledged = new Map<string, string[]>(sessionIds.map((id) => [id, []]));
    /** Executions of each non-idempotent call, over every writer. */
    const effects = new Map<string, number>();
    const savedCounts = new Map<string, number>(sessionIds.map((id) => [id, 0]));
    const began = { resume: 0, newAfterInterrupt: 0 };
    let killPoints = 0;

    for (let index = 0; index < iterations; index++) {
      const mode = index % 2 === 0 ? "resume" : "new";
      const plan = planKill(index, random);
      const exit = await runWriter(mode, index % 4 === 0, plan);
      // Killed, never failed: a writer that stopped on its own would mean a Run failed.
      expect(exit.signal, `writer ${index} (${JSON.stringify(plan)}) ended on its own: ${exit.stderr}`).toBe("SIGKILL");
      killPoints += sessionIds.length;

      let ackedThisTime = 0;
      for (const line of exit.lines as any[]) {
        if (line.ack !== undefined) {
          acknowledged.get(line.s)?.push(line.ack);
          ackedThisTime++;
        } else if (line.exec !== undefined && line.tool !== "peek") {
          effects.set(line.exec, (effects.get(line.exec) ?? 0) + 1);
        } else if (line.began === "resume") {
          began.resume++;
        } else if (line.began === "new" && line.interrupted) {
          began.newAfterInterrupt++;
        }
      }

      let grew = false;
      for (const id of sessionIds) {
        const { session, records } = await openChecked(id);
        try {
          const saved = records.flatMap((record) => factOfRecord(record) ?? []);
          expectInOrder(acknowledged.get(id) ?? [], saved, id);
          if (saved.length > (savedCounts.get(id) ?? 0)) grew = true;
          expect(saved.length).toBeGreaterThanOrEqual(savedCounts.get(id) ?? 0);
          savedCounts.set(id, saved.length);

          // A non-idempotent call has at most one intent: it is never started twice.
          const starts = new Map<string, number>();
          for (const record of records) {
            if (record.kind === "tool-start" && record.toolCall.name !== "peek") {
              starts.set(record.toolCall.id, (starts.get(record.toolCall.id) ?? 0) + 1);
            }
          }
          expect([...starts].filter(([, count]) => count > 1)).toEqual([]);

          // The unfinished Run, if any, is the last one started.
          const lastStart = records.findLast((record) => record.kind === "run-start");
          const ended =
            lastStart?.kind === "run-start" &&
            records.some((record) => record.kind === "run-end" && record.runId === lastStart.runId);
          expect(session.interruptedRun()?.runId).toBe(lastStart && !ended ? lastStart.runId : undefined);
          // Full access: nothing ever waits for approval.
          expect(session.pendingApprovals()).toEqual([]);
        } finally {
          await session.close();
        }
      }
      // Whatever a writer acknowledged was new, so the Sessions grew.
      if (ackedThisTime > 0) expect(grew).toBe(true);
    }

    expect(killPoints).toBeGreaterThanOrEqual(50);
    // A non-idempotent tool never ran twice for one call, whichever process ran it.
    expect([...effects].filter(([, count]) => count > 1)).toEqual([]);
    // Both ways of continuing were exercised.
    expect(began.resume).toBeGreaterThan(0);
    expect(began.newAfterInterrupt).toBeGreaterThan(0);

    // Finally each Session continues in this process and completes a Run on a well-formed conversation.
    for (const id of sessionIds) {
      const { agent, model } = crashAgent(`final-${id}`);
      const session = await openSession({
        agent,
        id,
        store: createFileSessionStore({ directory }),
        permissions: "full-access",
      });
      try {
        const run = session.interruptedRun() ? session.resume() : session.run("finish");
        const events = await collect(run);
        expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "completed" });
        for (const request of model.requests) expectWellFormed(request.messages);
        expect(events.map(factOfEvent).filter((fact) => fact !== undefined).length).toBeGreaterThan(0);
      } finally {
        await session.close();
      }
      const text = await readFile(join(directory, `${id}.jsonl`), "utf8");
      expect(text.endsWith("\n")).toBe(true);
    }
  });
});
