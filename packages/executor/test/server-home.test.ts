// Attack corpus, the server user's home: a job's commands read nothing of it, not even the
// tool paths a local workspace() re-admits by default (homeReads: "none"). The server runs with
// a fake HOME holding the credential files a job once read (~/.npmrc, ~/.git-credentials,
// ~/.config/gh/hosts.yml, ~/.docker/config.json) and a ~/.npm/_cacache entry; the scripted
// model's command probes each and writes what it saw into the checkout, which the job pushes.
// The job's own home stays usable.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { scriptedModel } from "@castellan/models/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { bareRepository, git, jobBody, send, settled, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-home-");
const planted = [
  ".npmrc",
  ".git-credentials",
  ".config/gh/hosts.yml",
  ".docker/config.json",
  ".kube/config",
  ".pypirc",
  ".npm/_cacache/index-v5/entry",
  "notes.txt",
];
let home: string;
let savedHome: string | undefined;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "castellan-server-home-")));
  for (const path of planted) {
    await mkdir(dirname(join(home, path)), { recursive: true });
    await writeFile(join(home, path), `SECRET ${path}\n`);
  }
  savedHome = process.env.HOME;
  process.env.HOME = home;
});

afterEach(async () => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(home, { recursive: true, force: true });
});

describeNeeding(osSandboxPrograms, "a job's commands and the server user's home", () => {
  it("read none of the server's home, tool paths included, while the job's own home works", async () => {
    const list = planted.map((path) => `'${path}'`).join(" ");
    const probe = `for f in ${list}; do if grep -q SECRET "${home}/$f" 2>/dev/null; then echo "read $f"; else echo "denied $f"; fi; done > home-probe.txt; echo own > "$HOME/own.txt" && cat "$HOME/own.txt" >> home-probe.txt`;
    const model = scriptedModel([
      { toolCalls: [{ name: "exec_command", input: { command: probe } }] },
      { text: "probed" },
    ]);
    const bare = await bareRepository(temp.path);
    const started = await startServer({ allowFileRemotes: true, modelFactory: () => model });
    cleanups.push(() => started.server.close());
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "home", repo: { url: `file://${bare}`, baseBranch: "main" } })),
    });
    const view = await settled(started.port, "home");
    expect(view.state).toBe("succeeded");
    const seen = await git(["--git-dir", bare, "show", "castellan/home:home-probe.txt"], temp.path);
    expect(seen).toBe(`${planted.map((path) => `denied ${path}`).join("\n")}\nown\n`);
  }, 180_000);
});
