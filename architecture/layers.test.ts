// The layer map is checked, not promised: dependency-cruiser applies .dependency-cruiser.cjs to
// every package's shipped sources, and nothing may violate it.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeViolation, findLayerViolations } from "./check-layers.ts";

describe("the packages' layers", () => {
  it("hold no folder cycle, no import against the layer order and no reach into a capability's internals", async () => {
    const found = (await findLayerViolations()).map(describeViolation);
    expect(found, "violations of the layer map in .dependency-cruiser.cjs").toEqual([]);
  }, 120_000);
});

describe("the layer rules", () => {
  let base: string;
  const files: Record<string, string> = {
    "packages/node-runner/src/index.ts": 'export * from "./capabilities/d/index.js";\n',
    // kernel → platform: against the layer order.
    "packages/node-runner/src/kernel/low/low.ts": 'import { p } from "../../platform/p/p.js";\nexport const low = p;\n',
    // platform → capability: against the layer order.
    "packages/node-runner/src/platform/p/p.ts":
      'import { deep } from "../../capabilities/c/deep.js";\nexport const p = deep;\n',
    "packages/node-runner/src/capabilities/c/deep.ts": "export const deep = 1;\n",
    "packages/node-runner/src/capabilities/c/index.ts": 'export { deep } from "./deep.js";\n',
    // capability → another capability's internals, and the allowed way through its index.
    "packages/node-runner/src/capabilities/d/inside.ts":
      'import { deep } from "../c/deep.js";\nexport const d = deep;\n',
    "packages/node-runner/src/capabilities/d/allowed.ts":
      'import { deep } from "../c/index.js";\nexport const e = deep;\n',
    "packages/node-runner/src/capabilities/d/index.ts":
      'export { d } from "./inside.js";\nexport { e } from "./allowed.js";\n',
    // Two kernel folders importing each other.
    "packages/node-runner/src/kernel/m/m.ts": 'import { n } from "../n/n.js";\nexport const m = () => n;\n',
    "packages/node-runner/src/kernel/n/n.ts": 'import { m } from "../m/m.js";\nexport const n = () => m;\n',
    // A module inside a package importing its root.
    "packages/other/src/inner/uses-root.ts": 'import { root } from "../index.js";\nexport const r = root;\n',
    "packages/other/src/index.ts": "export const root = 1;\n",
  };

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "castellan-layers-"));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(base, path)), { recursive: true });
      await writeFile(join(base, path), text);
    }
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("find each kind of violation, and nothing in the allowed import", async () => {
    const found = (await findLayerViolations({ baseDir: base })).map(describeViolation).sort();
    const src = "packages/node-runner/src";
    expect(found).toEqual(
      [
        `capability-internals: ${src}/capabilities/d/inside.ts → ${src}/capabilities/c/deep.ts`,
        `kernel-imports-upward: ${src}/kernel/low/low.ts → ${src}/platform/p/p.ts`,
        `no-folder-cycle: ${src}/kernel/m → ${src}/kernel/n`,
        `no-folder-cycle: ${src}/kernel/n → ${src}/kernel/m`,
        "package-root-from-inside: packages/other/src/inner/uses-root.ts → packages/other/src/index.ts",
        `platform-imports-capability: ${src}/platform/p/p.ts → ${src}/capabilities/c/deep.ts`,
      ].sort(),
    );
  }, 60_000);
});
