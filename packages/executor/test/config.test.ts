// The executor's settings: every knob's default, its environment variable, the option that
// beats it, the derived defaults (tool silence half the ceiling, the install timeout a third of
// it and never more), the token's sources and bounds, and ExecutorConfigError naming the
// setting without its value.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ExecutorConfigError, knobVariables, resolveExecutorOptions, resolveKnobs } from "../src/index.js";
import { tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-config-");
const token = "t".repeat(32);

describe("the executor's knobs", () => {
  it("defaults to the documented values", () => {
    expect(resolveKnobs({}, {})).toEqual({
      port: 27_182,
      maxConcurrentJobs: 4,
      jobMaxDurationMs: 3_600_000,
      jobInactivityMs: 600_000,
      jobToolSilenceMs: 1_800_000,
      maxConsecutiveMcpCalls: 40,
      maxConsecutiveWebCalls: 20,
      maxConsecutiveNonActionCalls: 200,
      noEditCallLimit: 60,
      jobColdStartMs: 120_000,
      checkpointIntervalMs: 60_000,
      dependencyInstallTimeoutMs: 1_200_000,
      dependencyInstallHeartbeatMs: 30_000,
      validationCommandTimeoutMs: 900_000,
      reproductionCommandTimeoutMs: 900_000,
      reproductionHeartbeatMs: 30_000,
      reproductionTotalBudgetMs: 2_700_000,
      transcriptTtlMs: 259_200_000,
      sandboxReadyTimeoutSeconds: 60,
      jobNiceness: 10,
    });
  });

  it("reads each knob from its variable, and an option beats the variable", () => {
    const env = Object.fromEntries(
      // Distinct values every knob accepts (the niceness stops at 19).
      Object.values(knobVariables).map((variable, index) => [variable, String((index % 17) + 2)]),
    );
    const fromEnv = resolveKnobs({}, env);
    for (const [option, variable] of Object.entries(knobVariables)) {
      const expected = Number(env[variable]);
      // The install timeout is clamped to a third of the ceiling.
      if (option === "dependencyInstallTimeoutMs") continue;
      expect(fromEnv[option as keyof typeof fromEnv], option).toBe(expected);
    }
    expect(resolveKnobs({ port: 4000, jobInactivityMs: 5 }, { PORT: "5000", JOB_INACTIVITY_MS: "9" })).toMatchObject({
      port: 4000,
      jobInactivityMs: 5,
    });
  });

  it("derives tool silence and the install timeout from the ceiling, clamping an explicit install timeout", () => {
    expect(resolveKnobs({}, { JOB_MAX_DURATION_MS: "90000" })).toMatchObject({
      jobToolSilenceMs: 45_000,
      dependencyInstallTimeoutMs: 30_000,
    });
    expect(resolveKnobs({ jobMaxDurationMs: 90_000, dependencyInstallTimeoutMs: 80_000 }, {})).toMatchObject({
      dependencyInstallTimeoutMs: 30_000,
    });
    expect(resolveKnobs({}, { JOB_TOOL_SILENCE_MS: "0", JOB_COLD_START_MS: "0" })).toMatchObject({
      jobToolSilenceMs: 0,
      jobColdStartMs: 0,
    });
  });

  it("refuses a value that is not a non-negative integer in range, naming the setting and not the value", () => {
    for (const [env, named] of [
      [{ JOB_INACTIVITY_MS: "-5" }, "JOB_INACTIVITY_MS"],
      [{ PORT: "80.5" }, "PORT"],
      [{ PORT: "70000" }, "PORT"],
      [{ CASTELLAN_EXECUTOR_MAX_JOBS: "0" }, "CASTELLAN_EXECUTOR_MAX_JOBS"],
      [{ CASTELLAN_EXECUTOR_JOB_NICENESS: "20" }, "CASTELLAN_EXECUTOR_JOB_NICENESS"],
      [{ JOB_MAX_CONSECUTIVE_MCP_CALLS: "lots-secret-value" }, "JOB_MAX_CONSECUTIVE_MCP_CALLS"],
    ] as const) {
      let caught: unknown;
      try {
        resolveKnobs({}, env);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ExecutorConfigError);
      expect(caught).toMatchObject({ code: "executor_config_invalid", setting: named });
      expect((caught as Error).message).toContain(named);
      expect((caught as Error).message).not.toContain(Object.values(env)[0] as string);
    }
    expect(() => resolveKnobs({ jobMaxDurationMs: 1.5 }, {})).toThrow(/jobMaxDurationMs/);
  });
});

describe("the executor's token and paths", () => {
  it("takes the token from the option, the token file (preferred) or the variable", async () => {
    const file = join(temp.path, "token");
    await writeFile(file, `${"f".repeat(40)}\n`);
    expect(resolveExecutorOptions({ token, env: {} }).token).toBe(token);
    expect(
      resolveExecutorOptions({ env: { CASTELLAN_EXECUTOR_TOKEN_FILE: file, CASTELLAN_EXECUTOR_TOKEN: "e".repeat(40) } })
        .token,
    ).toBe("f".repeat(40));
    expect(resolveExecutorOptions({ env: { CASTELLAN_EXECUTOR_TOKEN: "e".repeat(40) } }).token).toBe("e".repeat(40));
  });

  it("requires a token of at least 32 characters", () => {
    expect(() => resolveExecutorOptions({ env: {} })).toThrow(
      expect.objectContaining({ code: "executor_config_invalid", setting: "CASTELLAN_EXECUTOR_TOKEN" }),
    );
    const short = "s".repeat(31);
    let caught: unknown;
    try {
      resolveExecutorOptions({ env: { CASTELLAN_EXECUTOR_TOKEN: short } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: "executor_config_invalid" });
    expect((caught as Error).message).not.toContain(short);
    expect(() =>
      resolveExecutorOptions({ env: { CASTELLAN_EXECUTOR_TOKEN_FILE: join(temp.path, "missing") } }),
    ).toThrow(expect.objectContaining({ setting: "CASTELLAN_EXECUTOR_TOKEN_FILE" }));
  });

  it("defaults the addresses and paths, and reads their variables", () => {
    const defaults = resolveExecutorOptions({ token, env: {} });
    expect(defaults).toMatchObject({
      host: "127.0.0.1",
      sandboxProbeBinary: "/bin/true",
      egressTarget: undefined,
      egressDnsName: "registry.npmjs.org",
      allowFileRemotes: false,
      shutdownGraceMs: 30_000,
    });
    expect(defaults.dataDirectory).toMatch(/\.castellan\/executor$/);
    // Transcripts default to a folder of the data directory, and follow it when it moves.
    expect(defaults.transcriptRoot).toBe(join(defaults.dataDirectory, "transcripts"));
    expect(resolveExecutorOptions({ token, env: { CASTELLAN_EXECUTOR_DATA_DIR: temp.path } }).transcriptRoot).toBe(
      join(temp.path, "transcripts"),
    );
    expect(defaults.sandboxStatusFile).toMatch(/harness-docker-status\.json$/);
    const set = resolveExecutorOptions({
      token,
      env: {
        CASTELLAN_EXECUTOR_HOST: "::1",
        CASTELLAN_EXECUTOR_DATA_DIR: temp.path,
        HARNESS_TRANSCRIPT_ROOT: join(temp.path, "t"),
        HARNESS_DOCKER_EGRESS_TARGET: "127.0.0.1:9",
      },
    });
    expect(set).toMatchObject({
      host: "::1",
      dataDirectory: temp.path,
      transcriptRoot: join(temp.path, "t"),
      egressTarget: "127.0.0.1:9",
    });
  });

  it("reads DOCKER_HOST once, with the other settings, so no job reads the environment", () => {
    const token = "t".repeat(40);
    expect(resolveExecutorOptions({ token, env: { DOCKER_HOST: "unix:///run/docker.sock" } }).dockerHostSet).toBe(true);
    expect(resolveExecutorOptions({ token, env: {} }).dockerHostSet).toBe(false);
  });
});
