// request_network_access in the OS sandbox (@anthropic-ai/sandbox-runtime 0.0.83), through a
// real Runner and real bubblewrap: canonical hosts, input bounds, the admission the approval
// adapter sees, and a grant taking effect at the runtime's proxy for a later command — checked
// without real network, on names under .invalid that never resolve: the proxy answers 403 for
// a host not allowed, and for an allowed one tries to resolve it and fails differently.
// Skipped, saying so in the suite's name, where bwrap, socat or rg is absent; under CI that fails.
import { realpath } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { defineAgent, hostTool, type JsonObject, type RunEvent, ToolInputError } from "@castellan/harness";
import { type ScriptedStep, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import {
  checkCanonicalHost,
  createSandboxRuntimeCommandSessionPlugin,
  type RequestNetworkAccessResult,
  type SandboxPolicyConfig,
} from "../src/capabilities/commands/index.js";
import type { CommandSessionReport } from "../src/capabilities/commands/session/index.js";
import { createNodeRunner, type ToolApprovalRequest } from "../src/index.js";
import { checkNetworkAccessInput } from "../src/platform/sandbox/network-access.js";
import { approvalPlugin, cleanupAfterEach, drain, tempDirPerTest, textOf } from "./support/index.ts";

const temp = tempDirPerTest("castellan-sandbox-net-");
const cleanups = cleanupAfterEach();
const specifier = "castellan.test-sandbox";
const slow = 60_000;
const fast = { initialYieldMs: 10_000, executionTimeoutMs: 20_000, killGraceMs: 200 } as const;

const call = (name: string, input: JsonObject): ScriptedStep => ({ toolCalls: [{ name, input }] });
const curl = (host: string): ScriptedStep =>
  call("exec_command", {
    command: `curl -sS -m 10 -o /dev/null -w 'status=%{http_code}\\n' http://${host}/; echo curl=$?`,
  });

function toolEnds(events: readonly RunEvent[]) {
  return events.flatMap((event) => {
    if (event.kind !== "tool-end") return [];
    return [{ isError: event.result.isError === true, text: textOf(event.result) }];
  });
}
const report = (text: string | undefined) => JSON.parse(text ?? "null") as CommandSessionReport;

function expectCode(run: () => unknown, code: string, message?: string): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ToolInputError);
  expect(caught).toMatchObject({ code });
  if (message !== undefined) expect((caught as Error).message).toContain(message);
}

describe("request_network_access input", () => {
  it("accepts canonical hosts", () => {
    const label63 = "a".repeat(63);
    const name253 = [label63, label63, label63, "b".repeat(61)].join(".");
    expect(name253).toHaveLength(253);
    for (const host of [
      "example.com",
      "a-b.example.com",
      "registry.npmjs.org",
      "localhost",
      "xn--bcher-kva.de",
      "a1.b2",
      `${label63}.com`,
      name253,
    ]) {
      expect(checkCanonicalHost(host)).toBe(host);
    }
  });

  it("refuses a non-canonical host (host_invalid), suggesting the canonical form where one exists", () => {
    const suggested: [string, string][] = [
      ["Example.COM", "example.com"],
      ["https://a.b/c", "a.b"],
      ["a.b.", "a.b"],
      ["bücher.de", "xn--bcher-kva.de"],
      ["a.b:8080", "a.b"],
      ["user:pw@a.b", "a.b"],
      [" a.b ", "a.b"],
      ["HTTP://User@Example.com:443/path?q#f", "example.com"],
    ];
    for (const [host, suggestion] of suggested)
      expectCode(() => checkCanonicalHost(host), "host_invalid", `"${suggestion}"`);
    const label64 = "a".repeat(64);
    const name254 = ["a".repeat(63), "a".repeat(63), "a".repeat(63), "b".repeat(62)].join(".");
    for (const host of [
      "",
      "*.example.com",
      "*",
      "192.0.2.1",
      "[2001:db8::1]",
      "2001:db8::1",
      "a.123",
      "-a.b",
      "a-.b",
      "a..b",
      ".a.b",
      "a_b.c",
      `${label64}.com`,
      name254,
    ]) {
      expectCode(() => checkCanonicalHost(host), "host_invalid", "not a canonical host name");
    }
  });

  it("bounds hosts to 1..16 and reason to non-empty after trimming, at most 1,000 characters", () => {
    const hosts = (n: number) => Array.from({ length: n }, (_, i) => `h${i}.example.invalid`);
    expectCode(() => checkNetworkAccessInput({ hosts: [], reason: "r" }), "hosts_invalid");
    expectCode(() => checkNetworkAccessInput({ hosts: hosts(17), reason: "r" }), "hosts_invalid");
    expect(checkNetworkAccessInput({ hosts: hosts(16), reason: "r" }).hosts).toHaveLength(16);
    expectCode(() => checkNetworkAccessInput({ hosts: ["Bad.Host"], reason: "r" }), "host_invalid", '"bad.host"');
    expectCode(() => checkNetworkAccessInput({ hosts: hosts(1), reason: "" }), "reason_invalid");
    expectCode(() => checkNetworkAccessInput({ hosts: hosts(1), reason: " \n\t " }), "reason_invalid");
    expectCode(() => checkNetworkAccessInput({ hosts: hosts(1), reason: "x".repeat(1_001) }), "reason_invalid");
    expect(checkNetworkAccessInput({ hosts: ["a.b", "a.b"], reason: ` ${"x".repeat(998)} ` })).toEqual({
      hosts: ["a.b"],
      reason: "x".repeat(998),
    });
  });
});

