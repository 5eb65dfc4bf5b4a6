import {
  CastellanError,
  defineAgent,
  type ModelRequest,
  type ModelRuntime,
  type ModelStreamEvent,
  type RunEvent,
} from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  createNodeRunner,
  ModelResolutionError,
  type ModelResolutionRequest,
  openSession,
  PluginError,
} from "../src/index.js";
import { drain, plugin } from "./support/index.ts";

/** A plain runtime (no specifier) counting its calls and answering `text`. */
function countingRuntime(text: string): ModelRuntime & { calls: number } {
  const runtime = {
    calls: 0,
    async *stream(_request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
      runtime.calls++;
      yield { type: "text-delta", text };
      yield { type: "usage", usage: { inputTokens: 1, outputTokens: 1 } };
      yield { type: "finish", stopReason: "end" };
    },
  };
  return runtime;
}

describe("a declared model binding", () => {
  it("works without any plugin (openSession)", async () => {
    const model = scriptedModel([{ text: "hello" }], { specifier: "test/direct" });
    const agent = defineAgent("test.direct", { model });
    const session = await openSession({ agent });
    try {
      const { events } = await drain(session.run("hi"));
      expect(events.find((event) => event.kind === "model-usage")).toMatchObject({ model: "test/direct" });
      expect(model.requests).toHaveLength(1);
      model.assertComplete();
    } finally {
      await session.close();
    }
  });

  it("works with createNodeRunner and an empty plugin list", async () => {
    const model = scriptedModel([{ text: "hello" }]);
    const agent = defineAgent("test.direct", { model });
    const runner = await createNodeRunner({ agent, plugins: [] });
    try {
      const session = await runner.createSession();
      expect((await session.run("hi").result).text).toBe("hello");
    } finally {
      await runner.close();
    }
  });

  it("is ambiguous when a plugin registers a model under the binding's specifier", async () => {
    const declared = scriptedModel([{ text: "declared" }], { specifier: "app/chat" });
    const registered = scriptedModel([{ text: "registered" }]);
    const agent = defineAgent("test.ambiguous", { model: declared });
    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("test.models", (host) => host.registerModel("app/chat", registered))],
    });
    try {
      const failure = await runner.createSession().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ModelResolutionError);
      expect(failure).toMatchObject({ code: "model_ambiguous" });
      expect(declared.requests).toHaveLength(0);
      expect(registered.requests).toHaveLength(0);
    } finally {
      await runner.close();
    }
  });

  it("is not ambiguous with registered models of other names", async () => {
    const declared = scriptedModel([{ text: "declared" }], { specifier: "app/chat" });
    const other = scriptedModel([]);
    const agent = defineAgent("test.unambiguous", { model: declared });
    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("test.models", (host) => host.registerModel("app/review", other))],
    });
    try {
      const session = await runner.createSession();
      expect((await session.run("hi").result).text).toBe("declared");
      expect(other.requests).toHaveLength(0);
    } finally {
      await runner.close();
    }
  });
});

