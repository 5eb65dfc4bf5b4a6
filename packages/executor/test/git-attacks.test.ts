// Attack corpus, git over an agent-written checkout (issue: the trust boundary). The agent plants
// every config key that names a program, redirects a transport or reads more config, through its
// own tool calls on a scripted model: files through apply_workspace_patch / edit_workspace_file,
// pointers through sandboxed commands. Each placement git honours is tried: `.git/config`
// directly, a config reached through `.git/commondir`, one reached through `include.path` of the
// job home's global config, that home config itself, a nested repository, and object alternates
// that reach another job's objects. Each time a marker program (which would log its arguments
// and the server's token file) must never run, the token and the other job's objects stay
// unread and unpublished, and the job's result names what was refused.
//
// Each placement is also shown able to fail: the same plant on a host checkout, then the git the
// server used to run there (salvage, the no-edit probe's status, the push), and the marker runs.
import { execFile } from "node:child_process";
import { cpSync, existsSync } from "node:fs";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import type { ScriptedStep, ScriptedStepSource } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { createRedactor, type GitContext, prepareHooksPath, runGit, salvage } from "../src/index.js";
import { hostCheckoutGit } from "./checkout-git-support.ts";
import { runSampleJob } from "./sample-job.ts";
import { git, tempDirPerTest, testToken } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-git-attacks-");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const exec = (command: string): ScriptedStepSource => ({ toolCalls: [{ name: "exec_command", input: { command } }] });
const addFiles = (files: Readonly<Record<string, string>>): ScriptedStepSource => ({
  toolCalls: [
    {
      name: "apply_workspace_patch",
      input: {
        patch: [
          "*** Begin Patch",
          ...Object.entries(files).flatMap(([path, text]) => [
            `*** Add File: ${path}`,
            ...text
              .replace(/\n$/, "")
              .split("\n")
              .map((line) => `+${line}`),
          ]),
          "*** End Patch",
        ].join("\n"),
      },
    },
  ],
});

/** The marker program and what it would leave: its log, with the token file's text appended. */
interface Marker {
  readonly program: string;
  readonly log: string;
  readonly tokenFile: string;
}

async function makeMarker(base: string): Promise<Marker> {
  const program = join(base, "marker.sh");
  const log = join(base, "marker.log");
  const tokenFile = join(base, "token");
  await writeFile(tokenFile, `${testToken}\n`, { mode: 0o600 });
  await writeFile(program, `#!/bin/sh\n{ echo "ran: $*"; cat '${tokenFile}'; } >> '${log}' 2>/dev/null\nexit 0\n`);
  await chmod(program, 0o755);
  return { program, log, tokenFile };
}

/** Whether the marker ran, and what it logged. */
async function markerLog(marker: Marker): Promise<string | undefined> {
  return readFile(marker.log, "utf8").catch(() => undefined);
}

/** Every program-naming key the corpus plants, with the value each gets (`M` is the marker). */
function plantedConfig(marker: string, include?: string): string {
  const m = (what: string) => `${marker} ${what}`;
  return [
    "[core]",
    `\tfsmonitor = ${m("core.fsmonitor")}`,
    `\tsshCommand = ${m("core.sshCommand")}`,
    `\tpager = ${m("core.pager")}`,
    `\teditor = ${m("core.editor")}`,
    `\talternateRefsCommand = ${m("core.alternateRefsCommand")}`,
    "[diff]",
    `\texternal = ${m("diff.external")}`,
    '[diff "evil"]',
    `\ttextconv = ${m("diff.evil.textconv")}`,
    '[filter "evil"]',
    `\tclean = ${m("filter.evil.clean")}`,
    `\tsmudge = ${m("filter.evil.smudge")}`,
    `\tprocess = ${m("filter.evil.process")}`,
    '[merge "evil"]',
    `\tdriver = ${m("merge.evil.driver")}`,
    "[credential]",
    `\thelper = !${m("credential.helper")}`,
    "[uploadpack]",
    `\tpackObjectsHook = ${m("uploadpack.packObjectsHook")}`,
    "[gpg]",
    `\tprogram = ${m("gpg.program")}`,
    "[protocol]",
    "\tallow = always",
    '[url "file:///nonexistent-castellan-redirect/"]',
    "\tinsteadOf = file://",
    ...(include ? ["[include]", `\tpath = ${include}`] : []),
    "",
  ].join("\n");
}

