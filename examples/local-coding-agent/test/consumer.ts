// The example as a consumer gets it, shared by its packed tests: the three packages packed and
// installed from their tarballs with the example's own pinned dependency (server-filesystem) at
// the workspace lockfile's version, into a project outside the workspace, with the example's
// entries, sample project and skills copied in.
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runningUnderCi } from "../../../test-support/shared-conformance.ts";
import { createPackedConsumer, type PackedConsumer } from "../../test-support/pack.ts";

/** The example's folder. */
export const exampleDirectory = fileURLToPath(new URL("../", import.meta.url));

/** The example's entries, each typechecked in the consumer. */
export const exampleEntries = ["agent.ts", "mock-model.ts", "run.ts", "openai-agent.ts", "openai.ts"] as const;

/** The example's pinned dependencies besides the `@castellan/*` packages. */
export async function examplePinnedDependencies(): Promise<Record<string, string>> {
  const manifest = JSON.parse(await readFile(join(exampleDirectory, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  return Object.fromEntries(Object.entries(manifest.dependencies).filter(([name]) => !name.startsWith("@castellan/")));
}

/** Packs and installs the example's consumer (entries that do not exist yet are left out). */
export async function createExampleConsumer(): Promise<PackedConsumer> {
  const entries = exampleEntries.map((name) => join(exampleDirectory, name)).filter((path) => existsSync(path));
  return await createPackedConsumer(entries, {
    dependencies: await examplePinnedDependencies(),
    directories: [join(exampleDirectory, "sample-project"), join(exampleDirectory, "skills")],
  });
}

/** A fresh copy of the sample project outside the consumer, and how to remove it. */
export async function sampleCopy(): Promise<{ readonly directory: string; remove(): Promise<void> }> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "castellan-sample-")));
  const directory = join(base, "sample-project");
  await cp(join(exampleDirectory, "sample-project"), directory, { recursive: true });
  return { directory, remove: () => rm(base, { recursive: true, force: true }) };
}

/** The Debian packages the OS sandbox needs, by the executable each provides. */
const sandboxPackages = { bwrap: "bubblewrap", socat: "socat", rg: "ripgrep" } as const;

function onPath(executable: string): boolean {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .some((folder) => folder !== "" && existsSync(join(folder, executable)));
}

/**
 * Whether the OS sandbox can run here. Where a package is missing, the sandboxed checks are
 * skipped with `skipNote` naming it; under CI a missing package fails the file instead.
 */
export function osSandbox(): { readonly available: boolean; readonly skipNote: string } {
  const missing = Object.entries(sandboxPackages)
    .filter(([executable]) => !onPath(executable))
    .map(([, name]) => name);
  if (missing.length > 0 && runningUnderCi()) {
    throw new Error(`The OS sandbox checks are required under CI, but ${missing.join(", ")} is not installed.`);
  }
  return {
    available: missing.length === 0,
    skipNote: missing.length === 0 ? "" : ` — SKIPPED: the OS sandbox needs ${missing.join(", ")} (required under CI)`,
  };
}

/** One saved record of a Session log, as the tests read it. */
export interface Logged {
  readonly kind: string;
  readonly [field: string]: unknown;
}

/** The records of the example's Session log in `directory` (a history directory). */
export async function sessionRecords(directory: string, sessionId = "local-coding-agent"): Promise<Logged[]> {
  const text = await readFile(join(directory, `${encodeURIComponent(sessionId)}.jsonl`), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line).record as Logged);
}

/** The text of a `tool-end` record's result. */
export function resultText(record: Logged): string {
  const result = record.result as { content: { type: string; text?: string }[] };
  return result.content.map((block) => block.text ?? "").join("");
}
