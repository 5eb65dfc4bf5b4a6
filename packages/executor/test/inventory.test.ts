// The environment inventory: only exit 127 is an absence, a timeout or a refused spawn is its own
// "could not be determined" line, four probes at once within their bounds; Docker by `docker
// info`, never by finding the CLI (a refusal with DOCKER_HOST unset is "no daemon", set is one
// retry then unknown); the block's last line. On a real job, with stubs first on PATH: a tool
// that sleeps past 5 s, a docker that cannot reach a daemon, pnpm absent, and the block exactly
// once in the request. 100 /health polls start no process.
import { execFileSync } from "node:child_process";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import type { ModelRequest } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import {
  createInventoryMemo,
  type InventoryMemo,
  inventoryBlock,
  inventoryHeading,
  jobInventory,
  type ProbeRun,
  probeDocker,
  probedTools,
  probeTools,
} from "../src/index.js";
import { bareRepository, jobBody, send, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-inventory-");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ran = (exitCode: number | null, stdout = "", timedOut = false): ProbeRun => ({
  exitCode,
  stdout,
  stderr: "",
  timedOut,
});

describe("the environment inventory", () => {
  it("tells an absence (exit 127) from a timeout or a refused spawn, four probes at once", async () => {
    let running = 0;
    let most = 0;
    const findings = await probeTools(async (command) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      if (command.startsWith("pnpm")) return ran(127);
      if (command.startsWith("jq")) return ran(124, "", true);
      if (command.startsWith("go ")) throw new Error("spawn refused");
      if (command.startsWith("make")) return ran(2);
      return ran(0, `${command.split(" ")[0]} 1.2.3\nmore`);
    });
    expect(most).toBe(4);
    expect(findings).toHaveLength(probedTools.length);
    expect(findings.find((tool) => tool.name === "git")).toEqual({
      name: "git",
      state: "installed",
      version: "git 1.2.3",
    });
    expect(findings.find((tool) => tool.name === "pnpm")).toEqual({ name: "pnpm", state: "absent" });
    expect(findings.find((tool) => tool.name === "jq")).toMatchObject({
      state: "undetermined",
      reason: "its version command timed out",
    });
    expect(findings.find((tool) => tool.name === "go")).toMatchObject({
      state: "undetermined",
      reason: "its version command could not be started",
    });
    expect(findings.find((tool) => tool.name === "make")).toMatchObject({ state: "undetermined" });
  });

  it("stops at the total budget and says so for what was left", async () => {
    const findings = await probeTools(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return ran(0, "v1");
      },
      { concurrency: 1, perToolMs: 5_000, totalMs: 50, dockerMs: 10_000 },
    );
    expect(findings.filter((tool) => tool.state === "installed").length).toBeLessThan(probedTools.length);
    expect(findings.at(-1)).toMatchObject({ state: "undetermined", reason: "the inventory ran out of time" });
  });

  it("asks Docker by docker info: an answer, no CLI, a refusal with and without DOCKER_HOST", async () => {
    expect(await probeDocker(async () => ran(0), false)).toBe("answered");
    expect(await probeDocker(async () => ran(127), false)).toBe("not-installed");
    expect(await probeDocker(async () => ran(1), false)).toBe("no-daemon");
    const waits: number[] = [];
    let calls = 0;
    const refused = async () => {
      calls++;
      return ran(1);
    };
    expect(await probeDocker(refused, true, async (ms) => void waits.push(ms))).toBe("undetermined");
    expect([calls, waits]).toEqual([2, [2_000]]);
    expect(
      await probeDocker(async () => {
        throw new Error("no sandbox");
      }, false),
    ).toBe("undetermined");
  });

  it("writes the block under its heading, ending with the line about unlisted tools", () => {
    const block = inventoryBlock(
      [
        { name: "git", state: "installed", version: "git version 2.47.0" },
        { name: "pnpm", state: "absent" },
        { name: "jq", state: "undetermined", reason: "its version command timed out" },
      ],
      "no-daemon",
    );
    const lines = block.split("\n");
    expect(lines[0]).toBe(inventoryHeading);
    expect(block).toContain("Installed: git (git version 2.47.0).");
    expect(block).toContain("Not installed: pnpm.");
    expect(block).toContain("Could not be determined: jq (its version command timed out).");
    expect(block).toContain("no daemon is reachable from the sandbox; `docker compose up` will fail here");
    expect(block).toContain("the project's own package manager may be fetched for this project");
    expect(lines.at(-1)).toBe("Tools not listed here are unknown, not absent.");
  });
});

