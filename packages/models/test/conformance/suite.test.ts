// The conformance suite itself: every scenario of the list runs in one of its files, and every
// documented exception names a driver that runs and a scenario it changes.
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { drivers } from "./drivers/index.ts";
import { exceptions } from "./exceptions.ts";
import { scenarios } from "./scenarios.ts";

const here = fileURLToPath(new URL("./", import.meta.url));

describe("the conformance suite", () => {
  it("runs every scenario of the list, for every driver", async () => {
    const files = (await readdir(here)).filter((name) => name.endsWith(".test.ts") && name !== "suite.test.ts");
    const texts = await Promise.all(files.map((name) => readFile(`${here}${name}`, "utf8")));
    // `scenario("name"` or a helper ending in Scenario, the name on the same or the next line.
    const called = (text: string, name: string) => new RegExp(`[sS]cenario\\(\\s*${JSON.stringify(name)}`).test(text);
    const run = Object.keys(scenarios).filter((name) => texts.some((text) => called(text, name)));
    expect(run).toEqual(Object.keys(scenarios));
    // Each file runs its scenarios inside describe.each over the drivers.
    for (const text of texts) expect(text).toContain("describe.each(drivers.map(");
  });

  it("has one driver per adapter name, and exceptions only for drivers and scenarios that exist", () => {
    const names = drivers.map((driver) => driver.name);
    expect(new Set(names).size).toBe(names.length);
    for (const exception of exceptions) {
      expect(names).toContain(exception.driver);
      expect(Object.keys(scenarios)).toContain(exception.scenario);
      expect(exception.reason.length).toBeGreaterThan(20);
    }
    const keys = exceptions.map((exception) => `${exception.driver}/${exception.scenario}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