/** The keys `git config --list` prints for {@link plantedConfig}. */
const plantedKeys = [
  "core.fsmonitor",
  "core.sshcommand",
  "core.pager",
  "core.editor",
  "core.alternaterefscommand",
  "diff.external",
  "diff.evil.textconv",
  "filter.evil.clean",
  "filter.evil.smudge",
  "filter.evil.process",
  "merge.evil.driver",
  "credential.helper",
  "uploadpack.packobjectshook",
  "gpg.program",
  "protocol.allow",
  "url.file:///nonexistent-castellan-redirect/.insteadof",
];

/** A tracked change the server's salvage will `git add`, with attributes naming the planted drivers. */
const salvageBait: Record<string, string> = {
  ".gitattributes": "* filter=evil diff=evil merge=evil\n",
  "notes.txt": "an uncommitted file for salvage\n",
};

/** One placement: files the file tools write, then sandboxed commands, then what the result must name. */
interface Placement {
  readonly name: string;
  readonly files: (marker: Marker) => Record<string, string>;
  readonly commands: (marker: Marker) => string[];
  /** Edits through edit_workspace_file after the commands: `expected` replaced once in `path`. */
  readonly edits?: (marker: Marker) => { path: string; expected: string; replacement: string }[];
  /** Commands after the edits. */
  readonly after?: string[];
  /** Keys (or git files: `commondir`, `alternates`) the result names. */
  readonly named: readonly string[];
}

const placements: readonly Placement[] = [
  {
    name: "in .git/config directly",
    files: () => ({ ...salvageBait }),
    // The sandbox refuses this write; were it allowed, the host would be the one to read it.
    commands: (marker) => [`printf '%s' '${plantedConfig(marker.program)}' >> .git/config || true`],
    named: [],
  },
  {
    name: "in a config reached through .git/commondir",
    files: () => ({ ...salvageBait }),
    commands: (marker) => [
      `cp -r .git "$HOME/common" && rm -rf "$HOME/common/hooks" && printf '%s' '${plantedConfig(marker.program)}' >> "$HOME/common/config" && printf '%s\\n' "$HOME/common" > .git/commondir`,
    ],
    named: [...plantedKeys, "commondir"],
  },
  {
    name: "in a file the job home's global config includes",
    files: (marker) => ({ ...salvageBait, "evil.cfg": plantedConfig(marker.program) }),
    commands: () => [`printf '[include]\\n\\tpath = %s/evil.cfg\\n' "$PWD" > "$HOME/.gitconfig"`],
    named: [...plantedKeys, "include.path"],
  },
  {
    name: "in a commondir config edited with edit_workspace_file",
    files: () => ({ ...salvageBait }),
    commands: () => ["cp -r .git evil-common && rm -rf evil-common/hooks"],
    edits: (marker) => [
      { path: "evil-common/config", expected: "[core]", replacement: plantedConfig(marker.program).trimEnd() },
    ],
    after: ["printf '%s\\n' \"$PWD/evil-common\" > .git/commondir"],
    named: [...plantedKeys, "commondir"],
  },
  {
    name: "in a nested repository",
    files: () => ({ "notes.txt": "an uncommitted file for salvage\n" }),
    commands: (marker) => [
      "git init -q vendor/lib && git -C vendor/lib -c user.name=a -c user.email=a@localhost commit -q --allow-empty -m nested && git add vendor/lib && git -c user.name=a -c user.email=a@localhost commit -qm 'a nested repository'",
      `printf '%s' '${plantedConfig(marker.program)}' >> vendor/lib/.git/config && printf '%s\\n' '* filter=evil' > vendor/lib/.gitattributes && echo changed > vendor/lib/file.txt`,
    ],
    named: plantedKeys,
  },
];

