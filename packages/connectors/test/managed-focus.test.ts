import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { readFocusedElement } from "../src/browser/managed/focus.ts";

function fakeSession(
  send: (method: string, params?: unknown) => Promise<unknown>,
  detached: string[],
  name: string,
): CDPSession {
  return {
    send,
    detach: async () => {
      detached.push(name);
    },
  } as unknown as CDPSession;
}

function fakeContext(attach: () => Promise<CDPSession>): BrowserContext {
  return { newCDPSession: attach } as unknown as BrowserContext;
}

const page = {} as Page;

/** Answers the focus read: the active element's handle, then `nodes` as its subtree (recording what was asked). */
const answering =
  (nodes: readonly unknown[], asked: string[] = [], activeElement: string | null = "active-1") =>
  async (method: string, params?: unknown) => {
    asked.push(method);
    if (method === "Runtime.evaluate") return { result: activeElement === null ? {} : { objectId: activeElement } };
    if (method === "Accessibility.queryAXTree") {
      expect(params).toEqual({ objectId: activeElement });
      return { nodes };
    }
    throw new Error(`unexpected ${method}`);
  };
const focused = (role: string, name: string, value?: unknown) => ({
  role: { value: role },
  name: { value: name },
  ...(value === undefined ? {} : { value: { value } }),
  properties: [{ name: "focused", value: { value: true } }],
});

describe("the focus read", () => {
  it("names the deepest focused node of the active element's subtree, and detaches after the read", async () => {
    const detached: string[] = [];
    const asked: string[] = [];
    const nodes = [focused("RootWebArea", "Page"), { role: { value: "group" } }, focused("spinbutton", "Day", 6)];
    const context = fakeContext(async () => fakeSession(answering(nodes, asked), detached, "s1"));
    expect(await readFocusedElement(context, page, 1_000)).toEqual({ role: "spinbutton", name: "Day", value: "6" });
    // Only the focused element's subtree is computed, never the page's whole tree.
    expect(asked).toEqual(["Runtime.evaluate", "Accessibility.queryAXTree"]);
    expect(detached).toEqual(["s1"]);
  });

  it("is null without reading the tree when the body has focus", async () => {
    const detached: string[] = [];
    const asked: string[] = [];
    const context = fakeContext(async () => fakeSession(answering([], asked, null), detached, "s1"));
    expect(await readFocusedElement(context, page, 1_000)).toBeNull();
    expect(asked).toEqual(["Runtime.evaluate"]);
    expect(detached).toEqual(["s1"]);
  });

  it("is null when only the document is focused", async () => {
    const detached: string[] = [];
    const context = fakeContext(async () => fakeSession(answering([focused("RootWebArea", "Page")]), detached, "s1"));
    expect(await readFocusedElement(context, page, 1_000)).toBeNull();
    expect(detached).toEqual(["s1"]);
  });

  it("detaches on a timed-out read", async () => {
    const detached: string[] = [];
    const context = fakeContext(async () => fakeSession(() => new Promise(() => {}), detached, "slow"));
    await expect(readFocusedElement(context, page, 50)).rejects.toThrow(/50 ms/);
    expect(detached).toEqual(["slow"]);
  });

  it("detaches a session that attaches after the timeout", async () => {
    const detached: string[] = [];
    let attached!: (session: CDPSession) => void;
    const context = fakeContext(() => new Promise((resolve) => (attached = resolve)));
    await expect(readFocusedElement(context, page, 50)).rejects.toThrow(/50 ms/);
    expect(detached).toEqual([]);
    attached(fakeSession(answering([]), detached, "late"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(detached).toEqual(["late"]);
  });
});
