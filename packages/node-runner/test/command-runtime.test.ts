// createCommandRuntime: a host's commands with no Session and no agent, on real processes:
// option refusals before anything starts, root/cwd/env through the environment policy, the
// default and per-request deadline, run after close refused, close ending what still runs,
// sandboxed git on a runtime, and (real bubblewrap) the workspace policy holding its commands.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { type CommandRuntime, createCommandRuntime } from "../src/capabilities/commands/index.js";
import { runSandboxedGit } from "../src/index.js";
import { cleanupAfterEach, extraTempDirs, tempDirPerTest, writeTree } from "./support/index.ts";

const temp = tempDirPerTest("castellan-cmd-runtime-");
const cleanups = cleanupAfterEach();
const extraDir = extraTempDirs();
const slow = 60_000;

function opened(runtime: CommandRuntime): CommandRuntime {
  cleanups.push(() => runtime.close());
  return runtime;
}

describe("createCommandRuntime options", () => {
  it.each([
    [{ root: "/tmp", nope: 1 }, /nope is not an option/],
    [{ root: "/tmp", limits: { executionTimeoutMs: 0 } }, /limits\.executionTimeoutMs must be an integer from 1/],
    [{ root: "/tmp", limits: { initialYieldMs: 5 } }, /limits\.initialYieldMs is not an option/],
    [{ root: "/tmp", sandbox: "docker" }, /sandbox must be "os", "none"/],
    [{ root: "/tmp", sandbox: { homeReads: "all" } }, /sandbox\.homeReads must be/],
    [{ root: "/tmp", sandbox: { proxy: true } }, /sandbox\.proxy is not an option/],
    [{ root: "/tmp", shell: { executable: "" } }, /shell must be/],
    [{}, /root is required/],
  ])("refuses %j with command_options_invalid", async (options, message) => {
    await expect(createCommandRuntime(options as never)).rejects.toMatchObject({
      code: "command_options_invalid",
      message: expect.stringMatching(message),
    });
  });

  it("refuses a relative root, a bad environment policy and a bad sandbox policy with their own codes", async () => {
    await expect(createCommandRuntime({ root: "relative/dir", sandbox: "none" })).rejects.toMatchObject({
      code: "workspace_root_invalid",
    });
    await expect(
      createCommandRuntime({ root: temp.path, sandbox: "none", environment: { inherit: "everything" } as never }),
    ).rejects.toMatchObject({ code: "environment_invalid" });
    await expect(
      createCommandRuntime({ root: temp.path, sandbox: { filesystem: { allowWrite: ["relative"] } } }),
    ).rejects.toMatchObject({ code: "sandbox_config_invalid" });
  });

  it("stops the open when its signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop now"));
    await expect(createCommandRuntime({ root: temp.path, sandbox: "none", signal: controller.signal })).rejects.toThrow(
      "stop now",
    );
  });
});

