// instructionsFile end to end: a real file read once per Session as a capability resource,
// rendered in the system prompt or as per-turn context, kept out of the saved log, and each
// way the file can be unusable failing the open with a typed error.
import { execFileSync } from "node:child_process";
import { mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BindingKind, defineAgent, defineCapability, resource } from "@castellan/harness";
import { projectAgent } from "@castellan/harness/testing";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { InstructionsFileError, instructionsFile } from "../src/capabilities/instructions-file/instructions-file.js";
import { createFileSessionStore, openSession, type Session } from "../src/index.js";
import { cleanupAfterEach, rejection as rejectionOf, tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-instructions-file-");
const { closeLater } = cleanupAfterEach();

const agentInstructions = "Review the requested change.";

/** Writes `contents` to `name` in the test's directory and returns its file: URL. */
async function file(name: string, contents: string | Uint8Array): Promise<URL> {
  const path = join(temp.path, name);
  await writeFile(path, contents);
  return pathToFileURL(path);
}

/** Waits for an open that must fail; a Session that opened by mistake is closed. */
function rejection(promise: Promise<Session>): Promise<unknown> {
  return rejectionOf(
    promise.then(async (session) => {
      await session.close();
      return session;
    }),
  );
}

/** The InstructionsFileError a failed open rejects with. */
async function openFailure(agent: Parameters<typeof openSession>[0]["agent"]): Promise<InstructionsFileError> {
  const error = await rejection(openSession({ agent }));
  expect(error).toBeInstanceOf(InstructionsFileError);
  return error as InstructionsFileError;
}

describe("a system-placed instructions file", () => {
  it("is in the first request's system prompt, under its name, after the agent's own sections", async () => {
    const url = await file("review-rules.md", "Check the tests first.\nName every risk.");
    const model = scriptedModel([{ text: "ok" }]);
    const agent = defineAgent("example.file-review", {
      model,
      instructions: { identity: agentInstructions, tone: "Be brief." },
      capabilities: [instructionsFile(url)],
    });
    const session = closeLater(await openSession({ agent }));
    await session.run("Review it").result;
    expect(model.requests[0]?.system).toBe(
      `${agentInstructions}\n\nBe brief.\n\n## review-rules\n\nCheck the tests first.\nName every risk.`,
    );
    expect(model.requests[0]?.context).toBe("");
  });

  it("is resolved by the initial projection, before any Run", async () => {
    const url = await file("rules.md", "Rule one.");
    const agent = defineAgent("app.initial", { model: scriptedModel([]), capabilities: [instructionsFile(url)] });
    const session = closeLater(await openSession({ agent }));
    expect(session.inspect().initial.sections).toEqual([
      expect.objectContaining({
        id: "capability:instructions-file:rules:rules",
        name: "rules",
        placement: "system",
        text: "Rule one.",
        source: { kind: "capability", name: "instructions-file:rules" },
      }),
    ]);
  });

  it("is read once per Session: changes and deletion do not reach an open Session; a new one reads again", async () => {
    const url = await file("rules.md", "First version.");
    const model = scriptedModel([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const agent = defineAgent("app.once", { model, capabilities: [instructionsFile(url)] });
    const first = closeLater(await openSession({ agent }));
    await first.run("one").result;
    await writeFile(url, "Second version.");
    await first.run("two").result;
    await rm(url);
    await writeFile(url, "Third version.");
    await first.close();
    const second = closeLater(await openSession({ agent }));
    await second.run("three").result;
    expect(model.requests.map((request) => request.system)).toEqual([
      "## rules\n\nFirst version.",
      "## rules\n\nFirst version.",
      "## rules\n\nThird version.",
    ]);
  });

  it("is read through a symlink, named after the declared URL, with the target's text", async () => {
    await mkdir(join(temp.path, "shared"));
    await file("shared/house-style.md", "Use the house style.");
    const link = join(temp.path, "style.md");
    await symlink(join(temp.path, "shared/house-style.md"), link);
    const model = scriptedModel([{ text: "ok" }]);
    const agent = defineAgent("app.symlink", { model, capabilities: [instructionsFile(pathToFileURL(link))] });
    const session = closeLater(await openSession({ agent }));
    await session.run("go").result;
    expect(model.requests[0]?.system).toBe("## style\n\nUse the house style.");
  });

  it("never enters the saved log, on first open or on reopen", async () => {
    const marker = "secret-rule-5c81d7";
    const url = await file("rules.md", `Never reveal ${marker}.`);
    const directory = join(temp.path, "sessions");
    const store = createFileSessionStore({ directory });
    const model = scriptedModel([{ text: "first answer" }, { text: "second answer" }]);
    const agent = defineAgent("app.log", { model, capabilities: [instructionsFile(url)] });
    const session = await openSession({ agent, store, id: "logged" });
    await session.run("first input").result;
    await session.close();
    await writeFile(url, `Never reveal ${marker} either.`);
    const reopened = closeLater(await openSession({ agent, store, id: "logged" }));
    await reopened.run("second input").result;
    await reopened.close();

    expect(model.requests.map((request) => request.system)).toEqual([
      `## rules\n\nNever reveal ${marker}.`,
      `## rules\n\nNever reveal ${marker} either.`,
    ]);
    const saved = await Promise.all((await readdir(directory)).map((name) => readFile(join(directory, name), "utf8")));
    const log = saved.join("\n");
    expect(log).toContain("second input");
    expect(log).not.toContain(marker);
  });
});

describe("a context-placed instructions file", () => {
  it("is sent as the request's context every turn and not in the system prompt", async () => {
    const url = await file("now.md", "The release freeze is on.");
    const model = scriptedModel([{ text: "one" }, { text: "two" }]);
    const agent = defineAgent("app.context", {
      model,
      instructions: agentInstructions,
      capabilities: [instructionsFile(url, { placement: "context" })],
    });
    const session = closeLater(await openSession({ agent }));
    await session.run("one").result;
    await session.run("two").result;
    expect(model.requests.map((request) => [request.system, request.context])).toEqual([
      [agentInstructions, "## now\n\nThe release freeze is on."],
      [agentInstructions, "## now\n\nThe release freeze is on."],
    ]);
  });

  it("is omitted when blank, and the Session opens", async () => {
    const url = await file("now.md", " \n\t\n");
    const model = scriptedModel([{ text: "ok" }]);
    const agent = defineAgent("app.blank-context", {
      model,
      instructions: agentInstructions,
      capabilities: [instructionsFile(url, { placement: "context" })],
    });
    const session = closeLater(await openSession({ agent }));
    await session.run("go").result;
    expect(model.requests[0]).toMatchObject({ system: agentInstructions, context: "" });
    expect(session.inspect().initial.sections.map((section) => section.name)).toEqual(["instructions"]);
  });
});

describe("an unusable instructions file fails the open", () => {
  const agentFor = (url: URL, id: string) =>
    defineAgent(id, { model: scriptedModel([]), capabilities: [instructionsFile(url)] });

  it("instructions_file_missing: no file, naming the URL", async () => {
    const url = pathToFileURL(join(temp.path, "missing.md"));
    const error = await openFailure(agentFor(url, "app.missing"));
    expect(error.message).toContain(url.href);
    expect(error).toMatchObject({ code: "instructions_file_missing", url: url.href });
  });

  it("instructions_file_missing: a dangling symlink", async () => {
    const link = join(temp.path, "dangling.md");
    await symlink(join(temp.path, "gone.md"), link);
    const cause = await openFailure(agentFor(pathToFileURL(link), "app.dangling"));
    expect(cause.code).toBe("instructions_file_missing");
  });

  it("instructions_file_not_regular: a directory, also behind a symlink", async () => {
    await mkdir(join(temp.path, "rules.md"));
    await symlink(join(temp.path, "rules.md"), join(temp.path, "linked.md"));
    const direct = await openFailure(agentFor(pathToFileURL(join(temp.path, "rules.md")), "app.directory"));
    expect(direct.code).toBe("instructions_file_not_regular");
    const linked = await openFailure(agentFor(pathToFileURL(join(temp.path, "linked.md")), "app.linked-directory"));
    expect(linked).toMatchObject({ code: "instructions_file_not_regular", path: join(temp.path, "rules.md") });
  });

  it.skipIf(process.platform === "win32")(
    "instructions_file_not_regular: a FIFO, without waiting for a writer",
    async () => {
      const path = join(temp.path, "pipe.md");
      execFileSync("mkfifo", [path], { stdio: ["ignore", "ignore", "pipe"] });
      const cause = await openFailure(agentFor(pathToFileURL(path), "app.fifo"));
      expect(cause.code).toBe("instructions_file_not_regular");
    },
  );

  it("instructions_file_invalid_utf8: bytes that are not UTF-8", async () => {
    const url = await file("latin1.md", new Uint8Array([0x43, 0x61, 0x66, 0xe9, 0x0a]));
    const cause = await openFailure(agentFor(url, "app.invalid-utf8"));
    expect(cause.code).toBe("instructions_file_invalid_utf8");
  });

  it("instructions_file_blank: an empty or whitespace-only system-placed file", async () => {
    const empty = await openFailure(agentFor(await file("empty.md", ""), "app.empty"));
    expect(empty.code).toBe("instructions_file_blank");
    const blank = await openFailure(agentFor(await file("blank.md", "\n  \r\n\t"), "app.blank"));
    expect(blank).toMatchObject({ code: "instructions_file_blank", path: join(temp.path, "blank.md") });
  });

  it("releases a resource acquired before it, and the failure leaves nothing open", async () => {
    const journal: string[] = [];
    const first: BindingKind<string, string> = {
      name: "first",
      async acquire(spec) {
        journal.push(`acquire ${spec}`);
        return { value: spec, close: () => void journal.push(`release ${spec}`) };
      },
    };
    const earlier = defineCapability({ name: "earlier", resources: [resource(first, "db")] });
    const agent = defineAgent("app.release", {
      model: scriptedModel([]),
      capabilities: [earlier, instructionsFile(pathToFileURL(join(temp.path, "missing.md")))],
    });
    const cause = await openFailure(agent);
    expect(cause.code).toBe("instructions_file_missing");
    expect(journal).toEqual(["acquire db", "release db"]);
  });

  it("with aborted when the open's signal aborts before the file is read", async () => {
    const url = await file("rules.md", "Rule.");
    const controller = new AbortController();
    const aborting: BindingKind<string, string> = {
      name: "aborting",
      async acquire(spec) {
        controller.abort();
        return { value: spec, close: () => undefined };
      },
    };
    const agent = defineAgent("app.abort", {
      model: scriptedModel([]),
      capabilities: [defineCapability({ name: "before", resources: [resource(aborting, "x")] }), instructionsFile(url)],
    });
    const error = await rejection(openSession({ agent, signal: controller.signal }));
    expect(error).toMatchObject({ code: "aborted" });
  });
});

describe("projectAgent", () => {
  it("shows a system-placed file as a pending section and lists its resource, reading nothing", () => {
    const url = pathToFileURL(join("/no/such/dir", "review-rules.md"));
    const agent = defineAgent("example.file-review", {
      model: "review-model",
      instructions: agentInstructions,
      capabilities: [instructionsFile(url)],
    });
    const projection = projectAgent(agent);
    expect(projection.system).toBe(agentInstructions);
    expect(projection.sections).toEqual([
      expect.objectContaining({ name: "instructions", text: agentInstructions }),
      {
        id: "capability:instructions-file:review-rules:review-rules",
        name: "review-rules",
        source: { kind: "capability", name: "instructions-file:review-rules" },
        placement: "system",
        order: 1,
        pending: { resource: "instructions-file", url: url.href },
      },
    ]);
    expect(projection.pendingResources).toEqual(["instructions-file"]);
  });

  it("leaves a context-placed file out of the sections and lists its resource", () => {
    const agent = defineAgent("app.context", {
      model: "app/chat",
      instructions: agentInstructions,
      capabilities: [instructionsFile(pathToFileURL("/no/such/now.md"), { placement: "context" })],
    });
    const projection = projectAgent(agent);
    expect(projection.sections.map((section) => section.name)).toEqual(["instructions"]);
    expect(projection.context).toBe("");
    expect(projection.pendingResources).toEqual(["instructions-file"]);
  });

  it("renders the text a test supplies for the file's resource", () => {
    const capability = instructionsFile(pathToFileURL("/no/such/rules.md"));
    const agent = defineAgent("app.supplied", { model: "app/chat", capabilities: [capability] });
    const request = capability.resources[0] as (typeof capability.resources)[number];
    const projection = projectAgent(agent, { resources: new Map([[request, "Be careful."]]) });
    expect(projection.system).toBe("## rules\n\nBe careful.");
    expect(projection.pendingResources).toEqual([]);
  });
});
