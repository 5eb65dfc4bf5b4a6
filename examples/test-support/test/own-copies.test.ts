// A consumer with its own copy of openai or @anthropic-ai/sdk at a compatible version gets no second
// copy. Only the locked versions are in npm's cache, so the consumer's copies are local stand-ins at
// versions the locked ones are not (openai 7.99.0, @anthropic-ai/sdk 1.99.0), packed here with `npm pack`.
// With an exact pin in @castellan/models, npm finds the consumer's copy does not satisfy it and
// would fetch a second copy, which the offline install cannot: this suite then fails in beforeAll.
import { access, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npm } from "../offline-install.ts";
import { createPackedConsumer, exec, type PackedConsumer } from "../pack.ts";

const standIns = [
  { name: "openai", version: "7.99.0" },
  { name: "@anthropic-ai/sdk", version: "1.99.0" },
];
let work: string | undefined;
let packed: PackedConsumer | undefined;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "castellan-own-copies-"));
  const tarballs: string[] = [];
  for (const { name, version } of standIns) {
    const source = join(work, name.replace("/", "-"));
    await mkdir(source);
    await writeFile(
      join(source, "package.json"),
      JSON.stringify({ name, version, description: "A local stand-in for a consumer's own copy", main: "index.js" }),
    );
    await writeFile(join(source, "index.js"), "module.exports = { standIn: true };\n");
    const { stdout } = await exec(npm, ["pack", "--silent", "--pack-destination", work], { cwd: source });
    tarballs.push(join(work, stdout.trim()));
  }
  packed = await createPackedConsumer([], { packages: ["harness", "models"], ownTarballs: tarballs });
}, 120_000);

afterAll(async () => {
  await packed?.remove();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Whether `path` exists. */
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

interface ListedPackage {
  readonly version?: string;
  readonly invalid?: string;
  readonly missing?: boolean;
  readonly dependencies?: Readonly<Record<string, ListedPackage>>;
}

/** Every `name@version` in an `npm ls --all --json` tree, once per place it appears. */
function* listed(dependencies: Readonly<Record<string, ListedPackage>> = {}): Generator<[string, ListedPackage]> {
  for (const [name, entry] of Object.entries(dependencies)) {
    yield [name, entry];
    yield* listed(entry.dependencies);
  }
}

describe("a consumer with its own compatible openai and @anthropic-ai/sdk", () => {
  it("gets no second copy from @castellan/models", async () => {
    const consumer = packed!.directory;
    const { stdout } = await exec(npm, ["ls", "--all", "--json"], { cwd: consumer });
    const tree = JSON.parse(stdout) as ListedPackage & { problems?: string[] };
    expect(tree.problems).toBeUndefined();
    const entries = [...listed(tree.dependencies)];
    expect(entries.filter(([, entry]) => entry.invalid !== undefined || entry.missing)).toEqual([]);
    for (const { name, version } of standIns) {
      // Listed at the top and deduplicated under @castellan/models: one version only, the consumer's.
      expect(new Set(entries.filter(([listedName]) => listedName === name).map(([, entry]) => entry.version))).toEqual(
        new Set([version]),
      );
      expect(tree.dependencies?.[name]?.version).toBe(version);
      expect(await exists(join(consumer, "node_modules", "@castellan", "models", "node_modules", name))).toBe(false);
    }
  });
});