describe("CommandRuntime (sandbox none)", () => {
  it("runs in the root or a cwd beneath it, with the environment policy and env set over it", async () => {
    await writeTree(temp.path, { "sub/.keep": "" });
    process.env.RUNTIME_HOST_ONLY = "hidden";
    try {
      const runtime = opened(await createCommandRuntime({ root: temp.path, sandbox: "none" }));
      expect(runtime.containment).toBe("uncontained");
      expect(runtime.sandbox).toBeUndefined();
      const root = await realpath(temp.path);
      const result = await runtime.run({
        command: 'pwd; echo "extra=$EXTRA host=[$RUNTIME_HOST_ONLY]"; echo err >&2; exit 3',
        env: { EXTRA: "yes" },
      });
      expect(result).toMatchObject({
        outcome: "exit",
        exitCode: 3,
        signal: null,
        stdout: `${root}\nextra=yes host=[]\n`,
        stderr: "err\n",
        droppedBytes: { stdout: 0, stderr: 0 },
      });
      const nested = await runtime.run({ command: "pwd", cwd: "sub" });
      expect(nested.stdout).toBe(`${join(root, "sub")}\n`);
      await expect(runtime.run({ command: "pwd", cwd: "../" })).rejects.toMatchObject({ code: "path_invalid" });
      await expect(runtime.run({ command: "true", env: { OPENAI_API_KEY: "x" } })).rejects.toMatchObject({
        code: "environment_invalid",
      });
    } finally {
      delete process.env.RUNTIME_HOST_ONLY;
    }
  });

  it("ends a command at the runtime's deadline or the request's, and bounds its output", async () => {
    const runtime = opened(
      await createCommandRuntime({
        root: temp.path,
        sandbox: "none",
        limits: { executionTimeoutMs: 300, killGraceMs: 100, maxOutputBytesPerStream: 1_024 },
      }),
    );
    const slowCommand = await runtime.run({ command: "sleep 30" });
    expect(slowCommand).toMatchObject({ outcome: "timeout", exitCode: 124 });
    const longer = await runtime.run({ command: "sleep 0.5; echo done", timeoutMs: 10_000 });
    expect(longer).toMatchObject({ outcome: "exit", exitCode: 0, stdout: "done\n" });
    const loud = await runtime.run({ command: "head -c 5000 /dev/zero | tr '\\0' a" });
    expect(loud.stdout.length).toBe(1_024);
    expect(loud.droppedBytes.stdout).toBe(5_000 - 1_024);
  });

  it("refuses a malformed request before anything spawns", async () => {
    const runtime = opened(await createCommandRuntime({ root: temp.path, sandbox: "none" }));
    await expect(runtime.run({ command: "" })).rejects.toMatchObject({ code: "command_options_invalid" });
    await expect(runtime.run({ command: "true", timeoutMs: 0 })).rejects.toMatchObject({
      code: "command_options_invalid",
      message: expect.stringContaining("timeoutMs must be an integer"),
    });
  });

  it("close ends what still runs (outcome cleanup) and refuses a later run", async () => {
    const runtime = await createCommandRuntime({ root: temp.path, sandbox: "none", limits: { killGraceMs: 100 } });
    const running = runtime.run({ command: "sleep 30" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await runtime.close();
    await expect(running).resolves.toMatchObject({ outcome: "cleanup" });
    expect(runtime.closed).toBe(true);
    await expect(runtime.run({ command: "true" })).rejects.toMatchObject({ code: "command_runtime_closed" });
    await runtime.close();
  });

  it("counts a host's commands against maxLiveCommands", async () => {
    const runtime = opened(
      await createCommandRuntime({
        root: temp.path,
        sandbox: "none",
        limits: { maxLiveCommands: 1, killGraceMs: 100 },
      }),
    );
    const controller = new AbortController();
    const first = runtime.run({ command: "sleep 30", signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(runtime.run({ command: "true" })).rejects.toMatchObject({ code: "command_limit_reached" });
    controller.abort();
    await expect(first).resolves.toMatchObject({ outcome: "cleanup" });
    await expect(runtime.run({ command: "true" })).resolves.toMatchObject({ exitCode: 0 });
  });

  it("runs sandboxed git on a runtime as on a Session", async () => {
    execFileSync("git", ["init", "-q", "-b", "main", temp.path], { stdio: "ignore" });
    const runtime = opened(await createCommandRuntime({ root: temp.path, sandbox: "none" }));
    const outcome = await runSandboxedGit(runtime, { args: ["rev-parse", "--is-inside-work-tree"], timeoutMs: 30_000 });
    expect(outcome).toMatchObject({ kind: "exited", code: 0, stdout: "true\n" });
  });
});

describeNeeding(osSandboxPrograms, "CommandRuntime (OS sandbox)", () => {
  it(
    "confines its commands to the workspace policy: writes under the root only, .git internals denied, home unreadable",
    async () => {
      execFileSync("git", ["init", "-q", "-b", "main", temp.path], { stdio: "ignore" });
      const outside = await extraDir("castellan-cmd-runtime-outside-");
      await writeTree(outside, { "secret.txt": "top secret" });
      const runtime = opened(
        await createCommandRuntime({
          root: pathToFileURL(`${temp.path}/`),
          sandbox: { homeReads: "none", filesystem: { denyRead: [outside] } },
        }),
      );
      expect(runtime.containment).toBe("sandboxed");
      expect(runtime.sandbox?.policy.network.allowedDomains).toEqual([]);
      const written = await runtime.run({ command: "echo made > made.txt && cat made.txt" });
      expect(written).toMatchObject({ exitCode: 0, stdout: "made\n" });
      expect(await readFile(join(temp.path, "made.txt"), "utf8")).toBe("made\n");
      const hook = await runtime.run({ command: "echo 'exit 0' > .git/hooks/pre-commit" });
      expect(hook.exitCode).not.toBe(0);
      expect(existsSync(join(temp.path, ".git/hooks/pre-commit"))).toBe(false);
      // Not the denied directory: bubblewrap hides that one behind an empty mount.
      const elsewhere = await extraDir("castellan-cmd-runtime-elsewhere-");
      const outsideWrite = await runtime.run({ command: `echo x > ${join(elsewhere, "planted.txt")}` });
      expect(outsideWrite.exitCode).not.toBe(0);
      expect(outsideWrite.stderr).toContain("<sandbox_violations>");
      expect(existsSync(join(elsewhere, "planted.txt"))).toBe(false);
      const read = await runtime.run({ command: `cat ${join(outside, "secret.txt")}` });
      expect(read.exitCode).not.toBe(0);
      expect(read.stdout).not.toContain("top secret");
    },
    slow,
  );

  it(
    "ends its sandbox worker at close: a command still running ends with cleanup, and nothing runs after",
    async () => {
      const runtime = await createCommandRuntime({ root: temp.path, limits: { killGraceMs: 100 } });
      const running = runtime.run({ command: "sleep 30" });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await runtime.close();
      await expect(running).resolves.toMatchObject({ outcome: "cleanup" });
      await expect(runtime.run({ command: "true" })).rejects.toMatchObject({ code: "command_runtime_closed" });
    },
    slow,
  );
});
