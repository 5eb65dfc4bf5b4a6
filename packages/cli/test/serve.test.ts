// `castellan serve` is the executor's own command line: the same help, the same refusals and
// exit codes, the same environment, the same process title, and SIGTERM stops it with exit 0.
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { castellanBin, runBin } from "./support/run-bin.ts";

const exec = promisify(execFile);
const executorBin = fileURLToPath(new URL("../../executor/dist/bin/castellan-executor.js", import.meta.url));
const token = "castellan-serve-test-token-0123456789abcdef";
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-serve-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs the executor's own bin with exactly `env` (and PATH). */
async function executor(args: string[], env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [executorBin, ...args], {
      env: { PATH: process.env.PATH, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("castellan serve", () => {
  it("answers --help, --version and bad settings exactly as castellan-executor does", async () => {
    for (const args of [["--help"], ["--version"], ["--port", "-1"], ["--bogus"], ["extra"]]) {
      const env = { CASTELLAN_EXECUTOR_TOKEN: token };
      const ours = await runBin(["serve", ...args], { cwd: root, env });
      const theirs = await executor(["serve", ...args], env);
      expect({ code: ours.code, stdout: ours.stdout, stderr: ours.stderr }, args.join(" ")).toEqual(theirs);
    }
    const noToken = await runBin(["serve"], { cwd: root, env: {} });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("CASTELLAN_EXECUTOR_TOKEN");
  });

  it("serves with the executor's title and environment, and SIGTERM stops it with exit 0", async () => {
    const tokenFile = join(root, "token");
    await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
    const child = spawn(
      process.execPath,
      [castellanBin, "serve", "--port", "0", "--data-directory", join(root, "data")],
      {
        env: { PATH: process.env.PATH, HOME: root, CASTELLAN_EXECUTOR_TOKEN_FILE: tokenFile },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    try {
      let stderr = "";
      const listening = await new Promise<{ port: number; dataDirectory: string }>((resolve, reject) => {
        child.stderr.setEncoding("utf8").on("data", (text: string) => {
          stderr += text;
          const line = stderr.split("\n").find((entry) => entry.includes('"executor-listening"'));
          if (line) resolve(JSON.parse(line));
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      expect(listening.dataDirectory).toBe(join(root, "data"));
      const health = await fetch(`http://127.0.0.1:${listening.port}/health`);
      expect(health.status).toBe(200);
      const jobs = await fetch(`http://127.0.0.1:${listening.port}/jobs`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(jobs.status).toBe(200);
      const { stdout } = await exec("ps", ["-o", "args=", "-p", String(child.pid)]);
      expect(stdout.trim()).toBe("castellan-executor");
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(stderr).not.toContain(token);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
