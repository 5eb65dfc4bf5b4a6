// Which processes the end-of-run check names: a bubblewrap or socat new since the run began,
// not exited, whose parent is init or gone, with its whole tree; nothing that was there before,
// has a living parent, or is a zombie.
import { describe, expect, it } from "vitest";
import { baselineOf, describeLeftovers, orphanedSandboxProcesses, type ProcessRow } from "./sandbox-leftovers.ts";

const row = (pid: number, parent: number, name: string, extra: Partial<ProcessRow> = {}): ProcessRow => ({
  pid,
  parent,
  name,
  state: "S",
  startTime: String(1000 + pid),
  commandLine: `${name} ${pid}`,
  ...extra,
});

describe("orphanedSandboxProcesses", () => {
  const before = [row(1, 0, "init"), row(10, 1, "bwrap"), row(20, 1, "node")];
  const baseline = baselineOf(before);

  it("names a new bubblewrap reparented to init with its tree, and a socat whose parent is gone", () => {
    const now = [
      ...before,
      row(30, 1, "bwrap"),
      row(31, 30, "sh"),
      row(32, 31, "socat"),
      row(40, 999, "socat"),
      row(41, 20, "bwrap"),
    ];
    expect(orphanedSandboxProcesses(now, baseline).map((process) => process.pid)).toEqual([30, 31, 32, 40]);
  });

  it("leaves out what ran before the run, one with a living parent, a zombie, and other programs", () => {
    const now = [...before, row(50, 20, "socat"), row(51, 1, "bwrap", { state: "Z" }), row(52, 1, "sleep")];
    expect(orphanedSandboxProcesses(now, baseline)).toEqual([]);
  });

  it("counts a reused pid as new: its start time differs", () => {
    const now = [row(1, 0, "init"), row(10, 1, "bwrap", { startTime: "99999" })];
    expect(describeLeftovers(orphanedSandboxProcesses(now, baseline))).toEqual(["pid 10 (bwrap), parent 1: bwrap 10"]);
  });
});
