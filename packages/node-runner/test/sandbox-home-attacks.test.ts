// Attack corpus, credentials in the home directory: a fake HOME holds the files a job once read
// through its sandbox (~/.npmrc, ~/.git-credentials, ~/.config/gh/hosts.yml,
// ~/.docker/config.json) and the other usual ones, and a real sandboxed command, called by the
// scripted model through exec_command, tries to read each. Under an OS workspace() every one is
// refused; the default tool paths stay readable; an exact allowRead entry re-admits one; a
// broader one re-admits no credential; homeReads: "none" leaves nothing; a root inside HOME
// keeps working. The same command against a policy without the home deny (the deliberately
// unsafe configuration) reads them all, so the probe is shown able to detect a leak.
// Skipped, saying so in the suite's name, where bwrap is absent; under CI a missing bwrap fails.
import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent, hostTool, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { createSandboxRuntimeCommandSessionPlugin } from "../src/capabilities/commands/index.js";
import type { CommandSessionReport } from "../src/capabilities/commands/session/index.js";
import { createNodeRunner, defaultHomeReadPaths, type WorkspaceOptions, workspace } from "../src/index.js";
import { cleanupAfterEach, drain, extraTempDirs, textOf } from "./support/index.ts";

const cleanups = cleanupAfterEach();
const extraDir = extraTempDirs();
const slow = 60_000;
const fast = { initialYieldMs: 10_000, executionTimeoutMs: 20_000, killGraceMs: 200 } as const;

/** Each planted credential file, relative to HOME. */
const credentials = [
  ".npmrc",
  ".git-credentials",
  ".config/gh/hosts.yml",
  ".docker/config.json",
  ".kube/config",
  ".config/gcloud/application_default_credentials.json",
  ".azure/msal_token_cache.json",
  ".pypirc",
  ".cargo/credentials.toml",
  ".ssh/id_ed25519",
  ".aws/credentials",
  ".netrc",
  // Not a known credential, just something of the user's: the home is denied as a whole.
  "notes/private.txt",
];
/** A file under a default tool path, which commands may read. */
const toolFile = ".npm/_cacache/index-v5/entry";

let home: string;
let savedHome: string | undefined;

beforeEach(async () => {
  home = await extraDir("castellan-fake-home-");
  for (const path of [...credentials, toolFile]) {
    await mkdir(dirname(join(home, path)), { recursive: true });
    await writeFile(join(home, path), `SECRET ${path}\n`);
  }
  // `~` in the options and the policy's home are the host's HOME, read when the workspace is made and opened.
  savedHome = process.env.HOME;
  process.env.HOME = home;
});

afterEach(() => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
});

/** One shell command printing `read <path>` or `denied <path>` for each planted file. */
function probe(paths: readonly string[]): string {
  const list = paths.map((path) => `'${path}'`).join(" ");
  return `for f in ${list}; do if grep -q SECRET "${home}/$f" 2>/dev/null; then echo "read $f"; else echo "denied $f"; fi; done`;
}

/** What the probe saw: the planted paths it read. */
function readPaths(events: readonly RunEvent[]): string[] {
  const end = events.find((event) => event.kind === "tool-end");
  if (end?.kind !== "tool-end") throw new Error("the probe did not run");
  expect(end.result.isError, textOf(end.result)).toBe(false);
  const report = JSON.parse(textOf(end.result)) as CommandSessionReport;
  expect(report.exitCode, textOf(end.result)).toBe(0);
  return report.stdout.text
    .split("\n")
    .filter((line) => line.startsWith("read "))
    .map((line) => line.slice("read ".length));
}

