// Permission and admission of the ten browser tools: every one asks under ask-on-write (after
// a first navigate), none under full-access, read-only denies all; URLs are refused at
// admission with nobody asked and no browser opened.
import type { ModelRequest } from "@castellan/harness";
import type { ScriptedStepSource } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { browserToolNames, createOriginAuthority } from "../src/index.js";
import { browserRunner, call, refIn, stubFactory, tabIdIn, toolResults } from "./browser-support.ts";
import { cleanupAfterEach, drain, plugin, textOf } from "./support/index.ts";

const cleanups = cleanupAfterEach();
const page = "http://127.0.0.1:4000/a";

/** Navigate, then each of the other nine once, reading tab ids and refs from the latest result. */
function allTen(): ScriptedStepSource[] {
  // The latest successful result: under read-only the nine are denied, so it stays the navigate's.
  const latest = (request: ModelRequest) =>
    textOf(
      toolResults(request)
        .filter((result) => !result.isError)
        .at(-1),
    );
  const withRef = (n: number) => (request: ModelRequest) => refIn(latest(request), n);
  return [
    call("browser_navigate", { url: page }),
    call("browser_snapshot", {}),
    (request) => call("browser_switch_tab", { tabId: tabIdIn(latest(request)) }) as never,
    (request) => call("browser_click", { role: "button", name: "Delete", ref: withRef(1)(request) }) as never,
    (request) => call("browser_hover", { role: "button", name: "Delete", ref: withRef(2)(request) }) as never,
    (request) =>
      call("browser_drag", {
        source: { role: "button", name: "Delete", ref: withRef(1)(request) },
        target: { role: "button", name: "Delete", ref: withRef(2)(request) },
      }) as never,
    call("browser_select_option", { role: "combobox", name: "Size", label: "Large" }),
    call("browser_fill", { role: "textbox", name: "Email", value: "a@example.com" }),
    call("browser_press_key", { key: "Enter" }),
    call("browser_capture", {}),
    { text: "done" },
  ];
}

async function runOnce(options: Parameters<typeof browserRunner>[0]) {
  const setup = await browserRunner(options);
  cleanups.push(() => setup.runner.close());
  const session = await setup.runner.createSession();
  const drained = await drain(session.run("go"));
  expect(drained.error).toBeUndefined();
  const results = toolResults(setup.model.requests.at(-1));
  return { ...setup, session, results };
}

