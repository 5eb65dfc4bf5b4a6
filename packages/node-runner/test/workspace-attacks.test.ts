// Hostile inputs against the root-bound workspace tools, table-driven: path forms, look-alike
// names, links (outside, chains, loops, /proc/self/root, the prefix sibling root-evil/),
// hardlinks, FIFOs, devices and sockets, a 1 GB sparse file and a 10 MB line, patch shapes
// refused before permission, list and search over links, and a directory swapped for a link
// between the checks and the write. Every case pins where the file system was touched and that
// the sentinel tree beside the root (outside.txt, root-evil/, outside-dir/) is byte for byte
// unchanged.
//
// The containment rule asserted for every case (it is what paths/README.md promises):
// - Every path passed to any operation, lstat, readlink and realpath included, is the root's
//   real path or lexically beneath it (`pathsOutside` is empty). To follow a last-segment link
//   for reading, the layer asks `realpath` about the link inside the root; only the answer may
//   lie outside (that is how symlink_outside_root is decided), and an answer outside is never
//   used as a path.
// - For the calls that touch content or names (open, readdir, mkdir, rmdir, rename, unlink),
//   the directory holding the path (for readdir, the directory itself), resolved with realpath
//   after the call, is inside the root: no link on the way led out.
// - Every open has O_NOFOLLOW (the open never follows a last-segment link); a read open has
//   O_NONBLOCK (a FIFO swapped in cannot block it); a create has O_EXCL.
// The race cases at the end break the second rule on purpose (the link is swapped in after the
// checks) and say what is asserted instead.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { constants, type Stats } from "node:fs";
import {
  link,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  stat,
  symlink,
  truncate,
  writeFile,
} from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { dirname, join, relative } from "node:path";
import { isToolInputError, type JsonValue, type Tool, type ToolResult } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import type { WorkspaceLimits } from "../src/capabilities/workspace/tools/limits.js";
import { createWorkspaceImageTool } from "../src/capabilities/workspace/tools/read-workspace-image.js";
import type { WorkspaceOperations } from "../src/platform/paths/operations.js";
import type { BeforeCall, OperationLog } from "./support/index.ts";
import {
  addFile,
  callsOf,
  callTool,
  deleteFileSection,
  loggingOperations,
  patchText,
  pathsOutside,
  tempDirPerTest,
  toolContext,
  updateFile,
  workspaceLayout,
  writeTree,
} from "./support/index.ts";
import { workspaceToolsFor } from "./support/workspace-tools.ts";

const temp = tempDirPerTest("castellan-attacks-");

// ---------------------------------------------------------------------------------------------
// The place each case runs in

/** Text of every sentinel file: none of it may appear in any result. */
const sentinelTexts = ["outside secret", "evil secret", "outside dir secret", "outside twin"];

/** One case's temporary tree, with helpers to build its setup. */
interface Place {
  /** Real path of the temporary directory holding everything. */
  readonly base: string;
  /** Real path of the workspace root. */
  readonly root: string;
  readonly rootUrl: URL;
  /** `base/outside.txt`. */
  readonly outside: string;
  /** `base/root-evil/`, the prefix sibling, holding `secret.txt`. */
  readonly evil: string;
  /** `base/outside-dir/`, holding `secret.txt` and `file.txt`. */
  readonly outsideDirectory: string;
  /** The absolute path of a workspace path. */
  at(path: string): string;
  files(files: Readonly<Record<string, string | Uint8Array>>): Promise<void>;
  /** A symbolic link at workspace path `path` whose text is `target`. */
  link(path: string, target: string): Promise<void>;
  fifo(path: string): Promise<void>;
  /** A character device with /dev/null's numbers. */
  device(path: string): Promise<void>;
  /** A listening unix socket, closed when the case ends. */
  socket(path: string): Promise<void>;
  /** A sparse file of `size` bytes starting with `head`. */
  sparse(path: string, head: string | Uint8Array, size: number): Promise<void>;
}

/** A child's stdio: nothing inherited (the console guard fails a test that writes), stderr kept for its error. */
const quiet: ["ignore", "ignore", "pipe"] = ["ignore", "ignore", "pipe"];