/** Runs the probe through the model's exec_command in an OS workspace() rooted at `root`. */
async function probeWorkspace(
  paths: readonly string[],
  options: Partial<WorkspaceOptions> & { root?: string; afterProbe?: string } = {},
): Promise<string[]> {
  const root = options.root ?? (await extraDir("castellan-home-root-"));
  const { afterProbe, root: _root, ...workspaceOptions } = options;
  const capability = workspace({ commands: fast, ...workspaceOptions, root: pathToFileURL(`${root}/`) });
  const command = afterProbe === undefined ? probe(paths) : `${probe(paths)} && ${afterProbe}`;
  const model = scriptedModel([{ toolCalls: [{ name: "exec_command", input: { command } }] }, { text: "done" }]);
  const runner = await createNodeRunner({
    agent: defineAgent("test.home-attacks", { model, capabilities: [capability] }),
    permissions: "full-access",
  });
  cleanups.push(() => runner.close());
  const session = cleanups.closeLater(await runner.createSession());
  const { events, error } = await drain(session.run("read the home directory"));
  expect(error).toBeUndefined();
  return readPaths(events);
}

describeNeeding(osSandboxPrograms, "the sandbox's home directory is deny-by-default", () => {
  it(
    "refuses every planted credential file to a command of an OS workspace; the default tool paths stay readable",
    async () => {
      expect(await probeWorkspace([...credentials, toolFile])).toEqual([toolFile]);
    },
    slow,
  );

  it(
    "re-admits a file named exactly in filesystem.allowRead, and only it",
    async () => {
      const read = await probeWorkspace(credentials, { filesystem: { allowRead: ["~/.npmrc", "~/notes"] } });
      expect(read.sort()).toEqual([".npmrc", "notes/private.txt"]);
    },
    slow,
  );

  it(
    "re-admits no credential through a broader allowRead (~ or ~/.config): those need their exact path",
    async () => {
      const read = await probeWorkspace(credentials, { filesystem: { allowRead: ["~", "~/.config"] } });
      expect(read).toEqual(["notes/private.txt"]);
    },
    slow,
  );

  it(
    'with homeReads: "none" (as a job server sets), not even the tool paths are readable',
    async () => {
      expect(await probeWorkspace([...credentials, toolFile], { homeReads: "none" })).toEqual([]);
    },
    slow,
  );

  it(
    "keeps a root inside HOME readable and writable while the rest of HOME stays denied",
    async () => {
      const root = join(home, "project");
      await mkdir(root);
      await writeFile(join(root, "SECRET-free.txt"), "SECRET in the workspace\n");
      const read = await probeWorkspace([...credentials, "project/SECRET-free.txt"], {
        root,
        afterProbe: `echo written > ${root}/new.txt`,
      });
      expect(read).toEqual(["project/SECRET-free.txt"]);
      expect(await readFile(join(root, "new.txt"), "utf8")).toBe("written\n");
    },
    slow,
  );

  it(
    "is able to fail: a policy without the home deny lets the same command read every planted file",
    async () => {
      const root = await realpath(await extraDir("castellan-home-unsafe-"));
      const plugin = createSandboxRuntimeCommandSessionPlugin({
        sandbox: {
          specifier: "castellan.test-unsafe-home",
          config: { network: { allowedDomains: [], deniedDomains: [] }, filesystem: { allowWrite: [root] } },
        },
        command: { workingDirectory: pathToFileURL(`${root}/`), environment: { inherit: "core" }, ...fast },
      });
      const model = scriptedModel([
        { toolCalls: [{ name: "exec_command", input: { command: probe(credentials) } }] },
        { text: "done" },
      ]);
      const runner = await createNodeRunner({
        agent: defineAgent("test.home-unsafe", {
          model,
          tools: [hostTool("exec_command"), hostTool("command_session")],
          sandbox: "castellan.test-unsafe-home",
        }),
        permissions: "full-access",
        plugins: [plugin],
      });
      cleanups.push(() => runner.close());
      const session = cleanups.closeLater(await runner.createSession());
      const { events, error } = await drain(session.run("read the home directory"));
      expect(error).toBeUndefined();
      expect(readPaths(events).sort()).toEqual([...credentials].sort());
    },
    slow,
  );

  it("lists the default tool paths, none of them a credential path", () => {
    expect(defaultHomeReadPaths).toContain("~/.npm/_cacache");
    expect(defaultHomeReadPaths).not.toContain("~/.gitconfig");
    for (const path of defaultHomeReadPaths) {
      expect(credentials.some((credential) => `~/${credential}`.startsWith(path))).toBe(false);
    }
  });
});
