import {
  type AcquireOptions,
  type BindingKind,
  defineAgent,
  defineCapability,
  defineTool,
  type JsonObject,
  resource,
  type SandboxContribution,
} from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createNodeRunner, type NodeRunnerPlugin, openSession, ResourceError, type Session } from "../src/index.js";
import { cleanupAfterEach, collect, rejection as rejectionOf, spyPlugin } from "./support/index.ts";

/** Everything the test doubles did, in order. */
type Journal = string[];

interface KindOptions {
  /** Acquisition throws this. */
  readonly failAcquire?: Error;
  /** Release throws this. */
  readonly failRelease?: Error;
  /** Called during acquisition, e.g. to abort the opening. */
  readonly onAcquire?: (options: AcquireOptions) => void;
}

/** A resource kind recording its acquisitions and releases; the value names the kind and holds the spec. */
function recordingKind(
  name: string,
  journal: Journal,
  options: KindOptions = {},
): BindingKind<unknown, { kind: string; spec: unknown }> & {
  acquisitions: { spec: unknown; options: AcquireOptions }[];
} {
  const acquisitions: { spec: unknown; options: AcquireOptions }[] = [];
  return {
    name,
    acquisitions,
    async acquire(spec, acquireOptions) {
      journal.push(`acquire ${name}`);
      acquisitions.push({ spec, options: acquireOptions });
      options.onAcquire?.(acquireOptions);
      if (options.failAcquire) throw options.failAcquire;
      return {
        value: { kind: name, spec },
        close: async () => {
          journal.push(`release ${name}`);
          if (options.failRelease) throw options.failRelease;
        },
      };
    },
  };
}

/** A sandbox the declaration opens itself, recording open and close. */
function recordingSandbox(
  journal: Journal,
  options: { failOpen?: Error } = {},
): SandboxContribution & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    specifier: "test/sandbox",
    signals,
    async open({ signal }) {
      journal.push("open sandbox");
      signals.push(signal);
      if (options.failOpen) throw options.failOpen;
      return {
        sandbox: { root: "/sandbox" },
        close: () => {
          journal.push("close sandbox");
        },
      };
    },
  };
}

/** Agent `id` with a recording sandbox and capability "storage" of the kinds first, broken (failing per `brokenOptions`) and third. */
function storageWithBroken(id: string, brokenOptions: KindOptions) {
  const journal: Journal = [];
  const first = recordingKind("first", journal);
  const broken = recordingKind("broken", journal, brokenOptions);
  const third = recordingKind("third", journal);
  const capability = defineCapability({
    name: "storage",
    resources: [resource(first, {}), resource(broken, {}), resource(third, {})],
  });
  const agent = defineAgent(id, {
    model: scriptedModel([]),
    capabilities: [capability],
    sandbox: recordingSandbox(journal),
  });
  return { journal, third, agent };
}

/** Waits for a promise that must reject; a Session that opened by mistake is closed so the test leaves nothing behind. */
function rejection(promise: Promise<unknown>): Promise<unknown> {
  return rejectionOf(
    promise.then(async (value) => {
      if (value && typeof (value as Session).close === "function") await (value as Session).close();
      return value;
    }),
  );
}

const cleanups = cleanupAfterEach();
const { closeLater } = cleanups;

