// The layer map of the packages, checked by architecture/layers.test.ts (and by hand with
// `npx depcruise packages/*/src`). docs/architecture.md draws the same map; change both together.
//
// Inside @castellan/node-runner, imports go capabilities → platform → kernel (and
// capabilities → kernel), never back. A capability reaches another capability only through that
// capability's own index.ts. In every package, no two folders import each other, at any depth.

const nodeRunner = "^packages/node-runner/src/";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-folder-cycle",
      comment: "Two folders of one package that import each other, directly or through others, at any depth.",
      severity: "error",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
    {
      name: "kernel-imports-upward",
      comment:
        "The kernel (runner, session, run, journal, history, stores, plugins, permissions) needs no platform or capability.",
      severity: "error",
      from: { path: `${nodeRunner}kernel/` },
      to: { path: `${nodeRunner}(platform|capabilities)/` },
    },
    {
      name: "platform-imports-capability",
      comment:
        "The platform (paths, processes, environment, sandbox) is what capabilities share; it knows none of them.",
      severity: "error",
      from: { path: `${nodeRunner}platform/` },
      to: { path: `${nodeRunner}capabilities/` },
    },
    {
      name: "capability-internals",
      comment: "A capability uses another capability only through that capability's index.ts.",
      severity: "error",
      from: { path: `${nodeRunner}capabilities/([^/]+)/` },
      to: {
        path: `${nodeRunner}capabilities/`,
        pathNot: [`${nodeRunner}capabilities/$1/`, `${nodeRunner}capabilities/[^/]+/index\\.ts$`],
      },
    },
    {
      name: "package-root-from-inside",
      comment: "A package's src/index.ts only re-exports; nothing inside the package imports it.",
      severity: "error",
      from: { path: "^packages/[^/]+/src/.+/" },
      to: { path: "^packages/[^/]+/src/index\\.ts$" },
    },
  ],
  options: {
    // Tests may reach into any layer; the map is about the shipped code.
    exclude: { path: ["\\.test\\.ts$", "/testing/.*\\.test\\.ts$", "(^|/)dist/", "(^|/)node_modules/"] },
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.base.json" },
    tsPreCompilationDeps: true,
  },
};
