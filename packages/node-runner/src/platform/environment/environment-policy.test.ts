import { describe, expect, it } from "vitest";
import { type EnvironmentPolicy, resolveEnvironmentPolicy } from "./environment-policy.js";
import { EnvironmentPolicyError } from "./policy-error.js";

const host = {
  PATH: "/usr/bin",
  HOME: "/home/me",
  SHELL: "/bin/bash",
  TMPDIR: "/tmp",
  LANG: "C.UTF-8",
  LC_ALL: "C",
  USER: "me",
  LOGNAME: "me",
  EDITOR: "vi",
  NODE_ENV: "test",
  GITHUB_TOKEN: "ghp_secret",
  aws_secret_access_key: "aws",
  MY_API_KEY: "k",
  ANTHROPIC_API_KEY: "sk-ant",
  OPENAI_BASE_URL: "http://x",
  OPENROUTER_REFERER: "r",
  CODEX_HOME: "/c",
  CASTELLAN_DEBUG: "1",
  npm_config_cache: "/cache",
};

const environment = (policy: EnvironmentPolicy) => resolveEnvironmentPolicy(policy, "test").environmentFor(host);

describe("the environment policy", () => {
  it.each<[string, EnvironmentPolicy, Record<string, string>]>([
    [
      "core keeps the core names and LC_*",
      { inherit: "core" },
      {
        PATH: "/usr/bin",
        HOME: "/home/me",
        SHELL: "/bin/bash",
        TMPDIR: "/tmp",
        LANG: "C.UTF-8",
        LC_ALL: "C",
        USER: "me",
        LOGNAME: "me",
      },
    ],
    ["none passes nothing", { inherit: "none" }, {}],
    [
      "all passes everything but secrets and the never-passed prefixes",
      { inherit: "all" },
      {
        PATH: "/usr/bin",
        HOME: "/home/me",
        SHELL: "/bin/bash",
        TMPDIR: "/tmp",
        LANG: "C.UTF-8",
        LC_ALL: "C",
        USER: "me",
        LOGNAME: "me",
        EDITOR: "vi",
        NODE_ENV: "test",
        npm_config_cache: "/cache",
      },
    ],
    [
      "exclude takes case-insensitive * and ? globs",
      { inherit: "all", exclude: ["npm_*", "?ODE_ENV", "lc_*"] },
      {
        PATH: "/usr/bin",
        HOME: "/home/me",
        SHELL: "/bin/bash",
        TMPDIR: "/tmp",
        LANG: "C.UTF-8",
        USER: "me",
        LOGNAME: "me",
        EDITOR: "vi",
      },
    ],
    [
      "set comes after the filters, so a secret set on purpose is passed",
      { inherit: "none", set: { GITHUB_TOKEN: "scoped", CI: "1" } },
      { GITHUB_TOKEN: "scoped", CI: "1" },
    ],
    [
      "includeOnly comes last and applies to set names too",
      { inherit: "core", set: { CI: "1", EXTRA: "x" }, includeOnly: ["PATH", "c?"] },
      { PATH: "/usr/bin", CI: "1" },
    ],
    [
      "a glob character other than * and ? is literal",
      { inherit: "all", includeOnly: ["[PH]*", "HOME"] },
      { HOME: "/home/me" },
    ],
  ])("%s", (_name, policy, expected) => {
    expect(environment(policy)).toEqual(expected);
  });

  it.each<[string, unknown, RegExp]>([
    ["an unknown field", { inherit: "core", inherits: "all" }, /environment\.inherits is not a policy field/],
    ["a bad inherit", { inherit: "some" }, /inherit must be "all", "core" or "none"/],
    ["a set of a never-passed name", { inherit: "core", set: { ANTHROPIC_API_KEY: "x" } }, /cannot be passed/],
    ["a set of a lower-case never-passed name", { inherit: "core", set: { openai_key: "x" } }, /cannot be passed/],
    ["a set value that is not a string", { inherit: "core", set: { CI: 1 } }, /must be a string/],
    ["a set name that is no variable name", { inherit: "core", set: { "A=B": "x" } }, /not a variable name/],
    ["an exclude that is not a list of globs", { inherit: "all", exclude: "npm_*" }, /list of non-empty name globs/],
  ])("refuses %s with environment_invalid", (_name, policy, message) => {
    expect(() => resolveEnvironmentPolicy(policy as EnvironmentPolicy, "test")).toThrow(EnvironmentPolicyError);
    expect(() => resolveEnvironmentPolicy(policy as EnvironmentPolicy, "test")).toThrow(message);
  });

  it("freezes the policy, and computes from the host's environment at each call", () => {
    const given = { inherit: "none" as const, set: { CI: "1" } };
    const resolved = resolveEnvironmentPolicy(given, "test");
    given.set.CI = "changed";
    expect(Object.isFrozen(resolved.policy)).toBe(true);
    expect(resolved.environmentFor({})).toEqual({ CI: "1" });
    const core = resolveEnvironmentPolicy({ inherit: "core" }, "test");
    expect(core.environmentFor({ PATH: "/a" })).toEqual({ PATH: "/a" });
    expect(core.environmentFor({ PATH: "/b" })).toEqual({ PATH: "/b" });
  });
});