/** The plant of `placement` on a host checkout: files written, commands run by the host's shell. */
async function plantOnHost(checkout: string, home: string, placement: Placement, marker: Marker): Promise<void> {
  for (const [path, text] of Object.entries(placement.files(marker))) {
    await mkdir(dirname(join(checkout, path)), { recursive: true });
    await writeFile(join(checkout, path), text);
  }
  const shell = (command: string) =>
    promisify(execFile)("/bin/sh", ["-c", command], { cwd: checkout, env: { ...process.env, HOME: home } });
  for (const command of placement.commands(marker)) await shell(command);
  for (const edit of placement.edits?.(marker) ?? []) {
    const path = join(checkout, edit.path);
    await writeFile(path, (await readFile(path, "utf8")).replace(edit.expected, edit.replacement));
  }
  for (const command of placement.after ?? []) await shell(command);
}

/** The tool calls of `placement`'s plant, in order. */
function plantSteps(placement: Placement, marker: Marker): ScriptedStepSource[] {
  return [
    addFiles(placement.files(marker)),
    ...placement.commands(marker).map(exec),
    ...(placement.edits?.(marker) ?? []).map(
      (edit): ScriptedStepSource => ({ toolCalls: [{ name: "edit_workspace_file", input: edit }] }),
    ),
    ...(placement.after ?? []).map(exec),
  ];
}

describeNeeding(osSandboxPrograms, "git over an agent-written checkout never runs outside the sandbox", () => {
  for (const placement of placements) {
    it(`plants every program-naming key ${placement.name}: nothing runs, the token stays unread, the result names it`, async () => {
      const marker = await makeMarker(temp.path);
      const run = await runSampleJob({
        base: temp.path,
        steps: [...plantSteps(placement, marker), { text: "Planted." }],
        body: {},
        server: { env: { CASTELLAN_EXECUTOR_TOKEN_FILE: marker.tokenFile }, token: undefined },
        started: (server) => cleanups.push(() => server.close()),
      });
      expect(await markerLog(marker)).toBeUndefined();
      const outcome = run.view.state === "succeeded" ? run.view.result : run.view.error?.evidence;
      const named = new Set(((outcome?.refusedGitConfig ?? []) as { key: string }[]).map((entry) => entry.key));
      for (const key of placement.named) expect(named, `${key} in ${JSON.stringify(run.view)}`).toContain(key);
      // The server's own overrides (command-line scope) are never taken for the agent's.
      expect(JSON.stringify(outcome?.refusedGitConfig ?? [])).not.toContain("command line");
      expect(JSON.stringify(run.view)).not.toContain(testToken);
      // Whatever was pushed was made in the sandbox: the remote holds no marker output.
      const branches = await git(["--git-dir", run.bare, "branch", "--list", "castellan/*"], temp.path);
      if (branches.trim() !== "") {
        const tree = await git(["--git-dir", run.bare, "ls-tree", "-r", "--name-only", run.branch], temp.path);
        expect(tree).not.toContain("marker.log");
      }
    }, 180_000);
  }

  it("keeps another job's objects out of reach through alternates: nothing of them is read or published", async () => {
    const victim = join(temp.path, "victim.git");
    await git(["init", "-q", "--bare", victim], temp.path);
    const secretFile = join(temp.path, "victim-secret.txt");
    await writeFile(secretFile, "victim-secret-contents\n");
    const blob = (await git(["--git-dir", victim, "hash-object", "-w", secretFile], temp.path)).trim();
    let objects = "";
    const steps = (): ScriptedStepSource[] => [
      exec(
        `printf '%s\\n' '${objects}' > .git/objects/info/alternates; git update-index --add --info-only --cacheinfo 100644,${blob},stolen.txt && tree=$(git write-tree --missing-ok) && commit=$(git -c user.name=a -c user.email=a@localhost commit-tree "$tree" -p HEAD -m steal) && git update-ref HEAD "$commit"; true`,
      ),
      { text: "Borrowed." },
    ];
    const marker = await makeMarker(temp.path);
    const run = await runSampleJob({
      base: temp.path,
      steps: [0, 1].map((index) => () => steps()[index] as ScriptedStep),
      body: {},
      server: { env: { CASTELLAN_EXECUTOR_TOKEN_FILE: marker.tokenFile }, token: undefined },
      started: (server) => {
        cleanups.push(() => server.close());
        // The other job's objects live in the server's data directory, which no job may read.
        const other = join(server.options.dataDirectory, "jobs", "victim");
        cpSync(victim, other, { recursive: true });
        objects = join(other, "objects");
      },
    });
    expect(existsSync(join(objects, blob.slice(0, 2), blob.slice(2)))).toBe(true);
    const published = await git(["--git-dir", run.bare, "cat-file", "-e", blob], temp.path).then(
      () => true,
      () => false,
    );
    expect(published).toBe(false);
    const outcome = run.view.state === "succeeded" ? run.view.result : run.view.error?.evidence;
    const named = ((outcome?.refusedGitConfig ?? []) as { key: string }[]).map((entry) => entry.key);
    expect(named, JSON.stringify(run.view)).toContain("alternates");
  }, 180_000);
});