describe("browser tool permission", () => {
  it("asks once for each of the ten under ask-on-write, browser_snapshot included, with { origin, tabId }", async () => {
    const factory = stubFactory();
    const { asked, results } = await runOnce({ steps: allTen(), factory, permissions: "ask-on-write" });
    expect(asked.map((request) => request.toolName)).toEqual([...browserToolNames]);
    expect(asked.every((request) => request.readOnly === false)).toBe(true);
    expect(asked[0]?.admission).toEqual({ origin: "http://127.0.0.1:4000", tabId: null });
    const tabId = tabIdIn(textOf(results[0]));
    for (const request of asked.slice(1)) expect(request.admission).toEqual({ origin: "http://127.0.0.1:4000", tabId });
    expect(results.map((result) => result.isError)).toEqual(browserToolNames.map(() => false));
    expect(factory.opened).toHaveLength(1);
    expect(factory.opened[0]?.calls).toEqual([
      `navigate ${page}`,
      "observe",
      "switchTab tab-1",
      "act click",
      "act hover",
      "act drag",
      "act select",
      "act fill",
      "act key",
      "capture",
    ]);
    // Refs reach the adapter stripped to its own.
    expect(factory.opened[0]?.actions[0]).toEqual({
      kind: "click",
      target: { role: "button", name: "Delete", ref: "e1" },
    });
  });

  it("asks nobody under full-access", async () => {
    const factory = stubFactory();
    const { asked, results } = await runOnce({ steps: allTen(), factory, permissions: "full-access" });
    expect(asked).toEqual([]);
    expect(results.filter((result) => result.isError)).toEqual([]);
  });

  it("read-only denies all ten: navigate opens nothing, and the nine are denied after a hook-allowed navigate", async () => {
    const denied = stubFactory();
    const first = await runOnce({
      steps: [call("browser_navigate", { url: page }), { text: "done" }],
      factory: denied,
      permissions: "read-only",
    });
    expect(textOf(first.results[0])).toMatch(/^Permission denied for tool "browser_navigate"/);
    expect(denied.opened).toEqual([]);

    const factory = stubFactory();
    const allowNavigate = plugin("test.allow-navigate", (host) =>
      host.hooks.toolPermission((request) => (request.toolName === "browser_navigate" ? "allow" : "defer")),
    );
    const { results, asked } = await runOnce({
      steps: allTen(),
      factory,
      permissions: "read-only",
      plugins: [allowNavigate],
    });
    expect(asked).toEqual([]);
    expect(results[0]?.isError).toBe(false);
    for (const [index, result] of results.slice(1).entries()) {
      expect(textOf(result)).toMatch(new RegExp(`^Permission denied for tool "${browserToolNames[index + 1]}"`));
    }
    expect(factory.opened[0]?.calls).toEqual([`navigate ${page}`]);
  });

  it("a toolPermission hook denies one Origin from admission.origin alone, the URL canonicalised first", async () => {
    const factory = stubFactory();
    const blocked = plugin("test.block-origin", (host) =>
      host.hooks.toolPermission((request) => {
        const admission = request.admission as { origin?: string } | undefined;
        return admission?.origin === "http://127.0.0.2:4000" ? { decision: "deny", reason: "blocked Origin" } : "defer";
      }),
    );
    const { results } = await runOnce({
      steps: [
        call("browser_navigate", { url: page }),
        call("browser_navigate", { url: "HTTP://127.0.0.2:4000/secret?q=1", newTab: true }),
        call("browser_press_key", { key: "Tab" }),
        { text: "done" },
      ],
      factory,
      plugins: [blocked],
    });
    expect(results.map((result) => result.isError)).toEqual([false, true, false]);
    expect(textOf(results[1])).toContain("blocked Origin");
    expect(factory.opened[0]?.calls).toEqual([`navigate ${page}`, "act key"]);
    expect([...(factory.requests[0]?.admittedOrigins.list() ?? [])]).toEqual(["http://127.0.0.1:4000"]);
  });

  it("refuses credentials, file:, data:, javascript:, unlisted Origins and 2,049 characters with nobody asked and no browser", async () => {
    const factory = stubFactory();
    const long = `http://127.0.0.1:4000/${"a".repeat(2_049 - "http://127.0.0.1:4000/".length)}`;
    expect(long).toHaveLength(2_049);
    const urls = [
      "http://user:pass@127.0.0.1:4000/",
      "file:///etc/passwd",
      "data:text/html,<p>x</p>",
      "javascript:alert(1)",
      "http://127.0.0.1:4001/",
      long,
    ];
    const { results, asked } = await runOnce({
      steps: [...urls.map((url) => call("browser_navigate", { url })), { text: "done" }],
      factory,
      permissions: "ask-on-write",
      tools: { origins: createOriginAuthority({ origins: ["http://127.0.0.1:4000"] }) },
    });
    expect(asked).toEqual([]);
    expect(factory.requests).toEqual([]);
    const codes = results.map((result) => textOf(result).split(":")[0]);
    expect(codes).toEqual([
      "browser_url_refused",
      "browser_url_refused",
      "browser_url_refused",
      "browser_url_refused",
      "browser_origin_not_admitted",
      "browser_url_refused",
    ]);
    expect(results.every((result) => result.isError)).toBe(true);
    expect(textOf(results[0])).not.toContain("user:pass");
  });

  it("every tool but navigate is browser_not_open before the first navigate: nobody asked, nothing opened", async () => {
    const factory = stubFactory();
    const others = browserToolNames.filter((name) => name !== "browser_navigate");
    const inputs: Record<string, object> = {
      browser_snapshot: {},
      browser_switch_tab: { tabId: "t1.tab-1" },
      browser_click: { role: "button", name: "Delete" },
      browser_hover: { role: "button", name: "Delete" },
      browser_drag: { source: { role: "button", name: "A" }, target: { role: "button", name: "B" } },
      browser_select_option: { role: "combobox", name: "Size", label: "Large" },
      browser_fill: { role: "textbox", name: "Email", value: "x" },
      browser_press_key: { key: "Enter" },
      browser_capture: {},
    };
    const { results, asked } = await runOnce({
      steps: [...others.map((name) => call(name, inputs[name] as never)), { text: "done" }],
      factory,
      permissions: "ask-on-write",
    });
    expect(asked).toEqual([]);
    expect(factory.requests).toEqual([]);
    expect(results.map((result) => textOf(result).split(":")[0])).toEqual(others.map(() => "browser_not_open"));
  });
});

describe("a host-selected tab", () => {
  const selectedTab = { tabId: "target-1", origin: "http://127.0.0.1:4000" };

  it("lets browser_snapshot come first, admits only the granted Origin and refuses new tabs and tab switches", async () => {
    const factory = stubFactory({}, { mode: "selected", selectedTab });
    const { results, asked } = await runOnce({
      steps: [
        call("browser_snapshot", {}),
        call("browser_navigate", { url: "http://127.0.0.1:4000/next" }),
        call("browser_navigate", { url: "http://127.0.0.2:4000/" }),
        call("browser_navigate", { url: "http://127.0.0.1:4000/other", newTab: true }),
        (request) => call("browser_switch_tab", { tabId: tabIdIn(textOf(toolResults(request)[0])) }) as never,
        { text: "done" },
      ],
      factory,
      permissions: "ask-on-write",
    });
    expect(asked.map((request) => request.toolName)).toEqual(["browser_snapshot", "browser_navigate"]);
    expect(asked[0]?.admission).toEqual({ origin: selectedTab.origin, tabId: expect.stringMatching(/\.target-1$/) });
    expect(results.map((result) => textOf(result).split(":")[0])).toEqual([
      "url",
      "url",
      "browser_origin_not_admitted",
      "browser_unsupported",
      "browser_unsupported",
    ]);
    expect(factory.opened).toHaveLength(1);
    expect(factory.opened[0]?.calls).toEqual(["observe", "navigate http://127.0.0.1:4000/next"]);
    expect(factory.requests[0]?.admittedOrigins.has(selectedTab.origin)).toBe(true);
  });
});