describe("named models", () => {
  it('binds model: "app/chat" to host.registerModel("app/chat", runtime)', async () => {
    const chat = scriptedModel([{ text: "from chat" }], { specifier: "vendor/chat-model" });
    const review = scriptedModel([]);
    const agent = defineAgent("test.named", { model: "app/chat" });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("test.chat", (host) => host.registerModel("app/chat", chat)),
        plugin("test.review", (host) => host.registerModel("app/review", review)),
      ],
    });
    try {
      const session = await runner.createSession();
      const run = session.run("hi");
      const { events, error } = await drain(run);
      expect(error).toBeUndefined();
      expect((await run.result).text).toBe("from chat");
      // The binding's own specifier names the model that answered.
      expect(events.find((event) => event.kind === "model-usage")).toMatchObject({ model: "vendor/chat-model" });
      expect(chat.requests).toHaveLength(1);
      expect(review.requests).toHaveLength(0);
    } finally {
      await runner.close();
    }
  });

  it("names a plain runtime (no specifier) after its registered name", async () => {
    const runtime = countingRuntime("plain");
    const agent = defineAgent("test.plain", { model: "app/plain" });
    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("test.models", (host) => host.registerModel("app/plain", runtime))],
    });
    try {
      const session = await runner.createSession();
      const { events } = await drain(session.run("hi"));
      expect(events.find((event) => event.kind === "model-usage")).toMatchObject({ model: "app/plain" });
      expect(runtime.calls).toBe(1);
    } finally {
      await runner.close();
    }
  });

  it("fails an unknown name at createSession with model_not_found, without calling any model", async () => {
    const other = scriptedModel([{ text: "never" }]);
    const agent = defineAgent("test.unknown", { model: "app/chat" });
    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("test.models", (host) => host.registerModel("app/other", other))],
    });
    try {
      const failure = await runner.createSession().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ModelResolutionError);
      expect(failure).toMatchObject({ code: "model_not_found" });
      expect((failure as Error).message).toContain("app/chat");
      expect(other.requests).toHaveLength(0);
    } finally {
      await runner.close();
    }
  });

  it("fails an unknown name at openSession with model_not_found and closes the approval plugin", async () => {
    const closed: string[] = [];
    const agent = defineAgent("test.unknown", { model: "app/chat" });
    const failure = await openSession({
      agent,
      approval: plugin(
        "test.approval",
        (host) => host.registerApproval({ request: async () => ({ decision: "allow" }) }),
        () => {
          closed.push("approval");
        },
      ),
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelResolutionError);
    expect(failure).toMatchObject({ code: "model_not_found" });
    expect(closed).toEqual(["approval"]);
  });

  it("does not fail an unknown name at createNodeRunner (only when a Session opens)", async () => {
    const agent = defineAgent("test.unknown", { model: "app/chat" });
    const runner = await createNodeRunner({ agent });
    try {
      const failure = await runner.createSession().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ModelResolutionError);
      expect(failure).toMatchObject({ code: "model_not_found" });
      expect((failure as Error).message).toContain("app/chat");
    } finally {
      await runner.close();
    }
  });

  it("rejects registering the same name twice with a PluginError", async () => {
    const agent = defineAgent("test.twice", { model: "app/chat" });
    const closed: string[] = [];
    const failure = await createNodeRunner({
      agent,
      plugins: [
        plugin(
          "first",
          (host) => host.registerModel("app/chat", scriptedModel([])),
          () => {
            closed.push("first");
          },
        ),
        plugin("second", (host) => host.registerModel("app/chat", scriptedModel([]))),
      ],
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PluginError);
    expect(failure).toMatchObject({ code: "plugin_invalid" });
    expect((failure as Error).message).toContain("app/chat");
    expect(closed).toEqual(["first"]);
  });

  it("rejects registering the same name twice within one plugin", async () => {
    const agent = defineAgent("test.twice", { model: "app/chat" });
    await expect(
      createNodeRunner({
        agent,
        plugins: [
          plugin("only", (host) => {
            host.registerModel("app/chat", scriptedModel([]));
            host.registerModel("app/chat", scriptedModel([]));
          }),
        ],
      }),
    ).rejects.toMatchObject({ code: "plugin_invalid" });
  });

  it("rejects registering something that is not a runtime", async () => {
    const agent = defineAgent("test.bad-registration", { model: "app/chat" });
    const failure = await createNodeRunner({
      agent,
      plugins: [plugin("bad", (host) => host.registerModel("app/chat", { specifier: "x" } as unknown as ModelRuntime))],
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CastellanError);
    expect((failure as CastellanError).message).toContain("app/chat");
  });

  it("ignores a later replacement of the registered runtime's stream method", async () => {
    const chat = scriptedModel([{ text: "original" }, { text: "still original" }]);
    const agent = defineAgent("test.replace", { model: "app/chat" });
    const replaced: string[] = [];
    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("test.models", (host) => host.registerModel("app/chat", chat))],
    });
    // After registration closed, and again after the Session opened.
    (chat as { stream: ModelRuntime["stream"] }).stream = () => {
      replaced.push("after runner");
      throw new Error("replacement must not be used");
    };
    try {
      const session = await runner.createSession();
      expect((await session.run("one").result).text).toBe("original");
      (chat as { stream: ModelRuntime["stream"] }).stream = () => {
        replaced.push("after session");
        throw new Error("replacement must not be used");
      };
      expect((await session.run("two").result).text).toBe("still original");
      expect(replaced).toEqual([]);
      expect(chat.requests).toHaveLength(2);
    } finally {
      await runner.close();
    }
  });

  it("serves several Sessions of one Runner from the same registration", async () => {
    const chat = scriptedModel([{ text: "a" }, { text: "b" }]);
    const agent = defineAgent("test.shared", { model: "app/chat" });
    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("test.models", (host) => host.registerModel("app/chat", chat))],
    });
    try {
      const first = await runner.createSession();
      const second = await runner.createSession();
      expect((await first.run("1").result).text).toBe("a");
      expect((await second.run("2").result).text).toBe("b");
      chat.assertComplete();
    } finally {
      await runner.close();
    }
  });
});