describe("each placement is able to fail: with git on the host, the marker runs", () => {
  async function hostCheckout(name: string) {
    const base = join(temp.path, name);
    await mkdir(base, { recursive: true });
    const bare = join(base, "origin.git");
    const seed = join(base, "seed");
    await git(["init", "-q", "--bare", bare], base);
    await git(["init", "-q", "-b", "main", seed], base);
    await writeFile(join(seed, "README.md"), "# app\n");
    await git(["add", "-A"], seed);
    await git(["-c", "user.name=a", "-c", "user.email=a@localhost", "commit", "-qm", "first"], seed);
    await git(["push", "-q", bare, "main"], seed);
    const checkout = join(base, "checkout");
    await git(["clone", "-q", bare, checkout], base);
    await git(["config", "user.name", "Castellan"], checkout);
    await git(["config", "user.email", "castellan@localhost"], checkout);
    const home = join(base, "home");
    await mkdir(home);
    const hooksPath = join(base, "hooks");
    await prepareHooksPath(hooksPath);
    // The server's old git: the job's home as HOME, only hooks and the credential helper overridden.
    const context: GitContext = {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
      hooksPath,
      redactor: createRedactor(),
      signal: new AbortController().signal,
    };
    return { base, bare, checkout, home, context };
  }

  for (const placement of placements) {
    it(`${placement.name}: the old host git runs the marker, which reads the token`, async () => {
      const { base, checkout, home, context } = await hostCheckout(placement.name.replace(/\W+/g, "-"));
      const marker = await makeMarker(base);
      await plantOnHost(checkout, home, placement, marker);
      const unsafe = hostCheckoutGit(checkout, context);
      await salvage(unsafe, "unsafe").catch(() => undefined);
      await unsafe.run(["status", "--porcelain"]).catch(() => undefined);
      const log = await markerLog(marker);
      expect(log).toContain("ran: ");
      expect(log).toContain(testToken);
      // And the scan names what the safe server would refuse.
      const named = new Set((await unsafe.refusedConfig()).map((entry) => entry.key));
      for (const key of placement.named) expect(named).toContain(key);
      await rm(base, { recursive: true, force: true });
    }, 60_000);
  }

  it("through alternates: the old host push publishes another job's object", async () => {
    const { base, bare, checkout, context } = await hostCheckout("alternates");
    const victim = join(base, "victim.git");
    await git(["init", "-q", "--bare", victim], base);
    const secretFile = join(base, "victim-secret.txt");
    await writeFile(secretFile, "victim-secret-contents\n");
    const blob = (await git(["--git-dir", victim, "hash-object", "-w", secretFile], base)).trim();
    await promisify(execFile)(
      "/bin/sh",
      [
        "-c",
        `printf '%s\\n' '${join(victim, "objects")}' > .git/objects/info/alternates && git update-index --add --cacheinfo 100644,${blob},stolen.txt && git commit -qm steal`,
      ],
      { cwd: checkout },
    );
    await runGit(["push", "--no-verify", "origin", "HEAD:refs/heads/stolen"], checkout, context);
    expect((await git(["--git-dir", bare, "cat-file", "-p", blob], base)).trim()).toBe("victim-secret-contents");
    const named = (await hostCheckoutGit(checkout, context).refusedConfig()).map((entry) => entry.key);
    expect(named).toContain("alternates");
  }, 60_000);
});
