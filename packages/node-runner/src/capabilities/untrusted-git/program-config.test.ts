import { describe, expect, it } from "vitest";
import { findProgramConfig, isProgramConfigKey } from "./program-config.js";

const record = (scope: string, origin: string, key: string, value: string) => `${scope}\0${origin}\0${key}\n${value}\0`;

describe("findProgramConfig", () => {
  it("names the agent's program-naming keys with their origin, never a value, nor the system's or the caller's own", () => {
    const listing = [
      record("system", "file:/etc/gitconfig", "credential.helper", "host-helper"),
      record("command", "command line:", "core.fsmonitor", "false"),
      record("local", "file:.git/config", "core.fsmonitor", "/tmp/evil secret-value"),
      record("local", "file:.git/config", "user.name", "Castellan"),
      record("local", "file:/elsewhere/inc", "filter.A b.clean", "evil"),
      record("global", "file:/job/home/.gitconfig", "include.path", "x.cfg"),
      record("local", "file:.git/config", "core.fsmonitor", "again"),
    ].join("");
    const found = findProgramConfig(listing, "vendor/lib");
    expect(found).toEqual([
      { key: "core.fsmonitor", origin: "file:.git/config", repository: "vendor/lib" },
      { key: "filter.A b.clean", origin: "file:/elsewhere/inc", repository: "vendor/lib" },
      { key: "include.path", origin: "file:/job/home/.gitconfig", repository: "vendor/lib" },
    ]);
    expect(JSON.stringify(found)).not.toContain("secret-value");
    expect(findProgramConfig("", ".")).toEqual([]);
  });

  it("matches whole keys only", () => {
    for (const key of ["core.sshcommand", "diff.x.textconv", "url.https://a/.insteadof", "includeif.gitdir:/x.path"])
      expect(isProgramConfigKey(key), key).toBe(true);
    for (const key of ["core.fsmonitorx", "user.email", "remote.origin.url", "diff.renames", "filter.x.required"])
      expect(isProgramConfigKey(key), key).toBe(false);
  });
});