describe("capability resources and the sandbox", () => {
  it("are acquired once at open in order, reachable from tools and sections, and released in reverse once", async () => {
    const journal: Journal = [];
    const first = recordingKind("first", journal);
    const second = recordingKind("second", journal);
    const firstRequest = resource(first, { path: "/data" });
    const secondRequest = resource(second, { url: "memory://cache" });
    const sandbox = recordingSandbox(journal);
    const reads: unknown[] = [];
    const readSecond = defineTool({
      name: "read_second",
      description: "Reads the second resource",
      readOnly: true,
      execute: (_input, ctx) => {
        const value = ctx.resource(secondRequest);
        reads.push(value);
        return `second at ${JSON.stringify(value.spec)}`;
      },
    });
    const storage = defineCapability({
      name: "storage",
      tools: [readSecond],
      resources: [firstRequest, secondRequest],
      instructions: [
        {
          name: "data",
          text: (ctx) => `Data lives at ${(ctx.resource(firstRequest).spec as { path: string }).path}.`,
        },
      ],
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "read_second", input: {} }] },
      { text: "done" },
      { text: "done again" },
    ]);
    const agent = defineAgent("res.order", { model, capabilities: [storage], sandbox });

    const session = await openSession({ agent, params: { team: "core" } });
    expect(journal).toEqual(["open sandbox", "acquire first", "acquire second"]);
    expect(sandbox.signals[0]).toBeInstanceOf(AbortSignal);
    expect(first.acquisitions).toHaveLength(1);
    expect(first.acquisitions[0]?.spec).toEqual({ path: "/data" });
    expect(first.acquisitions[0]?.options).toMatchObject({ sessionId: session.id, params: { team: "core" } });
    expect(first.acquisitions[0]?.options.signal).toBeInstanceOf(AbortSignal);

    const run = session.run("Read it");
    const events = await collect(run);
    await run.result;
    await expect(session.run("Again").result).resolves.toMatchObject({ text: "done again" });
    // Runs reuse what was acquired at open.
    expect(journal).toEqual(["open sandbox", "acquire first", "acquire second"]);
    expect(model.requests).toHaveLength(3);
    for (const request of model.requests) expect(request.system).toBe("## data\n\nData lives at /data.");
    expect(reads).toEqual([{ kind: "second", spec: { url: "memory://cache" } }]);
    expect(events.find((event) => event.kind === "tool-end")).toMatchObject({
      result: { content: [{ type: "text", text: 'second at {"url":"memory://cache"}' }], isError: false },
    });

    await session.close();
    await session.close();
    expect(journal).toEqual([
      "open sandbox",
      "acquire first",
      "acquire second",
      "release second",
      "release first",
      "close sandbox",
    ]);
  });

  it("gives a tool that reads an undeclared resource a resource_pending error result", async () => {
    const journal: Journal = [];
    const undeclared = resource(recordingKind("undeclared", journal), {});
    const peek = defineTool({
      name: "peek",
      description: "Reads a resource no capability declares",
      readOnly: true,
      execute: (_input, ctx) => JSON.stringify(ctx.resource(undeclared)),
    });
    const model = scriptedModel([{ toolCalls: [{ name: "peek", input: {} }] }, { text: "ok" }]);
    const agent = defineAgent("res.undeclared", { model, tools: [peek] });
    const session = closeLater(await openSession({ agent }));
    const run = session.run("Peek");
    const events = await collect(run);
    await run.result;
    const end = events.find((event) => event.kind === "tool-end");
    expect(end).toMatchObject({ result: { isError: true } });
    expect(JSON.stringify(end)).toMatch(/undeclared resource is not acquired/);
    expect(journal).toEqual([]);
  });

  it("derives a { fromParams } spec from the Session's params", async () => {
    const journal: Journal = [];
    const kind = recordingKind("workspace", journal);
    const seenParams: JsonObject[] = [];
    const request = resource(kind, {
      fromParams: (params: JsonObject) => {
        seenParams.push(params);
        return { root: params.root, readOnly: params.mode === "read" };
      },
    });
    const capability = defineCapability({ name: "workspace", resources: [request] });
    const agent = defineAgent("res.from-params", {
      model: scriptedModel([]),
      params: ["root"],
      capabilities: [capability],
    });
    const session = closeLater(await openSession({ agent, params: { root: "/projects/a", mode: "read" } }));

    expect(seenParams).toHaveLength(1);
    expect(seenParams[0]).toEqual({ root: "/projects/a", mode: "read" });
    expect(seenParams[0]).toBe(session.params);
    expect(kind.acquisitions[0]?.spec).toEqual({ root: "/projects/a", readOnly: true });
  });
});

