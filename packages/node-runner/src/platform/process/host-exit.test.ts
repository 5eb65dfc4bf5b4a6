import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { processesWithMarker, stillRunning, uniqueMarker } from "../../../test/fixtures/command-processes.ts";

const child = fileURLToPath(new URL("../../../test/fixtures/command-host-exit.ts", import.meta.url));

/** Runs the fixture to its exit; resolves with its stdout, stderr and exit code. */
function runChild(marker: string): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const node = spawn(process.execPath, [child, marker], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  node.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  node.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  return new Promise((resolve, reject) => {
    node.once("error", reject);
    node.once("close", (code) => resolve({ stdout, stderr, code }));
  });
}

describe("a host that exits with commands still running", () => {
  it("takes every process of them with it, through the exit listener", async () => {
    const marker = uniqueMarker();
    const { stdout, stderr, code } = await runChild(marker);
    try {
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      const { pids } = JSON.parse(stdout) as { pids: number[] };
      expect(pids).toHaveLength(3);
      // SIGKILL was sent synchronously at exit; the kernel may take a moment to finish the job.
      const deadline = Date.now() + 2_000;
      while ((await stillRunning(pids)).length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(await stillRunning(pids)).toEqual([]);
      expect(await processesWithMarker(marker)).toEqual([]);
    } finally {
      // Whatever the assertions found, nothing this test started is left.
      for (const pid of await processesWithMarker(marker)) process.kill(pid, "SIGKILL");
    }
  });
});