async function makePlace(closers: (() => Promise<void>)[]): Promise<Place> {
  const layout = await workspaceLayout(temp.path);
  const base = await realpath(temp.path);
  const root = await realpath(layout.root);
  const outsideDirectory = join(base, "outside-dir");
  await mkdir(outsideDirectory);
  await writeFile(join(outsideDirectory, "secret.txt"), "outside dir secret\n");
  await writeFile(join(outsideDirectory, "file.txt"), "outside twin\n");
  const at = (path: string) => join(root, path);
  const parentOf = async (path: string) => mkdir(dirname(at(path)), { recursive: true });
  return {
    base,
    root,
    rootUrl: layout.rootUrl,
    outside: join(base, "outside.txt"),
    evil: join(base, "root-evil"),
    outsideDirectory,
    at,
    files: (files) => writeTree(root, files),
    async link(path, target) {
      await parentOf(path);
      await symlink(target, at(path));
    },
    async fifo(path) {
      await parentOf(path);
      execFileSync("mkfifo", [at(path)], { stdio: quiet });
    },
    async device(path) {
      await parentOf(path);
      execFileSync("mknod", [at(path), "c", "1", "3"], { stdio: quiet });
    },
    async socket(path) {
      await parentOf(path);
      const server: Server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(at(path), () => resolve());
      });
      closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    },
    async sparse(path, head, size) {
      await parentOf(path);
      await writeFile(at(path), head);
      await truncate(at(path), size);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// What is checked around every call

/** Files up to this size are hashed in a tree's state; larger ones are named by size and mtime. */
const hashLimit = 16 * 1024 * 1024;

/** Every entry under `directory` (except `skip`): its type, identity, mode, and a file's size and content hash. */
async function treeState(directory: string, skip?: string): Promise<string[]> {
  const lines: string[] = [];
  const visit = async (path: string): Promise<void> => {
    for (const name of (await readdir(path)).sort()) {
      const child = join(path, name);
      if (child === skip) continue;
      const stats = await lstat(child);
      const head = `${relative(directory, child)} ${kindOf(stats)} mode=${stats.mode.toString(8)} ino=${stats.ino}`;
      if (stats.isDirectory()) {
        lines.push(head);
        await visit(child);
      } else if (stats.isSymbolicLink()) {
        lines.push(`${head} -> ${await readlink(child)}`);
      } else if (stats.isFile()) {
        const content =
          stats.size <= hashLimit
            ? `sha256=${createHash("sha256")
                .update(await readFile(child))
                .digest("hex")}`
            : `mtime=${stats.mtimeMs}`;
        lines.push(`${head} size=${stats.size} ${content}`);
      } else {
        lines.push(`${head} rdev=${stats.rdev}`);
      }
    }
  };
  await visit(directory);
  return lines;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symlink";
  if (stats.isFile()) return "file";
  if (stats.isFIFO()) return "fifo";
  if (stats.isSocket()) return "socket";
  return "device";
}

/** The operations that only read metadata: all an admission may do. */
const metadataOperations = new Set(["lstat", "readlink", "realpath"]);
/** The operations that touch content or names: where they land must be inside the root. */
const contentOperations = new Set(["open", "readdir", "mkdir", "rmdir", "rename", "unlink"]);

/** The real path of `path`, or of its nearest ancestor that still exists. */
async function realOfNearest(path: string): Promise<string> {
  let at = path;
  for (;;) {
    try {
      return await realpath(at);
    } catch {
      const up = dirname(at);
      if (up === at) return at;
      at = up;
    }
  }
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

/**
 * The content calls (from the `from`th call on) whose directory, resolved now, is not inside
 * the root: `operation path (in real)` for each.
 */
async function escapes(log: OperationLog, root: string, from = 0): Promise<string[]> {
  const found: string[] = [];
  for (const call of log.calls.slice(from)) {
    if (!contentOperations.has(call.operation)) continue;
    for (const path of call.paths) {
      const real = await realOfNearest(call.operation === "readdir" ? path : dirname(path));
      if (!isInside(real, root)) found.push(`${call.operation} ${path} (in ${real})`);
    }
  }
  return found;
}

/** The opens whose flags break the rule: `path flags` for each. */
function badOpens(log: OperationLog): string[] {
  return log.calls
    .filter((call) => call.operation === "open")
    .filter((call) => {
      const flags = call.flags ?? 0;
      if ((flags & constants.O_NOFOLLOW) === 0) return true;
      return (flags & constants.O_CREAT) !== 0
        ? (flags & constants.O_EXCL) === 0
        : (flags & constants.O_NONBLOCK) === 0;
    })
    .map((call) => `${call.paths[0]} ${call.flags}`);
}

/** The paths opened (any flags), but the ignore rules files a walk reads. */
function opened(log: OperationLog): string[] {
  return log.calls
    .filter((call) => call.operation === "open")
    .map((call) => call.paths[0] as string)
    .filter((path) => !path.endsWith("/.gitignore") && !path.endsWith("/.git/info/exclude"));
}

/** The text of a result's blocks, joined. */
function textOfResult(result: ToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

// ---------------------------------------------------------------------------------------------
// The cases

type ToolName =
  | "read_workspace_file"
  | "edit_workspace_file"
  | "apply_workspace_patch"
  | "list_workspace"
  | "search_workspace"
  | "read_workspace_image";

/** What a case's check is given. */
interface Outcome {
  readonly place: Place;
  readonly result: ToolResult;
  readonly text: string;
  /** The first block's text as JSON. */
  json(): any;
  readonly log: OperationLog;
  /** The root's state before the call. */
  readonly rootBefore: readonly string[];
}

type Check = (outcome: Outcome) => void | Promise<void>;

/** What a case expects. */
type Expected =
  /** Refused before permission: `admit` throws a ToolInputError with this code, having read only metadata. */
  | { readonly admitRefuses: string }
  /** An error result whose text starts with `<code>:`; nothing in the root changed. */
  | { readonly refuses: string; readonly check?: Check }
  /** A result that is not an error, checked by `check` (a bounded page, a file created inside). */
  | { readonly succeeds: Check };

interface Attack {
  readonly name: string;
  readonly tool: ToolName;
  readonly input: JsonValue | ((place: Place) => JsonValue);
  readonly setup?: (place: Place) => Promise<void>;
  readonly limits?: Partial<WorkspaceLimits>;
  /** Bind the tools with protection lifted (`allowProtectedWrites`): the unsafe configuration. */
  readonly unprotected?: boolean;
  readonly expected: Expected;
  /** Milliseconds; short for the cases that could block. */
  readonly timeout?: number;
}

/** An apply_workspace_patch input made of these sections. */
const patch = (...sections: string[]) => ({ patch: patchText(...sections) });

/** A name of 256 bytes: one over NAME_MAX. */
const longSegment = "s".repeat(256);
/** 4,097 bytes in names of 200: one over the path limit, every segment fine. */
const longPath = `${`${"d".repeat(200)}/`.repeat(20)}${"x".repeat(77)}`;
/** 4,096 bytes: accepted by the check, but with the root's prefix over the file system's PATH_MAX. */
const fullPath = `${`${"d".repeat(200)}/`.repeat(20)}${"x".repeat(76)}`;

/** Malformed paths, each `path_invalid` before any I/O, with what they are. */
const invalidPaths: readonly (readonly [string, string])[] = [
  ["`..`", ".."],
  ["`../x` (the real outside file)", "../outside.txt"],
  ["`a/../../x` (a real directory, then out)", "a/../../outside.txt"],
  ["`a/..`", "a/.."],
  ["absolute `/etc/passwd`", "/etc/passwd"],
  ["absolute `/`", "/"],
  ["`./a`", "./a.txt"],
  ["`a/./b`", "a/./b.txt"],
  ["`a//b`", "a//b.txt"],
  ["a trailing slash `a/`", "a/"],
  ["a backslash `a\\b`", "a\\b.txt"],
  ["a backslash traversal `..\\x`", "..\\outside.txt"],
  ["a NUL", "a.txt\u0000.png"],
  ["a C0 control U+0001", "a\u0001.txt"],
  ["DEL U+007F", "a\u007f.txt"],
  ["a C1 control U+0085 (NEL)", "a\u0085.txt"],
  ["a lone surrogate", "a\ud800.txt"],
  ["a 256-byte segment", longSegment],
  ["a 4,097-byte path", longPath],
];

const pathFiles = { "a.txt": "inside a\n", "a/b.txt": "inside b\n" };
const withPathFiles = (place: Place) => place.files(pathFiles);

/** A check that the page is bounded: within maxPageBytes of JSON, truncated, and few bytes read. */
function boundedPage(options: { maxBytesRead: number; totalBytes: number; offset?: number }): Check {
  return ({ json, text, log }) => {
    const page = json();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(32_768);
    expect(page).toMatchObject({ truncated: true, totalBytes: options.totalBytes, offset: options.offset ?? 0 });
    expect(page.bytes).toBeGreaterThan(16_000);
    expect(page.nextOffset).toBe((options.offset ?? 0) + page.bytes);
    expect(log.bytesRead).toBeLessThan(options.maxBytesRead);
  };
}

/** A check that `path` (under the root) holds `content`, as a regular file. */
function createdInside(path: string, content: string): Check {
  return async ({ place, json }) => {
    expect(json()).toEqual([{ path, operation: "added" }]);
    const stats = await lstat(place.at(path));
    expect(stats.isFile()).toBe(true);
    expect(await readFile(place.at(path), "utf8")).toBe(content);
  };
}

/** A check that nothing was ever opened at `path` (a special file, a link). */
function neverOpened(path: string, then?: Check): Check {
  return async (outcome) => {
    expect(opened(outcome.log)).not.toContain(outcome.place.at(path));
    await then?.(outcome);
  };
}

const pathForms: Attack[] = [
  ...invalidPaths.map(
    ([name, path]): Attack => ({
      name: `path ${name}`,
      tool: "read_workspace_file",
      setup: withPathFiles,
      input: { path },
      expected: { refuses: "path_invalid" },
    }),
  ),
  {
    name: "path: the empty path",
    tool: "read_workspace_file",
    input: { path: "" },
    expected: { refuses: "path_invalid" },
  },
  {
    name: "path: the absolute path of the real outside file",
    tool: "read_workspace_file",
    input: (place) => ({ path: place.outside }),
    expected: { refuses: "path_invalid" },
  },
  ...invalidPaths.map(
    ([name, path]): Attack => ({
      name: `Add at path ${name}`,
      tool: "apply_workspace_patch",
      setup: withPathFiles,
      input: patch(addFile(path, "pwned")),
      expected: { admitRefuses: "path_invalid" },
    }),
  ),
  {
    name: "Add at the empty path (the header names no file)",
    tool: "apply_workspace_patch",
    input: patch("*** Add File: ", "+pwned"),
    expected: { admitRefuses: "patch_invalid" },
  },
  {
    name: "Add at `.`, the root itself",
    tool: "apply_workspace_patch",
    input: patch(addFile(".", "pwned")),
    expected: { admitRefuses: "path_is_directory" },
  },
  ...(
    [
      ["`../x`", "../outside.txt"],
      ["`a/../../x`", "a/../../outside.txt"],
      ["`..\\x`", "..\\outside.txt"],
    ] as const
  ).map(
    ([name, path]): Attack => ({
      name: `path ${name}`,
      tool: "edit_workspace_file",
      setup: withPathFiles,
      input: { path, expected: "outside secret", replacement: "pwned" },
      expected: { admitRefuses: "path_invalid" },
    }),
  ),
  {
    name: "path: the absolute path of the real outside file",
    tool: "edit_workspace_file",
    input: (place) => ({ path: place.outside, expected: "outside secret", replacement: "pwned" }),
    expected: { admitRefuses: "path_invalid" },
  },
  { name: "path `..`", tool: "list_workspace", input: { path: ".." }, expected: { refuses: "path_invalid" } },
  {
    name: "path `../root-evil`",
    tool: "list_workspace",
    input: { path: "../root-evil" },
    expected: { refuses: "path_invalid" },
  },
  { name: "path `/`", tool: "list_workspace", input: { path: "/" }, expected: { refuses: "path_invalid" } },
  {
    name: "path `..`",
    tool: "search_workspace",
    input: { query: "secret", path: ".." },
    expected: { refuses: "path_invalid" },
  },
  {
    name: "path of the outside directory, absolute",
    tool: "search_workspace",
    input: (place) => ({ query: "secret", path: place.outsideDirectory }),
    expected: { refuses: "path_invalid" },
  },
  {
    name: "path `../x`",
    tool: "read_workspace_image",
    input: { path: "../outside.txt" },
    expected: { refuses: "path_invalid" },
  },
  {
    name: "Add at a 4,096-byte path: accepted, then too long for the file system; the directories made are removed",
    tool: "apply_workspace_patch",
    input: patch(addFile(fullPath, "deep")),
    expected: {
      refuses: "path_invalid",
      check: ({ text, log }) => {
        expect(text).toContain("too long for the file system");
        const made = callsOf(log, "mkdir").map((call) => call.paths[0]);
        expect(made.length).toBeGreaterThan(0);
        expect(callsOf(log, "rmdir").map((call) => call.paths[0])).toEqual([...made].reverse());
      },
    },
  },
];

const lookAlikes: Attack[] = [
  {
    name: "Add at `%2e%2e`: an ordinary name, created inside",
    tool: "apply_workspace_patch",
    input: patch(addFile("%2e%2e", "look-alike")),
    expected: { succeeds: createdInside("%2e%2e", "look-alike\n") },
  },
  {
    name: "Add at `%2e%2e/outside.txt`: a directory named `%2e%2e` inside",
    tool: "apply_workspace_patch",
    input: patch(addFile("%2e%2e/outside.txt", "look-alike")),
    expected: { succeeds: createdInside("%2e%2e/outside.txt", "look-alike\n") },
  },
  {
    name: "Add at fullwidth `．．/outside.txt`: kept inside",
    tool: "apply_workspace_patch",
    input: patch(addFile("\uff0e\uff0e/outside.txt", "look-alike")),
    expected: { succeeds: createdInside("\uff0e\uff0e/outside.txt", "look-alike\n") },
  },
  {
    name: "Add at one-dot-leader `․․/outside.txt`: kept inside",
    tool: "apply_workspace_patch",
    input: patch(addFile("\u2024\u2024/outside.txt", "look-alike")),
    expected: { succeeds: createdInside("\u2024\u2024/outside.txt", "look-alike\n") },
  },
  {
    name: "path `%2e%2e/outside.txt`: looked for inside, not found",
    tool: "read_workspace_file",
    input: { path: "%2e%2e/outside.txt" },
    expected: { refuses: "path_not_found" },
  },
  {
    name: "path fullwidth `．．/outside.txt`: looked for inside, not found",
    tool: "read_workspace_file",
    input: { path: "\uff0e\uff0e/outside.txt" },
    expected: { refuses: "path_not_found" },
  },
];

/** The links most cases use: to the outside file and directory, and into root-evil/. */
async function outsideLinks(place: Place): Promise<void> {
  await place.link("out.txt", place.outside);
  await place.link("rel-out.txt", "../outside.txt");
  await place.link("outdir", place.outsideDirectory);
}

const links: Attack[] = [
  {
    name: "a link to the outside file, absolute",
    tool: "read_workspace_file",
    setup: outsideLinks,
    input: { path: "out.txt" },
    expected: { refuses: "symlink_outside_root", check: neverOpened("out.txt") },
  },
  {
    name: "a link to the outside file, relative `../outside.txt`",
    tool: "read_workspace_file",
    setup: outsideLinks,
    input: { path: "rel-out.txt" },
    expected: { refuses: "symlink_outside_root" },
  },
  {
    name: "a link to the outside file",
    tool: "edit_workspace_file",
    setup: outsideLinks,
    input: { path: "out.txt", expected: "outside secret", replacement: "pwned" },
    expected: { admitRefuses: "path_is_symlink" },
  },
  {
    name: "Update of a link to the outside file (its source is checked at its turn)",
    tool: "apply_workspace_patch",
    setup: outsideLinks,
    input: patch(updateFile("out.txt", "outside secret", "pwned")),
    expected: { refuses: "path_is_symlink" },
  },
  {
    name: "Delete of a link to the outside file",
    tool: "apply_workspace_patch",
    setup: outsideLinks,
    input: patch(deleteFileSection("out.txt")),
    expected: { admitRefuses: "path_is_symlink" },
  },
  {
    name: "Add over a link to the outside file",
    tool: "apply_workspace_patch",
    setup: outsideLinks,
    input: patch(addFile("out.txt", "pwned")),
    expected: { admitRefuses: "path_is_symlink" },
  },
  {
    name: "Add over a dangling link to a new outside path: nothing is created where it points",
    tool: "apply_workspace_patch",
    setup: (place) => place.link("dangling.txt", join(place.base, "created-through-link.txt")),
    input: patch(addFile("dangling.txt", "pwned")),
    expected: { admitRefuses: "path_is_symlink" },
  },
  {
    name: "a dangling link to a new outside path",
    tool: "read_workspace_file",
    setup: (place) => place.link("dangling.txt", join(place.base, "created-through-link.txt")),
    input: { path: "dangling.txt" },
    expected: { refuses: "path_not_found" },
  },
  {
    name: "a link to an outside directory used as a parent",
    tool: "read_workspace_file",
    setup: outsideLinks,
    input: { path: "outdir/secret.txt" },
    expected: { refuses: "path_through_symlink" },
  },
  {
    name: "a link to an outside directory used as a parent",
    tool: "edit_workspace_file",
    setup: outsideLinks,
    input: { path: "outdir/secret.txt", expected: "outside dir secret", replacement: "pwned" },
    expected: { admitRefuses: "path_through_symlink" },
  },
  {
    name: "Add whose parent is a link to an outside directory",
    tool: "apply_workspace_patch",
    setup: outsideLinks,
    input: patch(addFile("outdir/new.txt", "pwned")),
    expected: { admitRefuses: "path_through_symlink" },
  },
  {
    name: "Add two levels below a link to an outside directory",
    tool: "apply_workspace_patch",
    setup: outsideLinks,
    input: patch(addFile("outdir/made/new.txt", "pwned")),
    expected: { admitRefuses: "path_through_symlink" },
  },
  // Regression: the guidance lookup for this directory once met path_through_symlink and kept
  // it as an unreadable source, so the call was refused as guidance_pending for a file that
  // does not exist.
  {
    name: "Update through a link to an outside directory",
    tool: "apply_workspace_patch",
    setup: outsideLinks,
    input: patch(updateFile("outdir/secret.txt", "outside dir secret", "pwned")),
    expected: { refuses: "path_through_symlink" },
  },
  {
    name: "Move into a link to an outside directory",
    tool: "apply_workspace_patch",
    setup: async (place) => {
      await outsideLinks(place);
      await place.files({ "mine.txt": "mine\n" });
    },
    input: patch(updateFile("mine.txt", "mine", "moved", "outdir/file.txt")),
    expected: { admitRefuses: "path_through_symlink" },
  },
  {
    name: "Move onto a link to the outside file",
    tool: "apply_workspace_patch",
    setup: async (place) => {
      await outsideLinks(place);
      await place.files({ "mine.txt": "mine\n" });
    },
    input: patch(updateFile("mine.txt", "mine", "moved", "out.txt")),
    expected: { admitRefuses: "path_is_symlink" },
  },
  {
    name: "Move of a link to the outside file",
    tool: "apply_workspace_patch",
    setup: outsideLinks,
    input: patch(updateFile("out.txt", "outside secret", "moved", "taken.txt")),
    expected: {
      refuses: "path_is_symlink",
      check: async ({ place }) => expect(await lstat(place.at("taken.txt")).catch(() => "absent")).toBe("absent"),
    },
  },
  {
    name: "a chain of links ending outside",
    tool: "read_workspace_file",
    setup: async (place) => {
      await place.link("chain1", "chain2");
      await place.link("chain2", "sub/chain3");
      await place.link("sub/chain3", "../../outside.txt");
    },
    input: { path: "chain1" },
    expected: { refuses: "symlink_outside_root" },
  },
  {
    name: "a link whose text climbs out through a directory inside",
    tool: "read_workspace_file",
    setup: async (place) => {
      await place.files({ "a/b.txt": "inside b\n" });
      await place.link("climb.txt", "a/../../outside.txt");
    },
    input: { path: "climb.txt" },
    expected: { refuses: "symlink_outside_root" },
  },
  {
    name: "a link to `..`, the root's parent",
    tool: "read_workspace_file",
    setup: (place) => place.link("parent", ".."),
    input: { path: "parent" },
    expected: { refuses: "symlink_outside_root" },
  },
  {
    name: "a link to the root itself",
    tool: "read_workspace_file",
    setup: (place) => place.link("itself", "."),
    input: { path: "itself" },
    expected: { refuses: "path_is_directory" },
  },
  {
    name: "a link to /proc/self/root",
    tool: "read_workspace_file",
    setup: (place) => place.link("proc", "/proc/self/root"),
    input: { path: "proc" },
    expected: { refuses: "symlink_outside_root" },
  },
  {
    name: "a link to /proc/self/root used as a parent",
    tool: "read_workspace_file",
    setup: (place) => place.link("proc", "/proc/self/root"),
    input: { path: "proc/etc/passwd" },
    expected: { refuses: "path_through_symlink" },
  },
  {
    name: "Add below a link to /proc/self/root",
    tool: "apply_workspace_patch",
    setup: (place) => place.link("proc", "/proc/self/root"),
    input: (place) => patch(addFile(`proc${place.base}/pwned.txt`, "pwned")),
    expected: { admitRefuses: "path_through_symlink" },
  },
  {
    name: "a link to /proc/self/root",
    tool: "list_workspace",
    setup: (place) => place.link("proc", "/proc/self/root"),
    input: { path: "proc" },
    expected: { refuses: "path_is_symlink" },
  },
  {
    name: "a link loop of two",
    tool: "read_workspace_file",
    setup: async (place) => {
      await place.link("loop1", "loop2");
      await place.link("loop2", "loop1");
    },
    input: { path: "loop1" },
    expected: { refuses: "symlink_loop" },
  },
  {
    name: "a link to itself",
    tool: "read_workspace_file",
    setup: (place) => place.link("self", "self"),
    input: { path: "self" },
    expected: { refuses: "symlink_loop" },
  },
  {
    name: "a link loop",
    tool: "edit_workspace_file",
    setup: (place) => place.link("self", "self"),
    input: { path: "self", expected: "x", replacement: "y" },
    expected: { admitRefuses: "path_is_symlink" },
  },
  {
    name: "a link loop used as a parent",
    tool: "apply_workspace_patch",
    setup: (place) => place.link("self", "self"),
    input: patch(addFile("self/new.txt", "x")),
    expected: { admitRefuses: "path_through_symlink" },
  },
  {
    name: "a link into the prefix sibling root-evil/, relative",
    tool: "read_workspace_file",
    setup: (place) => place.link("evil.txt", "../root-evil/secret.txt"),
    input: { path: "evil.txt" },
    expected: { refuses: "symlink_outside_root" },
  },
  {
    name: "a link into the prefix sibling root-evil/, absolute (its text starts with the root's path)",
    tool: "read_workspace_file",
    setup: (place) => place.link("evil.txt", `${place.root}-evil/secret.txt`),
    input: { path: "evil.txt" },
    expected: { refuses: "symlink_outside_root" },
  },
  {
    name: "a link to the prefix sibling root-evil/ used as a parent",
    tool: "read_workspace_file",
    setup: (place) => place.link("evil", place.evil),
    input: { path: "evil/secret.txt" },
    expected: { refuses: "path_through_symlink" },
  },
  {
    name: "Add below a link to the prefix sibling root-evil/",
    tool: "apply_workspace_patch",
    setup: (place) => place.link("evil", place.evil),
    input: patch(addFile("evil/secret.txt", "pwned")),
    expected: { admitRefuses: "path_through_symlink" },
  },
  {
    name: "a link to a PNG outside",
    tool: "read_workspace_image",
    setup: async (place) => {
      const png = join(place.outsideDirectory, "image.png");
      await writeFile(png, Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]));
      await place.link("image.png", png);
    },
    input: { path: "image.png" },
    expected: { refuses: "symlink_outside_root" },
  },
  {
    name: "a hardlink inside to the outside file, updated with protection lifted: the outside inode keeps its content",
    tool: "apply_workspace_patch",
    unprotected: true,
    setup: (place) => link(place.outside, place.at("hard.txt")),
    input: patch(updateFile("hard.txt", "outside secret", "inside now")),
    expected: {
      succeeds: async ({ place, json }) => {
        expect(json()).toEqual([{ path: "hard.txt", operation: "updated", edits: 1 }]);
        expect(await readFile(place.at("hard.txt"), "utf8")).toBe("inside now\n");
        expect(await readFile(place.outside, "utf8")).toBe("outside secret\n");
        expect((await stat(place.at("hard.txt"))).ino).not.toBe((await stat(place.outside)).ino);
      },
    },
  },
  {
    name: "a hardlink inside to the outside file, edited with protection lifted: the outside inode keeps its content",
    tool: "edit_workspace_file",
    unprotected: true,
    setup: (place) => link(place.outside, place.at("hard.txt")),
    input: { path: "hard.txt", expected: "outside secret", replacement: "edited" },
    expected: {
      succeeds: async ({ place }) => {
        expect(await readFile(place.at("hard.txt"), "utf8")).toBe("edited\n");
        expect(await readFile(place.outside, "utf8")).toBe("outside secret\n");
      },
    },
  },
  {
    name: "a hardlink inside to the outside file, deleted with protection lifted: only the name inside goes",
    tool: "apply_workspace_patch",
    unprotected: true,
    setup: (place) => link(place.outside, place.at("hard.txt")),
    input: patch(deleteFileSection("hard.txt")),
    expected: {
      succeeds: async ({ place, json }) => {
        expect(json()).toEqual([{ path: "hard.txt", operation: "deleted" }]);
        expect(await lstat(place.at("hard.txt")).catch(() => "absent")).toBe("absent");
        expect(await readFile(place.outside, "utf8")).toBe("outside secret\n");
      },
    },
  },
  {
    name: "a hardlink inside to the outside file, updated: path_protected (hard links)",
    tool: "apply_workspace_patch",
    setup: (place) => link(place.outside, place.at("hard.txt")),
    input: patch(updateFile("hard.txt", "outside secret", "inside now")),
    expected: { refuses: "path_protected" },
  },
  {
    name: "a hardlink inside to the outside file, edited: path_protected before permission",
    tool: "edit_workspace_file",
    setup: (place) => link(place.outside, place.at("hard.txt")),
    input: { path: "hard.txt", expected: "outside secret", replacement: "edited" },
    expected: { admitRefuses: "path_protected" },
  },
  {
    name: "a hardlink inside to the outside file, deleted: path_protected before permission",
    tool: "apply_workspace_patch",
    setup: (place) => link(place.outside, place.at("hard.txt")),
    input: patch(deleteFileSection("hard.txt")),
    expected: { admitRefuses: "path_protected" },
  },
];

const specialFiles: Attack[] = [
  {
    name: "a FIFO: refused without opening it, so without blocking",
    tool: "read_workspace_file",
    setup: (place) => place.fifo("pipe"),
    input: { path: "pipe" },
    expected: { refuses: "not_regular_file", check: neverOpened("pipe") },
    timeout: 5_000,
  },
  {
    name: "a FIFO",
    tool: "edit_workspace_file",
    setup: (place) => place.fifo("pipe"),
    input: { path: "pipe", expected: "x", replacement: "y" },
    expected: { admitRefuses: "not_regular_file" },
    timeout: 5_000,
  },
  {
    name: "Delete of a FIFO",
    tool: "apply_workspace_patch",
    setup: (place) => place.fifo("pipe"),
    input: patch(deleteFileSection("pipe")),
    expected: { admitRefuses: "not_regular_file" },
    timeout: 5_000,
  },
  {
    name: "Add over a FIFO",
    tool: "apply_workspace_patch",
    setup: (place) => place.fifo("pipe"),
    input: patch(addFile("pipe", "x")),
    expected: { admitRefuses: "not_regular_file" },
    timeout: 5_000,
  },
  {
    name: "Update of a FIFO",
    tool: "apply_workspace_patch",
    setup: (place) => place.fifo("pipe"),
    input: patch(updateFile("pipe", "x", "y")),
    expected: { refuses: "not_regular_file", check: neverOpened("pipe") },
    timeout: 5_000,
  },
  {
    name: "a link inside to a FIFO inside",
    tool: "read_workspace_file",
    setup: async (place) => {
      await place.fifo("pipe");
      await place.link("pipe-link", "pipe");
    },
    input: { path: "pipe-link" },
    expected: { refuses: "not_regular_file", check: neverOpened("pipe") },
    timeout: 5_000,
  },
  {
    name: "a FIFO",
    tool: "read_workspace_image",
    setup: (place) => place.fifo("pipe.png"),
    input: { path: "pipe.png" },
    expected: { refuses: "not_regular_file", check: neverOpened("pipe.png") },
    timeout: 5_000,
  },
  {
    name: "a character device",
    tool: "read_workspace_file",
    setup: (place) => place.device("null"),
    input: { path: "null" },
    expected: { refuses: "not_regular_file", check: neverOpened("null") },
    timeout: 5_000,
  },
  {
    name: "a character device",
    tool: "edit_workspace_file",
    setup: (place) => place.device("null"),
    input: { path: "null", expected: "x", replacement: "y" },
    expected: { admitRefuses: "not_regular_file" },
    timeout: 5_000,
  },
  {
    name: "a unix socket",
    tool: "read_workspace_file",
    setup: (place) => place.socket("sock"),
    input: { path: "sock" },
    expected: { refuses: "not_regular_file", check: neverOpened("sock") },
    timeout: 5_000,
  },
  {
    name: "Delete of a unix socket",
    tool: "apply_workspace_patch",
    setup: (place) => place.socket("sock"),
    input: patch(deleteFileSection("sock")),
    expected: { admitRefuses: "not_regular_file" },
    timeout: 5_000,
  },
  {
    name: "a tree holding a FIFO, a device and a socket: only the regular file is opened",
    tool: "search_workspace",
    setup: async (place) => {
      await place.fifo("special/pipe");
      await place.device("special/null");
      await place.socket("special/sock");
      await place.files({ "special/plain.txt": "needle\n" });
    },
    input: { query: "needle" },
    expected: {
      succeeds: ({ json, log, place }) => {
        expect(json()).toMatchObject({
          hits: [{ path: "special/plain.txt", line: 1, text: "needle" }],
          truncated: false,
        });
        expect(opened(log)).toEqual([place.at("special/plain.txt")]);
      },
    },
    timeout: 5_000,
  },
  {
    name: "a directory holding a FIFO and a device: listed as `other`, never opened",
    tool: "list_workspace",
    setup: async (place) => {
      await place.fifo("special/pipe");
      await place.device("special/null");
    },
    input: { path: "special" },
    expected: {
      succeeds: ({ json, log }) => {
        expect(json().entries).toEqual([
          { path: "special/null", type: "other" },
          { path: "special/pipe", type: "other" },
        ]);
        expect(opened(log)).toEqual([]);
      },
    },
    timeout: 5_000,
  },
];

const gigabyte = 1024 * 1024 * 1024;
const textHead = `${"text line of the sparse file\n".repeat(3_000)}`;
const tenMegabytes = 10 * 1024 * 1024;
const pngHead = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

const sizes: Attack[] = [
  {
    name: "a 1 GB sparse file: one bounded page, a few KiB read",
    tool: "read_workspace_file",
    setup: (place) => place.sparse("huge.txt", textHead, gigabyte),
    input: { path: "huge.txt" },
    expected: { succeeds: boundedPage({ maxBytesRead: 64 * 1024, totalBytes: gigabyte }) },
    timeout: 30_000,
  },
  {
    name: "a 1 GB sparse file: file_too_large before opening it",
    tool: "edit_workspace_file",
    setup: (place) => place.sparse("huge.txt", textHead, gigabyte),
    input: { path: "huge.txt", expected: "text", replacement: "pwned" },
    expected: { admitRefuses: "file_too_large" },
    timeout: 30_000,
  },
  {
    name: "Update of a 1 GB sparse file: file_too_large before reading a byte",
    tool: "apply_workspace_patch",
    setup: (place) => place.sparse("huge.txt", textHead, gigabyte),
    input: patch(updateFile("huge.txt", "text line of the sparse file", "pwned")),
    expected: { refuses: "file_too_large", check: ({ log }) => expect(log.bytesRead).toBe(0) },
    timeout: 30_000,
  },
  {
    name: "a 1 GB sparse PNG: image_too_large after reading only its head",
    tool: "read_workspace_image",
    setup: (place) => place.sparse("huge.png", pngHead, gigabyte),
    input: { path: "huge.png" },
    expected: { refuses: "image_too_large", check: ({ log }) => expect(log.bytesRead).toBeLessThanOrEqual(512) },
    timeout: 30_000,
  },
  {
    name: "a 10 MB single line: paged mid-line, a page's worth read",
    tool: "read_workspace_file",
    setup: (place) => place.files({ "line.txt": "a".repeat(tenMegabytes) }),
    input: { path: "line.txt" },
    expected: { succeeds: boundedPage({ maxBytesRead: 48 * 1024, totalBytes: tenMegabytes }) },
    timeout: 30_000,
  },
  {
    name: "a 10 MB single line continued deep inside: a page's worth read, not the bytes before",
    tool: "read_workspace_file",
    setup: (place) => place.files({ "line.txt": "a".repeat(tenMegabytes) }),
    input: { path: "line.txt", offset: 5_000_000 },
    expected: { succeeds: boundedPage({ maxBytesRead: 48 * 1024, totalBytes: tenMegabytes, offset: 5_000_000 }) },
    timeout: 30_000,
  },
  {
    name: "a 10 MB single line searched: the hit's text is cut, the page bounded",
    tool: "search_workspace",
    setup: (place) => place.files({ "line.txt": `${"a".repeat(tenMegabytes)}needle` }),
    input: { query: "needle" },
    expected: {
      succeeds: ({ json, text }) => {
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(32_768);
        const [hit] = json().hits;
        expect(hit).toMatchObject({ path: "line.txt", line: 1, textTruncated: true });
        expect(Buffer.byteLength(hit.text)).toBeLessThanOrEqual(512);
      },
    },
    timeout: 30_000,
  },
  {
    name: "invalid UTF-8: shown as U+FFFD, flagged invalidUtf8",
    tool: "read_workspace_file",
    setup: (place) => place.files({ "bad.txt": Uint8Array.from([0x6f, 0x6b, 0xc3, 0x28, 0xff, 0xfe, 0x0a]) }),
    input: { path: "bad.txt" },
    expected: {
      succeeds: ({ json }) => {
        const page = json();
        expect(page.invalidUtf8).toBe(true);
        expect(page.text).toBe("ok\uFFFD(\uFFFD\uFFFD\n");
        expect(page.bytes).toBe(7);
      },
    },
  },
  {
    name: "Update of invalid UTF-8",
    tool: "apply_workspace_patch",
    setup: (place) => place.files({ "bad.txt": Uint8Array.from([0x6f, 0x6b, 0xff, 0x0a]) }),
    input: patch(updateFile("bad.txt", "ok\uFFFD", "fixed")),
    expected: { refuses: "file_not_utf8" },
  },
  {
    name: "a binary file",
    tool: "read_workspace_file",
    setup: (place) => place.files({ "blob.bin": Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x00, 0x00, 0x01]) }),
    input: { path: "blob.bin" },
    expected: { refuses: "binary_file" },
  },
];

