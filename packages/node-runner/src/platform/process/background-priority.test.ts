// The background niceness: commands started after it is set run at it (the spawn broker takes
// it before its first command, and its children inherit it); a bad value is refused.
import { describe, expect, it } from "vitest";
import { shellCommand, useSupervisors } from "../../../test/fixtures/command-processes.ts";
import { backgroundPriority, setBackgroundPriority } from "./background-priority.js";

const supervisorFor = useSupervisors();

describe("the background priority", () => {
  it("runs commands at the niceness set before the broker started", async () => {
    setBackgroundPriority(7);
    expect(backgroundPriority()).toBe(7);
    const supervisor = supervisorFor();
    const info = await supervisor.spawn(shellCommand("s1", "nice"));
    const waited = await supervisor.waitFor(info.commandId, { untilMs: 10_000 });
    expect(waited.state === "ended" ? waited.result.stdout.text : "").toBe("7\n");
  });

  it("refuses a niceness outside 0 to 19", () => {
    for (const value of [-1, 20, 1.5, Number.NaN]) expect(() => setBackgroundPriority(value)).toThrow(RangeError);
  });
});
