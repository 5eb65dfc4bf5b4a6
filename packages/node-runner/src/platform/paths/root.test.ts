import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CastellanError } from "@castellan/harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callsOf, loggingOperations, makeSandbox, type Sandbox } from "../../../test/support/paths-fixture.ts";
import { resolveEntry } from "./entry.js";
import { resolveForRead } from "./resolve-read.js";
import { bindWorkspaceRoot, bindWorkspaceRootSync, type WorkspaceRoot } from "./root.js";
import { WorkspaceRootError } from "./root-error.js";

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await makeSandbox();
});

afterEach(async () => {
  await sandbox.remove();
});

const binders = [
  ["bindWorkspaceRoot", (root: URL | string) => bindWorkspaceRoot(root)],
  ["bindWorkspaceRootSync", async (root: URL | string) => bindWorkspaceRootSync(root)],
] as const;

describe.each(binders)("%s", (_name, bind) => {
  it("captures the directory's real path, through a link to it", async () => {
    const link = join(sandbox.base, "link-to-root");
    await symlink(sandbox.root, link);
    const root = await bind(pathToFileURL(link));
    expect(root.realPath).toBe(sandbox.root);
    expect(root.url.href).toBe(pathToFileURL(link).href);
    expect(Object.isFrozen(root)).toBe(true);
  });

  it("accepts an absolute path, one with URL-special characters too, and binds it as its file: URL", async () => {
    const root = await bind(sandbox.root);
    expect(root.realPath).toBe(sandbox.root);
    expect(root.url.href).toBe(pathToFileURL(sandbox.root).href);
    const odd = join(sandbox.base, "a #?%20 b");
    await mkdir(odd);
    expect((await bind(odd)).realPath).toBe(odd);
  });

  it("accepts the URL as text, with or without a trailing slash", async () => {
    expect((await bind(sandbox.rootUrl.href)).realPath).toBe(sandbox.root);
    expect((await bind(pathToFileURL(sandbox.root).href)).realPath).toBe(sandbox.root);
  });

  it.each([
    ["a relative path", () => "relative/root", "is a relative path"],
    ["an http URL", () => "http://example.com/root/", "not a file: URL"],
    ["a URL with a query", () => `${sandbox.rootUrl.href}?x=1`, "query or fragment"],
    ["a URL with a host", () => "file://server/share/", "not a local file path"],
    ["a missing directory", () => pathToFileURL(join(sandbox.base, "missing")), "does not exist"],
    ["a file", () => pathToFileURL(sandbox.outsideFile), "not a directory"],
  ])("refuses %s with workspace_root_invalid", async (_what, root, message) => {
    const error = await Promise.resolve()
      .then(() => bind(root()))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceRootError);
    expect(error).toBeInstanceOf(CastellanError);
    expect(error).toMatchObject({ code: "workspace_root_invalid", message: expect.stringContaining(message) });
  });
});

describe("a bound root", () => {
  it("is refused when it was not made by a bind function", async () => {
    const forged: WorkspaceRoot = { ...(await bindWorkspaceRoot(sandbox.rootUrl)) };
    await expect(resolveForRead(forged, "a")).rejects.toThrow(TypeError);
  });

  it("binds asynchronously through the operations given", async () => {
    const { operations, log } = loggingOperations();
    await bindWorkspaceRoot(sandbox.rootUrl, operations);
    expect(callsOf(log, "realpath")).toHaveLength(1);
  });

  it("uses the operations given for everything after a synchronous bind", async () => {
    const { operations, log } = loggingOperations();
    const root = bindWorkspaceRootSync(sandbox.rootUrl, operations);
    expect(log.calls).toEqual([]);
    await writeFile(join(sandbox.root, "a.txt"), "a");
    await resolveForRead(root, "a.txt");
    expect(log.calls.length).toBeGreaterThan(0);
  });

  it("joins paths without a double slash when the root is /", async () => {
    const { operations, log } = loggingOperations();
    const slash = await bindWorkspaceRoot("file:///", operations);
    expect(slash.realPath).toBe("/");
    expect(await resolveEntry(slash, sandbox.root.slice(1))).toMatchObject({ kind: "directory" });
    expect(log.calls.map((call) => call.paths[0]).filter((path) => path?.includes("//"))).toEqual([]);
  });

  it("refuses every use once its directory is replaced (workspace_root_changed)", async () => {
    const inner = join(sandbox.base, "inner");
    await mkdir(inner);
    await writeFile(join(inner, "a.txt"), "a");
    const root = await bindWorkspaceRoot(pathToFileURL(inner));
    await expect(resolveForRead(root, "a.txt")).resolves.toMatchObject({ path: "a.txt" });
    await rename(inner, join(sandbox.base, "inner-moved"));
    await mkdir(inner);
    await writeFile(join(inner, "a.txt"), "b");
    await expect(resolveForRead(root, "a.txt")).rejects.toMatchObject({ code: "workspace_root_changed" });
  });
});
