// The one place that says whether bwrap, socat, rg and Chromium are here: found the way the
// tests then run them (PATH, or $CASTELLAN_TEST_CHROMIUM for Chromium), reported with the
// Debian install command outside CI, and a thrown error under CI.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { programPath, requirePrograms } from "./system-programs.ts";

const folder = mkdtempSync(join(tmpdir(), "castellan-programs-"));
for (const name of ["bwrap", "chromium"]) {
  writeFileSync(join(folder, name), "#!/bin/sh\n");
  chmodSync(join(folder, name), 0o755);
}
// Present but not executable: not a program.
writeFileSync(join(folder, "socat"), "");

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

describe("programPath", () => {
  it("finds executables on PATH only", () => {
    vi.stubEnv("PATH", folder);
    vi.stubEnv("CASTELLAN_TEST_CHROMIUM", "");
    expect(programPath("bwrap")).toBe(join(folder, "bwrap"));
    expect(programPath("socat")).toBeUndefined();
    expect(programPath("rg")).toBeUndefined();
    expect(programPath("chromium")).toBe(join(folder, "chromium"));
  });

  it("takes Chromium from $CASTELLAN_TEST_CHROMIUM when set, and nowhere else then", () => {
    vi.stubEnv("PATH", folder);
    vi.stubEnv("CASTELLAN_TEST_CHROMIUM", join(folder, "bwrap"));
    expect(programPath("chromium")).toBe(join(folder, "bwrap"));
    vi.stubEnv("CASTELLAN_TEST_CHROMIUM", join(folder, "absent"));
    expect(programPath("chromium")).toBeUndefined();
    vi.stubEnv("CASTELLAN_TEST_CHROMIUM", "chromium");
    expect(programPath("chromium")).toBeUndefined();
  });
});

describe("requirePrograms", () => {
  it("outside CI, names the missing programs' packages and their install command", () => {
    vi.stubEnv("PATH", folder);
    vi.stubEnv("CI", "");
    expect(requirePrograms(["bwrap", "chromium"])).toEqual({
      available: true,
      missing: [],
      reason: undefined,
      skipNote: "",
    });
    expect(requirePrograms(["bwrap", "socat", "rg"])).toEqual({
      available: false,
      missing: ["socat", "rg"],
      reason: "socat, ripgrep missing: apt-get install -y socat ripgrep",
      skipNote: " — SKIPPED: socat, ripgrep missing: apt-get install -y socat ripgrep",
    });
  });

  it("under CI, throws for a missing program instead of skipping", () => {
    vi.stubEnv("PATH", folder);
    vi.stubEnv("CI", "true");
    vi.stubEnv("CASTELLAN_TEST_CHROMIUM", join(folder, "absent"));
    expect(() => requirePrograms(["chromium"])).toThrow(/need chromium under CI .*apt-get install -y chromium/);
    expect(requirePrograms(["bwrap"]).available).toBe(true);
  });
});
