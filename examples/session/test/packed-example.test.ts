// The example as a consumer gets it: the packages are packed with `npm pack`, only those
// tarballs are installed into a project outside the workspace, the example is typechecked
// there, and it runs as two separate OS processes that continue one Session.
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const exec = promisify(execFile);
const root = fileURLToPath(new URL("../../../", import.meta.url));
const example = fileURLToPath(new URL("../chat.ts", import.meta.url));
const packages = ["harness", "models", "node-runner"];
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let work: string;
let consumer: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "castellan-consumer-"));
  const tarballs = join(work, "tarballs");
  consumer = join(work, "consumer");
  await mkdir(tarballs);
  await mkdir(consumer);
  await exec(
    npm,
    [
      "pack",
      "--silent",
      ...packages.flatMap((name) => ["--workspace", `packages/${name}`]),
      "--pack-destination",
      tarballs,
    ],
    {
      cwd: root,
    },
  );
  const packed = await readdir(tarballs);
  const dependencies: Record<string, string> = {};
  for (const name of packages) {
    const file = packed.find((entry) => entry.startsWith(`castellan-${name}-`) && entry.endsWith(".tgz"));
    if (!file) throw new Error(`npm pack produced no tarball for ${name}: ${packed.join(", ")}`);
    dependencies[`@castellan/${name}`] = `file:../tarballs/${file}`;
  }
  await writeFile(
    join(consumer, "package.json"),
    JSON.stringify({
      name: "consumer",
      private: true,
      type: "module",
      dependencies,
      devDependencies: { "@types/node": "24.19.4" },
    }),
  );
  await writeFile(
    join(consumer, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2023",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
      },
      include: ["*.ts"],
    }),
  );
  await copyFile(example, join(consumer, "chat.ts"));
  // Offline: everything the tarballs depend on is in npm's cache after `npm ci` here; no registry is contacted.
  await exec(npm, ["install", "--offline", "--no-audit", "--no-fund", "--silent"], { cwd: consumer });
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the packed session example", () => {
  it("installs only the tarballs, outside the workspace", async () => {
    const installed = await readdir(join(consumer, "node_modules", "@castellan"));
    expect(installed.sort()).toEqual(["harness", "models", "node-runner"]);
    const { stdout } = await exec(
      process.execPath,
      ["--input-type=module", "-e", "console.log(import.meta.resolve('@castellan/node-runner'))"],
      { cwd: consumer },
    );
    expect(fileURLToPath(stdout.trim()).startsWith(join(consumer, "node_modules"))).toBe(true);
  });

  it("exposes every published subpath", async () => {
    const script = [
      "const h = await import('@castellan/harness');",
      "const ht = await import('@castellan/harness/testing');",
      "const mt = await import('@castellan/models/testing');",
      "const mo = await import('@castellan/models/offline');",
      "const r = await import('@castellan/node-runner');",
      "console.log([typeof h.defineAgent, typeof ht.projectAgent, typeof mt.scriptedModel, typeof mo.offline, typeof r.openSession, typeof r.createFileSessionStore, typeof r.terminalApproval].join(','));",
    ].join("\n");
    const { stdout } = await exec(process.execPath, ["--input-type=module", "-e", script], { cwd: consumer });
    expect(stdout.trim()).toBe(Array(7).fill("function").join(","));
  });

  it("typechecks against the packed type declarations", async () => {
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    await exec(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: consumer });
  });

  it("continues one Session across two processes", async () => {
    const env = { ...process.env, SESSION_DIRECTORY: join(consumer, "sessions"), SESSION_ID: "packed" };
    const first = await exec(process.execPath, ["chat.ts", "Remember our project is Cedar."], { cwd: consumer, env });
    expect(first.stdout).toContain("1 message(s), 1 from you");
    const second = await exec(process.execPath, ["chat.ts", "What is our project called?"], { cwd: consumer, env });
    expect(second.stdout).toContain("3 message(s), 2 from you");
    expect(second.stdout).toContain("- Remember our project is Cedar.");
    expect(second.stdout).toContain("Latest user message: What is our project called?");
  });
});
