// An approval is asked only after the Run's consumer has been handed the call's tool-call event
// and was done with it (it asked for the next event), so a host prints the call before the
// question about it.
import { defineAgent, defineTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createFileSessionStore, openSession } from "../src/index.js";
import { tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-approval-order-");

describe("approval order", () => {
  it.each(["memory", "file"])("asks after the consumer is done with the tool-call event (%s history)", async (kind) => {
    const seen: string[] = [];
    // A file store saves read-only batches ahead: their events wait in the outbox while the Run goes on.
    const store = kind === "file" ? createFileSessionStore({ directory: temp.path }) : undefined;
    const write = defineTool({ name: "write", description: "Write", execute: () => "written" });
    const look = defineTool({ name: "look", description: "Look", readOnly: true, execute: () => "seen" });
    const open = (steps: number) =>
      openSession({
        agent: defineAgent("test.order", {
          model: scriptedModel([
            ...Array.from({ length: steps }, (_, index) => [
              { toolCalls: [{ id: `l${index}`, name: "look", input: {} }] },
              { toolCalls: [{ id: `w${index}`, name: "write", input: {} }] },
            ]).flat(),
            { text: "done" },
          ]),
          tools: [look, write],
        }),
        ...(store ? { store } : {}),
        approval: {
          name: "test.approval",
          apply: (host) =>
            host.registerApproval({
              request: async (request) => {
                seen.push(`approval ${request.toolCallId}`);
                return { decision: "allow" };
              },
            }),
        },
      });
    const session = await open(2);
    try {
      for await (const event of session.run("go")) {
        // A consumer that is slow to print: its loop body waits a macrotask before writing.
        await new Promise((done) => setImmediate(done));
        if (event.kind === "tool-call") seen.push(`tool-call ${event.toolCall.id}`);
      }
    } finally {
      await session.close();
    }
    expect(seen).toEqual([
      "tool-call l0",
      "tool-call w0",
      "approval w0",
      "tool-call l1",
      "tool-call w1",
      "approval w1",
    ]);
    const quiet = await open(1);
    try {
      // Nobody iterates: nothing would take the events, so the approval is not held back.
      await quiet.run("go").result;
    } finally {
      await quiet.close();
    }
    expect(seen.at(-1)).toBe("approval w0");
  });
});
