// exec_command in the OS sandbox (@anthropic-ai/sandbox-runtime 0.0.83: bubblewrap and seccomp),
// through a real Runner and real bubblewrap, never a mock: output comes back, writes outside
// allowWrite are denied with the denial on that command's stderr, a denyRead home path is
// unreadable, the proxy refuses a host not allowed, the environment policy is what the command
// sees, a call outside this sandbox is refused, and the open fails without its dependencies or
// with a malformed policy. Skipped, saying so in the suite's name, where bwrap, socat or
// rg is absent; under CI that fails instead.
import { existsSync } from "node:fs";
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent, hostTool, type JsonObject, type RunEvent } from "@castellan/harness";
import { type ScriptedStep, scriptedModel } from "@castellan/models/testing";
import { expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import {
  checkSandboxDependencies,
  createSandboxRuntimeAdapter,
  createSandboxRuntimeCommandSessionPlugin,
  type SandboxPolicyConfig,
  type SandboxRuntimeAdapter,
} from "../src/capabilities/commands/index.js";
import type { CommandSessionReport } from "../src/capabilities/commands/session/index.js";
import type { EnvironmentPolicy } from "../src/index.js";
import { createNodeRunner, type NodeRunner } from "../src/index.js";
import { sandboxRuntimePackagePath } from "../src/platform/sandbox/runtime-adapter.js";
import { cleanupAfterEach, drain, extraTempDirs, tempDirPerTest, textOf } from "./support/index.ts";

const temp = tempDirPerTest("castellan-sandbox-");
const cleanups = cleanupAfterEach();
const specifier = "castellan.test-sandbox";
const slow = 30_000;
const fast = { initialYieldMs: 10_000, executionTimeoutMs: 20_000, killGraceMs: 200 } as const;

const extraDir = extraTempDirs();

const call = (name: string, input: JsonObject): ScriptedStep => ({ toolCalls: [{ name, input }] });

function results(events: readonly RunEvent[]) {
  return events.flatMap((event) => {
    if (event.kind !== "tool-end") return [];
    const text = textOf(event.result);
    const report = event.result.isError ? undefined : (JSON.parse(text) as CommandSessionReport);
    return [{ isError: event.result.isError === true, text, report }];
  });
}

interface Setup {
  readonly runner: NodeRunner;
  readonly root: string;
}

async function setup(
  commands: readonly string[],
  options: {
    readonly config?: (root: string) => SandboxPolicyConfig;
    readonly environment?: EnvironmentPolicy;
    readonly declare?: string | null;
    readonly runtimeAdapter?: SandboxRuntimeAdapter;
  } = {},
): Promise<Setup> {
  const root = await realpath(temp.path);
  const config = options.config?.(root) ?? {
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { allowWrite: [root] },
  };
  const plugin = createSandboxRuntimeCommandSessionPlugin({
    sandbox: { specifier, config },
    command: {
      workingDirectory: pathToFileURL(`${root}/`),
      environment: options.environment ?? { inherit: "core" },
      ...fast,
    },
    ...(options.runtimeAdapter ? { runtimeAdapter: options.runtimeAdapter } : {}),
  });
  const declared = options.declare === undefined ? specifier : options.declare;
  const agent = defineAgent("test.sandbox", {
    model: scriptedModel([...commands.map((command) => call("exec_command", { command })), { text: "done" }]),
    tools: [hostTool("exec_command"), hostTool("command_session")],
    ...(declared === null ? {} : { sandbox: declared }),
  });
  const runner = await createNodeRunner({ agent, permissions: "full-access", plugins: [plugin] });
  cleanups.push(() => runner.close());
  return { runner, root };
}

/** Runs `commands` in one Session and returns each exec_command result. */
async function runAll(setupResult: Setup) {
  const session = cleanups.closeLater(await setupResult.runner.createSession());
  const { events, error } = await drain(session.run("go"));
  expect(error).toBeUndefined();
  return results(events);
}

describeNeeding(osSandboxPrograms, "exec_command in the sandbox runtime", () => {
  it(
    "runs a command in bubblewrap and returns its output",
    async () => {
      const [result] = await runAll(await setup(["echo hello; echo inside=$SANDBOX_RUNTIME"]));
      expect(result?.report).toMatchObject({ state: "terminal", outcome: "exit", exitCode: 0 });
      expect(result?.report?.stdout.text).toBe("hello\ninside=1\n");
    },
    slow,
  );

  it(
    "denies a write outside allowWrite, with the denial on that command's stderr, and allows one inside",
    async () => {
      const outside = await extraDir("castellan-sandbox-outside-");
      const s = await setup([`touch ${outside}/escaped`, "echo kept > inside.txt && cat inside.txt"]);
      const [denied, allowed] = await runAll(s);
      expect(denied?.report?.exitCode).not.toBe(0);
      expect(existsSync(join(outside, "escaped"))).toBe(false);
      const stderr = denied?.report?.stderr.text ?? "";
      expect(stderr).toContain("Read-only file system");
      // The runtime's seccomp observer appends its denial to this command's stderr.
      expect(stderr).toContain("<sandbox_violations>");
      expect(stderr).toContain(`${outside}/escaped`);
      expect(allowed?.report).toMatchObject({ exitCode: 0, stdout: { text: "kept\n" } });
      expect(allowed?.report?.stderr.text).toBe("");
      expect(existsSync(join(s.root, "inside.txt"))).toBe(true);
    },
    slow,
  );

  it(
    "keeps ~/.ssh unreadable under denyRead ['~/.ssh'], ~ being the host's HOME",
    async () => {
      const home = await extraDir("castellan-sandbox-home-");
      await mkdir(join(home, ".ssh"));
      await writeFile(join(home, ".ssh", "id"), "PRIVATE-KEY\n");
      const saved = process.env.HOME;
      process.env.HOME = home;
      try {
        const s = await setup(['cat "$HOME/.ssh/id"; echo "home=$HOME"'], {
          config: (root) => ({
            network: { allowedDomains: [], deniedDomains: [] },
            filesystem: { denyRead: ["~/.ssh"], allowWrite: [root] },
          }),
        });
        const session = cleanups.closeLater(await s.runner.createSession());
        const { events } = await drain(session.run("go"));
        const [result] = results(events);
        expect(result?.report?.stdout.text).toBe(`home=${home}\n`);
        expect(result?.report?.stdout.text).not.toContain("PRIVATE-KEY");
        expect(result?.report?.stderr.text).toContain(".ssh/id");
      } finally {
        process.env.HOME = saved;
      }
    },
    slow,
  );

  it(
    "refuses a host not in allowedDomains at the proxy, before DNS",
    async () => {
      const [result] = await runAll(
        await setup(["curl -sS -f -m 10 http://blocked.example.invalid/; echo curl=$?"], {
          config: (root) => ({
            network: { allowedDomains: ["allowed.example.invalid"], deniedDomains: [] },
            filesystem: { allowWrite: [root] },
          }),
        }),
      );
      // 403 from the runtime's proxy: curl -f exits 22 (a DNS failure would be 5 or 6).
      expect(result?.report?.stdout.text).toBe("curl=22\n");
      expect(result?.report?.stderr.text).toContain("403");
      expect(result?.report?.stderr.text).toContain("deny network-outbound blocked.example.invalid:80");
    },
    slow,
  );

  it(
    "gives the command the environment policy's variables, never the rest of process.env",
    async () => {
      process.env.SANDBOX_TEST_SECRET = "do-not-pass";
      try {
        const [result] = await runAll(
          await setup(['echo "secret=$SANDBOX_TEST_SECRET set=$SANDBOX_TEST_SET"'], {
            environment: { inherit: "core", set: { SANDBOX_TEST_SET: "given" } },
          }),
        );
        expect(result?.report?.stdout.text).toBe("secret= set=given\n");
      } finally {
        delete process.env.SANDBOX_TEST_SECRET;
      }
    },
    slow,
  );

  it(
    "refuses a call whose Session does not hold this sandbox (sandbox_required), and spawns nothing",
    async () => {
      const s = await setup(["touch spawned"], { declare: null });
      const [result] = await runAll(s);
      expect(result?.isError).toBe(true);
      expect(result?.text).toMatch(/^sandbox_required/);
      expect(existsSync(join(s.root, "spawned"))).toBe(false);
    },
    slow,
  );

  it("fails the open of an agent declaring another sandbox (sandbox_not_found)", async () => {
    const s = await setup(["true"], { declare: "castellan.other-sandbox" });
    await expect(s.runner.createSession()).rejects.toMatchObject({ code: "sandbox_not_found" });
  });

  it(
    "fails the open with sandbox_unavailable when bwrap is missing, and never runs unsandboxed",
    async () => {
      const s = await setup(["touch spawned"], {
        runtimeAdapter: createSandboxRuntimeAdapter({ bwrapPath: "/nonexistent/castellan/bwrap" }),
      });
      const error = await s.runner.createSession().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "sandbox_unavailable" });
      expect((error as Error).message).toContain("/nonexistent/castellan/bwrap");
      expect(existsSync(join(s.root, "spawned"))).toBe(false);
    },
    slow,
  );

  it("names each missing dependency in the preflight (sandbox_unavailable)", () => {
    expect(() => checkSandboxDependencies({ bwrap: "/nonexistent/bwrap", socat: "socat", rg: "rg" })).toThrow(
      expect.objectContaining({ code: "sandbox_unavailable", missing: ["bwrap (/nonexistent/bwrap)"] }),
    );
    expect(() => checkSandboxDependencies(undefined, "")).toThrow(
      expect.objectContaining({ code: "sandbox_unavailable", missing: ["bwrap", "socat", "rg"] }),
    );
    expect(() => checkSandboxDependencies(undefined, undefined, "darwin")).toThrow(
      expect.objectContaining({ code: "sandbox_unavailable" }),
    );
  });

  it("refuses a relative path in the policy (sandbox_config_invalid)", async () => {
    const root = await realpath(temp.path);
    const create = (config: SandboxPolicyConfig) => () =>
      createSandboxRuntimeCommandSessionPlugin({
        sandbox: { specifier, config },
        command: { workingDirectory: pathToFileURL(`${root}/`), environment: { inherit: "core" } },
      });
    for (const path of [".", "./out", "out", "~user/x"]) {
      expect(
        create({ network: { allowedDomains: [], deniedDomains: [] }, filesystem: { allowWrite: [path] } }),
      ).toThrow(expect.objectContaining({ code: "sandbox_config_invalid" }));
    }
    expect(create({ network: { allowedDomains: [] } } as unknown as SandboxPolicyConfig)).toThrow(
      expect.objectContaining({ code: "sandbox_config_invalid" }),
    );
  });

  it("fails the open when an allowWrite path contains the runtime package (sandbox_config_invalid)", async () => {
    const packageParent = dirname(sandboxRuntimePackagePath());
    const s = await setup(["true"], {
      config: () => ({
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: { allowWrite: [packageParent] },
      }),
    });
    await expect(s.runner.createSession()).rejects.toMatchObject({ code: "sandbox_config_invalid" });
  });

  it(
    "counts leases of one profile and refuses another profile while it is active (sandbox_profile_conflict)",
    async () => {
      const first = await setup(["echo one"]);
      const a = await first.runner.createSession();
      const b = await first.runner.createSession();
      const other = await setup(["echo two"], {
        config: () => ({ network: { allowedDomains: ["example.invalid"], deniedDomains: [] } }),
      });
      await expect(other.runner.createSession()).rejects.toMatchObject({ code: "sandbox_profile_conflict" });
      await a.close();
      // b still holds the profile; a command of it still runs sandboxed.
      const { events } = await drain(b.run("go"));
      expect(results(events)[0]?.report?.stdout.text).toBe("one\n");
      await b.close();
      const c = cleanups.closeLater(await other.runner.createSession());
      const { events: later } = await drain(c.run("go"));
      expect(results(later)[0]?.report?.stdout.text).toBe("two\n");
    },
    slow,
  );
});
