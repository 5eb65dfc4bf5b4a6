// Observation text, paging, query and bounds: what the model reads is bounded by node-runner
// whatever the adapter returns, and continuations read the same immutable bytes.
import type { ScriptedStep } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { call, continuationIn, continueStep, lastToolText, refIn, runSteps, stubFactory } from "./browser-support.ts";
import { cleanupAfterEach } from "./support/index.ts";

const cleanups = cleanupAfterEach();
const cleanup = (close: () => Promise<void>) => cleanups.push(close);
const page = "http://127.0.0.1:4000/";
const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** About `kib` KiB of snapshot lines, every tenth with a ref, the word "Needle" on line `needleAt`. */
function rows(kib: number, needleAt = -1) {
  return () => {
    const lines: string[] = [];
    for (let index = 0; bytes(lines.join("\n")) < kib * 1024; index++) {
      const ref = index % 10 === 0 || index === needleAt ? ` [ref=e${index}]` : "";
      lines.push(`- listitem "Row ${index}${index === needleAt ? " NeEdLe here" : ""}"${ref}`);
    }
    return lines.join("\n");
  };
}

describe("browser observations", () => {
  it("shows URL, title, tabs, viewport, focus and the snapshot, in that order", async () => {
    const factory = stubFactory({ focusedElement: { role: "textbox", name: "Email", value: "a" } });
    const { texts } = await runSteps([call("browser_navigate", { url: page })], { factory, cleanup });
    const lines = (texts[0] as string).split("\n");
    expect(lines.slice(0, 8)).toEqual([
      `url: "${page}"`,
      `title: "Title of ${page}"`,
      "tabs:",
      expect.stringMatching(
        /^- \{"tabId":"t[a-z0-9]+\.tab-1","url":"http:\/\/127\.0\.0\.1:4000\/","title":"Title of .*","active":true\}$/,
      ),
      "viewport: 1280×720 CSS px",
      "focusScope: accessibility-tree",
      'focusedElement: {"role":"textbox","name":"Email","value":"a"}',
      "snapshot:",
    ]);
    expect(lines[8]).toBe(`- heading "Page ${page}" [level=1]`);
    expect(lines[9]).toMatch(/^- button "Delete" \[ref=o[a-z0-9]+\.e1\]$/);
  });

  it("says when the viewport is not reported, and names a dom-element focus scope with none observed", async () => {
    const factory = stubFactory({ viewport: undefined, focusScope: "dom-element", focusedElement: null });
    const { texts } = await runSteps([call("browser_navigate", { url: page })], { factory, cleanup });
    expect(texts[0]).toContain(
      "\nviewport: viewport not reported\nfocusScope: dom-element\nfocusedElement: null (none observed)\n",
    );
  });

  it("pages a ~14 KiB observation in two blocks of at most 8,192 bytes; the same continuation is byte-identical", async () => {
    const factory = stubFactory({ snapshot: rows(14, 600) });
    const { texts } = await runSteps(
      [
        call("browser_navigate", { url: page }),
        continueStep(),
        (request) => {
          // The same continuation again, from the first page.
          const first = request.messages.filter((message) => message.role === "tool")[0];
          const text = first?.role === "tool" && first.content[0]?.type === "text" ? first.content[0].text : "";
          return { toolCalls: [{ name: "browser_snapshot", input: continuationIn(text) as never }] };
        },
        call("browser_snapshot", { query: "needle" }),
        call("browser_snapshot", { query: "not on this page" }),
      ],
      { factory, cleanup },
    );
    const [first, second, again, found, missing] = texts as string[];
    expect(bytes(first as string)).toBeLessThanOrEqual(8_192);
    expect(bytes(second as string)).toBeLessThanOrEqual(8_192);
    expect(continuationIn(first as string)).toBeDefined();
    expect(continuationIn(second as string)).toBeUndefined();
    expect(again).toBe(second);
    expect(bytes(first as string) + bytes(second as string)).toBeGreaterThan(14 * 1024);
    // query finds the line on page 2, case-insensitively, with the refs it showed there.
    expect(second).toContain("NeEdLe here");
    expect(found).toMatch(
      /^First match in observation o[a-z0-9]+, line \d+ \(byte \d+ of \d+\):\n- listitem "Row 600 NeEdLe here" \[ref=o[a-z0-9]+\.e600\]/,
    );
    expect(refIn(found as string)).toBe((second as string).match(/\[ref=([^\]]+\.e600)\]/)?.[1]);
    expect(bytes(found as string)).toBeLessThanOrEqual(8_192);
    expect(missing).toMatch(/^No line of observation o[a-z0-9]+ contains "not on this page"/);
    // Paging and query touched no browser.
    expect(factory.opened[0]?.calls).toEqual([`navigate ${page}`]);
  });

  it("a browser action, even a failed one, ends the continuation and the refs", async () => {
    const factory = stubFactory({ snapshot: rows(14, 600) });
    const { results, texts } = await runSteps(
      [
        call("browser_navigate", { url: page }),
        (request) => {
          factory.behaviour.actError = new Error("the page went away");
          return call("browser_click", {
            role: "listitem",
            name: "Row 1",
            ref: refIn(lastToolText(request), 2),
          }) as never;
        },
        (request): ScriptedStep => {
          const first = request.messages.find((message) => message.role === "tool");
          const text = first?.role === "tool" && first.content[0]?.type === "text" ? first.content[0].text : "";
          return {
            toolCalls: [
              { name: "browser_snapshot", input: continuationIn(text) as never },
              { name: "browser_click", input: { role: "listitem", name: "Row 1", ref: refIn(text, 2) } },
              { name: "browser_snapshot", input: { query: "row" } },
            ],
          };
        },
      ],
      { factory, cleanup },
    );
    expect(results[1]?.isError).toBe(true);
    expect(texts[1]).toMatch(/^browser_action_failed: the page went away/);
    expect(texts.slice(2).map((text) => text.split(":")[0])).toEqual([
      "browser_continuation_stale",
      "browser_ref_stale",
      "browser_continuation_stale",
    ]);
    expect(factory.opened[0]?.calls).toEqual([`navigate ${page}`, "act click"]);
  });

  it("cuts an observation over 16 KiB at a line, its last line counting shown and total bytes", async () => {
    const factory = stubFactory({ snapshot: rows(30) });
    const { texts } = await runSteps([call("browser_navigate", { url: page }), continueStep(), continueStep()], {
      factory,
      cleanup,
    });
    expect(continuationIn(texts[2] as string)).toBeUndefined();
    const whole = texts.map((text) => text.replace(/\[continue: [^\n]*\]\n$/, "")).join("");
    expect(bytes(whole)).toBeLessThanOrEqual(16_384);
    const last = whole.trimEnd().split("\n").at(-1) as string;
    const [, shown, total] = last.match(/^\[observation cut at a line: (\d+) of (\d+) bytes shown\]$/) ?? [];
    expect(Number(total)).toBeGreaterThan(30 * 1024);
    expect(Number(shown)).toBe(bytes(whole) - bytes(`${last}\n`));
    expect(whole.split("\n").at(-3)).toMatch(/^- listitem "Row \d+"( \[ref=o[a-z0-9]+\.e\d+\])?$/);
  });

  it("pages of maxObservationBytes 4,096 stay within 4,096 bytes; 65,536 still within 8,192", async () => {
    // 4,096 bytes in all: the cut observation is one block.
    const small = await runSteps([call("browser_navigate", { url: page })], {
      factory: stubFactory({ snapshot: rows(14) }),
      tools: { maxObservationBytes: 4_096 },
      cleanup,
    });
    expect(bytes(small.texts[0] as string)).toBeLessThanOrEqual(4_096);
    expect(bytes(small.texts[0] as string)).toBeGreaterThan(4_000);
    expect(small.texts[0]).toMatch(/\[observation cut at a line: \d+ of \d+ bytes shown\]\n$/);

    const large = await runSteps([call("browser_navigate", { url: page }), continueStep()], {
      factory: stubFactory({ snapshot: rows(40) }),
      tools: { maxObservationBytes: 65_536 },
      cleanup,
    });
    for (const text of large.texts) expect(bytes(text)).toBeLessThanOrEqual(8_192);
    expect(continuationIn(large.texts[1] as string)?.offset).toBeGreaterThan(16_000);
  });

  it("cuts an adapter's 1 MiB observation, and never splits a UTF-8 character between pages", async () => {
    const huge = "é😀".repeat(180_000);
    const factory = stubFactory({ snapshot: () => huge });
    const { texts } = await runSteps([call("browser_navigate", { url: page }), continueStep(), continueStep()], {
      factory,
      cleanup,
    });
    expect(bytes(huge)).toBeGreaterThan(1_048_576);
    for (const text of texts) {
      expect(bytes(text)).toBeLessThanOrEqual(8_192);
      expect(text).not.toContain("\uFFFD");
    }
    expect(texts[2]).toMatch(/\[observation cut at a line: \d+ of \d+ bytes shown\]\n$/);
  });

  it("refuses bad input with no browser work, the current continuation still reading the same bytes", async () => {
    const factory = stubFactory({ snapshot: rows(14) });
    let continuation: object | undefined;
    const { texts } = await runSteps(
      [
        call("browser_navigate", { url: page }),
        (request): ScriptedStep => {
          continuation = continuationIn(lastToolText(request));
          return {
            toolCalls: [
              { name: "browser_snapshot", input: { query: "row", offset: 0 } },
              { name: "browser_snapshot", input: { observationId: "x" } },
              { name: "browser_capture", input: { width: 800 } },
              { name: "browser_capture", input: { width: 100, height: 600 } },
              { name: "browser_click", input: { role: "button", name: "Delete", selector: "#x" } },
              { name: "browser_press_key", input: { key: "K".repeat(33) } },
              { name: "browser_snapshot", input: continuation as never },
            ],
          };
        },
        () => ({ toolCalls: [{ name: "browser_snapshot", input: continuation as never }] }),
      ],
      { factory, cleanup },
    );
    expect(texts.slice(1, 7).map((text) => text.split(":")[0])).toEqual([
      "input_invalid",
      "input_invalid",
      "input_invalid",
      'Invalid input for tool "browser_capture"',
      'Invalid input for tool "browser_click"',
      'Invalid input for tool "browser_press_key"',
    ]);
    expect(texts[7]).toBe(texts[8]);
    expect(texts[7]).toMatch(/^- listitem/);
    expect(factory.opened[0]?.calls).toEqual([`navigate ${page}`]);
  });
});
