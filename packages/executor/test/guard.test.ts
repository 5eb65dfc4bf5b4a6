// The guard over fixed call sequences: families by exact name within their source, every cap
// and its reset, MCP calls neutral for the no-edit bound, the backstop across alternating
// families, and the probe after noEditCallLimit action calls without an edit.
import { describe, expect, it } from "vitest";
import { familyOf, type ToolFamily, ToolGuard } from "../src/index.js";

const limits = {
  maxConsecutiveMcpCalls: 3,
  maxConsecutiveWebCalls: 2,
  maxConsecutiveNonActionCalls: 5,
  noEditCallLimit: 3,
};

function run(families: readonly ToolFamily[], guard = new ToolGuard(limits)) {
  return families.map((family) => guard.observe(family));
}

describe("the tool guard", () => {
  it("takes a family from the exact name within its source, never a prefix", () => {
    const agent = { kind: "agent" } as const;
    expect(familyOf("read_workspace_file", { kind: "capability", name: "workspace" })).toBe("read");
    expect(familyOf("search_workspace", { kind: "capability", name: "workspace" })).toBe("search");
    expect(familyOf("apply_workspace_patch", { kind: "capability", name: "workspace" })).toBe("edit");
    expect(familyOf("exec_command", { kind: "capability", name: "workspace" })).toBe("command");
    expect(familyOf("update_task_progress", agent)).toBe("read");
    expect(familyOf("activate_skill", { kind: "capability", name: "skills" })).toBe("read");
    expect(familyOf("lookup", { kind: "capability", name: "mcp:docs" })).toBe("mcp");
    // A local tool named like an MCP one is not one.
    expect(familyOf("mcp__docs__lookup", agent)).toBe("other");
    expect(familyOf("agent_reviewer", { kind: "capability", name: "child:reviewer" })).toBe("child");
    expect(familyOf("agent_reviewer", agent)).toBe("other");
  });

  it("stops an MCP loop and a web loop at their caps, each reset by a call outside its family", () => {
    expect(run(["mcp", "mcp", "command", "mcp", "mcp"]).map((verdict) => verdict.kind)).toEqual([
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
    ]);
    expect(run(["mcp", "mcp", "mcp"]).at(-1)).toMatchObject({ kind: "violation", code: "guard-mcp-loop" });
    expect(run(["web", "search", "web"]).every((verdict) => verdict.kind === "ok")).toBe(true);
    expect(run(["web", "web"]).at(-1)).toMatchObject({ kind: "violation", code: "guard-web-loop" });
  });

  it("stops exempt calls of alternating families at the backstop, reset only by an action", () => {
    const alternating: ToolFamily[] = ["read", "search", "web", "mcp", "child"];
    expect(run(alternating).at(-1)).toMatchObject({ kind: "violation", code: "guard-non-action" });
    expect(
      run(["read", "search", "read", "search", "edit", "read", "search", "read", "search"]).every(
        (verdict) => verdict.kind === "ok",
      ),
    ).toBe(true);
    expect(
      run(["read", "read", "command", "read", "read", "read", "read"]).every((verdict) => verdict.kind === "ok"),
    ).toBe(true);
  });

  it("asks for a probe after noEditCallLimit action calls without an edit; MCP calls do not satisfy it", () => {
    expect(run(["command", "mcp", "command", "command"]).map((verdict) => verdict.kind)).toEqual([
      "ok",
      "ok",
      "ok",
      "probe",
    ]);
    expect(run(["edit", "command", "command", "command"]).every((verdict) => verdict.kind === "ok")).toBe(true);
    const guard = new ToolGuard(limits);
    run(["command", "command"], guard);
    guard.rearm();
    expect(run(["command", "command"], guard).every((verdict) => verdict.kind === "ok")).toBe(true);
    expect(guard.observe("command")).toEqual({ kind: "probe" });
    guard.editSatisfied();
    expect(run(["command", "command", "command"], guard).every((verdict) => verdict.kind === "ok")).toBe(true);
    guard.passStarted();
    expect(run(["command", "command", "command"], guard).at(-1)).toEqual({ kind: "probe" });
  });
});
