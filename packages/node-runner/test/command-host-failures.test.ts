// A failure on the host side of a command (the sandbox layer's prepare or finalize) is reported
// as a host failure (ToolExecutionHostError: tool_execution_host_error), never as the command's
// own failure, so host plugins and the model can tell the two apart. Real processes; the layer
// passes argv through and fails where the test says.
import { realpath } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { defineAgent, hostTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { resolveCommandSessionOptions } from "../src/capabilities/commands/session/options.js";
import { applyCommandSession } from "../src/capabilities/commands/session/plugin.js";
import { CommandSessionRuntime } from "../src/capabilities/commands/session/runtime.js";
import { createNodeRunner } from "../src/index.js";
import type { CommandSpawnLayer } from "../src/platform/process/index.js";
import { cleanupAfterEach, drain, tempDirPerTest, textOf } from "./support/index.ts";

const temp = tempDirPerTest("castellan-host-failure-");
const cleanups = cleanupAfterEach();

async function runWithLayer(layer: CommandSpawnLayer, command: string) {
  const root = await realpath(temp.path);
  const runtime = new CommandSessionRuntime(
    resolveCommandSessionOptions({ workingDirectory: pathToFileURL(`${root}/`), environment: { inherit: "core" } }),
    { spawn: layer, checkCall: () => undefined },
  );
  const agent = defineAgent("test.host-failure", {
    model: scriptedModel([{ toolCalls: [{ name: "exec_command", input: { command } }] }, { text: "done" }]),
    tools: [hostTool("exec_command"), hostTool("command_session")],
  });
  const runner = await createNodeRunner({
    agent,
    permissions: "full-access",
    plugins: [
      {
        name: "test.layered-commands",
        apply: (host) => applyCommandSession(host, runtime),
        close: () => runtime.closeAll(),
      },
    ],
  });
  cleanups.push(() => runner.close());
  const session = cleanups.closeLater(await runner.createSession());
  const { events } = await drain(session.run("go"));
  const end = events.find((event) => event.kind === "tool-end");
  return end?.kind === "tool-end" ? end.result : undefined;
}

describe("host failures of command tools", () => {
  it("reports a failing finalize (after the command ran) as tool_execution_host_error", async () => {
    const result = await runWithLayer(
      {
        prepare: (request) => ({
          argv: [request.shell.executable, ...request.shell.arguments, request.command],
          env: request.env,
        }),
        finalize: () => {
          throw new Error("the sandbox worker crashed");
        },
      },
      "echo ran > ran.txt",
    );
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^tool_execution_host_error: .*the sandbox failed to finalize its report: the sandbox worker crashed/,
    );
  });

  it("reports a failing prepare (nothing spawned) as tool_execution_host_error", async () => {
    const result = await runWithLayer(
      {
        prepare: () => {
          throw new Error("the sandbox runtime is gone");
        },
      },
      "echo never",
    );
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toMatch(/^tool_execution_host_error: /);
  });
});
