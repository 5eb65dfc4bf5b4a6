// The packed consumer's lockfile, built from a small workspace lockfile: which entries are copied, to
// which paths, and what is rewritten on the way.
import { describe, expect, it } from "vitest";
import { consumerLockfile, type LocalTarball, type Lockfile } from "../consumer-lockfile.ts";

const integrity = (name: string) => `sha512-${Buffer.from(name).toString("base64")}`;

// A workspace with one published package, `@example/core` (at packages/core), which depends on `alpha`
// (hoisted) and `beta` (a nested copy, because the root has another beta for a dev tool).
const workspace: Lockfile = {
  name: "workspace",
  lockfileVersion: 3,
  requires: true,
  packages: {
    "": { name: "workspace", workspaces: ["packages/core"], devDependencies: { tool: "1.0.0", types: "2.0.0" } },
    "packages/core": { name: "@example/core", version: "0.1.0", dependencies: { alpha: "^1.0.0", beta: "^2.0.0" } },
    "node_modules/@example/core": { resolved: "packages/core", link: true },
    "packages/core/node_modules/beta": { version: "2.1.0", integrity: integrity("beta@2.1.0"), license: "MIT" },
    "node_modules/alpha": {
      version: "1.4.0",
      integrity: integrity("alpha@1.4.0"),
      dependencies: { gamma: "^3.0.0" },
      optionalDependencies: { "alpha-linux": "1.4.0", "alpha-darwin": "1.4.0" },
      peerDependencies: { delta: "^4.0.0", epsilon: "^5.0.0" },
      peerDependenciesMeta: { epsilon: { optional: true } },
    },
    "node_modules/alpha/node_modules/gamma": { version: "3.2.0", integrity: integrity("gamma@3.2.0") },
    "node_modules/gamma": { version: "2.0.0", integrity: integrity("gamma@2.0.0"), dev: true },
    "node_modules/alpha-linux": { version: "1.4.0", integrity: integrity("alpha-linux@1.4.0"), optional: true },
    "node_modules/delta": { version: "4.0.1", integrity: integrity("delta@4.0.1"), peer: true },
    "node_modules/epsilon": { version: "5.0.0", integrity: integrity("epsilon@5.0.0"), dev: true },
    "node_modules/beta": { version: "1.0.0", integrity: integrity("beta@1.0.0"), dev: true },
    "node_modules/tool": { version: "1.0.0", integrity: integrity("tool@1.0.0"), dev: true },
    "node_modules/types": {
      version: "2.0.0",
      integrity: integrity("types@2.0.0"),
      dev: true,
      dependencies: { "types-helper": "~1.0.0" },
    },
    "node_modules/types-helper": { version: "1.0.3", integrity: integrity("types-helper@1.0.3"), dev: true },
  },
};

const core: LocalTarball = {
  name: "@example/core",
  version: "0.1.0",
  path: "../tarballs/example-core-0.1.0.tgz",
  integrity: integrity("core tarball"),
  dependencies: { alpha: "^1.0.0", beta: "^2.0.0" },
  workspacePath: "packages/core",
};

