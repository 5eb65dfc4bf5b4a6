// Aborting the opening of a Session gives one error, code `aborted`, however far opening got:
// before anything, while the store opens, while a resource is acquired (whatever the resource
// threw), or after everything was acquired. What was acquired is released; nothing is written.
import { readdir } from "node:fs/promises";
import { type BindingKind, defineAgent, defineCapability, resource } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { AbortedError, createFileSessionStore, openSession, type SessionStore } from "../src/index.js";
import { rejection, tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-open-abort-");

/** A resource kind that runs `during` while acquiring, and records releases. */
function kind(during: (signal: AbortSignal) => Promise<void> | void, released: string[]): BindingKind<string, string> {
  return {
    name: "probe",
    acquire: async (spec, { signal }) => {
      await during(signal);
      return { value: spec, close: () => void released.push(spec) };
    },
  };
}

function agentWith(...resources: ReturnType<typeof resource>[]) {
  return defineAgent("test.open-abort", {
    model: scriptedModel([]),
    capabilities: [defineCapability({ name: "probes", resources })],
  });
}

async function expectAborted(promise: Promise<unknown>) {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(AbortedError);
  expect(error).toMatchObject({ code: "aborted", name: "AbortError" });
  return error as AbortedError;
}

describe("aborting openSession", () => {
  it("before it starts", async () => {
    const controller = new AbortController();
    controller.abort(new Error("user cancelled"));
    const error = await expectAborted(
      openSession({
        agent: agentWith(),
        signal: controller.signal,
        store: createFileSessionStore({ directory: temp.path }),
      }),
    );
    expect((error.cause as Error).message).toBe("user cancelled");
    expect(await readdir(temp.path)).toEqual([]);
  });

  it("while the store opens", async () => {
    const controller = new AbortController();
    const inner = createFileSessionStore({ directory: temp.path });
    const store: SessionStore = {
      open: async (id, options) => {
        controller.abort();
        return await inner.open(id, options);
      },
    };
    await expectAborted(openSession({ agent: agentWith(), id: "s", signal: controller.signal, store }));
    // The lock was released and nothing was written.
    expect(await readdir(temp.path)).toEqual([]);
  });

  it("while a resource is acquired and fails with its own error", async () => {
    const controller = new AbortController();
    const released: string[] = [];
    const fails = kind((signal) => {
      controller.abort();
      throw new Error(`gave up (aborted: ${String(signal.aborted)})`);
    }, released);
    const first = kind(() => undefined, released);
    const error = await expectAborted(
      openSession({ agent: agentWith(resource(first, "first"), resource(fails, "second")), signal: controller.signal }),
    );
    // The resource's own failure is kept as the cause.
    expect(error.cause).toMatchObject({
      code: "resource_failed",
      message: expect.stringContaining("gave up (aborted: true)"),
    });
    expect(released).toEqual(["first"]);
  });

  it("after every resource was acquired", async () => {
    const controller = new AbortController();
    const released: string[] = [];
    const last = kind(() => controller.abort(), released);
    await expectAborted(
      openSession({
        agent: agentWith(resource(last, "only")),
        id: "s",
        signal: controller.signal,
        store: createFileSessionStore({ directory: temp.path }),
        params: {},
      }),
    );
    expect(released).toEqual(["only"]);
    expect(await readdir(temp.path)).toEqual([]);
  });
});