const patchShapes: Attack[] = [
  {
    name: "a path added twice",
    tool: "apply_workspace_patch",
    input: patch(addFile("twice.txt", "one"), addFile("twice.txt", "two")),
    expected: { admitRefuses: "path_duplicated" },
  },
  {
    name: "Add and Delete of one path",
    tool: "apply_workspace_patch",
    setup: (place) => place.files({ "both.txt": "x\n" }),
    input: patch(addFile("both.txt", "new"), deleteFileSection("both.txt")),
    expected: { admitRefuses: "path_duplicated" },
  },
  {
    name: "a Move onto another operation's path",
    tool: "apply_workspace_patch",
    setup: (place) => place.files({ "a.txt": "a\n", "b.txt": "b\n" }),
    input: patch(updateFile("a.txt", "a", "moved", "b.txt"), deleteFileSection("b.txt")),
    expected: { admitRefuses: "path_duplicated" },
  },
  {
    name: "a Move onto its own source",
    tool: "apply_workspace_patch",
    setup: (place) => place.files({ "a.txt": "a\n" }),
    input: patch(updateFile("a.txt", "a", "moved", "a.txt")),
    expected: { admitRefuses: "path_duplicated" },
  },
  {
    name: "a Move out of the root `../x`",
    tool: "apply_workspace_patch",
    setup: (place) => place.files({ "a.txt": "a\n" }),
    input: patch(updateFile("a.txt", "a", "moved", "../outside.txt")),
    expected: { admitRefuses: "path_invalid" },
  },
  {
    name: "a Move to the absolute path of the outside file",
    tool: "apply_workspace_patch",
    setup: (place) => place.files({ "a.txt": "a\n" }),
    input: (place) => patch(updateFile("a.txt", "a", "moved", place.outside)),
    expected: { admitRefuses: "path_invalid" },
  },
  {
    name: "Delete of a directory",
    tool: "apply_workspace_patch",
    setup: (place) => place.files({ "dir/keep.txt": "keep\n" }),
    input: patch(deleteFileSection("dir")),
    expected: { admitRefuses: "path_is_directory" },
  },
  {
    name: "Delete of a link to a file inside",
    tool: "apply_workspace_patch",
    setup: async (place) => {
      await place.files({ "real.txt": "real\n" });
      await place.link("alias.txt", "real.txt");
    },
    input: patch(deleteFileSection("alias.txt")),
    expected: { admitRefuses: "path_is_symlink" },
  },
  {
    name: "Add over a directory",
    tool: "apply_workspace_patch",
    setup: (place) => place.files({ "dir/keep.txt": "keep\n" }),
    input: patch(addFile("dir", "x")),
    expected: { admitRefuses: "path_is_directory" },
  },
  {
    name: "Add below a file used as a directory",
    tool: "apply_workspace_patch",
    setup: (place) => place.files({ "a.txt": "a\n" }),
    input: patch(addFile("a.txt/x", "x")),
    expected: { admitRefuses: "not_a_directory" },
  },
  {
    name: "Delete of a missing file",
    tool: "apply_workspace_patch",
    input: patch(deleteFileSection("ghost.txt")),
    expected: { admitRefuses: "path_not_found" },
  },
  {
    name: "an oversize patch",
    tool: "apply_workspace_patch",
    limits: { maxInputBytes: 64 },
    input: patch(addFile("big.txt", "x".repeat(100))),
    expected: { admitRefuses: "input_too_large" },
  },
  {
    name: "a patch of maxPatchFiles + 1 files",
    tool: "apply_workspace_patch",
    limits: { maxPatchFiles: 3 },
    input: patch(...["1", "2", "3", "4"].map((name) => addFile(`${name}.txt`, name))),
    expected: { admitRefuses: "too_many_files" },
  },
  {
    name: "an oversize edit",
    tool: "edit_workspace_file",
    limits: { maxInputBytes: 16 },
    setup: (place) => place.files({ "a.txt": "a\n" }),
    input: { path: "a.txt", expected: "a", replacement: "x".repeat(100) },
    expected: { admitRefuses: "input_too_large" },
  },
];

