// The example as a consumer gets it, shared by its packed tests: the three packages packed and
// installed from their tarballs with the example's own pinned dependency (server-filesystem) at
// the workspace lockfile's version, into a project outside the workspace, with the example's
// entries, sample project and skills copied in.
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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
