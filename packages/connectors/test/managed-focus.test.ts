import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { readFocusedElement } from "../src/browser/managed/focus.ts";

function fakeSession(send: () => Promise<unknown>, detached: string[], name: string): CDPSession {
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
const focused = (role: string, name: string, value?: unknown) => ({
  role: { value: role },
  name: { value: name },
  ...(value === undefined ? {} : { value: { value } }),
  properties: [{ name: "focused", value: { value: true } }],
});

describe("the focus read", () => {
  it("names the deepest focused node but the document, and detaches after the read", async () => {
    const detached: string[] = [];
    const nodes = [focused("RootWebArea", "Page"), { role: { value: "group" } }, focused("spinbutton", "Day", 6)];
    const context = fakeContext(async () => fakeSession(async () => ({ nodes }), detached, "s1"));
    expect(await readFocusedElement(context, page, 1_000)).toEqual({ role: "spinbutton", name: "Day", value: "6" });
    expect(detached).toEqual(["s1"]);
  });

  it("is null when only the document is focused", async () => {
    const detached: string[] = [];
    const context = fakeContext(async () =>
      fakeSession(async () => ({ nodes: [focused("RootWebArea", "Page")] }), detached, "s1"),
    );
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
    attached(fakeSession(async () => ({ nodes: [] }), detached, "late"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(detached).toEqual(["late"]);
  });
});