describe("a model resolver", () => {
  it("resolves per model call with the declared name, sessionId and runId", async () => {
    const chat = scriptedModel([
      { toolCalls: [{ name: "missing", input: {} }] },
      { text: "second turn" },
      { text: "second run" },
    ]);
    const requests: ModelResolutionRequest[] = [];
    const agent = defineAgent("test.resolver", { model: "app/chat" });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("test.resolver", (host) =>
          host.registerModelResolver({
            resolve(request) {
              requests.push(request);
              return chat;
            },
          }),
        ),
      ],
    });
    try {
      const session = await runner.createSession({ id: "resolver-session" });
      // Opening resolves nothing: the resolver runs when a model call starts.
      expect(requests).toHaveLength(0);
      const first = session.run("hi");
      expect((await drain(first)).error).toBeUndefined();
      // Two turns, two model calls, two resolutions.
      expect(chat.requests).toHaveLength(2);
      expect(requests).toHaveLength(2);
      for (const request of requests) {
        expect(request).toMatchObject({ name: "app/chat", sessionId: "resolver-session", runId: first.id });
        expect(request.signal).toBeInstanceOf(AbortSignal);
      }
      // A second Run resolves again, with its own runId.
      const second = session.run("again");
      expect((await drain(second)).error).toBeUndefined();
      expect(requests).toHaveLength(3);
      expect(requests[2]).toMatchObject({ name: "app/chat", sessionId: "resolver-session", runId: second.id });
      expect(second.id).not.toBe(first.id);
      chat.assertComplete();
    } finally {
      await runner.close();
    }
  });

  it("can answer each request with a different runtime", async () => {
    const accounts = [countingRuntime("account one"), countingRuntime("account two")];
    let next = 0;
    const agent = defineAgent("test.accounts", { model: "app/chat" });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("test.resolver", (host) =>
          host.registerModelResolver({ resolve: async () => accounts[next++ % accounts.length] as ModelRuntime }),
        ),
      ],
    });
    try {
      const session = await runner.createSession();
      const first = session.run("1");
      const { events } = await drain(first);
      expect((await first.result).text).toBe("account one");
      expect(events.find((event) => event.kind === "model-usage")).toMatchObject({ model: "app/chat" });
      expect((await session.run("2").result).text).toBe("account two");
      expect(accounts.map((account) => account.calls)).toEqual([1, 1]);
    } finally {
      await runner.close();
    }
  });

  it("fails the Run with a typed error when it returns something that is not a runtime", async () => {
    const agent = defineAgent("test.bad-resolver", { model: "app/chat" });
    const recovered = scriptedModel([{ text: "after the failed Run" }]);
    let resolutions = 0;
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("test.resolver", (host) =>
          host.registerModelResolver({
            // Not a runtime the first time; a working one afterwards.
            resolve: () => (resolutions++ === 0 ? ({ specifier: "nope" } as unknown as ModelRuntime) : recovered),
          }),
        ),
      ],
    });
    try {
      const session = await runner.createSession();
      const run = session.run("hi");
      const { events, error } = await drain(run);
      expect(error).toBeInstanceOf(ModelResolutionError);
      const code = (error as CastellanError).code;
      expect(code).toBe("model_resolution_failed");
      expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "failed", error: { code } });
      // The Session survives a failed Run: the next one resolves again and answers.
      expect((await session.run("again").result).text).toBe("after the failed Run");
      expect(resolutions).toBe(2);
      recovered.assertComplete();
    } finally {
      await runner.close();
    }
  });

  it("fails the Run when it throws, reporting the failure in run-end", async () => {
    const agent = defineAgent("test.throwing-resolver", { model: "app/chat" });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("test.resolver", (host) =>
          host.registerModelResolver({
            resolve: () => {
              throw new Error("account locked");
            },
          }),
        ),
      ],
    });
    try {
      const session = await runner.createSession();
      const { events, error } = await drain(session.run("hi"));
      expect(error).toMatchObject({ code: "model_resolution_failed" });
      expect((error as Error).cause).toMatchObject({ message: "account locked" });
      expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "failed" });
      const end = events.at(-1) as Extract<RunEvent, { kind: "run-end"; error: unknown }>;
      expect(end.error).toMatchObject({ code: "model_resolution_failed" });
      expect(end.error.message).toContain("account locked");
    } finally {
      await runner.close();
    }
  });

  it("is exclusive with named models, in either order and across plugins", async () => {
    const agent = defineAgent("test.mixed", { model: "app/chat" });
    const resolver = { resolve: () => scriptedModel([]) };
    await expect(
      createNodeRunner({
        agent,
        plugins: [
          plugin("named", (host) => host.registerModel("app/chat", scriptedModel([]))),
          plugin("resolver", (host) => host.registerModelResolver(resolver)),
        ],
      }),
    ).rejects.toMatchObject({ code: "plugin_invalid" });
    await expect(
      createNodeRunner({
        agent,
        plugins: [
          plugin("resolver", (host) => host.registerModelResolver(resolver)),
          plugin("named", (host) => host.registerModel("app/chat", scriptedModel([]))),
        ],
      }),
    ).rejects.toMatchObject({ code: "plugin_invalid" });
    await expect(
      createNodeRunner({
        agent,
        plugins: [
          plugin("both", (host) => {
            host.registerModelResolver(resolver);
            host.registerModel("app/other", scriptedModel([]));
          }),
        ],
      }),
    ).rejects.toBeInstanceOf(PluginError);
  });

  it("can be registered only once", async () => {
    const agent = defineAgent("test.two-resolvers", { model: "app/chat" });
    await expect(
      createNodeRunner({
        agent,
        plugins: [
          plugin("a", (host) => host.registerModelResolver({ resolve: () => scriptedModel([]) })),
          plugin("b", (host) => host.registerModelResolver({ resolve: () => scriptedModel([]) })),
        ],
      }),
    ).rejects.toMatchObject({ code: "plugin_invalid" });
  });

  it("is not consulted for a directly declared binding", async () => {
    let resolved = 0;
    const model = scriptedModel([{ text: "direct" }]);
    const agent = defineAgent("test.direct-with-resolver", { model });
    const runner = await createNodeRunner({
      agent,
      plugins: [
        plugin("test.resolver", (host) =>
          host.registerModelResolver({
            resolve: () => {
              resolved++;
              return scriptedModel([]);
            },
          }),
        ),
      ],
    });
    try {
      const session = await runner.createSession();
      expect((await session.run("hi").result).text).toBe("direct");
      expect(resolved).toBe(0);
    } finally {
      await runner.close();
    }
  });
});
