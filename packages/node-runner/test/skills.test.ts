// Skills through a real Runner, on real SKILL.md files: the listing, activation by the model and
// by the host (the body first read then, saved in the reserved state key and projected from the
// next turn), every resource rule, hidden skills, resolution (direct bindings, skills(), the
// resolver, conflicts), inspection, and a saved activation projected in a second OS process
// with SKILL.md deleted and load() never called.
import { readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineAgent, defineCapability, type JsonValue, type RunEvent, type SkillBinding } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  activeSkillsKey,
  createFileSessionStore,
  createNodeRunner,
  createSkillResolverPlugin,
  type NodeRunnerPlugin,
  type SkillActivation,
  skills,
} from "../src/index.js";
import { startFixture } from "./fixtures/child.ts";
import {
  cleanupAfterEach,
  drain,
  extraTempDirs,
  storePlugin,
  tempDirPerTest,
  textOf,
  writeTree,
} from "./support/index.ts";

const temp = tempDirPerTest("castellan-skills-");
const extraDir = extraTempDirs();
const cleanups = cleanupAfterEach();
const png = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const skillFile = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\nlicense: MIT\n---\n${body}`;

/** Three skills: text and nested resources, an image and a binary file, and a link pointing outside. */
async function writeSkills(root: string): Promise<string> {
  const directory = join(root, "skills");
  const outside = join(root, "outside.md");
  await writeTree(root, {
    "skills/fix-tests/SKILL.md": skillFile(
      "fix-tests",
      "Fix failing tests",
      "# Fix tests\nRun the suite, then fix the cause.\n",
    ),
    "skills/fix-tests/references/guide.md": "The guide.\n",
    "skills/fix-tests/scripts/check.sh": "#!/bin/sh\nnpm test\n",
    "skills/draw-chart/SKILL.md": skillFile("draw-chart", "Draw a chart", "# Charts\nUse the template.\n"),
    "skills/draw-chart/assets/chart.png": png,
    "skills/draw-chart/data.bin": new Uint8Array([0, 1, 2, 0xff, 0]),
    "skills/draw-chart/big.txt": "x".repeat(262_145),
    "skills/linked/SKILL.md": skillFile("linked", "A skill with a link", "Linked body.\n"),
    "outside.md": "secret outside the skill\n",
  });
  await symlink(outside, join(directory, "linked", "outside.md"));
  return directory;
}

const call = (name: string, input: JsonValue): ScriptedStepSource => ({ toolCalls: [{ name, input: input as never }] });

function toolEnds(events: readonly RunEvent[]) {
  return events.flatMap((event) =>
    event.kind === "tool-end"
      ? [{ isError: event.result.isError, text: textOf(event.result), result: event.result }]
      : [],
  );
}

async function runner(options: {
  steps: readonly ScriptedStepSource[];
  capabilities?: Parameters<typeof defineAgent>[1]["capabilities"];
  skills?: Parameters<typeof defineAgent>[1]["skills"];
  state?: Record<string, JsonValue>;
  plugins?: NodeRunnerPlugin[];
}) {
  const model = scriptedModel([...options.steps, { text: "done" }]);
  const agent = defineAgent("test.skills", {
    model,
    ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    ...(options.skills ? { skills: options.skills } : {}),
    ...(options.state ? { state: options.state } : {}),
  });
  const created = await createNodeRunner({ agent, permissions: "read-only", plugins: options.plugins ?? [] });
  cleanups.push(() => created.close());
  return { runner: created, model };
}

describe("skills", () => {
  it("lists the skills, loads a body only at activation (an edit before it is seen), and projects it from the next turn", async () => {
    const directory = await writeSkills(temp.path);
    const s = await runner({
      steps: [
        call("activate_skill", { name: "fix-tests" }),
        { text: "read it" },
        call("activate_skill", { name: "fix-tests" }),
      ],
      capabilities: [skills({ directory })],
    });
    const session = cleanups.closeLater(await s.runner.createSession());
    await writeFile(
      join(directory, "fix-tests", "SKILL.md"),
      skillFile("fix-tests", "Fix failing tests", "# Edited before activation\n"),
    );
    const first = await drain(session.run("go"));
    expect(first.error).toBeUndefined();
    const system0 = s.model.requests[0]?.system ?? "";
    expect(system0).toContain(
      "## skills\n\n- draw-chart: Draw a chart\n- fix-tests: Fix failing tests\n- linked: A skill with a link",
    );
    expect(system0).not.toContain("Edited before activation");
    expect(s.model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["activate_skill", "read_skill_resource"]);
    const [activated] = toolEnds(first.events);
    expect(activated?.text).toContain('Activated the skill "fix-tests"');
    expect(activated?.text).toContain("references/guide.md, scripts/check.sh");
    expect(s.model.requests[1]?.system).toMatch(/\n\n## skill:fix-tests\n\n# Edited before activation\n$/);
    const saved = session.inspect().state[activeSkillsKey] as unknown as SkillActivation[];
    expect(saved).toEqual([
      expect.objectContaining({ name: "fix-tests", source: "model", turn: 1, text: "# Edited before activation\n" }),
    ]);
    expect(saved[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(session.inspect().stateWrites.map((write) => write.source)).toEqual(["tool"]);
    // Activating again loads nothing and says it is active.
    await writeFile(
      join(directory, "fix-tests", "SKILL.md"),
      skillFile("fix-tests", "Fix failing tests", "# Edited later\n"),
    );
    const second = await drain(session.run("again"));
    expect(toolEnds(second.events)[0]?.text).toContain("already active");
    expect(s.model.requests.at(-1)?.system).toContain("# Edited before activation");
    expect(s.model.requests.at(-1)?.system).not.toContain("Edited later");
    // Inspection: the skills with their state; an inactive body never appears.
    const inspection = session.inspect();
    expect(inspection.current.skills).toEqual([
      { name: "draw-chart", source: { kind: "capability", name: "skills" }, active: false },
      { name: "fix-tests", source: { kind: "capability", name: "skills" }, active: true },
      { name: "linked", source: { kind: "capability", name: "skills" }, active: false },
    ]);
    expect(inspection.turns.find((turn) => turn.changes.skillsActivated.length > 0)?.changes.skillsActivated).toEqual([
      "fix-tests",
    ]);
    expect(JSON.stringify(inspection)).not.toContain("Use the template");
    expect(inspection.current.tools.map((tool) => tool.name)).toEqual(["activate_skill", "read_skill_resource"]);
  });

  it("reads resources by the path rules: text, nested, an image; never a link outside, .., absolute, binary or oversized, and never activates", async () => {
    const directory = await writeSkills(temp.path);
    const reads: [string, string][] = [
      ["fix-tests", "references/guide.md"],
      ["draw-chart", "assets/chart.png"],
      ["linked", "outside.md"],
      ["fix-tests", "../draw-chart/SKILL.md"],
      ["fix-tests", "/etc/passwd"],
      ["fix-tests", "references\\guide.md"],
      ["fix-tests", "refer\u0000ences"],
      ["draw-chart", "data.bin"],
      ["draw-chart", "big.txt"],
      ["fix-tests", "SKILL.md"],
      ["fix-tests", "references"],
      ["no-such-skill", "x.md"],
    ];
    const s = await runner({
      steps: reads.map(([name, path]) => call("read_skill_resource", { name, path })),
      capabilities: [skills({ directory })],
    });
    const session = cleanups.closeLater(await s.runner.createSession());
    const ends = toolEnds((await drain(session.run("read"))).events);
    expect(ends[0]).toMatchObject({ isError: false, text: "The guide.\n" });
    expect(ends[1]?.result.content[0]).toEqual({ type: "image", mediaType: "image/png", data: png.toString("base64") });
    for (const end of ends.slice(2, 11)) {
      expect(end.isError).toBe(true);
      expect(end.text).toMatch(/^skill_resource_refused: /);
    }
    expect(ends[2]?.text).not.toContain("secret outside");
    expect(ends[11]?.text).toMatch(/^skill_not_available: /);
    expect(session.inspect().state[activeSkillsKey]).toEqual([]);
  });

  it("activates for the host before the first projection, and ends the Run for an unknown skill or a failing load", async () => {
    const directory = await writeSkills(temp.path);
    const failing: SkillBinding = {
      kind: "skill",
      name: "broken",
      description: "Fails to load",
      load: async () => {
        throw new Error("disk gone");
      },
      readResource: async () => ({ type: "text", text: "" }),
    };
    const s = await runner({ steps: [], capabilities: [skills({ directory })], skills: [failing] });
    const session = cleanups.closeLater(await s.runner.createSession());
    await session.run("go", { activateSkills: ["draw-chart"] }).result;
    expect(s.model.requests[0]?.system).toMatch(/## skill:draw-chart\n\n# Charts\nUse the template\.\n$/);
    expect(session.inspect().stateWrites.map((write) => write.source)).toEqual(["host"]);
    expect((session.inspect().state[activeSkillsKey] as unknown as SkillActivation[])[0]).toMatchObject({
      name: "draw-chart",
      source: "host",
    });
    const requests = s.model.requests.length;
    await expect(session.run("go", { activateSkills: ["nope"] }).result).rejects.toMatchObject({
      code: "skill_not_available",
    });
    await expect(session.run("go", { activateSkills: ["broken"] }).result).rejects.toMatchObject({
      code: "skill_load_failed",
      cause: expect.objectContaining({ message: "disk gone" }),
    });
    expect(s.model.requests.length).toBe(requests);
  });

  it("hides the skills of a disabled capability: no listing or tools, stale calls refused, no saved section, nothing written; back once enabled", async () => {
    const directory = await writeSkills(temp.path);
    const storeDirectory = await extraDir("castellan-skills-store-");
    const store = createFileSessionStore({ directory: storeDirectory });
    // Bound on the agent, so always visible: the skill tools stay, and hidden names get their refusal.
    const always: SkillBinding = {
      kind: "skill",
      name: "always",
      description: "Always here",
      load: async () => "always body",
      readResource: async () => ({ type: "text", text: "" }),
    };
    const s = await runner({
      steps: [
        call("activate_skill", { name: "fix-tests" }),
        { text: "active" },
        call("activate_skill", { name: "draw-chart" }),
        call("read_skill_resource", { name: "fix-tests", path: "references/guide.md" }),
        { text: "hidden" },
        { text: "back" },
      ],
      capabilities: [skills({ directory, enabled: (ctx) => ctx.state.showSkills === true })],
      skills: [always],
      state: { showSkills: true },
      plugins: [storePlugin(store)],
    });
    const session = cleanups.closeLater(await s.runner.createSession({ id: "hidden" }));
    await session.run("activate").result;
    expect(s.model.requests[1]?.system).toContain("## skill:fix-tests");
    await session.setState("showSkills", false);
    const before = await readFile(join(storeDirectory, "hidden.jsonl"));
    const hidden = await drain(session.run("while hidden"));
    // Hiding rewrites nothing saved: the log only grew by the hidden Run's own records.
    const after = await readFile(join(storeDirectory, "hidden.jsonl"));
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.subarray(before.length).toString("utf8")).not.toContain("castellan.skills.active");
    const hiddenRequest = s.model.requests[2];
    expect(hiddenRequest?.system ?? "").toContain("## skills\n\n- always: Always here");
    expect(hiddenRequest?.system ?? "").not.toContain("fix-tests");
    expect(hiddenRequest?.system ?? "").not.toContain("skill:fix-tests");
    expect(hiddenRequest?.tools.map((tool) => tool.name)).toEqual(["activate_skill", "read_skill_resource"]);
    const stale = toolEnds(hidden.events);
    expect(stale.map((end) => end.text.split(":")[0])).toEqual(["skill_not_available", "skill_not_available"]);
    // The same answer as for a name that never existed: nothing reveals the hidden skill.
    expect(stale[0]?.text).toBe(
      'skill_not_available: No skill "draw-chart" is available now; use a name from the skills listing.',
    );
    // The saved activation is untouched, and comes back with the skills.
    expect(
      (session.inspect().state[activeSkillsKey] as unknown as SkillActivation[]).map((entry) => entry.name),
    ).toEqual(["fix-tests"]);
    await session.setState("showSkills", true);
    await session.run("shown again").result;
    expect(s.model.requests.at(-1)?.system).toContain("## skill:fix-tests");
    const turns = session.inspect().turns;
    expect(turns.some((turn) => turn.changes.skillsHidden.includes("fix-tests"))).toBe(true);
    expect(turns.some((turn) => turn.changes.skillsShown.includes("fix-tests"))).toBe(true);
  });

  it("resolves names: direct bindings and skills() before the resolver, the first directory winning; conflicts, unknown names and no resolver fail the open", async () => {
    const first = await writeSkills(await extraDir("castellan-skills-a-"));
    const second = await extraDir("castellan-skills-b-");
    await writeTree(second, {
      "fix-tests/SKILL.md": skillFile("fix-tests", "The second directory's", "second\n"),
      "only-second/SKILL.md": skillFile("only-second", "Only in the second", "only\n"),
    });
    const resolver = createSkillResolverPlugin({ directories: [first, second] });
    const resolved = await runner({ steps: [], skills: ["fix-tests", "only-second"], plugins: [resolver] });
    const session = cleanups.closeLater(await resolved.runner.createSession());
    await session.run("go").result;
    expect(resolved.model.requests[0]?.system).toContain(
      "- fix-tests: Fix failing tests\n- only-second: Only in the second",
    );

    const direct: SkillBinding = {
      kind: "skill",
      name: "fix-tests",
      description: "Bound directly",
      load: async () => "direct",
      readResource: async () => ({ type: "text", text: "" }),
    };
    const asked: string[] = [];
    const counting: NodeRunnerPlugin = {
      name: "test.resolver",
      apply: (host) =>
        host.registerSkillResolver({
          resolve: ({ name }) => {
            asked.push(name);
            return undefined;
          },
        }),
    };
    const preferred = await runner({ steps: [], skills: [direct, "fix-tests"], plugins: [counting] });
    cleanups.closeLater(await preferred.runner.createSession());
    expect(asked).toEqual([]);

    const conflicting = await runner({ steps: [], skills: [direct], capabilities: [skills({ directory: first })] });
    await expect(conflicting.runner.createSession()).rejects.toMatchObject({ code: "skill_name_conflict" });
    const unknown = await runner({ steps: [], skills: ["missing-skill"], plugins: [counting] });
    await expect(unknown.runner.createSession()).rejects.toMatchObject({ code: "skill_not_found" });
    expect(asked).toEqual(["missing-skill"]);
    const unavailable = await runner({
      steps: [],
      capabilities: [defineCapability({ name: "named", skills: ["fix-tests"] })],
    });
    await expect(unavailable.runner.createSession()).rejects.toMatchObject({ code: "skills_unavailable" });
    const listed = await runner({
      steps: [],
      capabilities: [skills({ directory: first, names: ["fix-tests", "absent"] })],
    });
    await expect(listed.runner.createSession()).rejects.toMatchObject({ code: "skill_not_found" });
    const many = Array.from({ length: 101 }, (_, index) => ({ ...direct, name: `skill-${index}` }));
    const tooMany = await runner({ steps: [], skills: many });
    await expect(tooMany.runner.createSession()).rejects.toMatchObject({ code: "skills_too_many" });
  });

  it("does no I/O when declared: a missing directory fails only the open (skill_directory_missing); a bad SKILL.md fails it too (skill_invalid)", async () => {
    const missing = skills({ directory: join(temp.path, "not-there") });
    const s = await runner({ steps: [], capabilities: [missing] });
    await expect(s.runner.createSession()).rejects.toMatchObject({ code: "skill_directory_missing" });
    await writeTree(temp.path, { "bad/wrong-name/SKILL.md": skillFile("other-name", "d", "body") });
    const bad = await runner({ steps: [], capabilities: [skills({ directory: join(temp.path, "bad") })] });
    await expect(bad.runner.createSession()).rejects.toMatchObject({ code: "skill_invalid", field: "name" });
  });

  it("projects a saved activation in a second OS process with SKILL.md deleted, never calling load()", async () => {
    const directory = await writeSkills(temp.path);
    const sessions = await extraDir("castellan-skills-sessions-");
    const env = { SESSION_DIRECTORY: sessions, SESSION_ID: "restart", SKILLS_DIRECTORY: directory };
    const activate = await startFixture("skills-child.ts", ["activate"], env).exited;
    expect(activate).toMatchObject({ code: 0, lines: [{ activated: true }] });
    await rm(join(directory, "fix-tests", "SKILL.md"));
    const project = await startFixture("skills-child.ts", ["project"], env).exited;
    expect(project.code).toBe(0);
    const line = project.lines[0] as { system: string; loaded: boolean };
    expect(line.loaded).toBe(false);
    expect(line.system).toMatch(/## skill:fix-tests\n\n# Fix tests\nRun the suite, then fix the cause\.\n$/);
  });

  it("writes nothing for hiding: with every skill hidden, the tools and listing are gone and the log holds only the Run", async () => {
    const directory = await writeSkills(temp.path);
    const storeDirectory = await extraDir("castellan-skills-bytes-");
    const s = await runner({
      steps: [{ text: "hidden turn" }],
      capabilities: [skills({ directory, enabled: false })],
      plugins: [storePlugin(createFileSessionStore({ directory: storeDirectory }))],
    });
    const session = cleanups.closeLater(await s.runner.createSession({ id: "bytes" }));
    await session.run("one").result;
    expect(s.model.requests[0]?.system ?? "").not.toContain("## skills");
    expect(s.model.requests[0]?.tools).toEqual([]);
    const log = await readFile(join(storeDirectory, "bytes.jsonl"), "utf8");
    expect(log).not.toContain("castellan.skills");
    expect(JSON.stringify(session.inspect())).not.toContain("Run the suite");
  });
});
