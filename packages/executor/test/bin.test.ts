// The real bin in its own process: --help and --version, exit 2 naming a missing token or a bad
// knob, the process title, the listening log line (with --transcript-root taken), /health over loopback, and SIGTERM stopping it with exit 0.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { executorVersion } from "../src/index.js";
import { send, tempDirPerTest, testToken } from "./support.ts";

const exec = promisify(execFile);
const bin = fileURLToPath(new URL("../dist/bin/castellan-executor.js", import.meta.url));
const temp = tempDirPerTest("castellan-executor-bin-");
const live = new Set<ChildProcess>();
afterEach(() => {
  for (const child of live) child.kill("SIGKILL");
  live.clear();
});

/** The environment of a bin run: none of this machine's executor settings, plus `extra`. */
function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(
    ([name]) => !name.startsWith("CASTELLAN_EXECUTOR_") && !name.startsWith("JOB_") && name !== "PORT",
  );
  return { ...Object.fromEntries(inherited), ...extra };
}

async function exitOf(args: readonly string[], env: Record<string, string>) {
  try {
    await exec(process.execPath, [bin, ...args], { env: environment(env), timeout: 30_000 });
    return { code: 0, stderr: "" };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe("castellan-executor", () => {
  it("exits 2 naming a missing token, a bad knob or a bad command, and never prints a value", async () => {
    const noToken = await exitOf(["serve"], {});
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("CASTELLAN_EXECUTOR_TOKEN");
    const badKnob = await exitOf(["serve"], { CASTELLAN_EXECUTOR_TOKEN: testToken, JOB_INACTIVITY_MS: "soon-ish" });
    expect(badKnob.code).toBe(2);
    expect(badKnob.stderr).toContain("JOB_INACTIVITY_MS");
    expect(badKnob.stderr).not.toContain("soon-ish");
    expect(badKnob.stderr).not.toContain(testToken);
    expect((await exitOf(["run"], { CASTELLAN_EXECUTOR_TOKEN: testToken })).code).toBe(2);
    expect((await exitOf(["serve", "--port", "-1"], { CASTELLAN_EXECUTOR_TOKEN: testToken })).code).toBe(2);
  });

  it("prints --help and --version on stdout and exits 0, with no token and no command", async () => {
    const run = (args: readonly string[]) =>
      exec(process.execPath, [bin, ...args], { env: environment({}), timeout: 30_000 });
    const help = await run(["--help"]);
    expect(help.stdout).toMatch(/^usage: castellan-executor serve /);
    for (const flag of [
      "--host",
      "--port",
      "--data-directory",
      "--transcript-root",
      "--allow-file-remotes",
      "--version",
    ]) {
      expect(help.stdout, flag).toContain(flag);
    }
    expect(help.stderr).toBe("");
    expect((await run(["serve", "--help"])).stdout).toBe(help.stdout);
    const version = await run(["--version"]);
    expect(version.stdout).toBe(`castellan-executor ${executorVersion}\n`);
    expect(version.stderr).toBe("");
  });

  it("serves with the token from its file, titles its process, and stops on SIGTERM with exit 0", async () => {
    const tokenFile = join(temp.path, "token");
    await writeFile(tokenFile, `${testToken}\n`, { mode: 0o600 });
    // "server-data" puts "server" in the command line a pattern kill would match without the title.
    const child = spawn(
      process.execPath,
      [
        bin,
        "serve",
        "--port",
        "0",
        "--data-directory",
        join(temp.path, "server-data"),
        "--transcript-root",
        join(temp.path, "kept-transcripts"),
      ],
      {
        env: environment({
          CASTELLAN_EXECUTOR_TOKEN_FILE: tokenFile,
          HARNESS_DOCKER_STATUS_FILE: join(temp.path, "sandbox-status.json"),
        }),
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    live.add(child);
    let stderr = "";
    const listening = new Promise<{ port: number; dataDirectory: string; transcriptRoot: string }>(
      (resolve, reject) => {
        child.stderr.setEncoding("utf8");
        child.stderr.on("data", (chunk: string) => {
          stderr += chunk;
          for (const line of stderr.split("\n")) {
            if (line.includes('"executor-listening"')) resolve(JSON.parse(line));
          }
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      },
    );
    const { port, dataDirectory, transcriptRoot } = await listening;
    expect(dataDirectory).toBe(join(temp.path, "server-data"));
    expect(transcriptRoot).toBe(join(temp.path, "kept-transcripts"));
    const health = await send(port, "GET", "/health", { auth: null });
    expect(health.json.status).toBe("ok");
    expect((await send(port, "GET", "/jobs")).status).toBe(200);
    const { stdout } = await exec("ps", ["-o", "args=", "-p", String(child.pid)]);
    expect(stdout.trim()).toBe("castellan-executor");
    // A pattern kill aimed at the service an agent built does not reach the server.
    for (const pattern of ["node .*server", "node dist/index.js"]) {
      const matched = await exec("pgrep", ["-f", pattern]).then(
        ({ stdout: pids }) => pids.split("\n").filter(Boolean),
        () => [],
      );
      expect(matched, pattern).not.toContain(String(child.pid));
    }
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    live.delete(child);
    expect(stderr).toContain('"executor-stopped"');
    expect(stderr).not.toContain(testToken);
  });
});
