// `castellan doctor`: one line per check, what to do for each that is not ok, exit 0 only when
// the sandbox and one provider are ready. The sandbox check is a real probe under bubblewrap:
// a write in the root lands, one beside it does not, and a loopback connect never arrives. A
// key variable is reported as set or not set, never its value.
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms, programPath } from "../../../test-support/system-programs.ts";
import { chromiumCheck, type DoctorCheck, formatDoctor, nodeCheck, providerChecks } from "../src/index.js";
import { runBin } from "./support/run-bin.ts";

const secret = "sk-ant-SENTINEL-doctor-51c0de";
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "castellan-doctor-test-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("doctor checks", () => {
  it("compares Node's version with 22.12", () => {
    expect(nodeCheck("22.12.0").status).toBe("ok");
    expect(nodeCheck("24.1.0").status).toBe("ok");
    expect(nodeCheck("22.11.9")).toMatchObject({ status: "fail", fix: "install Node 22.12 or newer" });
    expect(nodeCheck("20.19.0").status).toBe("fail");
  });

  it("finds Chromium at CASTELLAN_CHROMIUM only as an executable file at an absolute path", async () => {
    const file = join(root, "chromium");
    await writeFile(file, "#!/bin/sh\n", { mode: 0o755 });
    expect(chromiumCheck({ CASTELLAN_CHROMIUM: file })).toMatchObject({ status: "ok", required: false });
    await chmod(file, 0o644);
    expect(chromiumCheck({ CASTELLAN_CHROMIUM: file })).toMatchObject({ status: "missing", required: false });
    expect(chromiumCheck({ CASTELLAN_CHROMIUM: "chromium" }).status).toBe("missing");
    expect(chromiumCheck({ CASTELLAN_CHROMIUM: root }).fix).toContain("CASTELLAN_CHROMIUM");
  });

  it("says set or not set for each key, and never its value, length or prefix", () => {
    const checks = providerChecks({ OPENROUTER_API_KEY: secret });
    expect(checks.map((check) => [check.check, check.status, check.detail])).toEqual([
      ["anthropic key", "missing", "ANTHROPIC_API_KEY not set"],
      ["codex key", "missing", "CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN not set"],
      ["openai key", "missing", "OPENAI_API_KEY not set"],
      ["openrouter key", "ok", "OPENROUTER_API_KEY set"],
    ]);
    const text = JSON.stringify(checks) + formatDoctor(checks);
    expect(text).not.toContain(secret);
    expect(text).not.toContain("sk-ant");
    expect(text).not.toContain(String(secret.length));
  });

  it("prints each check, then what to do for each that is not ok", () => {
    const checks: DoctorCheck[] = [
      {
        check: "bwrap",
        status: "missing",
        detail: "not found in PATH",
        fix: "apt-get install -y bubblewrap",
        required: true,
      },
      { check: "git", status: "ok", detail: "/usr/bin/git", required: false },
    ];
    expect(formatDoctor(checks)).toBe(
      "missing bwrap: not found in PATH\nok      git: /usr/bin/git\n\nTo do:\n  bwrap: apt-get install -y bubblewrap\n",
    );
  });
});

describeNeeding(osSandboxPrograms, "castellan doctor on this machine", () => {
  it("is all ok with the sandbox confined and a key set, exit 0, and prints no key", async () => {
    const result = await runBin(["doctor"], { cwd: root, env: { ANTHROPIC_API_KEY: secret } });
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    for (const check of ["node", "bwrap", "socat", "rg", "git", "sandbox confined", "anthropic key"]) {
      expect(lines.find((line) => line.includes(` ${check}:`))).toMatch(/^ok /);
    }
    expect(result.stdout).toContain("ok      sandbox confined: writes stay in the workspace, no direct network");
    expect(result.stdout + result.stderr).not.toContain(secret);
    const json = await runBin(["doctor", "--json"], { cwd: root, env: { ANTHROPIC_API_KEY: secret } });
    const checks = JSON.parse(json.stdout) as DoctorCheck[];
    expect(checks.find((check) => check.check === "sandbox confined")?.status).toBe("ok");
    expect(json.stdout).not.toContain(secret);
  });

  it("reports bwrap missing with the install line when PATH lacks it, and exits 1", async () => {
    // A PATH of everything the doctor looks for except bubblewrap.
    const bin = join(root, "bin");
    await mkdir(bin);
    await symlink(programPath("socat") as string, join(bin, "socat"));
    await symlink(programPath("rg") as string, join(bin, "rg"));
    const result = await runBin(["doctor"], {
      cwd: root,
      env: { PATH: `${bin}:/bin-none`, ANTHROPIC_API_KEY: secret },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("missing bwrap: not found in PATH");
    expect(result.stdout).toMatch(/^fail {4}sandbox confined: could not run: .*bwrap/m);
    expect(result.stdout).toContain("  bwrap: apt-get install -y bubblewrap");
  });

  it("exits 1 without any provider key, naming each variable to set", async () => {
    const result = await runBin(["doctor"], { cwd: root, env: {} });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("missing anthropic key: ANTHROPIC_API_KEY not set");
    expect(result.stdout).toContain("  openai key: export OPENAI_API_KEY=...");
  });
});
