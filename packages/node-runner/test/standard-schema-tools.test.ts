// A tool with a Standard Schema in a Session: the input is checked by the schema's own
// ~standard.validate, an invalid one settles with the same input_invalid text as ajv's, and
// execute, permission hooks and the receipt get the schema's output (defaults filled in).
import { defineAgent, defineTool, type JsonValue, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openSession } from "../src/index.js";

function toolEnds(events: readonly RunEvent[]) {
  return events.filter((event): event is Extract<RunEvent, { kind: "tool-end" }> => event.kind === "tool-end");
}

describe("a Standard Schema tool in a Session", () => {
  it("runs with the schema's output, refuses invalid input with the schema's issues, and awaits async checks", async () => {
    const seen: JsonValue[] = [];
    const hooked: JsonValue[] = [];
    const resize = defineTool({
      name: "resize",
      description: "Resize",
      readOnly: true,
      inputSchema: z.object({
        width: z.number().int().positive(),
        unit: z.enum(["px", "em"]).default("px"),
        label: z
          .string()
          .optional()
          .refine(async (label) => label !== "taken", { message: "label is taken" }),
      }),
      execute: (input) => {
        seen.push(input);
        return `${input.width}${input.unit}`;
      },
    });
    const session = await openSession({
      agent: defineAgent("test.standard", {
        model: scriptedModel([
          {
            toolCalls: [
              { id: "ok", name: "resize", input: { width: 3 } },
              { id: "bad", name: "resize", input: { width: -1, unit: "pt" } },
              { id: "taken", name: "resize", input: { width: 2, label: "taken" } },
            ],
          },
          { text: "done" },
        ]),
        tools: [resize],
      }),
      plugins: [
        {
          name: "test.hook",
          apply: (host) =>
            host.hooks.toolPermission((request) => {
              hooked.push(request.input);
              return undefined;
            }),
        },
      ],
    });
    try {
      const events: RunEvent[] = [];
      for await (const event of session.run("go")) events.push(event);
      const ends = toolEnds(events);
      const text = (id: string) => {
        const block = ends.find((end) => end.toolCallId === id)?.result.content[0];
        return block?.type === "text" ? block.text : "";
      };
      expect(text("ok")).toBe("3px");
      expect(seen).toEqual([{ width: 3, unit: "px" }]);
      expect(hooked).toEqual([{ width: 3, unit: "px" }]);
      expect(text("bad")).toMatch(
        /^Invalid input for tool "resize": input\/width .+, input\/unit .+\. Correct the input/,
      );
      expect(text("taken")).toMatch(/^Invalid input for tool "resize": input\/label label is taken\./);
      expect(ends.map((end) => end.result.isError)).toEqual([false, true, true]);
    } finally {
      await session.close();
    }
  });
});
