import type { ModelRequest, ModelStreamEvent } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { offline } from "../src/offline/index.js";

async function reply(request: ModelRequest): Promise<{ text: string; events: ModelStreamEvent[] }> {
  const events: ModelStreamEvent[] = [];
  for await (const event of offline().stream(request, { signal: new AbortController().signal })) events.push(event);
  const text = events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
  return { text, events };
}

describe("offline", () => {
  it("describes the instructions, tools and conversation it was given", async () => {
    const { text, events } = await reply({
      system: "Answer briefly.",
      context: "",
      tools: [{ name: "lookup", description: "", inputSchema: { type: "object" } }],
      hostedTools: [],
      messages: [
        { role: "user", content: [{ type: "text", text: "Remember our project is Cedar." }] },
        { role: "assistant", content: [{ type: "text", text: "Noted." }], toolCalls: [] },
        { role: "user", content: [{ type: "text", text: "What is our project called?" }] },
      ],
    });
    expect(text).toContain("3 message(s), 2 from you");
    expect(text).toContain("Instructions: Answer briefly.");
    expect(text).toContain("Tools: lookup");
    expect(text).toContain("- Remember our project is Cedar.");
    expect(text).toContain("Latest user message: What is our project called?");
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
    expect(events.some((event) => event.type === "usage")).toBe(true);
  });

  it("is deterministic and needs no credentials", async () => {
    const request: ModelRequest = {
      system: "",
      context: "",
      tools: [],
      hostedTools: [],
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    };
    expect((await reply(request)).text).toBe((await reply(request)).text);
    expect(offline().specifier).toBe("offline/echo");
  });
});
