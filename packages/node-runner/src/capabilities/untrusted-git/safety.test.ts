import { describe, expect, it } from "vitest";
import { filterDriverNames, gitEnvironment } from "./safety.js";

describe("filterDriverNames", () => {
  it("takes the subsection of each filter key, whatever it holds", () => {
    const listing = [
      "filter.lfs.clean",
      "filter.lfs.smudge",
      "filter.lfs.process",
      "filter.A=b.clean",
      "filter.with.dots.clean",
      "filter.with space.smudge",
      "filter..clean",
      "filter.required",
      "",
    ].join("\u0000");
    expect(filterDriverNames(listing).sort()).toEqual(["", "A=b", "lfs", "with space", "with.dots"].sort());
    expect(filterDriverNames("")).toEqual([]);
  });
});

describe("gitEnvironment", () => {
  it("starts from nothing: only PATH's absolute entries, HOME and XDG_CONFIG_HOME come through", () => {
    const environment = gitEnvironment([], {
      PATH: "/usr/local/bin::.:bin:/usr/bin",
      HOME: "/home/me",
      XDG_CONFIG_HOME: "/home/me/.config",
      GIT_DIR: "/elsewhere/.git",
      GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='evil'",
      GIT_EXTERNAL_DIFF: "evil",
      GIT_ASKPASS: "evil",
      SECRET_TOKEN: "x",
    });
    expect(environment).toEqual({
      PATH: "/usr/local/bin:/usr/bin",
      HOME: "/home/me",
      XDG_CONFIG_HOME: "/home/me/.config",
      LC_ALL: "C",
      GIT_TERMINAL_PROMPT: "0",
      GIT_OPTIONAL_LOCKS: "0",
      GIT_NO_LAZY_FETCH: "1",
      GIT_PAGER: "cat",
      PAGER: "cat",
      GIT_DISCOVERY_ACROSS_FILESYSTEM: "1",
    });
    expect(gitEnvironment([], { PATH: "relative:." }).PATH).toBe("/usr/bin:/bin");
  });

  it("empties every command of each driver and makes none required", () => {
    const environment = gitEnvironment(["A=b", ""], { PATH: "/bin" });
    expect(environment.GIT_CONFIG_COUNT).toBe("8");
    const pairs = Array.from({ length: 8 }, (_, index) => [
      environment[`GIT_CONFIG_KEY_${index}`],
      environment[`GIT_CONFIG_VALUE_${index}`],
    ]);
    expect(pairs).toEqual([
      ["filter.A=b.clean", ""],
      ["filter.A=b.smudge", ""],
      ["filter.A=b.process", ""],
      ["filter.A=b.required", "false"],
      ["filter..clean", ""],
      ["filter..smudge", ""],
      ["filter..process", ""],
      ["filter..required", "false"],
    ]);
  });
});