const config: SandboxPolicyConfig = {
  network: { allowedDomains: ["allowed.example.invalid"], deniedDomains: ["denied.example.invalid"] },
};

async function runner(steps: readonly ScriptedStep[], asked: ToolApprovalRequest[]) {
  const root = await realpath(temp.path);
  const plugin = createSandboxRuntimeCommandSessionPlugin({
    sandbox: { specifier, config: { ...config, filesystem: { allowWrite: [root] } } },
    command: { workingDirectory: pathToFileURL(`${root}/`), environment: { inherit: "core" }, ...fast },
  });
  const agent = defineAgent("test.sandbox-network", {
    model: scriptedModel([...steps, { text: "done" }]),
    tools: [hostTool("exec_command"), hostTool("command_session"), hostTool("request_network_access")],
    sandbox: specifier,
  });
  const created = await createNodeRunner({
    agent,
    permissions: "ask-on-write",
    plugins: [
      plugin,
      approvalPlugin(async (request) => {
        asked.push(request);
        return { decision: "allow", reason: "approved in test" };
      }),
    ],
  });
  cleanups.push(() => created.close());
  return created;
}

/** The proxy's answer to a plain-HTTP curl of a host not allowed. */
function expectRefusedByProxy(text: string | undefined, host: string): void {
  const r = report(text);
  expect(r.stdout.text).toBe("status=403\ncurl=0\n");
  expect(r.stderr.text).toContain(`deny network-outbound ${host}:80`);
}

/** An allowed host under .invalid: the proxy tries to resolve it, fails, and answers 502. */
function expectTriedByProxy(text: string | undefined): void {
  const r = report(text);
  expect(r.stdout.text).toBe("status=502\ncurl=0\n");
  expect(r.stderr.text).not.toContain("deny network-outbound");
}

describeNeeding(osSandboxPrograms, "request_network_access in the sandbox runtime", () => {
  it(
    "asks approval with { hosts, reason }, grants for later commands of every Session of the Runner, refuses a denied host, and a fresh Runner starts without the grant",
    async () => {
      const asked: ToolApprovalRequest[] = [];
      const hosts = ["Granted.Example.Invalid"];
      const first = await runner(
        [
          curl("granted.example.invalid"),
          call("request_network_access", { hosts, reason: "  fetch the test fixture  " }),
          call("request_network_access", {
            hosts: ["granted.example.invalid", "allowed.example.invalid", "denied.example.invalid"],
            reason: "fetch the test fixture",
          }),
          curl("granted.example.invalid"),
          curl("allowed.example.invalid"),
          curl("other.example.invalid"),
        ],
        asked,
      );
      const session = await first.createSession();
      const { events, error } = await drain(session.run("go"));
      expect(error).toBeUndefined();
      const [before, nonCanonical, request, granted, allowed, other] = toolEnds(events);
      expectRefusedByProxy(before?.text, "granted.example.invalid");
      // A non-canonical host is refused in admit, before approval, with the canonical form.
      expect(nonCanonical?.isError).toBe(true);
      expect(nonCanonical?.text).toMatch(/^host_invalid/);
      expect(nonCanonical?.text).toContain('"granted.example.invalid"');
      expect(request?.isError).toBe(false);
      expect(JSON.parse(request?.text ?? "null") as RequestNetworkAccessResult).toEqual({
        granted: ["granted.example.invalid"],
        alreadyAllowed: ["allowed.example.invalid"],
        refused: [
          {
            host: "denied.example.invalid",
            reason: 'denied by the sandbox policy (deniedDomains "denied.example.invalid")',
          },
        ],
      });
      expectTriedByProxy(granted?.text);
      expectTriedByProxy(allowed?.text);
      expectRefusedByProxy(other?.text, "other.example.invalid");

      // The approval adapter saw the canonical hosts and the reason, as the admission.
      const networkAsks = asked.filter((ask) => ask.toolName === "request_network_access");
      expect(networkAsks).toHaveLength(1);
      expect(networkAsks[0]).toMatchObject({
        readOnly: false,
        admission: {
          hosts: ["granted.example.invalid", "allowed.example.invalid", "denied.example.invalid"],
          reason: "fetch the test fixture",
        },
      });
      // Command approval was asked for each command, and never carried network access.
      expect(asked.filter((ask) => ask.toolName === "exec_command")).toHaveLength(4);

      await session.close();
      await first.close();

      // A fresh Runner (a new plugin application) starts from the policy.
      const fresh = await runner([curl("granted.example.invalid")], []);
      const freshSession = cleanups.closeLater(await fresh.createSession());
      const freshRun = await drain(freshSession.run("go"));
      expect(freshRun.error).toBeUndefined();
      expectRefusedByProxy(toolEnds(freshRun.events)[0]?.text, "granted.example.invalid");
    },
    slow,
  );

  it(
    "re-applies the Runner's grants when the runtime initializes again after its last Session closed",
    async () => {
      const asked: ToolApprovalRequest[] = [];
      const r = await runner(
        [
          call("request_network_access", { hosts: ["granted.example.invalid"], reason: "fixture" }),
          { text: "granted" },
          curl("granted.example.invalid"),
        ],
        asked,
      );
      const first = await r.createSession();
      const one = await drain(first.run("grant"));
      expect(one.error).toBeUndefined();
      expect(JSON.parse(toolEnds(one.events)[0]?.text ?? "null")).toMatchObject({
        granted: ["granted.example.invalid"],
      });
      await first.close();
      const second = cleanups.closeLater(await r.createSession());
      const two = await drain(second.run("use"));
      expect(two.error).toBeUndefined();
      expectTriedByProxy(toolEnds(two.events)[0]?.text);
    },
    slow,
  );
});
