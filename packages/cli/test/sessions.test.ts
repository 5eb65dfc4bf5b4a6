// `castellan sessions` lists the saved Sessions of the current directory (all with --all),
// newest first, from the store's catalog: it never locks or changes one, so a Session a live
// process holds shows as running. The bin answers --help and --version, and exits 2 on a bad
// command line.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { defineAgent, defineTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { createFileSessionStore, type NodeRunnerPlugin, openSession } from "@castellan/node-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { castellanHome, runCli, type SessionRow, sessionsDirectory, workspaceUrl } from "../src/index.js";

let root: string;
let home: string;
let project: string;
let other: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-cli-"));
  home = join(root, "home");
  project = join(root, "project");
  other = join(root, "other");
  await Promise.all([mkdir(project), mkdir(other)]);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs `castellan` in-process in `cwd` with this test's home; answers the exit code and what it printed. */
async function castellan(argv: string[], cwd = project) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env: { CASTELLAN_HOME: home },
    cwd,
    stdin: (async function* () {})(),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

const store = () => createFileSessionStore({ directory: sessionsDirectory(home) });

/** Saves a Session `id` in `directory` with one Run per input. */
async function save(id: string, directory: string, inputs: string[]) {
  const model = scriptedModel(inputs.map((input) => ({ text: `done: ${input}` })));
  const session = await openSession({
    agent: defineAgent("castellan.cli", { model }),
    id,
    store: store(),
    params: { workspace: workspaceUrl(directory) },
  });
  for (const input of inputs) await session.run(input).result;
  await session.close();
}

describe("castellan sessions", () => {
  it("lists this directory's Sessions newest first, as a table and as JSON", async () => {
    await save("first", project, ["fix the\nfailing test in parser.ts, then run the whole suite again please"]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await save("second", project, ["one", "two"]);
    await save("elsewhere", other, ["not here"]);

    const json = await castellan(["sessions", "--json"]);
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as SessionRow[];
    expect(rows.map((row) => [row.sessionId, row.runs, row.lastRunStatus, row.pendingApprovals])).toEqual([
      ["second", 2, "completed", 0],
      ["first", 1, "completed", 0],
    ]);
    expect(rows[1]?.firstInput).toBe("fix the failing test in parser.ts, then run the whole suite");
    expect(rows[1]?.workspace).toBe(workspaceUrl(project));

    const table = await castellan(["sessions"]);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^id\s+updated\s+runs\s+last run\s+approvals\s+first input$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(["second", "first"]);

    const all = JSON.parse((await castellan(["sessions", "--all", "--json"])).stdout) as SessionRow[];
    expect(all.map((row) => row.sessionId).sort()).toEqual(["elsewhere", "first", "second"]);
    expect((await castellan(["sessions", "--all"])).stdout).toContain(other);
    expect(JSON.parse((await castellan(["sessions", "--all", "--json", "--limit", "1"])).stdout)).toHaveLength(1);
    expect((await castellan(["sessions"], join(root))).stdout).toBe("No saved Sessions in this directory.\n");
  });

  it("shows a held Session as running with its pending approval, and changes nothing", async () => {
    const write = defineTool({ name: "write_file", description: "Write", execute: () => "written" });
    let resolveAsked: () => void = () => {};
    const asked = new Promise<void>((resolve) => {
      resolveAsked = resolve;
    });
    // An approver that never answers: the call stays pending until the Run is aborted.
    const waiting: NodeRunnerPlugin = {
      name: "test.waiting-approval",
      apply: (host) =>
        host.registerApproval({
          request: (_request, { signal }) => {
            resolveAsked();
            return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
          },
        }),
    };
    const model = scriptedModel([{ toolCalls: [{ name: "write_file", input: {} }] }, { text: "done" }]);
    const session = await openSession({
      agent: defineAgent("castellan.cli", { model, tools: [write] }),
      id: "held",
      store: store(),
      params: { workspace: workspaceUrl(project) },
      approval: waiting,
    });
    const controller = new AbortController();
    const run = session.run("write it", { signal: controller.signal });
    await asked;
    const before = await readFile(join(sessionsDirectory(home), "held.jsonl"));
    const [row] = JSON.parse((await castellan(["sessions", "--json"])).stdout) as SessionRow[];
    expect(row).toMatchObject({ sessionId: "held", runs: 1, lastRunStatus: "running", pendingApprovals: 1 });
    expect(await readFile(join(sessionsDirectory(home), "held.jsonl"))).toEqual(before);
    controller.abort();
    await run.result.catch(() => undefined);
    await session.close();
    const [after] = JSON.parse((await castellan(["sessions", "--json"])).stdout) as SessionRow[];
    expect(after?.lastRunStatus).toBe("aborted");
    expect((await readdir(sessionsDirectory(home))).filter((name) => name.endsWith(".lock"))).toEqual([]);
  });

  it("exits 2 with the usage on a bad command line", async () => {
    for (const argv of [["sessions", "--limit", "0"], ["sessions", "--bogus"], ["nothing"], [], ["sessions", "x"]]) {
      const result = await castellan(argv);
      expect(result.code, argv.join(" ")).toBe(2);
      expect(result.stderr).toContain("castellan sessions [--all] [--json] [--limit N]");
      expect(result.stdout).toBe("");
    }
  });

  it("keeps its state in CASTELLAN_HOME, else ~/.castellan", () => {
    expect(castellanHome({ CASTELLAN_HOME: "/x/y" })).toBe("/x/y");
    expect(castellanHome({})).toMatch(/\/\.castellan$/);
  });
});

describe("the castellan bin", () => {
  const run = promisify(execFile);
  const bin = fileURLToPath(new URL("../dist/bin/castellan.js", import.meta.url));
  const manifest = fileURLToPath(new URL("../package.json", import.meta.url));

  it("prints --version and --help on stdout and exits 0, and exits 2 on a bad command line", async () => {
    const { version } = JSON.parse(await readFile(manifest, "utf8")) as { version: string };
    expect((await run(process.execPath, [bin, "--version"])).stdout).toBe(`castellan ${version}\n`);
    expect((await run(process.execPath, [bin, "--help"])).stdout).toContain("castellan sessions");
    const failed = await run(process.execPath, [bin, "frobnicate"]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain('unknown command "frobnicate"');
  });
});