describe("the inventory's memo", () => {
  /** A probe that answers every tool, counting the commands it was asked to run. */
  function countingProbe(answer: (command: string) => ProbeRun) {
    const commands: string[] = [];
    const probe = async (command: string): Promise<ProbeRun> => {
      commands.push(command);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return answer(command);
    };
    return { probe, commands };
  }
  const options = (probe: (command: string) => Promise<ProbeRun>, memo: InventoryMemo) => ({
    probe,
    memo,
    network: undefined,
    sandboxProbeBinary: "/bin/true",
    egressTarget: undefined,
    egressDnsName: "localhost",
    dockerHostSet: false,
  });

  it("measures the tools once per policy for jobs that start together, and reuses settled findings", async () => {
    const memo = createInventoryMemo();
    // cargo's shim exits 1 the same way every time: settled, though unknown.
    const { probe, commands } = countingProbe((command) => (command.startsWith("cargo") ? ran(1) : ran(0, "v1")));
    const [first, second] = await Promise.all([jobInventory(options(probe, memo)), jobInventory(options(probe, memo))]);
    expect(first).toBe(second);
    expect(first).toContain("Could not be determined: cargo (its version command exited 1).");
    const toolCommands = () => commands.filter((command) => !command.includes("/bin/true"));
    expect(toolCommands()).toHaveLength(probedTools.length + 1);
    // Each job still checks its sandbox live.
    expect(commands.filter((command) => command.includes("/bin/true"))).toHaveLength(2);
    await jobInventory(options(probe, memo));
    expect(toolCommands()).toHaveLength(probedTools.length + 1);
  });

  it("measures again after a transient unknown (a timeout)", async () => {
    const memo = createInventoryMemo();
    const { probe, commands } = countingProbe((command) => (command.startsWith("jq") ? ran(null, "", true) : ran(0)));
    await jobInventory(options(probe, memo));
    await jobInventory(options(probe, memo));
    expect(commands.filter((command) => command.startsWith("jq"))).toHaveLength(2);
  });
});

describeNeeding(osSandboxPrograms, "the inventory of a real job", () => {
  it("probes in the job's sandbox, with stubs first on PATH, and appends the block once", async () => {
    const stubs = join(temp.path, "stubs");
    await mkdir(stubs);
    await writeFile(join(stubs, "jq"), "#!/bin/sh\nsleep 10\n");
    await writeFile(join(stubs, "docker"), "#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n");
    await chmod(join(stubs, "jq"), 0o755);
    await chmod(join(stubs, "docker"), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${stubs}${delimiter}${path ?? ""}`;
    cleanups.push(() => {
      process.env.PATH = path;
    });
    const pnpmHere = (() => {
      try {
        execFileSync("sh", ["-c", "command -v pnpm"], { stdio: "ignore" });
        return true;
      } catch {
        return false;
      }
    })();
    const bare = await bareRepository(temp.path);
    const model = scriptedModel([{ text: "Looked around." }]);
    const started = await startServer({ allowFileRemotes: true, modelFactory: () => model });
    cleanups.push(() => started.server.close());
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "inv", repo: { url: `file://${bare}`, baseBranch: "main" } })),
    });
    const deadline = Date.now() + 90_000;
    let view: { state: string };
    do {
      await new Promise((resolve) => setTimeout(resolve, 100));
      view = (await send(started.port, "GET", "/jobs/inv")).json;
    } while (["queued", "running"].includes(view.state) && Date.now() < deadline);
    expect(view.state).toBe("succeeded");
    const system = (model.requests[0] as ModelRequest).system;
    expect(system.split(inventoryHeading)).toHaveLength(2);
    expect(system).toContain("You fix bugs.");
    expect(system).toContain("Could not be determined: jq (its version command timed out).");
    expect(system).toContain("Docker: no daemon is reachable from the sandbox");
    if (!pnpmHere) expect(system).toMatch(/Not installed: [^\n]*pnpm/);
    expect(system).toMatch(/Installed: [^\n]*git \(git version/);
    expect(system.slice(system.indexOf(inventoryHeading))).toContain("Tools not listed here are unknown, not absent.");
  }, 120_000);

  it("answers 100 /health polls without starting a process", async () => {
    const started = await startServer();
    cleanups.push(() => started.server.close());
    const children = () =>
      execFileSync("ps", ["-o", "pid=", "--ppid", String(process.pid)], { stdio: ["ignore", "pipe", "ignore"] })
        .toString()
        .trim()
        .split("\n")
        .filter(Boolean).length;
    // The boot-time sandbox check starts processes of its own at listen: counted once it is over.
    for (let wait = 0; wait < 600; wait++) {
      if ((await send(started.port, "GET", "/health", { auth: null })).json.sandbox.boot !== "unmeasured") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    let before = children();
    for (let settle = 0; settle < 100; settle++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const now = children();
      if (now === before) break;
      before = now;
    }
    for (let poll = 0; poll < 100; poll++)
      expect((await send(started.port, "GET", "/health", { auth: null })).status).toBe(200);
    // The ps that counts is itself a child: the count is the same as before.
    expect(children()).toBe(before);
  });
});
