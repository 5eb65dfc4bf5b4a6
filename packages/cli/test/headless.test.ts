// `castellan -p <task>`: one Run of the CLI Agent with the provider from the environment,
// against a loopback Anthropic (and OpenAI-compatible) server speaking the real wire format.
// Plain output is only the final text; --json is every Run event as a JSON line of the
// vocabulary in docs/events.md, run-end last; the Session id goes to stderr; an `ask` with no
// approver is denied with the reason; keys never appear in any output or saved file; exit
// codes 0, 1, 2 and 130.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { chunk, done, usageChunk } from "../../models/test/openai-compatible/chat-fixture.ts";
import { sendSse, startHttpFixture } from "../../models/test/support/http-fixture.ts";
import { noApproverReason } from "../src/index.js";
import { greetingPieces, messagesOf, messageText, startCoderFixture } from "./support/coder-fixture.ts";
import { runBin, startBin } from "./support/run-bin.ts";

const anthropicKey = "sk-ant-SENTINEL-anthropic-7f3a9c";
const openaiKey = "sk-SENTINEL-openai-2b8d41";

let root: string;
let home: string;
let project: string;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "castellan-headless-")));
  home = join(root, "home");
  project = join(root, "project");
  await mkdir(project);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rm(root, { recursive: true, force: true });
});

async function coder(options: Parameters<typeof startCoderFixture>[0] = {}) {
  const fixture = await startCoderFixture(options);
  closers.push(() => fixture.close());
  return fixture;
}

const envFor = (url: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  CASTELLAN_HOME: home,
  ANTHROPIC_API_KEY: anthropicKey,
  CASTELLAN_ANTHROPIC_BASE_URL: url,
  ...extra,
});

/** Every file under the home folder, as text. */
async function savedText(): Promise<string> {
  const entries = await readdir(home, { recursive: true, withFileTypes: true }).catch(() => []);
  const texts = await Promise.all(
    entries.filter((entry) => entry.isFile()).map((entry) => readFile(join(entry.parentPath, entry.name), "utf8")),
  );
  return texts.join("\n");
}

/** The event kinds docs/events.md lists under "Run events". */
async function documentedRunEventKinds(): Promise<Set<string>> {
  const page = await readFile(fileURLToPath(new URL("../../../docs/events.md", import.meta.url)), "utf8");
  const section = page.slice(page.indexOf("## Run events"), page.indexOf("\n## ", page.indexOf("## Run events") + 5));
  return new Set([...section.matchAll(/^\| `([a-z-]+)` \|/gm)].map((match) => match[1] as string));
}

const sessionLine = /^session: (\d{8}T\d{6}-[0-9a-f]{6})$/m;

