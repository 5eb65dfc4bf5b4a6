import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import type { ToolApprovalAdapter, ToolApprovalRequest } from "../permissions/types.js";
import type { NodeRunnerHost } from "../runner/plugin.js";
import {
  escapeForTerminal,
  TERMINAL_APPROVAL_QUESTION,
  type TerminalApprovalOptions,
  terminalApproval,
} from "./terminal-approval.js";

function request(overrides: Partial<ToolApprovalRequest> = {}): ToolApprovalRequest {
  return {
    agent: { id: "coder" },
    sessionId: "s1",
    runId: "r1",
    turn: 1,
    toolCallId: "call-1",
    toolName: "write_file",
    source: { kind: "agent" },
    input: { path: "a.txt", content: "hello" },
    readOnly: false,
    title: "Call write_file",
    summary: "",
    description: "",
    ...overrides,
  };
}

function setup(options: Partial<TerminalApprovalOptions> = {}, input = new PassThrough()) {
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const plugin = terminalApproval({ input, output, ...options });
  let adapter: ToolApprovalAdapter | undefined;
  const host = { registerApproval: (a: ToolApprovalAdapter) => (adapter = a) } as unknown as NodeRunnerHost;
  plugin.apply(host);
  if (!adapter) throw new Error("no adapter registered");
  const approval = adapter;
  const ask = (req = request(), signal = new AbortController().signal) => approval.request(req, { signal });
  const prompts = () => text.split(TERMINAL_APPROVAL_QUESTION).length - 1;
  const waitForPrompts = (n: number) => vi.waitFor(() => expect(prompts()).toBe(n));
  return { input, output: () => text, plugin, ask, prompts, waitForPrompts };
}

