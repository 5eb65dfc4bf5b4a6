// An OS workspace() through a real Runner and real bubblewrap, each Session in its own sandbox
// worker: writes only under the root and the Session's temporary directory, the root's and
// nested repositories' .git internals and .castellan/ refused, no new .git, ~/.ssh unreadable,
// workdir never widening writes, the network reaching a loopback server as `localhost` only
// where allowed, grants for one Session only, secrets absent from the environment, two
// Sessions on one root with separate lifecycles, and a missing compiled worker refused.
// Skipped, saying so in the suite's name, where bwrap, socat or rg is absent; under CI that fails.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { defineAgent, type JsonObject, type RunEvent } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { CommandSessionReport } from "../src/capabilities/commands/session/index.js";
import {
  createNodeRunner,
  type RequestNetworkAccessResult,
  type ToolApprovalRequest,
  type WorkspaceOptions,
  workspace,
} from "../src/index.js";
import {
  approvalPlugin,
  cleanupAfterEach,
  drain,
  extraTempDirs,
  tempDirPerTest,
  textOf,
  writeTree,
} from "./support/index.ts";

const run = promisify(execFile);
const temp = tempDirPerTest("castellan-ws-sandbox-");
const cleanups = cleanupAfterEach();
const slow = 60_000;
const fast = { initialYieldMs: 10_000, executionTimeoutMs: 20_000, killGraceMs: 200 } as const;
const exec = (command: string, extra: JsonObject = {}): ScriptedStepSource => ({
  toolCalls: [{ name: "exec_command", input: { command, ...extra } }],
});

const extraDir = extraTempDirs();

function reports(events: readonly RunEvent[]) {
  return events.flatMap((event) => {
    if (event.kind !== "tool-end") return [];
    const text = textOf(event.result);
    return [
      {
        isError: event.result.isError,
        text,
        report: event.result.isError ? undefined : (JSON.parse(text) as CommandSessionReport),
      },
    ];
  });
}

async function setup(
  steps: readonly ScriptedStepSource[],
  options: Partial<WorkspaceOptions> & { asked?: ToolApprovalRequest[]; root?: string } = {},
) {
  const root = options.root ?? (await realpath(temp.path));
  const { asked, root: _root, ...workspaceOptions } = options;
  const capability = workspace({ root: pathToFileURL(`${root}/`), commands: fast, ...workspaceOptions });
  const model = scriptedModel([...steps, { text: "done" }]);
  const agent = defineAgent("test.workspace-sandbox", { model, capabilities: [capability] });
  const runner = await createNodeRunner({
    agent,
    permissions: asked ? "ask-on-write" : "full-access",
    plugins: asked
      ? [
          approvalPlugin(async (request) => {
            asked.push(request);
            return { decision: "allow" };
          }),
        ]
      : [],
  });
  cleanups.push(() => runner.close());
  return { root, capability, model, runner };
}

/** Runs the setup's steps in one new Session and returns every tool result. */
async function runOnce(s: Awaited<ReturnType<typeof setup>>) {
  const session = cleanups.closeLater(await s.runner.createSession());
  const { events, error } = await drain(session.run("go"));
  expect(error).toBeUndefined();
  return reports(events);
}