describe("consumerLockfile", () => {
  it("copies what the tarball needs from the workspace, at the paths Node resolves it from", () => {
    const lockfile = consumerLockfile({
      name: "consumer",
      dependencies: { "@example/core": "file:../tarballs/example-core-0.1.0.tgz" },
      devDependencies: { types: "2.0.0" },
      tarballs: [core],
      workspace,
    });
    const registry = "https://registry.npmjs.org/";
    expect(lockfile).toEqual({
      name: "consumer",
      lockfileVersion: 3,
      requires: true,
      packages: {
        "": {
          name: "consumer",
          dependencies: { "@example/core": "file:../tarballs/example-core-0.1.0.tgz" },
          devDependencies: { types: "2.0.0" },
        },
        "node_modules/@example/core": {
          version: "0.1.0",
          resolved: "file:../tarballs/example-core-0.1.0.tgz",
          integrity: integrity("core tarball"),
          dependencies: { alpha: "^1.0.0", beta: "^2.0.0" },
        },
        // Hoisted in the workspace, hoisted here; its own gamma stays nested, the hoisted gamma 2 is not needed.
        "node_modules/alpha": {
          ...workspace.packages["node_modules/alpha"],
          resolved: `${registry}alpha/-/alpha-1.4.0.tgz`,
        },
        "node_modules/alpha/node_modules/gamma": {
          version: "3.2.0",
          integrity: integrity("gamma@3.2.0"),
          resolved: `${registry}gamma/-/gamma-3.2.0.tgz`,
        },
        // The optional dependency the workspace installed is copied; the one it did not (alpha-darwin) is not.
        "node_modules/alpha-linux": {
          version: "1.4.0",
          integrity: integrity("alpha-linux@1.4.0"),
          resolved: `${registry}alpha-linux/-/alpha-linux-1.4.0.tgz`,
        },
        // A required peer is copied; an optional one (epsilon) is left to the consumer.
        "node_modules/delta": {
          version: "4.0.1",
          integrity: integrity("delta@4.0.1"),
          resolved: `${registry}delta/-/delta-4.0.1.tgz`,
        },
        // The workspace package's nested copy moves with the package.
        "node_modules/@example/core/node_modules/beta": {
          version: "2.1.0",
          integrity: integrity("beta@2.1.0"),
          license: "MIT",
          resolved: `${registry}beta/-/beta-2.1.0.tgz`,
        },
        // Needed only by the consumer's devDependencies: marked dev.
        "node_modules/types": {
          version: "2.0.0",
          integrity: integrity("types@2.0.0"),
          dependencies: { "types-helper": "~1.0.0" },
          resolved: `${registry}types/-/types-2.0.0.tgz`,
          dev: true,
        },
        "node_modules/types-helper": {
          version: "1.0.3",
          integrity: integrity("types-helper@1.0.3"),
          resolved: `${registry}types-helper/-/types-helper-1.0.3.tgz`,
          dev: true,
        },
      },
    });
  });

  it("gives every dependent the tarball that takes a top-level place", () => {
    const ownAlpha: LocalTarball = {
      name: "alpha",
      version: "1.9.0",
      path: "../tarballs/alpha-1.9.0.tgz",
      integrity: integrity("alpha tarball"),
    };
    const lockfile = consumerLockfile({
      name: "consumer",
      dependencies: { "@example/core": "file:a.tgz", alpha: "file:b.tgz" },
      tarballs: [core, ownAlpha],
      workspace,
    });
    expect(lockfile.packages["node_modules/alpha"]).toEqual({
      version: "1.9.0",
      resolved: "file:../tarballs/alpha-1.9.0.tgz",
      integrity: integrity("alpha tarball"),
    });
    // What only the workspace's alpha needed is not copied.
    expect(Object.keys(lockfile.packages).sort()).toEqual([
      "",
      "node_modules/@example/core",
      "node_modules/@example/core/node_modules/beta",
      "node_modules/alpha",
    ]);
  });

  it("writes the tarball addresses for the registry it is given, and keeps an address the workspace has", () => {
    const withAddress: Lockfile = {
      ...workspace,
      packages: {
        ...workspace.packages,
        "packages/core/node_modules/beta": { version: "2.1.0", resolved: "https://mirror.test/beta-2.1.0.tgz" },
      },
    };
    const lockfile = consumerLockfile({
      name: "consumer",
      dependencies: { "@example/core": "file:a.tgz" },
      tarballs: [core],
      workspace: withAddress,
      registry: "http://127.0.0.1:4873",
    });
    expect(lockfile.packages["node_modules/alpha"]?.resolved).toBe("http://127.0.0.1:4873/alpha/-/alpha-1.4.0.tgz");
    expect(lockfile.packages["node_modules/@example/core/node_modules/beta"]?.resolved).toBe(
      "https://mirror.test/beta-2.1.0.tgz",
    );
  });

  it("names the package, its range and its dependent when the workspace lacks a dependency", () => {
    const packages = Object.entries(workspace.packages).filter(([path]) => !path.endsWith("node_modules/gamma"));
    const withoutGamma: Lockfile = { ...workspace, packages: Object.fromEntries(packages) };
    expect(() =>
      consumerLockfile({
        name: "consumer",
        dependencies: { "@example/core": "file:a.tgz" },
        tarballs: [core],
        workspace: withoutGamma,
      }),
    ).toThrow("The workspace lockfile has no gamma@^3.0.0 for node_modules/alpha");
  });

  it("does not take a workspace link for a package: a workspace package must come as a tarball", () => {
    expect(() =>
      consumerLockfile({ name: "consumer", dependencies: { "@example/core": "0.1.0" }, tarballs: [], workspace }),
    ).toThrow("The workspace lockfile has no @example/core@0.1.0 for the consumer");
  });
});
