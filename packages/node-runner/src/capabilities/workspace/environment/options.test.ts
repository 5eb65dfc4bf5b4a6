import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../../kernel/errors/errors.js";
import { defaultGitTimeoutMs, maxGitTimeoutMs, resolveEnvironmentOptions } from "./options.js";
import { createWorkspaceEnvironmentPlugin } from "./plugin.js";
import { probeWorkspaceEnvironment } from "./probe-workspace-environment.js";

function refusal(options: unknown): unknown {
  try {
    resolveEnvironmentOptions(options as never);
  } catch (error) {
    return error;
  }
  throw new Error("the options were accepted");
}

describe("workspace environment options", () => {
  it("accepts a file: URL or its text, with the defaults", () => {
    expect(resolveEnvironmentOptions({ workingDirectory: new URL("file:///home/me/project/") })).toEqual({
      workingDirectory: "/home/me/project",
      git: "git",
      timeoutMs: defaultGitTimeoutMs,
    });
    expect(
      resolveEnvironmentOptions({ workingDirectory: "file:///srv/a%20b", git: "/usr/bin/git", timeoutMs: 1 }),
    ).toEqual({
      workingDirectory: "/srv/a b",
      git: "/usr/bin/git",
      timeoutMs: 1,
    });
    expect(resolveEnvironmentOptions({ workingDirectory: "file:///x", timeoutMs: maxGitTimeoutMs }).timeoutMs).toBe(
      maxGitTimeoutMs,
    );
  });

  it.each([
    ["a plain path", { workingDirectory: "/home/me/project" }],
    ["a relative path", { workingDirectory: "project" }],
    ["another scheme", { workingDirectory: "https://example.com/project" }],
    ["another scheme as a URL", { workingDirectory: new URL("http://example.com/") }],
    ["a remote file host", { workingDirectory: "file://server/share" }],
    ["an encoded slash", { workingDirectory: "file:///a%2Fb" }],
    ["an encoded NUL", { workingDirectory: "file:///a%00b" }],
    ["no working directory", {}],
    ["a number", { workingDirectory: 42 }],
    ["a relative git", { workingDirectory: "file:///x", git: "./git" }],
    ["an empty git", { workingDirectory: "file:///x", git: "" }],
    ["a zero timeout", { workingDirectory: "file:///x", timeoutMs: 0 }],
    ["a fractional timeout", { workingDirectory: "file:///x", timeoutMs: 1.5 }],
    ["a timeout over the bound", { workingDirectory: "file:///x", timeoutMs: maxGitTimeoutMs + 1 }],
    ["an unknown option", { workingDirectory: "file:///x", timeout: 5 }],
    ["no object", null],
  ])("refuses %s with invalid_options", (_, options) => {
    const error = refusal(options);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect(error).toMatchObject({ code: "invalid_options" });
  });

  it("the message names the field and what it accepts", () => {
    expect(refusal({ workingDirectory: "/tmp" })).toMatchObject({
      message: expect.stringContaining('workingDirectory must be a file: URL (a URL or its text, e.g. "file:///'),
    });
    expect(refusal({ workingDirectory: "file:///x", timeoutMs: -1 })).toMatchObject({
      message: expect.stringContaining("timeoutMs must be an integer from 1 to 60000"),
    });
  });

  it("the plugin checks them when it is created, the probe when it is called", async () => {
    expect(() => createWorkspaceEnvironmentPlugin({ workingDirectory: "/tmp" })).toThrow(InvalidOptionsError);
    await expect(probeWorkspaceEnvironment({ workingDirectory: "/tmp" })).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});