describe("a failed acquisition", () => {
  it("rejects the open with resource_failed naming the resource and releases the others in reverse", async () => {
    const cause = new Error("disk unavailable");
    const { journal, third, agent } = storageWithBroken("res.acquire-fails", { failAcquire: cause });
    const approval = spyPlugin("test.approval");

    const error = await rejection(openSession({ agent, approval }));
    expect(error).toBeInstanceOf(ResourceError);
    expect(error).toMatchObject({ code: "resource_failed" });
    expect((error as Error).message).toContain('broken resource of capability "storage"');
    expect((error as Error).message).toContain("disk unavailable");
    expect((error as Error).cause).toBe(cause);
    expect(journal).toEqual(["open sandbox", "acquire first", "acquire broken", "release first", "close sandbox"]);
    expect(third.acquisitions).toHaveLength(0);
    expect(approval.closed).toBe(1);
  });

  it("rejects with resource_failed when the sandbox fails to open, acquiring no resources", async () => {
    const journal: Journal = [];
    const kind = recordingKind("first", journal);
    const capability = defineCapability({ name: "storage", resources: [resource(kind, {})] });
    const agent = defineAgent("res.sandbox-fails", {
      model: scriptedModel([]),
      capabilities: [capability],
      sandbox: recordingSandbox(journal, { failOpen: new Error("no container runtime") }),
    });
    const error = await rejection(openSession({ agent }));
    expect(error).toMatchObject({ code: "resource_failed" });
    expect((error as Error).message).toContain('sandbox "test/sandbox"');
    expect(journal).toEqual(["open sandbox"]);
  });

  it("rejects a lease without close() with resource_failed and releases what was acquired", async () => {
    const journal: Journal = [];
    const first = recordingKind("first", journal);
    const leaky: BindingKind<unknown, string> = {
      name: "leaky",
      acquire: async () => ({ value: "no close" }) as never,
    };
    const capability = defineCapability({ name: "storage", resources: [resource(first, {}), resource(leaky, {})] });
    const agent = defineAgent("res.bad-lease", { model: scriptedModel([]), capabilities: [capability] });
    const error = await rejection(openSession({ agent }));
    expect(error).toMatchObject({ code: "resource_failed" });
    expect((error as Error).message).toContain("leaky resource");
    expect(journal).toEqual(["acquire first", "release first"]);
  });

  it("releases what was acquired when the open signal aborts during acquisition", async () => {
    const journal: Journal = [];
    const controller = new AbortController();
    const first = recordingKind("first", journal, { onAcquire: () => controller.abort() });
    const capability = defineCapability({ name: "storage", resources: [resource(first, {})] });
    const agent = defineAgent("res.abort-open", { model: scriptedModel([]), capabilities: [capability] });
    const error = await rejection(openSession({ agent, signal: controller.signal }));
    expect(error).toMatchObject({ code: "aborted", name: "AbortError" });
    expect(first.acquisitions[0]?.options.signal.aborted).toBe(true);
    expect(journal).toEqual(["acquire first", "release first"]);
  });
});

describe("a failed release", () => {
  it("does not stop the other releases; close rejects with a typed error naming it", async () => {
    const cause = new Error("flush failed");
    const { journal, agent } = storageWithBroken("res.release-fails", { failRelease: cause });
    const approval = spyPlugin("test.approval");
    const session = await openSession({ agent, approval });

    const error = await rejection(session.close());
    expect(error).toBeInstanceOf(ResourceError);
    expect(error).toMatchObject({ code: "resource_failed" });
    expect((error as Error).message).toContain('broken resource of capability "storage"');
    expect((error as Error).cause).toBeInstanceOf(AggregateError);
    expect(((error as Error).cause as AggregateError).errors).toEqual([cause]);
    expect(journal).toEqual([
      "open sandbox",
      "acquire first",
      "acquire broken",
      "acquire third",
      "release third",
      "release broken",
      "release first",
      "close sandbox",
    ]);
    // The rest of closing went on: the Session is closed and its approval plugin too.
    expect(session.signal.aborted).toBe(true);
    expect(approval.closed).toBe(1);
    // Closing again reports the same outcome and releases nothing twice.
    expect(await rejection(session.close())).toBe(error);
    expect(journal.filter((entry) => entry.startsWith("release") || entry === "close sandbox")).toHaveLength(4);
  });

  it("names every failed release in one error", async () => {
    const journal: Journal = [];
    const first = recordingKind("first", journal, { failRelease: new Error("first failed") });
    const second = recordingKind("second", journal, { failRelease: new Error("second failed") });
    const capability = defineCapability({ name: "storage", resources: [resource(first, {}), resource(second, {})] });
    const agent = defineAgent("res.release-fails-twice", { model: scriptedModel([]), capabilities: [capability] });
    const session = await openSession({ agent });
    const error = await rejection(session.close());
    expect(error).toMatchObject({ code: "resource_failed" });
    expect((error as Error).message).toContain("second resource");
    expect((error as Error).message).toContain("first resource");
    expect(((error as Error).cause as AggregateError).errors.map((item: Error) => item.message)).toEqual([
      "second failed",
      "first failed",
    ]);
    expect(journal).toEqual(["acquire first", "acquire second", "release second", "release first"]);
  });
});