describeNeeding(osSandboxPrograms, "workspace() in the OS sandbox", () => {
  it(
    "writes under the root and the Session's temporary directory, and a write elsewhere is denied on that command's stderr",
    async () => {
      const outside = await extraDir("castellan-ws-outside-");
      const s = await setup([
        exec("echo inside > inside.txt && cat inside.txt"),
        exec(`echo out > ${outside}/escaped.txt`),
        exec(
          'case "$TMPDIR" in /tmp/castellan-sandbox-*) ;; *) exit 9;; esac; test -d "$TMPDIR" && echo t > "$TMPDIR/t" && cat "$TMPDIR/t"',
        ),
      ]);
      const [inside, escaped, tmp] = await runOnce(s);
      expect(inside?.report?.stdout.text).toBe("inside\n");
      expect(await readFile(join(s.root, "inside.txt"), "utf8")).toBe("inside\n");
      expect(escaped?.report?.exitCode).not.toBe(0);
      expect(escaped?.report?.stderr.text).toContain("<sandbox_violations>");
      expect(existsSync(join(outside, "escaped.txt"))).toBe(false);
      expect(tmp?.report).toMatchObject({ exitCode: 0, stdout: { text: "t\n" } });
    },
    slow,
  );

  it(
    "refuses writes to .git/hooks, .git/config, .castellan/ and settings files of the root and of a nested repository",
    async () => {
      const root = await realpath(temp.path);
      await run("git", ["init", "-q", root]);
      await run("git", ["init", "-q", join(root, "vendor", "lib")]);
      await mkdir(join(root, ".castellan"), { recursive: true });
      await writeTree(root, { "plain/keep.txt": "k" });
      const attempts = [
        "echo x > .git/hooks/pre-commit",
        "echo '[core]' >> .git/config",
        "echo x > .castellan/state.json",
        "mkdir -p .castellan-sessions/s",
        "echo x > vendor/lib/.git/hooks/post-checkout",
        "echo '[core]' >> vendor/lib/.git/config",
        "echo x > .bashrc",
        "echo '{}' > .mcp.json",
      ];
      const s = await setup([
        ...attempts.map((command) => exec(command)),
        exec("echo ok > plain/fine.txt && git status --short >/dev/null && echo git-ok"),
      ]);
      const results = await runOnce(s);
      for (const [index, command] of attempts.entries()) {
        expect({ command, exitCode: results[index]?.report?.exitCode }).not.toEqual({ command, exitCode: 0 });
      }
      expect(existsSync(join(root, ".git/hooks/pre-commit"))).toBe(false);
      expect(await readFile(join(root, ".git/config"), "utf8")).not.toMatch(/\[core\]\s*$/);
      expect(existsSync(join(root, ".castellan/state.json"))).toBe(false);
      expect(existsSync(join(root, "vendor/lib/.git/hooks/post-checkout"))).toBe(false);
      expect(existsSync(join(root, ".bashrc"))).toBe(false);
      expect(results.at(-1)?.report?.stdout.text).toBe("git-ok\n");
      expect(await readFile(join(root, "plain/fine.txt"), "utf8")).toBe("ok\n");
    },
    slow,
  );

  it(
    "refuses creating .git at a root that has none",
    async () => {
      const s = await setup([exec("git init -q . && echo created > .git/marker")]);
      const [result] = await runOnce(s);
      expect(result?.report?.exitCode).not.toBe(0);
      // Inside, the name is held by an empty read-only placeholder; the host's root has no .git.
      expect(existsSync(join(s.root, ".git"))).toBe(false);
    },
    slow,
  );

  it(
    "keeps ~/.ssh unreadable (a temporary HOME) and a workdir never widens writes",
    async () => {
      const home = await extraDir("castellan-ws-home-");
      await writeTree(home, { ".ssh/id_test": "secret-key\n", ".aws/credentials": "aws\n" });
      await writeTree(temp.path, { "sub/dir/.keep": "" });
      const outside = await extraDir("castellan-ws-outside-");
      const previous = process.env.HOME;
      process.env.HOME = home;
      try {
        const s = await setup([
          exec(`cat ${home}/.ssh/id_test; cat ${home}/.aws/credentials; echo exit=$?`),
          exec(`echo x > ../../escape.txt; echo y > ${outside}/escape.txt; echo z > here.txt`, { workdir: "sub/dir" }),
        ]);
        const [read, widened] = await runOnce(s);
        expect(read?.report?.stdout.text).not.toContain("secret-key");
        expect(read?.report?.stdout.text).not.toContain("aws");
        expect(await readFile(join(s.root, "sub/dir/here.txt"), "utf8")).toBe("z\n");
        // ../../ from sub/dir is the root itself: inside. The outside directory stays untouched.
        expect(existsSync(join(s.root, "escape.txt"))).toBe(true);
        expect(existsSync(join(outside, "escape.txt"))).toBe(false);
        expect(widened?.report?.stderr.text).toContain("<sandbox_violations>");
      } finally {
        process.env.HOME = previous;
      }
    },
    slow,
  );

  it(
    "passes the environment policy only: no *KEY*, *TOKEN* or CASTELLAN_* variable reaches a command; unshare -r fails",
    async () => {
      process.env.MY_API_KEY = "k";
      process.env.GITHUB_TOKEN = "t";
      process.env.CASTELLAN_X = "c";
      try {
        const s = await setup([exec("env | cut -d= -f1 | sort"), exec("unshare -r true; echo unshare=$?")], {
          commands: { ...fast, environment: { inherit: "all" } },
        });
        const [env, unshare] = await runOnce(s);
        const names = env?.report?.stdout.text.split("\n") ?? [];
        expect(names).toContain("PATH");
        for (const name of ["MY_API_KEY", "GITHUB_TOKEN", "CASTELLAN_X"]) expect(names).not.toContain(name);
        expect(unshare?.report?.stdout.text).not.toBe("unshare=0\n");
      } finally {
        delete process.env.MY_API_KEY;
        delete process.env.GITHUB_TOKEN;
        delete process.env.CASTELLAN_X;
      }
    },
    slow,
  );

  describe("network", () => {
    let server: Server | undefined;
    afterEach(async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = undefined;
    });
    async function loopbackServer(): Promise<number> {
      server = createServer((_request, response) => response.end("loopback-ok"));
      await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("no port");
      return address.port;
    }
    // Through the runtime's proxy (not NO_PROXY's direct path, which ends in the sandbox's own network).
    const fetch = (url: string) =>
      exec(`curl -sS -m 10 --noproxy '' -w ' status=%{http_code}' ${url}; echo " curl=$?"`);

    it(
      "reaches a loopback server as localhost when allowed, and the proxy refuses any other name before DNS",
      async () => {
        const port = await loopbackServer();
        const s = await setup([fetch(`http://localhost:${port}/`), fetch("http://blocked.invalid/")], {
          network: { allowedDomains: ["localhost"] },
        });
        const [allowed, blocked] = await runOnce(s);
        expect(allowed?.report?.stdout.text).toBe("loopback-ok status=200 curl=0\n");
        expect(blocked?.report?.stdout.text).toContain("status=403");
        expect(blocked?.report?.stderr.text).toContain("deny network-outbound blocked.invalid:80");

        const closed = await setup([fetch(`http://localhost:${port}/`)]);
        const [refused] = await runOnce(closed);
        expect(refused?.report?.stdout.text).toContain("status=403");
      },
      slow,
    );

    it(
      "keeps the proxies of two open Sessions apart: each one's requests reach its own proxy",
      async () => {
        const port = await loopbackServer();
        const s = await setup(
          [fetch(`http://localhost:${port}/`), { text: "A done" }, fetch(`http://localhost:${port}/`)],
          {
            network: { allowedDomains: ["localhost"] },
          },
        );
        // Both open before either runs: B's proxy starts while A's is serving.
        const sessionA = cleanups.closeLater(await s.runner.createSession());
        const sessionB = cleanups.closeLater(await s.runner.createSession());
        const a = reports((await drain(sessionA.run("A"))).events);
        const b = reports((await drain(sessionB.run("B"))).events);
        expect(a[0]?.report?.stdout.text).toBe("loopback-ok status=200 curl=0\n");
        expect(b[0]?.report?.stdout.text).toBe("loopback-ok status=200 curl=0\n");
      },
      slow,
    );

    it(
      "grants a requested host after approval for that Session only, and deniedDomains beats a grant",
      async () => {
        const port = await loopbackServer();
        const asked: ToolApprovalRequest[] = [];
        const request = (hosts: string[]): ScriptedStepSource => ({
          toolCalls: [{ name: "request_network_access", input: { hosts, reason: "fetch the fixture" } }],
        });
        const s = await setup(
          [
            fetch(`http://localhost:${port}/`),
            request(["localhost", "denied.invalid"]),
            fetch(`http://localhost:${port}/`),
            { text: "A done" },
            fetch(`http://localhost:${port}/`),
          ],
          { asked, network: { allowRequests: true, deniedDomains: ["denied.invalid"] } },
        );
        const sessionA = cleanups.closeLater(await s.runner.createSession());
        const a = reports((await drain(sessionA.run("A"))).events);
        expect(a[0]?.report?.stdout.text).toContain("status=403");
        expect(JSON.parse(a[1]?.text ?? "null") as RequestNetworkAccessResult).toEqual({
          granted: ["localhost"],
          alreadyAllowed: [],
          refused: [
            { host: "denied.invalid", reason: 'denied by the sandbox policy (deniedDomains "denied.invalid")' },
          ],
        });
        expect(a[2]?.report?.stdout.text).toBe("loopback-ok status=200 curl=0\n");
        expect(asked.filter((ask) => ask.toolName === "request_network_access")[0]?.admission).toEqual({
          hosts: ["localhost", "denied.invalid"],
          reason: "fetch the fixture",
        });
        const sessionB = cleanups.closeLater(await s.runner.createSession());
        const b = reports((await drain(sessionB.run("B"))).events);
        expect(b[0]?.report?.stdout.text).toContain("status=403");
      },
      slow,
    );
  });

  it(
    "gives two Sessions on one root their own workers: closing A leaves B's service running",
    async () => {
      const s = await setup(
        [
          exec("echo $$; exec sleep 60", { lifetime: "session" }),
          { text: "A started" },
          exec("echo $$; exec sleep 60", { lifetime: "session" }),
          { text: "B started" },
          exec("echo still-here"),
        ],
        { commands: { ...fast, initialYieldMs: 300 } },
      );
      const sessionA = await s.runner.createSession();
      const sessionB = cleanups.closeLater(await s.runner.createSession());
      await drain(sessionA.run("A"));
      await drain(sessionB.run("B"));
      const [serviceA] = s.capability.sessionCommands(sessionA.id);
      const [serviceB] = s.capability.sessionCommands(sessionB.id);
      expect(serviceA && serviceB).toBeTruthy();
      expect(serviceA?.commandId).not.toBe(serviceB?.commandId);
      await sessionA.close();
      expect(s.capability.sessionCommands(sessionA.id)).toEqual([]);
      expect(s.capability.sessionCommands(sessionB.id).map((command) => command.commandId)).toEqual([
        serviceB?.commandId,
      ]);
      const after = reports((await drain(sessionB.run("B again"))).events);
      expect(after[0]?.report?.stdout.text).toBe("still-here\n");
    },
    slow,
  );

  it(
    "fails the open with sandbox_unavailable in a host whose PATH has no bwrap, and never runs unsandboxed",
    async () => {
      const emptyPath = await extraDir("castellan-ws-path-");
      const index = pathToFileURL(fileURLToPath(new URL("../dist/index.js", import.meta.url))).href;
      const script = `
        import { defineAgent } from "@castellan/harness";
        import { scriptedModel } from "@castellan/models/testing";
        import { createNodeRunner, workspace } from ${JSON.stringify(index)};
        const agent = defineAgent("test.no-bwrap", { model: scriptedModel([]), capabilities: [workspace({ root: new URL(${JSON.stringify(pathToFileURL(`${temp.path}/`).href)}) })] });
        const runner = await createNodeRunner({ agent });
        try { await runner.createSession(); console.log("opened"); } catch (error) { console.log(JSON.stringify({ code: error.code, missing: error.missing })); }
        await runner.close();
      `;
      const entry = join(fileURLToPath(new URL(".", import.meta.url)), `.no-bwrap-${process.pid}.mjs`);
      await writeFile(entry, script);
      try {
        const { stdout } = await run(process.execPath, [entry], {
          env: { PATH: emptyPath, HOME: process.env.HOME ?? "/" },
        });
        expect(JSON.parse(stdout.trim())).toEqual({ code: "sandbox_unavailable", missing: ["bwrap", "socat", "rg"] });
      } finally {
        await rm(entry, { force: true });
      }
    },
    slow,
  );

  it(
    "fails the open with sandbox_worker_missing, naming the build command, when the compiled worker is absent",
    async () => {
      const packageDir = fileURLToPath(new URL("..", import.meta.url));
      const copy = await extraDir("castellan-ws-install-");
      await cp(join(packageDir, "dist"), join(copy, "node-runner", "dist"), { recursive: true });
      await cp(join(packageDir, "package.json"), join(copy, "node-runner", "package.json"));
      await rm(join(copy, "node-runner", "dist", "platform", "sandbox-worker", "worker.js"));
      await symlink(join(packageDir, "..", "..", "node_modules"), join(copy, "node_modules"));
      const script = `
        import { defineAgent } from "@castellan/harness";
        import { scriptedModel } from "@castellan/models/testing";
        import { createNodeRunner, workspace } from ${JSON.stringify(pathToFileURL(join(copy, "node-runner", "dist", "index.js")).href)};
        const agent = defineAgent("test.missing-worker", { model: scriptedModel([]), capabilities: [workspace({ root: new URL(${JSON.stringify(pathToFileURL(`${temp.path}/`).href)}) })] });
        const runner = await createNodeRunner({ agent });
        try { await runner.createSession(); console.log("opened"); } catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }
        await runner.close();
      `;
      const entry = join(copy, "node-runner", "probe.mjs");
      await mkdir(dirname(entry), { recursive: true });
      await writeFile(entry, script);
      const { stdout } = await run(process.execPath, [entry], { cwd: copy });
      const answer = JSON.parse(stdout.trim()) as { code: string; message: string };
      expect(answer.code).toBe("sandbox_worker_missing");
      expect(answer.message).toContain("npm run build");
      expect(answer.message).toContain(join("dist", "platform", "sandbox-worker", "worker.js"));
    },
    slow,
  );
});