const listAndSearch: Attack[] = [
  {
    name: "a link to an outside directory",
    tool: "list_workspace",
    setup: outsideLinks,
    input: { path: "outdir" },
    expected: { refuses: "path_is_symlink" },
  },
  {
    name: "a link to an outside directory used as a parent",
    tool: "list_workspace",
    setup: async (place) => {
      await outsideLinks(place);
      await mkdir(join(place.outsideDirectory, "deeper"));
    },
    input: { path: "outdir/deeper" },
    expected: { refuses: "path_through_symlink" },
  },
  {
    name: "recursive: links to outside are listed as links, never descended into",
    tool: "list_workspace",
    setup: async (place) => {
      await outsideLinks(place);
      await place.link("proc", "/proc/self/root");
      await place.link("evil", place.evil);
      await place.files({ "sub/inner.txt": "inner\n" });
    },
    input: { path: ".", recursive: true },
    expected: {
      succeeds: ({ json, log, place }) => {
        expect(json()).toEqual({
          path: ".",
          entries: [
            { path: "evil", type: "symlink" },
            { path: "outdir", type: "symlink" },
            { path: "proc", type: "symlink" },
            { path: "rel-out.txt", type: "symlink" },
            { path: "out.txt", type: "symlink" },
            { path: "sub", type: "directory" },
            { path: "sub/inner.txt", type: "file", bytes: 6 },
          ].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path))),
          truncated: false,
        });
        const listed = log.calls.filter((call) => call.operation === "readdir").map((call) => call.paths[0]);
        expect(listed).toEqual([place.root, place.at("sub")]);
      },
    },
  },
  {
    name: "search does not follow links to outside files or directories",
    tool: "search_workspace",
    setup: async (place) => {
      await outsideLinks(place);
      await place.link("evil.txt", "../root-evil/secret.txt");
      await place.link("proc", "/proc/self/root");
      await place.files({ "inner.txt": "inside secret\n" });
    },
    input: { query: "secret" },
    expected: {
      succeeds: ({ json, log, place }) => {
        expect(json()).toMatchObject({
          hits: [{ path: "inner.txt", line: 1, text: "inside secret" }],
          truncated: false,
        });
        expect(opened(log)).toEqual([place.at("inner.txt")]);
      },
    },
  },
  {
    name: "a link to the outside file as the search path",
    tool: "search_workspace",
    setup: outsideLinks,
    input: { query: "secret", path: "out.txt" },
    expected: { refuses: "path_is_symlink" },
  },
  {
    name: "a link to an outside directory as the search path",
    tool: "search_workspace",
    setup: outsideLinks,
    input: { query: "secret", path: "outdir" },
    expected: { refuses: "path_is_symlink" },
  },
  {
    name: "a file below a link to an outside directory as the search path",
    tool: "search_workspace",
    setup: outsideLinks,
    input: { query: "secret", path: "outdir/secret.txt" },
    expected: { refuses: "path_through_symlink" },
  },
];

