// The bootstrap and blueprint routes end to end on real git, real bubblewrap and the real
// server over loopback. Bootstrap adapts a reference architecture (or starts from nothing) and
// force-pushes a history of one commit to the target's base branch, refusing an empty tree;
// blueprint commits only blueprints/ onto the work branch and names what else the agent
// changed. Each route's pass is told the environment inventory exactly once.
import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { ExecutorServer, ModelFactory } from "../src/index.js";
import { inventoryHeading } from "../src/inventory/environment-inventory.js";
import { buggyMath, command, fixedMath, patchMath, sampleRepository } from "./sample-project.ts";
import { bareRepository, git, jobBody, send, settled, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-bootstrap-");
const servers: ExecutorServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** An empty bare repository: the bootstrap's target. */
async function emptyBare(): Promise<string> {
  const directory = await mkdtemp(join(temp.path, "target-"));
  await git(["init", "--bare", "origin.git"], directory);
  return join(directory, "origin.git");
}

const addFile = (path: string, text: string): ScriptedStepSource => ({
  toolCalls: [
    {
      name: "apply_workspace_patch",
      input: { patch: `*** Begin Patch\n*** Add File: ${path}\n+${text}\n*** End Patch` },
    },
  ],
});

async function submit(route: string, steps: readonly ScriptedStepSource[], body: Record<string, unknown>) {
  const model = scriptedModel(steps);
  const factory: ModelFactory = () => model;
  const { server, port } = await startServer({ allowFileRemotes: true, modelFactory: factory });
  servers.push(server);
  const jobId = String(body.jobId);
  const posted = await send(port, "POST", route, { body: JSON.stringify(jobBody(body)) });
  expect(posted.status, posted.text).toBe(202);
  const view = await settled(port, jobId, 150_000);
  return { view, model };
}

const inventoryCount = (system: string | undefined) => (system ?? "").split(inventoryHeading).length - 1;

describeNeeding(osSandboxPrograms, "bootstrap and blueprint jobs", () => {
  it("bootstraps from a reference into one commit force-pushed to the target, without install output or sentinels", async () => {
    const reference = await sampleRepository(temp.path);
    const target = await bareRepository(temp.path);
    const before = (await git(["rev-parse", "main"], target)).trim();
    const steps = [
      addFile("ADAPTED.md", "adapted for the new service"),
      command('echo \'{"level":"small"}\' > .castellan-effort.json'),
      { text: "Adapted." },
    ];
    const { view, model } = await submit("/bootstrap", steps, {
      jobId: "boot-1",
      repo: { url: `file://${target}`, baseBranch: "main" },
      reference: { url: `file://${reference}`, branch: "main" },
      dependencyInstall: {
        command: "mkdir -p node_modules/dep && echo x > node_modules/dep/i.js && echo x > built.txt",
      },
    });
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    expect(view.kind ?? "bootstrap").toBe("bootstrap");
    expect(view.result).toMatchObject({ branch: "main", effort: { level: "small" } });
    const head = (await git(["rev-parse", "main"], target)).trim();
    expect(head).toBe(view.result.commit);
    expect(head).not.toBe(before);
    expect((await git(["rev-list", "--count", "main"], target)).trim()).toBe("1");
    const files = (await git(["ls-tree", "-r", "--name-only", "main"], target)).trim().split("\n").sort();
    expect(files).toEqual([".gitignore", "ADAPTED.md", "math.js", "math.test.js", "package.json"]);
    expect(inventoryCount(model.requests[0]?.system)).toBe(1);
  }, 180_000);

  it("bootstraps from an empty directory, and refuses an empty tree without pushing", async () => {
    const target = await emptyBare();
    const made = await submit("/bootstrap", [addFile("README.md", "# new service"), { text: "Made." }], {
      jobId: "boot-empty",
      repo: { url: `file://${target}`, baseBranch: "trunk" },
    });
    expect(made.view.state, JSON.stringify(made.view.error)).toBe("succeeded");
    expect(made.view.result.branch).toBe("trunk");
    expect((await git(["ls-tree", "-r", "--name-only", "trunk"], target)).trim()).toBe("README.md");
    const untouched = await emptyBare();
    const refused = await submit("/bootstrap", [{ text: "Nothing to do." }], {
      jobId: "boot-nothing",
      repo: { url: `file://${untouched}`, baseBranch: "main" },
    });
    expect(refused.view.state).toBe("failed");
    expect(refused.view.error.code).toBe("empty-tree");
    expect((await git(["for-each-ref"], untouched)).trim()).toBe("");
  }, 180_000);

  it("commits only blueprints/ onto the work branch, naming what else the agent changed", async () => {
    const bare = await sampleRepository(temp.path);
    const steps = [
      addFile("blueprints/overview.md", "# The sample: one module, one test"),
      patchMath(buggyMath, fixedMath),
      command("git add -A && git commit -qm 'Agent work'"),
      { text: "Mapped." },
    ];
    const { view, model } = await submit("/blueprint", steps, {
      jobId: "map-1",
      repo: { url: `file://${bare}`, baseBranch: "main" },
    });
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    expect(view.result).toMatchObject({ branch: "castellan/map-1", ignoredChanges: ["math.js"] });
    expect(view.result.tree).toEqual([
      { path: "blueprints/overview.md", sha: expect.stringMatching(/^[0-9a-f]{40}$/), bytes: 35 },
    ]);
    expect((await git(["rev-parse", "castellan/map-1"], bare)).trim()).toBe(view.result.commit);
    expect((await git(["diff", "--name-only", "main", "castellan/map-1"], bare)).trim()).toBe("blueprints/overview.md");
    expect((await git(["log", "--format=%s", "main..castellan/map-1"], bare)).trim()).toMatch(/^castellan blueprint:/);
    expect(inventoryCount(model.requests[0]?.system)).toBe(1);
  }, 180_000);
});
