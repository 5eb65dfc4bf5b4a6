import { describe, expect, it } from "vitest";
import { RunProbes } from "./run-probes.js";

describe("RunProbes", () => {
  it("probes once per Run, again for the next Run, and keeps only each Session's current Run", async () => {
    let probes = 0;
    const runs = new RunProbes(async () => ++probes);
    expect(await runs.forRun("s1", "r1")).toBe(1);
    expect(await runs.forRun("s1", "r1")).toBe(1);
    expect(await runs.forRun("s1", "r2")).toBe(2);
    expect(await runs.forRun("s1", "r2")).toBe(2);
    expect(runs.size).toBe(1);
    // Another Session has its own probe, even for a Run id the first one used.
    expect(await runs.forRun("s2", "r2")).toBe(3);
    expect(runs.size).toBe(2);
    // A Run that is over is not brought back: it would be probed anew.
    expect(await runs.forRun("s1", "r1")).toBe(4);
  });

  it("forgets a closed Session, which probes anew if it runs again", async () => {
    let probes = 0;
    const runs = new RunProbes(async () => ++probes);
    await runs.forRun("s1", "r1");
    await runs.forRun("s2", "r1");
    runs.forget("s1");
    expect(runs.size).toBe(1);
    expect(await runs.forRun("s1", "r1")).toBe(3);
  });

  it("shares a probe still running between requests of the same Run", async () => {
    let release: (value: string) => void = () => undefined;
    let probes = 0;
    const runs = new RunProbes(() => {
      probes++;
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    });
    const first = runs.forRun("s", "r");
    const second = runs.forRun("s", "r");
    release("facts");
    expect(await Promise.all([first, second])).toEqual(["facts", "facts"]);
    expect(probes).toBe(1);
  });

  it("close drops every entry and waits for the probes still running", async () => {
    let release: () => void = () => undefined;
    const runs = new RunProbes(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    void runs.forRun("s", "r");
    let closed = false;
    const closing = runs.close().then(() => {
      closed = true;
    });
    expect(runs.size).toBe(0);
    await Promise.resolve();
    expect(closed).toBe(false);
    release();
    await closing;
    expect(closed).toBe(true);
  });
});
