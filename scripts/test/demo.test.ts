// `npm run demo` is deterministic: two runs of scripts/demo.ts (on the packages npm test has
// built) print the same transcript once temporary paths and call ids are set aside, and the
// transcript shows the whole coding flow and the second process answering from history. With
// `--sandbox os` the flow is the same too, compaction included: nothing a contained command
// prints differs from the uncontained run.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { itNeeding, osSandboxPrograms } from "../../test-support/system-programs.ts";

const exec = promisify(execFile);
const demo = fileURLToPath(new URL("../demo.ts", import.meta.url));

/** The transcript with what may differ between runs replaced: temporary paths and ids. */
function normalized(transcript: string): string {
  return transcript.replace(/\/tmp\/[^\s/"]+/g, "<tmp>").replace(/call_[0-9a-f-]{36}/g, "<id>");
}

/** The first `--sandbox none` run, shared by the tests that compare against it. */
let firstRun: Promise<{ stdout: string; stderr: string }> | undefined;
const uncontainedRun = () => {
  firstRun ??= exec(process.execPath, [demo], { timeout: 120_000 });
  return firstRun;
};

/** The flow alone: {@link normalized}, without the opening note on containment and the mode flag. */
function flowOf(transcript: string): string {
  const flow = normalized(transcript);
  return flow.slice(flow.indexOf("\n$ ")).replaceAll(/--sandbox (none|os)\b/g, "--sandbox <mode>");
}

describe("npm run demo", () => {
  it("prints the same coding flow twice, apart from temporary paths and ids", async () => {
    const first = await uncontainedRun();
    const second = await exec(process.execPath, [demo], { timeout: 120_000 });
    expect(normalized(second.stdout)).toBe(normalized(first.stdout));
    const out = first.stdout;
    expect(out).toContain("WITHOUT OS containment");
    for (const step of [
      "-> mcp__docs__read_text_file",
      "-> search_workspace",
      "-> apply_workspace_patch",
      "denied by hook: this example only runs the project's tests",
      "exit 0: npm test",
      "reviewer completed: APPROVE",
      "-> activate_skill",
      "(compacted:",
      "## Change report",
      "> What did you change?",
      "I changed src/cart.js",
    ]) {
      expect(out, step).toContain(step);
    }
    // The temporary copy is gone.
    const copy = /--workspace (\S+)/.exec(out)?.[1] ?? "";
    expect(copy).not.toBe("");
    await expect(exec("test", ["-e", copy])).rejects.toBeDefined();
  }, 240_000);

  itNeeding(
    osSandboxPrograms,
    "prints the same flow with --sandbox os as with --sandbox none, compaction included",
    async () => {
      const none = await uncontainedRun();
      const os = await exec(process.execPath, [demo, "--sandbox", "os"], { timeout: 120_000 });
      expect(os.stdout).toContain("Commands run in bubblewrap (--sandbox os)");
      expect(os.stdout).toContain("(compacted:");
      expect(flowOf(os.stdout)).toBe(flowOf(none.stdout));
    },
    240_000,
  );
});
