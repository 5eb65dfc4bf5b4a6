// What the README's "Use it in your project" says, done: `npm run pack`'s code writes the
// tarballs, a new project outside the workspace installs three of them and zod, and the
// README's own first agent (its Zod tool and permission hook through openSession) is
// typechecked against the packed declarations and run there, twice, continuing one Session.
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packPackages } from "../../../scripts/pack.ts";
import { createPackedConsumer, exec, type PackedConsumer, workspaceRoot } from "../pack.ts";

/** The first fenced TypeScript block under the README's "## A first agent". */
async function readmeFirstAgent(): Promise<string> {
  const readme = await readFile(join(workspaceRoot, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## A first agent\n"));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block?.[1]) throw new Error('README.md has no TypeScript block under "## A first agent".');
  return block[1];
}

let packed: PackedConsumer;
let tarballs: string[];
const folder = join(tmpdir(), `castellan-packed-${process.pid}-${Date.now()}`);

beforeAll(async () => {
  tarballs = await packPackages(folder);
  const source = join(folder, "first-agent.ts");
  await writeFile(source, await readmeFirstAgent());
  packed = await createPackedConsumer([source], {
    packages: ["harness", "models", "node-runner"],
    packed: tarballs.filter((tarball) => /castellan-(harness|models|node-runner)-/.test(tarball)),
    dependencies: { zod: "4.6.7" },
  });
}, 300_000);

afterAll(async () => {
  await packed?.remove();
  await import("node:fs/promises").then(({ rm }) => rm(folder, { recursive: true, force: true }));
});

describe("Use it in your project", () => {
  it("packs every publishable package into one folder", () => {
    expect(tarballs.map((tarball) => tarball.slice(folder.length + 1))).toEqual([
      "castellan-harness-0.1.0.tgz",
      "castellan-models-0.1.0.tgz",
      "castellan-node-runner-0.1.0.tgz",
      "castellan-connectors-0.1.0.tgz",
      "castellan-executor-0.1.0.tgz",
      "castellan-0.1.0.tgz",
    ]);
  });

  it("typechecks the README's first agent against the packed declarations", async () => {
    const read = await packed.typecheck();
    expect(read.entries).toEqual(["first-agent.ts"]);
    expect(read.packages).toEqual(["harness", "models", "node-runner"]);
    expect(read.workspaceFiles).toEqual([]);
  });

  it("runs it with write_note offered to the model, and continues the saved Session on a second run", async () => {
    const first = await exec(process.execPath, ["first-agent.ts"], { cwd: packed.directory });
    // The offline model describes what it was sent: the tools offered and the conversation.
    expect(first.stdout).toContain("Tools: write_note");
    expect(first.stdout).not.toContain("Earlier in this conversation");
    const second = await exec(process.execPath, ["first-agent.ts"], { cwd: packed.directory });
    expect(second.stdout).toContain("Earlier in this conversation you said:\n- Note that the release is on Friday.");
  });
});