describe("terminalApproval", () => {
  it("registers an adapter under its default name, or the given one", () => {
    expect(setup().plugin.name).toBe("castellan.terminal-approval");
    expect(setup({ name: "mine" }).plugin.name).toBe("mine");
  });

  it.each(["y", "YES", "  Yes  ", "y\r"])("allows on %j", async (line) => {
    const t = setup();
    const answer = t.ask();
    await t.waitForPrompts(1);
    t.input.write(`${line}\n`);
    await expect(answer).resolves.toEqual({ decision: "allow" });
    t.plugin.close();
  });

  it.each(["n", "", "no", "sure", "yess", "y y"])("denies on %j", async (line) => {
    const t = setup();
    const answer = t.ask();
    await t.waitForPrompts(1);
    t.input.write(`${line}\n`);
    await expect(answer).resolves.toEqual({ decision: "deny", reason: "denied at the terminal" });
    t.plugin.close();
  });

  it("shows the agent, parent call, tool, reason, trait and the exact pretty JSON input", async () => {
    const t = setup();
    const input = {
      path: "docs/naïve café.md",
      nested: { list: [1, 2.5, null, true, { deep: "日本語 🚀 👩‍👩‍👧" }], empty: {}, none: [] },
      quote: 'say "hi"\nnext line\ttab',
    };
    const answer = t.ask(
      request({
        input,
        reason: "writes outside the workspace",
        parent: { sessionId: "s0", runId: "r0", toolCallId: "call-parent", toolName: "delegate" },
      }),
    );
    await t.waitForPrompts(1);
    const shown = t.output();
    expect(shown).toContain(JSON.stringify(input, null, 2));
    expect(shown).toContain("coder");
    expect(shown).toContain("call-parent");
    expect(shown).toContain("delegate");
    expect(shown).toContain("write_file");
    expect(shown).toContain("writes outside the workspace");
    expect(shown).toContain("not read-only");
    expect(shown.endsWith(TERMINAL_APPROVAL_QUESTION)).toBe(true);
    t.input.write("n\n");
    await answer;
    t.plugin.close();
  });

  it("says when a tool is read-only and omits absent fields", async () => {
    const t = setup();
    const answer = t.ask(request({ readOnly: true, toolName: "read_file" }));
    await t.waitForPrompts(1);
    expect(t.output()).toContain("read_file (read-only)");
    expect(t.output()).not.toContain("parent:");
    expect(t.output()).not.toContain("reason:");
    t.input.write("y\n");
    await answer;
    t.plugin.close();
  });

  it("escapes terminal controls and bidi overrides as the same JSON value", async () => {
    const t = setup();
    const input = { cmd: "rm -rf /\u202e txt.exe", csi: "\u009b2J", del: "\u007f" };
    const answer = t.ask(request({ input, reason: "\u001b[2Jcleared" }));
    await t.waitForPrompts(1);
    const shown = t.output();
    for (const control of ["\u202e", "\u009b", "\u007f", "\u001b"]) expect(shown).not.toContain(control);
    expect(shown).toContain("reason: \\u001b[2Jcleared");
    const json = shown.slice(shown.indexOf("{"), shown.lastIndexOf("}") + 1);
    expect(JSON.parse(json)).toEqual(input);
    expect(escapeForTerminal("é 日本 🚀")).toBe("é 日本 🚀");
    t.input.write("n\n");
    await answer;
    t.plugin.close();
  });

  it("denies when the input ends, now and for later requests", async () => {
    const t = setup();
    const first = t.ask();
    await t.waitForPrompts(1);
    t.input.end();
    await expect(first).resolves.toEqual({ decision: "deny", reason: expect.stringContaining("input ended") });
    await expect(t.ask()).resolves.toMatchObject({ decision: "deny", reason: expect.stringContaining("input ended") });
    expect(t.prompts()).toBe(2);
    t.plugin.close();
  });

  it("shows the call's title and summary, never the model-facing description", async () => {
    const t = setup();
    const answer = t.ask(
      request({
        title: "Edit src/a.ts",
        summary: "--- a/src/a.ts\n+++ b/src/a.ts\n-old\n+new",
        description: "A long text written for the model",
      }),
    );
    await t.waitForPrompts(1);
    expect(t.output()).toContain("Tool approval requested: Edit src/a.ts");
    expect(t.output()).toContain("+++ b/src/a.ts\n-old\n+new");
    expect(t.output()).not.toContain("written for the model");
    t.input.write("n\n");
    await answer;
    t.plugin.close();
  });

  it("allows always for this Session by the admission's policyKey, else the tool name", async () => {
    const t = setup();
    const exec = (sessionId: string, command: string) =>
      request({ sessionId, toolName: "exec_command", admission: { policyKey: "exec_command", command } });
    const first = t.ask(exec("s1", "npm test"));
    await t.waitForPrompts(1);
    expect(t.output()).toContain("answer a to allow this and every later exec_command call of this Session");
    t.input.write("a\n");
    await expect(first).resolves.toEqual({
      decision: "allow",
      reason: "allowed always for this Session at the terminal",
    });
    // The same key in the same Session is not asked again; another Session, or another key, is.
    await expect(t.ask(exec("s1", "npm run lint"))).resolves.toMatchObject({ decision: "allow" });
    expect(t.prompts()).toBe(1);
    const other = t.ask(exec("s2", "npm test"));
    await t.waitForPrompts(2);
    t.input.write("n\n");
    await expect(other).resolves.toMatchObject({ decision: "deny" });
    const write = t.ask(request({ sessionId: "s1" }));
    await t.waitForPrompts(3);
    t.input.write("always\n");
    await expect(write).resolves.toMatchObject({ decision: "allow" });
    await expect(t.ask(request({ sessionId: "s1", toolCallId: "call-2" }))).resolves.toMatchObject({
      decision: "allow",
    });
    expect(t.prompts()).toBe(3);
    t.plugin.close();
  });

  it("never offers always for request_network_access: a there is no yes", async () => {
    const t = setup();
    const network = request({ toolName: "request_network_access", admission: { policyKey: "network", hosts: ["x"] } });
    const answer = t.ask(network);
    await t.waitForPrompts(1);
    expect(t.output()).not.toContain("answer a to allow");
    t.input.write("a\n");
    await expect(answer).resolves.toEqual({ decision: "deny", reason: "denied at the terminal" });
    const again = t.ask(network);
    await t.waitForPrompts(2);
    t.input.write("y\n");
    await expect(again).resolves.toEqual({ decision: "allow" });
    t.plugin.close();
  });

  it("answers with lines typed ahead, in order, before the input ended", async () => {
    const t = setup();
    t.input.write("y\nn\n");
    t.input.end("yes");
    await expect(t.ask()).resolves.toEqual({ decision: "allow" });
    await expect(t.ask()).resolves.toMatchObject({ decision: "deny", reason: "denied at the terminal" });
    await expect(t.ask()).resolves.toEqual({ decision: "allow" });
    await expect(t.ask()).resolves.toMatchObject({ reason: expect.stringContaining("input ended") });
    t.plugin.close();
  });

  it("keeps a line typed between questions for the next question", async () => {
    const t = setup();
    const first = t.ask();
    await t.waitForPrompts(1);
    t.input.write("n\n");
    await first;
    t.input.write("y\n");
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(t.ask()).resolves.toEqual({ decision: "allow" });
    t.plugin.close();
  });

  it("asks concurrent requests one at a time, in order", async () => {
    const t = setup();
    const first = t.ask(request({ toolCallId: "c1", toolName: "first_tool" }));
    const second = t.ask(request({ toolCallId: "c2", toolName: "second_tool" }));
    await t.waitForPrompts(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(t.prompts()).toBe(1);
    expect(t.output()).toContain("first_tool");
    expect(t.output()).not.toContain("second_tool");
    t.input.write("y\n");
    await expect(first).resolves.toEqual({ decision: "allow" });
    await t.waitForPrompts(2);
    expect(t.output().indexOf("second_tool")).toBeGreaterThan(t.output().indexOf("first_tool"));
    t.input.write("n\n");
    await expect(second).resolves.toMatchObject({ decision: "deny" });
    t.plugin.close();
  });

  it("withdraws a question whose signal aborts; the next request proceeds", async () => {
    const t = setup();
    const controller = new AbortController();
    const first = t.ask(request({ toolName: "first_tool" }), controller.signal);
    const second = t.ask(request({ toolName: "second_tool" }));
    await t.waitForPrompts(1);
    controller.abort(new Error("run aborted"));
    await expect(first).rejects.toMatchObject({ name: "TerminalApprovalError", code: "approval_aborted" });
    expect(t.output()).toContain("withdrawn");
    await t.waitForPrompts(2);
    t.input.write("y\n");
    await expect(second).resolves.toEqual({ decision: "allow" });
    t.plugin.close();
  });

  it("rejects already-aborted and queued-then-aborted requests without asking", async () => {
    const t = setup();
    await expect(t.ask(request(), AbortSignal.abort())).rejects.toMatchObject({ code: "approval_aborted" });
    expect(t.prompts()).toBe(0);
    const first = t.ask();
    const controller = new AbortController();
    const queued = t.ask(request({ toolName: "queued_tool" }), controller.signal);
    await t.waitForPrompts(1);
    controller.abort();
    await expect(queued).rejects.toMatchObject({ code: "approval_aborted" });
    t.input.write("y\n");
    await expect(first).resolves.toEqual({ decision: "allow" });
    expect(t.output()).not.toContain("queued_tool");
    t.plugin.close();
  });

  it("close rejects pending and later requests, releases the input, and is idempotent", async () => {
    const t = setup();
    const pending = t.ask();
    const queued = t.ask();
    await t.waitForPrompts(1);
    expect(t.input.listenerCount("data")).toBeGreaterThan(0);
    t.plugin.close();
    await expect(pending).rejects.toMatchObject({ code: "approval_closed" });
    await expect(queued).rejects.toMatchObject({ code: "approval_closed" });
    await expect(t.ask()).rejects.toMatchObject({ code: "approval_closed" });
    for (const event of ["data", "readable", "end", "keypress"]) expect(t.input.listenerCount(event)).toBe(0);
    t.plugin.close();
  });

  it("does not touch the input before the first request", () => {
    const t = setup();
    expect(t.input.listenerCount("data")).toBe(0);
    t.plugin.close();
  });

  describe("on a TTY", () => {
    function ttyInput() {
      const input = Object.assign(new PassThrough(), { isTTY: true, modes: [] as boolean[] });
      return Object.assign(input, { setRawMode: (mode: boolean) => input.modes.push(mode) });
    }

    it("Ctrl+C denies the pending request and calls onInterrupt", async () => {
      const onInterrupt = vi.fn();
      const t = setup({ onInterrupt }, ttyInput());
      const pending = t.ask();
      await t.waitForPrompts(1);
      t.input.write("ye\x03");
      await expect(pending).resolves.toMatchObject({ decision: "deny", reason: expect.stringContaining("interrupt") });
      await vi.waitFor(() => expect(onInterrupt).toHaveBeenCalledTimes(1));
      const next = t.ask();
      await vi.waitFor(() => expect(t.prompts()).toBeGreaterThanOrEqual(2));
      t.input.write("s\r");
      // The partial "ye" was discarded: "s" alone denies.
      await expect(next).resolves.toMatchObject({ decision: "deny", reason: "denied at the terminal" });
      t.plugin.close();
    });

    it("Ctrl+C without onInterrupt denies; answers are read; raw mode only while asking", async () => {
      const input = ttyInput();
      const t = setup({}, input);
      const pending = t.ask();
      await t.waitForPrompts(1);
      t.input.write("\x03");
      await expect(pending).resolves.toMatchObject({ decision: "deny" });
      const next = t.ask();
      await vi.waitFor(() => expect(t.prompts()).toBeGreaterThanOrEqual(2));
      t.input.write("y\r");
      await expect(next).resolves.toEqual({ decision: "allow" });
      expect(input.modes.at(-1)).toBe(false);
      expect(input.modes).toContain(true);
      t.plugin.close();
      expect(t.input.listenerCount("keypress")).toBe(0);
      expect(t.input.listenerCount("end")).toBe(0);
    });
  });
});
