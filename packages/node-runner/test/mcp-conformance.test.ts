// The MCP conformance suite's client scenarios against mcp(): the suite's CLI (a pinned
// devDependency, run by path under this Node) starts each scenario's server and runs the driver
// fixture, which opens a Session with mcp({ transport: "http", url }), calls every tool, and
// accepts elicitations with empty content. All four pass, with no expected-failures baseline.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { fixturePath } from "./fixtures/child.ts";
import { tempDirPerTest } from "./support/index.ts";
import { conformanceEntry } from "./support/mcp.ts";

const run = promisify(execFile);
const temp = tempDirPerTest("castellan-mcp-conformance-");
const driver = `${process.execPath} ${fixturePath("mcp-conformance-driver.ts")}`;

describe("the MCP conformance suite (client scenarios)", () => {
  it.each(["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"])(
    "%s passes",
    async (scenario) => {
      const { stdout, stderr } = await run(
        process.execPath,
        [conformanceEntry, "client", "--command", driver, "--scenario", scenario],
        {
          cwd: temp.path,
          env: { ...process.env, MCP_CONFORMANCE_SCENARIO: scenario },
          timeout: 60_000,
        },
      );
      const report = `${stdout}${stderr}`;
      expect(report).toContain("OVERALL: PASSED");
      expect(report).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    },
    90_000,
  );
});
