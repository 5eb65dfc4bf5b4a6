// Smoke test of the providers bench at a small size: every loop sends the same request bytes
// through every adapter, and the whole bench runs end to end with a server in a child process
// and reports finite figures. Timing is not asserted.
import { createMemorySessionStore } from "@castellan/node-runner";
import { afterEach, describe, expect, it } from "vitest";
import { runCastellanLoop } from "./support/castellan-loop.ts";
import { runHandWrittenLoop } from "./support/hand-loop.ts";
import { adapters, benchKey } from "./support/providers/adapters.ts";
import { finalText } from "./support/providers/answers.ts";
import { runBareLoop } from "./support/providers/bare-loop.ts";
import { lateWindow, loopsOf, runProviderBench } from "./support/providers/bench.ts";
import { answerBody } from "./support/providers/fixture-server.ts";
import { formatProviderReport } from "./support/providers/report.ts";
import { type BenchServer, startBenchServer } from "./support/providers/server-process.ts";

const turns = 6;
let server: BenchServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the providers bench", () => {
  it.each(adapters.map((spec) => [spec.name, spec] as const))(
    "%s: the bare loop, through the SDK or not, the adapter alone and a Castellan Run send byte-identical requests",
    async (_name, spec) => {
      server = await startBenchServer(spec.format, "in-process", { keepBodies: true });
      const bodies = async () => {
        const { bodies: sent, requests } = await server!.stats();
        await server!.reset();
        expect(requests).toBe(turns);
        return sent;
      };
      const bare = await runBareLoop({
        root: server.url,
        format: spec.format,
        model: spec.model,
        key: benchKey,
        turns,
      });
      const bareBodies = await bodies();
      if (spec.sdk) {
        const sdk = await runBareLoop({
          root: server.url,
          format: spec.format,
          model: spec.model,
          key: benchKey,
          turns,
          sender: spec.sdk,
        });
        expect(sdk.text).toBe(finalText(turns));
        expect(await bodies()).toEqual(bareBodies);
      }
      const alone = await runHandWrittenLoop(turns, spec.bind(server.url));
      const aloneBodies = await bodies();
      const run = await runCastellanLoop({
        turns,
        store: createMemorySessionStore(),
        sessionId: "smoke",
        model: spec.bind(server.url),
      });
      const runBodies = await bodies();

      for (const loop of [bare, alone, run]) {
        expect(loop.text).toBe(finalText(turns));
        expect(loop.durations).toHaveLength(turns);
        expect(loop.durations.every((ms) => Number.isFinite(ms) && ms >= 0)).toBe(true);
      }
      expect(aloneBodies).toEqual(bareBodies);
      expect(runBodies).toEqual(bareBodies);
      // The conversation grows by one tool call and its result per turn.
      const sizes = bareBodies.map((body) => body.length);
      expect(sizes.every((size, index) => index === 0 || size > (sizes[index - 1] as number))).toBe(true);
    },
  );

  it("answers each turn from the request alone and refuses a request it cannot place", () => {
    const first = JSON.stringify({ messages: [{ role: "user", content: "Tick 2 times." }] });
    expect(answerBody("anthropic", first)).toContain('"name":"tick"');
    const last = JSON.stringify({
      messages: [
        { role: "user", content: "Tick 2 times." },
        { role: "assistant", content: [] },
        { role: "user", content: [] },
      ],
    });
    expect(answerBody("anthropic", last)).toContain(finalText(2));
    expect(() => answerBody("anthropic", JSON.stringify({ messages: [{ role: "user", content: "Hi" }] }))).toThrow(
      /Run length/,
    );
    const even = [
      { role: "system", content: "Tick 2 times." },
      { role: "user", content: "Tick 2 times." },
      { role: "assistant", content: null },
    ];
    expect(() => answerBody("chat", JSON.stringify({ messages: even }))).toThrow(/not between turns/);
  });

  it("runs the whole bench with the server in a child process and formats its report", async () => {
    const size = 40;
    const progress: string[] = [];
    const report = await runProviderBench({
      adapters,
      sizes: [{ turns: size, repeats: 1 }],
      warmups: 0,
      placement: "child-process",
      early: { from: 2, to: 8 },
      progress: (message) => progress.push(message),
    });
    expect(report.results.map((result) => result.adapter)).toEqual(adapters.map((spec) => spec.name));
    expect(progress).toHaveLength(adapters.length);
    for (const result of report.results) {
      const [only] = result.sizes;
      expect(result.sizes).toHaveLength(1);
      expect(only?.turns).toBe(size);
      expect(only?.requestBytes).toBeGreaterThan(0);
      const spec = adapters.find((entry) => entry.name === result.adapter);
      // Every adapter has a floor: its SDK's request path, or the wrapped AI SDK model.
      expect(loopsOf(spec!)).toEqual(["bare", "sdk", "adapter", "memory", "file", "memory-ro", "file-ro"]);
      for (const kind of loopsOf(spec!)) {
        const loop = only!.loops[kind]!;
        expect(loop.totals).toHaveLength(1);
        expect(Number.isFinite(loop.totalMs) && loop.totalMs > 0).toBe(true);
        expect(loop.perTurn.early.samples).toBe(7);
        expect(loop.perTurn.late.window).toEqual(lateWindow(size));
        expect(Number.isFinite(loop.perTurn.ratio)).toBe(true);
      }
      for (const target of Object.values(only!.targets)) {
        expect(Number.isFinite(target.ratio) && target.ratio > 0).toBe(true);
        expect(target.pass).toBe(target.ratio <= target.limit);
      }
      // A file-store Run with a tool with effects waits on its start, each turn's intent and its end;
      // one with a read-only tool only on its start and its end.
      expect(only!.loops.file.waitedAppends).toBe(size + 1);
      expect(only!.loops["file-ro"].waitedAppends).toBe(2);
    }

    const text = formatProviderReport(report);
    for (const spec of adapters) {
      expect(text).toMatch(new RegExp(`\\n${spec.name} +${size} +(\\d+\\.\\d\\dx (PASS|MISS).*){5}`));
    }
    expect(text).toMatch(/\d+ of \d+ targets PASS/);
    expect(text).toContain("turns 2-8");
    expect(text).toContain(`turns ${size - 11}-${size - 1}`);
    expect(text).toContain("reported reference figures (not measured here)");
    expect(report.syncMs).toBeGreaterThan(0);
    expect(text).not.toMatch(/NaN|Infinity/);
  });
});