const attacks: readonly Attack[] = [
  ...pathForms,
  ...lookAlikes,
  ...links,
  ...specialFiles,
  ...sizes,
  ...patchShapes,
  ...listAndSearch,
];

// ---------------------------------------------------------------------------------------------
// Running a case

function toolFor(
  tool: ToolName,
  place: Place,
  operations: WorkspaceOperations,
  limits: Partial<WorkspaceLimits> | undefined,
  unprotected: boolean,
): Tool {
  if (tool === "read_workspace_image") return createWorkspaceImageTool({ root: place.rootUrl, operations }) as Tool;
  const { tools } = workspaceToolsFor(place.rootUrl, {
    operations,
    ...(limits ? { limits } : {}),
    ...(unprotected ? { allowProtectedWrites: true } : {}),
  });
  const found = tools[tool];
  if (!found) throw new Error(`workspaceToolsFor returned no ${tool}`);
  return found;
}

/** The code `admit` refused with, or `admitted`. */
async function admitCode(tool: Tool, input: JsonValue): Promise<string> {
  if (!tool.admit) throw new Error(`${tool.name} has no admit`);
  try {
    await tool.admit(input as never, toolContext({ toolName: tool.name }));
  } catch (error) {
    if (isToolInputError(error)) return error.code;
    throw error;
  }
  return "admitted";
}

