// Provider SDKs are loaded by a binding's first request, not by importing its subpath or
// creating the binding: a program pays an SDK's start-up only when it talks to that provider.
// Checked in a fresh process that records every module it resolves.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../../", import.meta.url));

/** What `script` (ESM, run after module-resolution hooks are in place) prints, as JSON. */
async function probe(script: string): Promise<Record<string, readonly string[]>> {
  const hooks = `
    import { registerHooks } from "node:module";
    globalThis.resolved = [];
    registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); globalThis.resolved.push(result.url); return result; } });
    const loaded = (name) => globalThis.resolved.filter((url) => url.includes("/node_modules/" + name + "/"));
  `;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", `${hooks}\n${script}`], { cwd: root });
  return JSON.parse(stdout);
}

describe("the provider SDKs", () => {
  it("are not loaded by importing the adapters or creating their bindings", async () => {
    const seen = await probe(`
      const { openaiCompatible } = await import("@castellan/models/openai-compatible");
      const { codex } = await import("@castellan/models/codex");
      const { anthropic } = await import("@castellan/models/anthropic");
      openaiCompatible({ baseURL: "http://127.0.0.1:9/v1", apiKey: "x", model: "m" });
      codex({ apiKey: "x", model: "gpt-5" });
      anthropic({ apiKey: "x", model: "claude-sonnet-4-6" });
      console.log(JSON.stringify({ openai: loaded("openai"), anthropic: loaded("@anthropic-ai/sdk") }));
    `);
    expect(seen).toEqual({ openai: [], anthropic: [] });
  });

  it("are loaded by the first request, and only the one it needs", async () => {
    // Port 9 on loopback refuses the connection: the request fails after the SDK sent it.
    const seen = await probe(`
      const { openaiCompatible } = await import("@castellan/models/openai-compatible");
      await import("@castellan/models/anthropic");
      const model = openaiCompatible({ baseURL: "http://127.0.0.1:9/v1", apiKey: "x", model: "m", maxRetries: 0 });
      const events = [];
      for await (const event of model.stream({ system: "", context: "", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [], hostedTools: [] }, { signal: new AbortController().signal })) events.push(event.type === "error" ? event.error.code : event.type);
      console.log(JSON.stringify({ openai: loaded("openai").length > 0 ? ["loaded"] : [], anthropic: loaded("@anthropic-ai/sdk"), events }));
    `);
    expect(seen).toEqual({ openai: ["loaded"], anthropic: [], events: ["model_network"] });
  });
});