describe("named sandboxes", () => {
  it("opens a sandbox name with the registered resolver and closes it with the Session", async () => {
    const journal: Journal = [];
    const opened: { specifier: string; sessionId: string; signal: AbortSignal }[] = [];
    const sandboxes: NodeRunnerPlugin = {
      name: "test.sandboxes",
      apply(host) {
        host.registerSandboxResolver({
          async open(request) {
            opened.push(request);
            journal.push(`open ${request.specifier}`);
            return {
              sandbox: { id: request.specifier },
              close: () => {
                journal.push(`close ${request.specifier}`);
              },
            };
          },
        });
      },
    };
    const kind = recordingKind("first", journal);
    const capability = defineCapability({ name: "storage", resources: [resource(kind, {})] });
    const agent = defineAgent("res.named-sandbox", {
      model: scriptedModel([]),
      sandbox: "docker/default",
      capabilities: [capability],
    });
    const runner = await createNodeRunner({ agent, plugins: [sandboxes] });
    cleanups.push(() => runner.close());
    const session = await runner.createSession({ id: "named-sandbox" });

    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ specifier: "docker/default", sessionId: "named-sandbox" });
    expect(opened[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(journal).toEqual(["open docker/default", "acquire first"]);
    await session.close();
    expect(journal).toEqual(["open docker/default", "acquire first", "release first", "close docker/default"]);
  });

  it("rejects a sandbox name without a resolver with sandbox_not_found, acquiring nothing", async () => {
    const journal: Journal = [];
    const kind = recordingKind("first", journal);
    const capability = defineCapability({ name: "storage", resources: [resource(kind, {})] });
    const approval = spyPlugin("test.approval");
    const agent = defineAgent("res.no-resolver", {
      model: scriptedModel([]),
      sandbox: "docker/default",
      capabilities: [capability],
    });
    const error = await rejection(openSession({ agent, approval }));
    expect(error).toMatchObject({ code: "sandbox_not_found" });
    expect((error as Error).message).toContain("docker/default");
    expect(journal).toEqual([]);
    expect(approval.closed).toBe(1);
  });
});

describe("invalid declarations found at open", () => {
  it("rejects two sandboxes (agent and capability) with invalid_declaration, opening neither", async () => {
    const journal: Journal = [];
    const capability = defineCapability({ name: "boxed", sandbox: recordingSandbox(journal) });
    const agent = defineAgent("res.two-sandboxes", {
      model: scriptedModel([]),
      sandbox: recordingSandbox(journal),
      capabilities: [capability],
    });
    const error = await rejection(openSession({ agent }));
    expect(error).toMatchObject({ code: "invalid_declaration" });
    expect((error as Error).message).toMatch(/sandbox/);
    expect(journal).toEqual([]);
  });

  it("rejects a state key declared by the agent and a capability with invalid_declaration", async () => {
    const journal: Journal = [];
    const capability = defineCapability({
      name: "tracker",
      state: { count: 0 },
      resources: [resource(recordingKind("first", journal), {})],
    });
    const agent = defineAgent("res.duplicate-state", {
      model: scriptedModel([]),
      state: { count: 1 },
      capabilities: [capability],
    });
    const error = await rejection(openSession({ agent }));
    expect(error).toMatchObject({ code: "invalid_declaration" });
    expect((error as Error).message).toContain('"count"');
    expect(journal).toEqual([]);
  });

  it("fails with projection_failed when a section throws at the initial projection, releasing resources", async () => {
    const journal: Journal = [];
    const first = recordingKind("first", journal);
    const second = recordingKind("second", journal);
    const capability = defineCapability({
      name: "storage",
      resources: [resource(first, {}), resource(second, {})],
      instructions: [
        {
          name: "broken",
          text: () => {
            throw new Error("section exploded");
          },
        },
      ],
    });
    const approval = spyPlugin("test.approval");
    const agent = defineAgent("res.projection-fails", {
      model: scriptedModel([]),
      capabilities: [capability],
      sandbox: recordingSandbox(journal),
    });
    const error = await rejection(openSession({ agent, approval }));
    expect(error).toMatchObject({ code: "projection_failed" });
    expect((error as Error).message).toContain("section exploded");
    expect(journal).toEqual([
      "open sandbox",
      "acquire first",
      "acquire second",
      "release second",
      "release first",
      "close sandbox",
    ]);
    expect(approval.closed).toBe(1);
  });
});
