// An approval is asked only after the Run's consumer has been handed the call's tool-call event
// and was done with it (it asked for the next event), so a host prints the call before the
// question about it.
import { defineAgent, defineTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { openSession } from "../src/index.js";

describe("approval order", () => {
  it("asks after the consumer has taken the tool-call event, and at once for a Run nobody iterates", async () => {
    const seen: string[] = [];
    const write = defineTool({ name: "write", description: "Write", execute: () => "written" });
    const open = (steps: number) =>
      openSession({
        agent: defineAgent("test.order", {
          model: scriptedModel([
            ...Array.from({ length: steps }, (_, index) => ({
              toolCalls: [{ id: `w${index}`, name: "write", input: {} }],
            })),
            { text: "done" },
          ]),
          tools: [write],
        }),
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
    expect(seen).toEqual(["tool-call w0", "approval w0", "tool-call w1", "approval w1"]);
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