async function runAttack(attack: Attack): Promise<void> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const place = await makePlace(closers);
    await attack.setup?.(place);
    const sentinelBefore = await treeState(place.base, place.root);
    const rootBefore = await treeState(place.root);
    const { operations, log } = loggingOperations();
    const tool = toolFor(attack.tool, place, operations, attack.limits, attack.unprotected === true);
    const input = typeof attack.input === "function" ? attack.input(place) : attack.input;
    const { expected } = attack;
    if ("admitRefuses" in expected) {
      expect(await admitCode(tool, input)).toBe(expected.admitRefuses);
      // Before permission only metadata is read, and nothing changes.
      expect(log.calls.filter((call) => !metadataOperations.has(call.operation))).toEqual([]);
      expect(await treeState(place.root)).toEqual(rootBefore);
    } else {
      const { result, text, json, admission } = await callTool(tool, input);
      // A write tool got this far only through its admission: what follows is execution's.
      if (tool.admit) expect(admission, text).toBeDefined();
      for (const secret of sentinelTexts) expect(text).not.toContain(secret);
      const outcome: Outcome = { place, result, text, json, log, rootBefore };
      if ("refuses" in expected) {
        expect(result.isError).toBe(true);
        expect(text.startsWith(`${expected.refuses}:`), text).toBe(true);
        expect(await treeState(place.root)).toEqual(rootBefore);
        await expected.check?.(outcome);
      } else {
        expect(result.isError, textOfResult(result)).toBe(false);
        await expected.succeeds(outcome);
      }
    }
    expect(pathsOutside(log, place.root)).toEqual([]);
    expect(await escapes(log, place.root)).toEqual([]);
    expect(badOpens(log)).toEqual([]);
    expect(await treeState(place.base, place.root)).toEqual(sentinelBefore);
  } finally {
    for (const close of closers.reverse()) await close();
  }
}

