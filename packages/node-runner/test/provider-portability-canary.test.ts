// Smoke test of the provider portability canary (packages/node-runner/scripts/provider-portability-canary.ts),
// an opt-in live check: here only its offline paths run, in a child process on this Node, with
// the credential variables removed. They must skip (or fail with --require-live) before anything
// is built, packed or sent: the child runs under Node's permission model, which lets it read
// files but neither write any nor start a process, so packing would fail the test.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// A type import (erased when the test runs) that also makes `tsc -p tsconfig.tests.json` check the script.
import type { CanaryProvider } from "../scripts/provider-portability-canary.ts";

const script = fileURLToPath(new URL("../scripts/provider-portability-canary.ts", import.meta.url));
const providers: readonly CanaryProvider[] = ["codex", "openrouter"];
const credentialVariables = [
  "CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN",
  "CASTELLAN_OPENAI_CODEX_ACCOUNT_ID",
  "CASTELLAN_OPENAI_CODEX_MODEL",
  "CASTELLAN_OPENAI_CODEX_BASE_URL",
  "OPENROUTER_API_KEY",
  "OPENROUTER_MODEL",
  "OPENROUTER_BASE_URL",
];

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runCanary(args: readonly string[], extra: Record<string, string> = {}): Promise<Outcome> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of credentialVariables) if (!(name in extra)) delete env[name];
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--permission", "--allow-fs-read=*", script, ...args],
      { env, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe("the provider portability canary without credentials", () => {
  it("skips every provider, naming the missing variables, and exits 0", async () => {
    const outcome = await runCanary([]);
    expect(outcome.stderr).toBe("");
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe(
      "skipped: codex: CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN is not set\n" +
        "skipped: openrouter: OPENROUTER_API_KEY and OPENROUTER_MODEL are not set\n",
    );
  });

  it("skips only the provider it was asked for", async () => {
    for (const provider of providers) {
      const outcome = await runCanary([`--provider=${provider}`]);
      expect(outcome.code).toBe(0);
      expect(outcome.stdout.trim().split("\n")).toEqual([expect.stringMatching(new RegExp(`^skipped: ${provider}: `))]);
    }
  });

  it("names a missing variable without printing the ones that are set", async () => {
    const key = "sk-or-v1-canary-test-value-not-a-key";
    const outcome = await runCanary(["--provider=openrouter"], { OPENROUTER_API_KEY: key, OPENROUTER_MODEL: "  " });
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe("skipped: openrouter: OPENROUTER_MODEL is not set\n");
    expect(outcome.stdout + outcome.stderr).not.toContain(key);
  });

  it("exits 1 with --require-live, saying why on stderr", async () => {
    const outcome = await runCanary(["--require-live"]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toContain("CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN is not set");
    expect(outcome.stderr).toContain("OPENROUTER_API_KEY and OPENROUTER_MODEL are not set");
  });

  it("exits 2 with the usage on an unknown provider or flag", async () => {
    for (const args of [["--provider=nope"], ["--live"]]) {
      const outcome = await runCanary(args);
      expect(outcome.code, args.join(" ")).toBe(2);
      expect(outcome.stdout).toBe("");
      expect(outcome.stderr).toContain("usage: node packages/node-runner/scripts/provider-portability-canary.ts");
    }
  });
});
