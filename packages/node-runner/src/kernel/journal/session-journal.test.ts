// The journal's ordering rule: no event is reported before the record it reports is durable,
// for a commit, a commit ahead and staged records, and the history folds a record exactly
// when the log holds it (at once for a commit ahead). Driven through a log whose appends
// become durable only when the test says so.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunEvent } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { SessionHistory } from "../history/session-history.js";
import type { SessionOpenRecord, SessionRecord } from "../store/records.js";
import type { SessionLog } from "../store/types.js";
import { SessionJournal } from "./session-journal.js";

/** A log whose appends are written at once and become durable when `settle(n)` is called. */
function manualLog() {
  const pending: { records: readonly SessionRecord[]; resolve: () => void; reject: (error: Error) => void }[] = [];
  const written: (readonly SessionRecord[])[] = [];
  const log: SessionLog = {
    sessionId: "s",
    records: [],
    append(records) {
      written.push(records);
      return new Promise<void>((resolve, reject) => pending.push({ records, resolve, reject }));
    },
    close: async () => undefined,
  };
  return {
    log,
    written,
    /** Makes the oldest pending append durable. */
    settle() {
      pending.shift()?.resolve();
    },
    fail(error: Error) {
      pending.shift()?.reject(error);
    },
    get pending() {
      return pending.length;
    },
  };
}

const opening: SessionOpenRecord = {
  kind: "session-open",
  formatVersion: 1,
  sessionId: "s",
  agentId: "test.journal",
  params: {},
};
const runStart: SessionRecord = { kind: "run-start", runId: "r", input: [{ type: "text", text: "hi" }] };
const started: RunEvent = { kind: "run-start", runId: "r", sessionId: "s", input: [{ type: "text", text: "hi" }] };
const queued = (n: number): SessionRecord => ({ kind: "state-queued", changes: { n } });
const turnStart = (turn: number): RunEvent => ({ kind: "turn-start", runId: "r", turn });

/** Lets every promise callback queued so far run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup() {
  const manual = manualLog();
  const history = new SessionHistory();
  const journal = new SessionJournal(manual.log, history, opening);
  const events: RunEvent[] = [];
  const run = journal.run((event) => events.push(event));
  return { manual, history, journal, run, events };
}

describe("a commit", () => {
  it("reports its events, and folds its records, only once they are durable", async () => {
    const { manual, history, run, events } = setup();
    let resolved = false;
    const commit = run.commit([runStart], [started]).then(() => {
      resolved = true;
    });
    await flush();
    // Written (with the new Session's opening first), not yet durable: nothing reported or folded.
    expect(manual.written).toEqual([[opening, runStart]]);
    expect(events).toEqual([]);
    expect(history.activeRun).toBeUndefined();
    expect(resolved).toBe(false);
    manual.settle();
    await commit;
    expect(events).toEqual([started]);
    expect(history.activeRun?.runId).toBe("r");
  });

  it("is not needed for an event that reports nothing unsaved: it goes out at once", async () => {
    const { run, events } = setup();
    run.emit(turnStart(1));
    expect(events).toEqual([turnStart(1)]);
  });
});

describe("staged records", () => {
  it("ride with the next commit, and their events and every later one wait until it is durable", async () => {
    const { manual, run, events } = setup();
    const first = run.commit([runStart]);
    await flush();
    manual.settle();
    await first;
    run.stage([queued(1)], [turnStart(1)]);
    run.emit(turnStart(2));
    expect(events).toEqual([]);
    const commit = run.commit([queued(2)], [turnStart(3)]);
    await flush();
    expect(manual.written.at(-1)).toEqual([queued(1), queued(2)]);
    expect(events).toEqual([]);
    manual.settle();
    await commit;
    expect(events).toEqual([turnStart(1), turnStart(2), turnStart(3)]);
  });

  it("are dropped with their events by discardStaged", async () => {
    const { manual, run, events } = setup();
    run.stage([queued(1)], [turnStart(1)]);
    run.discardStaged();
    run.emit(turnStart(2));
    expect(events).toEqual([turnStart(2)]);
    const commit = run.commit([runStart]);
    await flush();
    expect(manual.written).toEqual([[opening, runStart]]);
    manual.settle();
    await commit;
  });
});

describe("a commit ahead", () => {
  it("folds at once and resolves before its sync; its events and every later one wait until durable", async () => {
    const { manual, history, run, events } = setup();
    const first = run.commit([runStart], [started]);
    await flush();
    manual.settle();
    await first;
    await run.commitAhead([queued(1)], [turnStart(1)]);
    // Resolved while the append still syncs: the history already holds the record.
    expect(manual.pending).toBe(1);
    expect(history.state.pending).toEqual([{ n: 1 }]);
    run.emit(turnStart(2));
    expect(events).toEqual([started]);
    // A later commit waits behind it, and so do its events.
    const next = run.commit([queued(2)], [turnStart(3)]);
    await flush();
    expect(events).toEqual([started]);
    manual.settle();
    await flush();
    expect(events).toEqual([started, turnStart(1), turnStart(2)]);
    manual.settle();
    await next;
    expect(events).toEqual([started, turnStart(1), turnStart(2), turnStart(3)]);
    await run.settle();
  });

  it("that fails drops what waited for it and fails every later commit with its error", async () => {
    const { manual, run, events, journal } = setup();
    const first = run.commit([runStart], [started]);
    await flush();
    manual.settle();
    await first;
    await run.commitAhead([queued(1)], [turnStart(1)]);
    run.emit(turnStart(2));
    manual.fail(new Error("disk full"));
    await run.settle();
    // Nothing that reported the unsaved record, or came after it, was reported.
    expect(events).toEqual([started]);
    await expect(run.commit([queued(2)])).rejects.toThrow("disk full");
    await expect(journal.commit([queued(3)])).rejects.toThrow("disk full");
    // After settle, how the Run ended can still be reported.
    run.emit(turnStart(9));
    expect(events).toEqual([started, turnStart(9)]);
  });
});

describe("host writes", () => {
  it("take their place in the same chain as a Run's commits", async () => {
    const { manual, journal, run } = setup();
    const runCommit = run.commit([runStart]);
    const hostWrite = journal.commit([queued(1)]);
    await flush();
    // The host write is not even written before the Run's append is durable.
    expect(manual.written).toEqual([[opening, runStart]]);
    manual.settle();
    await runCommit;
    await flush();
    expect(manual.written.at(-1)).toEqual([queued(1)]);
    manual.settle();
    await hostWrite;
  });
});

describe("the write path", () => {
  it("is the only code that calls a store's append", async () => {
    const source = fileURLToPath(new URL("../../", import.meta.url));
    const callers: string[] = [];
    for (const entry of await readdir(source, { recursive: true })) {
      if (!entry.endsWith(".ts") || entry.endsWith(".test.ts")) continue;
      // Stores implement append; the journal calls it.
      if (entry.startsWith("kernel/store/") || entry.startsWith("kernel/journal/")) continue;
      const text = await readFile(join(source, entry), "utf8");
      if (/\.append\(/.test(text)) callers.push(entry);
    }
    expect(callers).toEqual([]);
  });
});
