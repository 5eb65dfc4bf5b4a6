// Tabs and targets: the tab limit and unknown tab ids are refused by node-runner with no
// browser work; refs are checked against the latest observation and stripped for the adapter.
import type { ScriptedStep } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { BrowserToolError } from "../src/index.js";
import { call, lastToolText, refIn, runSteps, stubFactory, tabIdIn } from "./browser-support.ts";
import { cleanupAfterEach } from "./support/index.ts";

const cleanups = cleanupAfterEach();
const cleanup = (close: () => Promise<void>) => cleanups.push(close);
const first = "http://127.0.0.1:4000/";
const second = "http://127.0.0.2:4000/";

describe("browser tabs", () => {
  it("allows at most 8 tabs: a ninth newTab is browser_tab_limit, nobody asked; navigating an open tab still works", async () => {
    const factory = stubFactory();
    const { asked, texts } = await runSteps(
      [
        call("browser_navigate", { url: first }),
        ...Array.from({ length: 7 }, (_, index) => call("browser_navigate", { url: `${first}${index}`, newTab: true })),
        call("browser_navigate", { url: `${first}ninth`, newTab: true }),
        call("browser_navigate", { url: `${first}same-tab` }),
      ],
      { factory, cleanup, permissions: "ask-on-write" },
    );
    expect(asked).toHaveLength(9);
    expect(asked.slice(1, 8).every((request) => (request.admission as { tabId: unknown }).tabId === null)).toBe(true);
    expect(texts[8]).toMatch(/^browser_tab_limit: This Session already has 8 tabs/);
    expect(texts[9]).toMatch(/^url: /);
    expect(factory.opened[0]?.calls.filter((entry) => entry.endsWith("newTab"))).toHaveLength(7);
  });

  it("switches to a listed tab (admission naming its Origin); an unknown id is browser_tab_unknown with no browser work", async () => {
    const factory = stubFactory();
    const { asked, texts } = await runSteps(
      [
        call("browser_navigate", { url: first }),
        call("browser_navigate", { url: second, newTab: true }),
        (request) => {
          const firstTab = tabIdIn(lastToolText(request), 0);
          return {
            toolCalls: [
              { name: "browser_switch_tab", input: { tabId: "tab-1" } },
              { name: "browser_switch_tab", input: { tabId: `${firstTab.split(".")[0]}.tab-9` } },
              { name: "browser_switch_tab", input: { tabId: firstTab } },
            ],
          };
        },
      ],
      { factory, cleanup, permissions: "ask-on-write" },
    );
    expect(texts.slice(2, 4).map((text) => text.split(":")[0])).toEqual(["browser_tab_unknown", "browser_tab_unknown"]);
    expect(asked.map((request) => request.admission)).toEqual([
      { origin: "http://127.0.0.1:4000", tabId: null },
      { origin: "http://127.0.0.2:4000", tabId: null },
      { origin: "http://127.0.0.1:4000", tabId: expect.stringMatching(/\.tab-1$/) },
    ]);
    expect(texts[4]).toMatch(/"url":"http:\/\/127\.0\.0\.1:4000\/","title":"[^"]+","active":true/);
    expect(factory.opened[0]?.calls).toEqual([`navigate ${first}`, `navigate ${second} newTab`, "switchTab tab-1"]);
  });
});

describe("browser targets", () => {
  it("checks refs against the latest observation, strips them and passes within and exact through", async () => {
    const factory = stubFactory();
    const { texts } = await runSteps(
      [
        call("browser_navigate", { url: first }),
        (request): ScriptedStep => {
          const ref = refIn(lastToolText(request), 2);
          const observationId = ref.split(".")[0];
          return {
            toolCalls: [
              { name: "browser_click", input: { role: "button", name: "Delete", ref: `${observationId}.e99` } },
              { name: "browser_click", input: { role: "button", name: "Delete", ref: "e2" } },
              {
                name: "browser_click",
                input: { role: "button", name: "Delete", exact: true, ref, within: { role: "main", name: "" } },
              },
            ],
          };
        },
      ],
      { factory, cleanup },
    );
    expect(texts.slice(1, 3).map((text) => text.split(":")[0])).toEqual(["browser_ref_stale", "browser_ref_stale"]);
    expect(texts[3]).toMatch(/^url: /);
    expect(factory.opened[0]?.actions).toEqual([
      {
        kind: "click",
        target: { role: "button", name: "Delete", exact: true, ref: "e2", within: { role: "main", name: "" } },
      },
    ]);
  });

  it("gives an adapter's BrowserToolError as its code and message", async () => {
    const factory = stubFactory({
      actError: new BrowserToolError(
        "browser_target_ambiguous",
        '2 elements match button "Delete"; pass the latest ref or a within.',
      ),
    });
    const { results, texts } = await runSteps(
      [call("browser_navigate", { url: first }), call("browser_click", { role: "button", name: "Delete" })],
      { factory, cleanup },
    );
    expect(results[1]?.isError).toBe(true);
    expect(texts[1]).toBe(
      'browser_target_ambiguous: 2 elements match button "Delete"; pass the latest ref or a within.',
    );
  });
});