describe("hostile inputs to the workspace tools", () => {
  it("has at least 40 cases, each named once per tool", () => {
    expect(attacks.length).toBeGreaterThanOrEqual(40);
    const names = attacks.map((attack) => `${attack.tool}: ${attack.name}`);
    expect(new Set(names).size).toBe(names.length);
  });

  for (const attack of attacks) {
    it(`${attack.tool}: ${attack.name}`, () => runAttack(attack), attack.timeout ?? 15_000);
  }
});

// ---------------------------------------------------------------------------------------------
// A directory swapped for a link between the checks and the write

/**
 * A race: `dir/` (holding file.txt) is moved to `dir-moved/` and `dir` becomes a link to the
 * outside directory (which holds its own file.txt) when `when` first matches a call.
 */
async function raceSetup(when: (call: Parameters<BeforeCall>[0]) => boolean) {
  const closers: (() => Promise<void>)[] = [];
  const place = await makePlace(closers);
  await place.files({ "dir/file.txt": "inside\n" });
  const sentinelBefore = await treeState(place.base, place.root);
  let swapped = false;
  let swapIndex = -1;
  const { operations, log } = loggingOperations(async (call) => {
    if (swapped || !when(call)) return;
    swapped = true;
    swapIndex = log.calls.length - 1;
    await rename(place.at("dir"), place.at("dir-moved"));
    await symlink(place.outsideDirectory, place.at("dir"));
  });
  const { tools } = workspaceToolsFor(place.rootUrl, { operations });
  return {
    place,
    log,
    tools,
    swappedYet: () => swapped,
    /** The content calls from the swap on that landed outside (those before it ran through the real directory). */
    escapesSinceSwap: () => escapes(log, place.root, swapIndex),
    sentinelUnchanged: async () => expect(await treeState(place.base, place.root)).toEqual(sentinelBefore),
  };
}

