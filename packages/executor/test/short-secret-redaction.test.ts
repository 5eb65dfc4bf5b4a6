// A job whose model token is three characters (the executor's old redactor ignored anything
// under eight): the model says it back in a tool call and in its last message, and it is in
// none of what the job shows, saves or logs: the events stream, the job's result and summary,
// the log lines and the saved transcript records.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { scriptedModel } from "@castellan/models/testing";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { ExecutorServer, ModelFactory } from "../src/index.js";
import { bareRepository, followEvents, jobBody, send, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-short-secret-");
const servers: ExecutorServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const shortToken = "Zq7";

async function filesUnder(directory: string): Promise<string> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  const texts = await Promise.all(
    entries.filter((entry) => entry.isFile()).map((entry) => readFile(join(entry.parentPath, entry.name), "utf8")),
  );
  return texts.join("\n");
}

describeNeeding(osSandboxPrograms, "a job's short credential", () => {
  it("is replaced in the events, the result, the log lines and the transcript", async () => {
    const bare = await bareRepository(temp.path);
    const model = scriptedModel([
      {
        toolCalls: [
          {
            name: "apply_workspace_patch",
            input: { patch: `*** Begin Patch\n*** Add File: NOTE.md\n+key ${shortToken}\n*** End Patch` },
          },
        ],
      },
      { text: `Done; the key was ${shortToken} and x${shortToken}y.` },
    ]);
    const factory: ModelFactory = () => model;
    const { server, port, directory, logged } = await startServer({ allowFileRemotes: true, modelFactory: factory });
    servers.push(server);
    const body = jobBody({
      jobId: "job-short-secret",
      model: { provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", token: shortToken, id: "m" },
      repo: { url: `file://${bare}`, baseBranch: "main" },
    });
    expect((await send(port, "POST", "/run", { body: JSON.stringify(body) })).status).toBeLessThan(300);
    const { events } = await followEvents(port, "job-short-secret");
    const end = events.at(-1);
    expect(end?.event).toBe("job-end");
    expect(end?.data).toMatchObject({ state: "succeeded" });
    const view = (await send(port, "GET", "/jobs/job-short-secret")).json;
    const shown = JSON.stringify({ events, view, logged });
    expect(shown).toContain("[redacted]");
    expect(shown).not.toContain(shortToken);
    const transcripts = await filesUnder(join(directory, "transcripts"));
    expect(transcripts).toContain("[redacted]");
    expect(transcripts).not.toContain(shortToken);
  }, 120_000);
});
