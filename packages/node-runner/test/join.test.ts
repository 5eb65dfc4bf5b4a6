import { type Agent, defineAgent, defineTool } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createFileSessionStore, openSession, type Run, type Session } from "../src/index.js";
import type { SessionRecord } from "../src/kernel/store/records.js";
import { collect, fileRecords, latch, tempDirPerTest, textOf } from "./support/index.ts";

const temp = tempDirPerTest("castellan-join-");

/** The `work` tool waits for `gate` after reporting `started`; each call counts. */
function workAgent(steps: readonly ScriptedStepSource[], hooks: { started?: () => void; gate?: Promise<void> } = {}) {
  const model = scriptedModel(steps);
  const executed: number[] = [];
  const work = defineTool({
    name: "work",
    description: "Do some work",
    inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    execute: async ({ n }: { n: number }) => {
      hooks.started?.();
      await hooks.gate;
      executed.push(n);
      return `worked ${n}`;
    },
  });
  const agent: Agent = defineAgent("test.join", { model, tools: [work] });
  return { model, agent, executed };
}

const store = () => createFileSessionStore({ directory: temp.path });

/** The records of the joined Session's file-store log. */
const records = () => fileRecords(temp.path, "joined");

describe("run.join", () => {
  it("saves input joined during a tool batch and shows it after the batch's results", async () => {
    const started = latch();
    const gate = latch();
    const { model, agent, executed } = workAgent(
      [
        {
          toolCalls: [
            { name: "work", input: { n: 1 } },
            { name: "work", input: { n: 2 } },
          ],
        },
        { text: "done" },
      ],
      { started: started.resolve, gate: gate.promise },
    );
    const session = await openSession({ agent, id: "joined", store: store(), permissions: "full-access" });
    try {
      const run = session.run("start");
      const events = collect(run);
      await started.promise;
      const first = run.join("also check the logs");
      const second = run.join([{ type: "text", text: "and the metrics" }]);
      let savedAtResolve: SessionRecord[] | undefined;
      const saved = Promise.all([first, second]).then(async () => {
        savedAtResolve = await records();
      });
      gate.resolve();
      await saved;
      expect((await run.result).text).toBe("done");
      // Joining did not abort the batch: both calls ran and settled.
      expect(executed).toEqual([1, 2]);

      // Resolved once saved: the run-input records were on disk when the joins resolved.
      const inputs = savedAtResolve?.filter((record) => record.kind === "run-input");
      expect(inputs).toEqual([
        { kind: "run-input", runId: run.id, input: [{ type: "text", text: "also check the logs" }] },
        { kind: "run-input", runId: run.id, input: [{ type: "text", text: "and the metrics" }] },
      ]);
      const kinds = (await records()).map((record) => record.kind);
      expect(kinds.slice(kinds.indexOf("tool-batch-end"), kinds.indexOf("tool-batch-end") + 3)).toEqual([
        "tool-batch-end",
        "run-input",
        "run-input",
      ]);

      const request = model.requests[1];
      expect(request?.messages.map((message) => message.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
        "user",
      ]);
      expect(textOf(request?.messages[4])).toBe("also check the logs");
      expect(textOf(request?.messages[5])).toBe("and the metrics");

      const all = await events;
      const order = all.map((event) => event.kind);
      const turnEnd = order.indexOf("turn-end");
      expect(order.slice(turnEnd, turnEnd + 4)).toEqual(["turn-end", "run-input", "run-input", "turn-start"]);
      expect(all.filter((event) => event.kind === "run-input")).toEqual([
        { kind: "run-input", runId: run.id, input: [{ type: "text", text: "also check the logs" }] },
        { kind: "run-input", runId: run.id, input: [{ type: "text", text: "and the metrics" }] },
      ]);
    } finally {
      await session.close();
    }
    model.assertComplete();
  });

  it("continues a Run whose final text turn received joined input", async () => {
    let run!: Run;
    let joined: Promise<void> | undefined;
    const { model, agent } = workAgent([
      () => {
        joined = run.join("one more thing");
        return { text: "first answer" };
      },
      { text: "second answer" },
    ]);
    const session = await openSession({ agent, id: "joined", store: store() });
    try {
      run = session.run("question");
      const events = await collect(run);
      const result = await run.result;
      await joined;
      expect(result.text).toBe("second answer");
      expect(result.turns).toBe(2);
      expect(model.requests[1]?.messages.map((message) => [message.role, textOf(message)])).toEqual([
        ["user", "question"],
        ["assistant", "first answer"],
        ["user", "one more thing"],
      ]);
      expect(events.filter((event) => event.kind === "run-end")).toHaveLength(1);
      expect(events.map((event) => event.kind).filter((kind) => kind === "run-input")).toHaveLength(1);
    } finally {
      await session.close();
    }
    model.assertComplete();
  });

  it("rejects with run_ended after the Run ended", async () => {
    const { agent } = workAgent([{ text: "done" }]);
    const session = await openSession({ agent, id: "joined", store: store() });
    try {
      const run = session.run("question");
      await run.result;
      await expect(run.join("too late")).rejects.toMatchObject({ code: "run_ended" });
      expect((await records()).some((record) => record.kind === "run-input")).toBe(false);
    } finally {
      await session.close();
    }
  });

  it("rejects joins queued on a Run that is aborted, and later ones", async () => {
    const hanging = latch();
    const { model, agent } = workAgent([
      () => {
        hanging.resolve();
        return { hang: true };
      },
    ]);
    const session = await openSession({ agent, id: "joined", store: store() });
    try {
      const controller = new AbortController();
      const run = session.run("question", { signal: controller.signal });
      await hanging.promise;
      const queued = run.join("queued before the abort");
      controller.abort();
      await expect(queued).rejects.toMatchObject({ code: "run_ended" });
      await expect(run.result).rejects.toMatchObject({ code: "run_aborted" });
      await expect(run.join("after the abort")).rejects.toMatchObject({ code: "run_ended" });
      expect((await records()).some((record) => record.kind === "run-input")).toBe(false);
    } finally {
      await session.close();
    }
    model.assertComplete();
  });

  it("rejects input that is not text or content blocks, leaving the Run alone", async () => {
    const started = latch();
    const gate = latch();
    const { agent } = workAgent([{ toolCalls: [{ name: "work", input: { n: 1 } }] }, { text: "done" }], {
      started: started.resolve,
      gate: gate.promise,
    });
    const session = await openSession({ agent, id: "joined", store: store(), permissions: "full-access" });
    try {
      const run = session.run("start");
      await started.promise;
      await expect(run.join([])).rejects.toMatchObject({ code: "input_invalid" });
      await expect(run.join(42 as unknown as string)).rejects.toMatchObject({ code: "input_invalid" });
      gate.resolve();
      expect((await run.result).text).toBe("done");
    } finally {
      await session.close();
    }
  });

  it("keeps joined input as history when the Session is reopened", async () => {
    const started = latch();
    const gate = latch();
    const first = workAgent([{ toolCalls: [{ name: "work", input: { n: 1 } }] }, { text: "done" }], {
      started: started.resolve,
      gate: gate.promise,
    });
    let session: Session = await openSession({
      agent: first.agent,
      id: "joined",
      store: store(),
      permissions: "full-access",
    });
    try {
      const run = session.run("start");
      await started.promise;
      const joined = run.join("joined input");
      gate.resolve();
      await joined;
      await run.result;
    } finally {
      await session.close();
    }

    const second = workAgent([{ text: "again" }]);
    session = await openSession({ agent: second.agent, id: "joined", store: store() });
    try {
      await session.run("next").result;
    } finally {
      await session.close();
    }
    expect(second.model.requests[0]?.messages.map((message) => [message.role, textOf(message)])).toEqual([
      ["user", "start"],
      ["assistant", ""],
      ["tool", "worked 1"],
      ["user", "joined input"],
      ["assistant", "done"],
      ["user", "next"],
    ]);
  });
});