const creates = (call: { operation: string; flags?: number }) =>
  call.operation === "open" && ((call.flags ?? 0) & constants.O_CREAT) !== 0;

describe("a parent directory swapped for a link to outside mid-call", () => {
  it("edit, swapped as the temporary file is created: path_changed, the stray temporary file removed", async () => {
    const { place, log, tools, swappedYet, escapesSinceSwap, sentinelUnchanged } = await raceSetup(creates);
    const { result, text } = await callTool(tools.edit_workspace_file as Tool, {
      path: "dir/file.txt",
      expected: "inside",
      replacement: "pwned",
    });
    expect(swappedYet()).toBe(true);
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^path_changed: "dir" \(on the way to "dir\/file.txt"\)/);
    // The documented limit: the temporary file's open went through the new link (Node has no
    // openat); it was found out before the rename and removed from where it landed.
    const outside = await escapesSinceSwap();
    expect(outside).toHaveLength(2);
    expect(outside[0]).toMatch(/^open .*\/dir\/\.castellan-[0-9a-f]{16}\.tmp /);
    expect(outside[1]).toMatch(/^unlink .*\/dir\/\.castellan-[0-9a-f]{16}\.tmp /);
    expect(callsOf(log, "rename")).toEqual([]);
    expect(pathsOutside(log, place.root)).toEqual([]);
    expect(badOpens(log)).toEqual([]);
    expect(await readFile(place.at("dir-moved/file.txt"), "utf8")).toBe("inside\n");
    expect(await readdir(place.at("dir-moved"))).toEqual(["file.txt"]);
    await sentinelUnchanged();
  });

  it("patch Update, swapped just before the rename: path_changed, nothing outside written or replaced", async () => {
    const { place, tools, swappedYet, escapesSinceSwap, sentinelUnchanged } = await raceSetup(
      (call) => call.operation === "rename",
    );
    const { result, text } = await callTool(
      tools.apply_workspace_patch as Tool,
      patch(updateFile("dir/file.txt", "inside", "pwned")),
    );
    expect(swappedYet()).toBe(true);
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^path_changed: /);
    expect(text).toContain("Nothing was written.");
    // The rename's paths ran through the new link and failed there (its source is not in the
    // outside directory); the temporary file stays where it was made, inside the root.
    expect((await escapesSinceSwap()).map((line) => line.split(" ")[0])).toEqual(["rename", "rename"]);
    expect(await readFile(place.at("dir-moved/file.txt"), "utf8")).toBe("inside\n");
    expect((await readdir(place.at("dir-moved"))).filter((name) => name !== "file.txt")).toEqual([
      expect.stringMatching(/^\.castellan-[0-9a-f]{16}\.tmp$/),
    ]);
    await sentinelUnchanged();
  });

  it("read, swapped just before the open: path_changed, not a byte of the outside twin read", async () => {
    const { place, log, tools, swappedYet, sentinelUnchanged } = await raceSetup((call) => call.operation === "open");
    const { result, text } = await callTool(tools.read_workspace_file as Tool, { path: "dir/file.txt" });
    expect(swappedYet()).toBe(true);
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^path_changed: /);
    expect(text).not.toContain("outside twin");
    // The open landed on the outside twin (checks are by path); fstat showed another file, and it
    // was closed unread.
    expect(log.bytesRead).toBe(0);
    expect(pathsOutside(log, place.root)).toEqual([]);
    await sentinelUnchanged();
  });

  // Regression: deleteFile once checked by path and unlinked by path, so a parent swapped for a
  // link just before the unlink removed the outside file of the same name. It now renames the
  // file to a unique name, checks again, and unlinks only that name.
  it("patch Delete, swapped just before the unlink: the outside file of the same name survives", async () => {
    const { place, tools, swappedYet, sentinelUnchanged } = await raceSetup((call) => call.operation === "unlink");
    const { result } = await callTool(tools.apply_workspace_patch as Tool, patch(deleteFileSection("dir/file.txt")));
    expect(swappedYet()).toBe(true);
    expect(await readFile(join(place.outsideDirectory, "file.txt"), "utf8")).toBe("outside twin\n");
    await sentinelUnchanged();
    expect(result.isError).toBe(true);
  });
});