describe("castellan -p", () => {
  it("prints only the final text on stdout, the Session id on stderr, and saves the Session", async () => {
    const fixture = await coder();
    const result = await runBin(["-p", "hi", "--sandbox", "none"], { cwd: project, env: envFor(fixture.url) });
    expect(result.stderr).toMatch(sessionLine);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${greetingPieces.join("")}\n`);
    const id = sessionLine.exec(result.stderr)?.[1] as string;
    const saved = await readFile(join(home, "sessions", `${id}.jsonl`), "utf8");
    expect(saved).toContain('"agentId":"castellan.cli"');
    // The key went to the provider and nowhere else.
    const headers = fixture.requests[0]?.headers ?? {};
    expect(headers.authorization).toBe(`Bearer ${anthropicKey}`);
    expect(fixture.requests[0]?.path).toBe("/v1/messages");
    for (const text of [result.stdout, result.stderr, await savedText()]) expect(text).not.toContain(anthropicKey);
  });

  it("--json prints every Run event as one JSON line of the documented vocabulary, run-end last", async () => {
    const fixture = await coder();
    const result = await runBin(
      ["-p", "run: echo made", "--json", "--sandbox", "none", "--permissions", "full-access"],
      {
        cwd: project,
        env: envFor(fixture.url),
      },
    );
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    const events = lines.map((line) => JSON.parse(line) as { kind: string; [key: string]: unknown });
    const documented = await documentedRunEventKinds();
    expect(documented.size).toBeGreaterThan(15);
    for (const event of events) expect(documented).toContain(event.kind);
    expect(events.map((event) => event.kind)).toEqual(
      expect.arrayContaining(["run-start", "assistant-text-delta", "tool-start", "tool-end"]),
    );
    expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "completed" });
    expect(events.filter((event) => event.kind === "assistant-text-delta").length).toBeGreaterThan(0);
    const end = events.find((event) => event.kind === "tool-end") as unknown as {
      result: { content: { text: string }[] };
    };
    expect(JSON.stringify(end.result)).toContain("made");
    expect(result.stdout).not.toContain(anthropicKey);
  });

  it("denies an ask with no approver, with the reason the model reads, and writes nothing", async () => {
    const fixture = await coder();
    const result = await runBin(["-p", "run: echo x > made.txt", "--sandbox", "none"], {
      cwd: project,
      env: envFor(fixture.url),
    });
    expect(result.code).toBe(0);
    expect(existsSync(join(project, "made.txt"))).toBe(false);
    const second = fixture.requests[1];
    expect(second).toBeDefined();
    expect(messageText(messagesOf(second as never).at(-1) as never)).toContain(noApproverReason);
    expect(result.stdout).toContain("tool said:");
  });

  it("runs the call under --permissions full-access, and reads the task from stdin with -p -", async () => {
    const fixture = await coder();
    const result = await runBin(["-p", "-", "--sandbox", "none", "--permissions", "full-access"], {
      cwd: project,
      env: envFor(fixture.url),
      input: "run: printf made > made.txt",
    });
    expect(result.code).toBe(0);
    expect(await readFile(join(project, "made.txt"), "utf8")).toBe("made");
  });

  it("continues the directory's last Session with --continue, and refuses an unknown --resume (exit 2)", async () => {
    const fixture = await coder();
    const first = await runBin(["-p", "first message", "--sandbox", "none"], {
      cwd: project,
      env: envFor(fixture.url),
    });
    const id = sessionLine.exec(first.stderr)?.[1];
    const second = await runBin(["-p", "second message", "--continue"], { cwd: project, env: envFor(fixture.url) });
    expect(second.code).toBe(0);
    expect(sessionLine.exec(second.stderr)?.[1]).toBe(id);
    const sent = messagesOf(fixture.requests.at(-1) as never).map(messageText);
    expect(sent).toEqual(["first message", greetingPieces.join(""), "second message"]);
    const unknown = await runBin(["-p", "x", "--resume", "20990101T000000-abcdef"], {
      cwd: project,
      env: envFor(fixture.url),
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("session_not_found");
    const nothing = await runBin(["-p", "x", "--continue"], { cwd: root, env: envFor(fixture.url) });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("session_not_found");
  });

  it("exits 2 naming the variables when no provider is configured, and on a bad command line", async () => {
    const none = await runBin(["-p", "hi"], { cwd: project, env: { CASTELLAN_HOME: home } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("provider_not_configured");
    for (const name of [
      "ANTHROPIC_API_KEY",
      "CASTELLAN_OPENAI_CODEX_ACCESS_TOKEN",
      "OPENAI_API_KEY",
      "OPENROUTER_API_KEY",
    ]) {
      expect(none.stderr).toContain(name);
    }
    expect(existsSync(join(home, "sessions"))).toBe(false);
    const flag = await runBin(["-p", "hi", "--frobnicate"], { cwd: project, env: { CASTELLAN_HOME: home } });
    expect(flag.code).toBe(2);
    const wait = await runBin(["-p", "hi", "--approval-wait", "soon"], { cwd: project, env: { CASTELLAN_HOME: home } });
    expect(wait.code).toBe(2);
    expect(wait.stderr).toContain("--approval-wait");
    const remote = await runBin(["-p", "hi"], {
      cwd: project,
      env: {
        CASTELLAN_HOME: home,
        ANTHROPIC_API_KEY: anthropicKey,
        CASTELLAN_ANTHROPIC_BASE_URL: "http://example.invalid/v1",
      },
    });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("CASTELLAN_ANTHROPIC_BASE_URL");
    expect(remote.stderr).not.toContain(anthropicKey);
  });

  it("exits 1 with sandbox_unavailable, the packages and the doctor hint when bubblewrap is missing", async () => {
    const fixture = await coder();
    const result = await runBin(["-p", "hi"], {
      cwd: project,
      env: envFor(fixture.url, { PATH: join(root, "no-programs") }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("sandbox_unavailable");
    expect(result.stderr).toContain("apt-get install -y bubblewrap socat ripgrep");
    expect(result.stderr).toContain("Run castellan doctor");
    // Nothing ran uncontained instead: the model was never asked.
    expect(fixture.requests).toHaveLength(0);
  });

  it("exits 1 when the Run fails, with the provider's error and never the key", async () => {
    const fixture = await coder({ fail: 401 });
    const result = await runBin(["-p", "hi", "--sandbox", "none"], { cwd: project, env: envFor(fixture.url) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("model_auth");
    expect(result.stderr).not.toContain(anthropicKey);
  });

  it("SIGINT aborts the Run, closes the Session and exits 130", async () => {
    const fixture = await coder({ hold: true });
    const running = startBin(["-p", "hi", "--sandbox", "none", "--json"], { cwd: project, env: envFor(fixture.url) });
    const deadline = Date.now() + 10_000;
    while (!running.output().stdout.includes("assistant-text-delta") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    running.child.kill("SIGINT");
    const result = await running.done;
    expect(result.code).toBe(130);
    const last = JSON.parse(result.stdout.trimEnd().split("\n").at(-1) as string);
    expect(last).toMatchObject({ kind: "run-end", status: "aborted" });
  });

  it("takes the first provider whose key is set, and --model <provider>/<id> reaches that provider", async () => {
    const anthropicFixture = await coder();
    const chat = await startHttpFixture(async (_request, response) => {
      await sendSse(response, [
        { data: chunk({ role: "assistant", content: "" }) },
        { data: chunk({ content: "from openai" }) },
        { data: chunk({}, "stop") },
        { data: usageChunk(3, 2) },
        done,
      ]);
    });
    closers.push(() => chat.close());
    const env = envFor(anthropicFixture.url, {
      OPENAI_API_KEY: openaiKey,
      OPENAI_BASE_URL: `${chat.url}/v1`,
      CASTELLAN_OPENAI_MODEL: "m1",
    });
    const first = await runBin(["-p", "hi", "--sandbox", "none"], { cwd: project, env });
    expect(first.stdout).toBe(`${greetingPieces.join("")}\n`);
    expect(chat.requests).toHaveLength(0);
    const chosen = await runBin(["-p", "hi", "--sandbox", "none", "--model", "openai/gpt-test-2"], {
      cwd: project,
      env,
    });
    expect(chosen.code).toBe(0);
    expect(chosen.stdout).toBe("from openai\n");
    const sent = chat.requests[0];
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.json).toMatchObject({ model: "gpt-test-2" });
    expect(sent?.headers.authorization).toBe(`Bearer ${openaiKey}`);
    const withoutModel = await runBin(["-p", "hi", "--sandbox", "none", "--model", "openrouter/x"], {
      cwd: project,
      env,
    });
    expect(withoutModel.code).toBe(2);
    expect(withoutModel.stderr).toContain("OPENROUTER_API_KEY");
    for (const text of [first.stdout, first.stderr, chosen.stdout, chosen.stderr, await savedText()]) {
      expect(text).not.toContain(anthropicKey);
      expect(text).not.toContain(openaiKey);
    }
  });
});

describeNeeding(osSandboxPrograms, "castellan -p in the OS sandbox", () => {
  it("runs a command confined to the workspace, with no read of CASTELLAN_HOME", async () => {
    const fixture = await coder();
    const result = await runBin(
      [
        "-p",
        `run: printf ok > inside.txt; ls ${home}/sessions && echo home:read || echo home:denied`,
        "--permissions",
        "full-access",
      ],
      { cwd: project, env: envFor(fixture.url) },
    );
    expect(result.stderr).toMatch(sessionLine);
    expect(result.code).toBe(0);
    expect(await readFile(join(project, "inside.txt"), "utf8")).toBe("ok");
    expect(result.stdout).toContain("home:denied");
  });
});
