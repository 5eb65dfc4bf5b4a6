// The system programs some suites need and `npm ci` does not install: bubblewrap, socat and
// ripgrep (the OS sandbox) and Chromium (the browser tools). One place decides whether each is
// here, the same way the tests then find it, so a suite that runs uses exactly what was checked.
//
// Outside CI a suite whose program is missing is skipped, with the missing program and its
// Debian install command in the suite's name and in its tests' `meta.skippedFor`, which the
// summary reporter (scripts/summary-reporter.ts) lists on the closing line. Under CI
// (`runningUnderCi()`) a missing program throws while the file loads, so the file fails
// instead of passing quietly.
//
//   describeNeeding(["chromium"], "managed pages", () => { ... });
//   const bwrap = programPath("bwrap"); // where a test passes the path on
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { describe, it, type TestFunction } from "vitest";
import { runningUnderCi } from "./shared-conformance.ts";

declare module "vitest" {
  interface TaskMeta {
    /**
     * Set on every test of a suite skipped by {@link describeNeeding} or {@link itNeeding}:
     * `<packages> missing: apt-get install -y <packages>`. Absent on every other test.
     */
    skippedFor?: string;
  }
}

/** A system program some suites need. */
export type SystemProgram = "bwrap" | "socat" | "rg" | "chromium";

/** The Debian package that installs each program (the install command names these). */
export const debianPackages: Readonly<Record<SystemProgram, string>> = Object.freeze({
  bwrap: "bubblewrap",
  socat: "socat",
  rg: "ripgrep",
  chromium: "chromium",
});

/** What the OS sandbox of sandboxed commands needs: bubblewrap, socat and ripgrep. */
export const osSandboxPrograms: readonly SystemProgram[] = Object.freeze(["bwrap", "socat", "rg"]);

/**
 * The environment variable that points the browser tests at another Chromium (an absolute path,
 * such as an unpacked older build). Unset or empty: `chromium` is looked up on PATH.
 */
export const chromiumOverrideVariable = "CASTELLAN_TEST_CHROMIUM";

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable file named `name` in a PATH folder, or undefined. */
function onPath(name: string): string | undefined {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    if (folder === "" || !isAbsolute(folder)) continue;
    const candidate = join(folder, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The absolute path tests run `program` from, or undefined when it is not here. `bwrap`,
 * `socat` and `rg` are looked up on PATH (as the sandbox runtime finds them); `chromium` is
 * `$CASTELLAN_TEST_CHROMIUM` when that is set (undefined if it is not an executable file), else
 * the `chromium` on PATH (Debian's `/usr/bin/chromium`). Read afresh on every call.
 */
export function programPath(program: SystemProgram): string | undefined {
  if (program === "chromium") {
    const override = process.env[chromiumOverrideVariable];
    if (override !== undefined && override !== "")
      return isAbsolute(override) && isExecutableFile(override) ? override : undefined;
  }
  return onPath(program);
}

/** Whether the programs a suite needs are here, and what to say when they are not. */
export interface ProgramsCheck {
  /** True when every program is here. */
  readonly available: boolean;
  /** The programs that are not here, in the order asked for; empty when available. */
  readonly missing: readonly SystemProgram[];
  /**
   * `<packages> missing: apt-get install -y <packages>` naming the missing programs' Debian
   * packages; undefined when available. The summary reporter groups skipped tests by it.
   */
  readonly reason: string | undefined;
  /** The text to append to the suite's name: `""` when available, else ` — SKIPPED: <reason>`. */
  readonly skipNote: string;
}

/**
 * Checks `programs` (at least one, each a {@link SystemProgram}). Outside CI it only reports;
 * under CI a missing program throws an Error naming it and its install command, so the calling
 * file fails while it loads.
 */
export function requirePrograms(programs: readonly SystemProgram[]): ProgramsCheck {
  if (programs.length === 0) throw new TypeError("requirePrograms: name at least one program.");
  const missing = [...new Set(programs)].filter((program) => programPath(program) === undefined);
  if (missing.length === 0) return { available: true, missing, reason: undefined, skipNote: "" };
  const names = missing.map((program) => debianPackages[program]);
  const reason = `${names.join(", ")} missing: apt-get install -y ${names.join(" ")}`;
  if (runningUnderCi()) {
    const where = missing.includes("chromium")
      ? ` (chromium is looked up as $${chromiumOverrideVariable}, else on PATH)`
      : " (looked up on PATH)";
    throw new Error(`These tests need ${names.join(", ")} under CI (CI=${process.env.CI}), but ${reason}${where}.`);
  }
  return { available: false, missing, reason, skipNote: ` — SKIPPED: ${reason}` };
}

/**
 * A `describe` that runs only where `programs` are all here. Missing outside CI, the suite is
 * skipped with {@link ProgramsCheck.skipNote} in its name and `meta.skippedFor` on its tests;
 * missing under CI, the file fails (see {@link requirePrograms}).
 */
export function describeNeeding(programs: readonly SystemProgram[], name: string, factory: () => void): void {
  const check = requirePrograms(programs);
  if (check.available) {
    describe(name, factory);
    return;
  }
  describe(`${name}${check.skipNote}`, { skip: true, meta: { skippedFor: check.reason } }, factory);
}

/**
 * An `it` that runs only where `programs` are all here, skipped or failing as
 * {@link describeNeeding} says. `timeout` is the test's own, in ms (default: the config's).
 */
export function itNeeding(
  programs: readonly SystemProgram[],
  name: string,
  body: TestFunction,
  timeout?: number,
): void {
  const check = requirePrograms(programs);
  if (check.available) {
    it(name, { timeout }, body);
    return;
  }
  it(`${name}${check.skipNote}`, { skip: true, timeout, meta: { skippedFor: check.reason } }, body);
}
