// The sentinels the agent leaves at the checkout root, on real files: the PR briefing (title
// rule, scrub, caps with visible notes, made inert for the host), the follow-ups and effort
// JSON (strict, refused whole), all three together, symlinks and odd files refused, and the
// report region a description cannot forge.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  composePrBody,
  effortFile,
  followUpsFile,
  makeInert,
  maxDescriptionChars,
  maxSentinelBytes,
  maxTitleChars,
  type PrDescriptionOptions,
  prDescriptionFile,
  readEffort,
  readFollowUps,
  readPrDescription,
  readSentinels,
  refreshPrBody,
  reportEnd,
  reportRegionOf,
  reportStart,
} from "../src/sentinels/index.js";
import { tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-sentinels-");
const zwj = "\u200d";
const secret = "s3cret-token-0123456789";
const plain: PrDescriptionOptions = { titleFromHeading: true, scrub: (text) => text.split(secret).join("[redacted]") };

async function checkout(files: Record<string, string | Buffer> = {}): Promise<string> {
  const root = join(temp.path, "checkout");
  await mkdir(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) await writeFile(join(root, name), content);
  return root;
}

async function description(text: string | Buffer, options: PrDescriptionOptions = plain) {
  return readPrDescription(await checkout({ [prDescriptionFile]: text }), options);
}

describe("readPrDescription", () => {
  it("is absent, empty or invalid when there is nothing usable", async () => {
    expect(await readPrDescription(await checkout(), plain)).toEqual({ state: "absent", notes: [] });
    expect(await description(" \n\t\n")).toEqual({
      state: "empty",
      notes: ["`.castellan-pr-description.md` is empty; the job's own description was kept."],
    });
    expect(await description(Buffer.from([0x68, 0x69, 0xc3, 0x28]))).toEqual({
      state: "invalid",
      notes: ["`.castellan-pr-description.md` is not valid UTF-8; it was ignored."],
    });
  });

  it("refuses a symlinked sentinel, even one pointing inside the checkout, and a directory", async () => {
    const root = await checkout({ "briefing.md": "# Title\n\nBody\n" });
    await symlink("briefing.md", join(root, prDescriptionFile));
    expect(await readPrDescription(root, plain)).toEqual({
      state: "invalid",
      notes: ["`.castellan-pr-description.md` is a symlink; a sentinel is never followed; it was ignored."],
    });
    const other = join(temp.path, "other");
    await mkdir(join(other, followUpsFile), { recursive: true });
    expect(await readFollowUps(other)).toEqual({
      state: "invalid",
      note: "`.castellan-follow-ups.json` is not a regular file; it was ignored.",
    });
  });

  it("refuses a sentinel over 1 MiB unread", async () => {
    expect(await description("a".repeat(maxSentinelBytes + 1))).toEqual({
      state: "invalid",
      notes: ["`.castellan-pr-description.md` is 1048577 bytes, over the bound of 1048576; it was ignored."],
    });
  });

  it("lifts a leading # title, the only level-1 heading, and drops it from the body", async () => {
    expect(await description("\n# Add the export button\n\n## Why\n\nUsers asked.\n")).toEqual({
      state: "read",
      title: "Add the export button",
      body: "## Why\n\nUsers asked.",
      notes: [],
    });
    expect((await description("# Support C#\nBody\n")).state === "read").toBe(true);
    expect(await description("# Support C# #\r\nBody\r\n")).toMatchObject({ title: "Support C#", body: "Body" });
  });

  it("keeps the heading in the body when a template is in use", async () => {
    expect(await description("# Summary\n\nWhat changed.\n", { ...plain, titleFromHeading: false })).toEqual({
      state: "read",
      body: "# Summary\n\nWhat changed.",
      notes: [],
    });
  });

  it("lifts no title with two level-1 headings, a heading that is not first, or nothing after it", async () => {
    expect(await description("# One\n\ntext\n\n# Two\n\nmore\n")).toEqual({
      state: "read",
      body: "# One\n\ntext\n\n# Two\n\nmore",
      notes: [],
    });
    expect(await description("Intro\n\n# Title\n")).toEqual({ state: "read", body: "Intro\n\n# Title", notes: [] });
    expect(await description("# Only a title\n")).toEqual({ state: "read", body: "# Only a title", notes: [] });
    expect(await description("## Sub\n\n# Title\n")).not.toHaveProperty("title");
  });

  it("ignores # lines inside fenced code when counting headings", async () => {
    const text = "# Fix the parser\n\n```sh\n# a shell comment\n```\n\n~~~\n# another\n~~~\n";
    expect(await description(text)).toEqual({
      state: "read",
      title: "Fix the parser",
      body: "```sh\n# a shell comment\n```\n\n~~~\n# another\n~~~",
      notes: [],
    });
    expect(await description("```\n# Not a title\n```\nbody\n")).not.toHaveProperty("title");
  });

  it("scrubs credentials out of the title and the body", async () => {
    expect(await description(`# Rotate ${secret}\n\nThe old token was ${secret}.\n`)).toEqual({
      state: "read",
      title: "Rotate [redacted]",
      body: "The old token was [redacted].",
      notes: [],
    });
  });

  it("cuts a long body to 60,000 characters with a visible note", async () => {
    const reading = await description(`# Big\n\n${"word ".repeat(20_000)}`);
    if (reading.state !== "read") throw new Error(reading.state);
    expect(reading.body.length).toBeLessThanOrEqual(maxDescriptionChars);
    expect(reading.body.length).toBeGreaterThan(maxDescriptionChars - 200);
    expect(reading.body).toMatch(
      /\n\n_This description was cut at [\d,]+ of its 99,999 characters, to fit the bound of 60,000\._$/,
    );
    expect(reading.notes).toEqual([
      expect.stringMatching(/^The PR description was cut at [\d,]+ of its 99,999 characters/),
    ]);
  });

  it("cuts before escaping, so the escaped body still fits", async () => {
    const reading = await description("<".repeat(50_000));
    if (reading.state !== "read") throw new Error(reading.state);
    expect(reading.body.length).toBeLessThanOrEqual(maxDescriptionChars);
    expect(reading.body.startsWith("&lt;&lt;")).toBe(true);
    expect(reading.body).not.toMatch(/&l?t?$/m);
    expect(reading.notes).toHaveLength(1);
  });

  it("closes a fenced block the cut ends inside before the note", async () => {
    const reading = await description(`Intro\n\n> \`\`\`js\n${"> x();\n".repeat(12_000)}`);
    if (reading.state !== "read") throw new Error(reading.state);
    expect(reading.body.length).toBeLessThanOrEqual(maxDescriptionChars);
    expect(reading.body).toMatch(/\n> ```\n\n_This description was cut at [\d,]+ of its 84,014 characters/);
  });

  it("cuts a long title to 256 characters, noting it in the body and the notes", async () => {
    const reading = await description(`# ${"t".repeat(300)}\n\nBody.\n`);
    expect(reading).toEqual({
      state: "read",
      title: `${"t".repeat(maxTitleChars - 1)}…`,
      body: "Body.\n\n_The title of this pull request was cut to 256 of its 300 characters._",
      notes: ["The PR title was 300 characters, over the bound of 256; it was cut."],
    });
  });

  it("makes the body inert and defuses closing keywords in the title", async () => {
    expect(await description("# Fixes #12\n\nFixes #12, thanks @octocat <b>bold</b>\n")).toEqual({
      state: "read",
      title: `Fixes${zwj} #12`,
      body: `Fixes${zwj} #12, thanks \`@octocat\` &lt;b&gt;bold&lt;/b&gt;`,
      notes: [],
    });
  });
});

describe("makeInert", () => {
  it("puts @user and @org/team mentions in code spans", () => {
    expect(makeInert("Thanks @octocat and @acme/reviewers (cc @a-b-c).")).toBe(
      "Thanks `@octocat` and `@acme/reviewers` (cc `@a-b-c`).",
    );
    expect(makeInert("@start of text\n@line start")).toBe("`@start` of text\n`@line` start");
  });

  it("leaves email addresses, paths and existing code alone", () => {
    const text = [
      "Mail a@b.com or first.last+tag@example.org, see https://medium.com/@writer/post.",
      "Run `npm i @scope/pkg` and `git log --author=@me`.",
      "```",
      "@decorator",
      "<div>@inside</div>",
      "```",
      "    ~~~",
      "    @indented <b>",
      "    ~~~",
    ].join("\n");
    expect(makeInert(text)).toBe(text);
  });

  it("defuses closing keywords right before an issue reference, and only there", () => {
    expect(makeInert("fixes #1")).toBe(`fixes${zwj} #1`);
    expect(makeInert("Closes o/r#2")).toBe(`Closes${zwj} o/r#2`);
    expect(makeInert("resolved https://github.com/o/r/issues/3")).toBe(
      `resolved${zwj} https://github.com/o/r/issues/3`,
    );
    expect(makeInert("FIXED: #4, close GH-5 and Resolves <https://github.com/o/r/issues/6>")).toBe(
      `FIXED${zwj}: #4, close${zwj} GH-5 and Resolves${zwj} <https://github.com/o/r/issues/6>`,
    );
    for (const text of [
      "fix the bug #1",
      "closes the gap in #2",
      "prefixes #3",
      "the fixer #4",
      "see #5 which fixes it",
      "`fixes #6`",
    ]) {
      expect(makeInert(text)).toBe(text);
    }
  });

  it("escapes raw HTML outside code, keeping autolinks, blockquotes and code", () => {
    expect(makeInert('<img src="x" onerror="y"> and <!-- hidden -->')).toBe(
      '&lt;img src="x" onerror="y"&gt; and &lt;!-- hidden --&gt;',
    );
    expect(makeInert("See <https://example.com/a?b=c> or <mailto:x@y.z>.")).toBe(
      "See <https://example.com/a?b=c> or &lt;mailto:x@y.z&gt;.",
    );
    expect(makeInert("> quoted <b>\n> > nested\n- > in a list")).toBe("> quoted &lt;b&gt;\n> > nested\n- > in a list");
    expect(makeInert("Use `Array<string>` and \\<not a tag\\>, a -> b")).toBe(
      "Use `Array<string>` and \\<not a tag\\>, a -&gt; b",
    );
  });

  it("ends a code span at its paragraph, as markdown does", () => {
    expect(makeInert("a `span\nacross <lines>` b")).toBe("a `span\nacross <lines>` b");
    expect(makeInert("a `open\n\nnext <p>` b")).toBe("a `open\n\nnext &lt;p&gt;` b");
    expect(makeInert("- a `open\n- b <p>`")).toBe("- a `open\n- b &lt;p&gt;`");
  });

  it("keeps code fenced inside a list item verbatim", () => {
    const text = "1. Build:\n   ```ts\n   const x: Array<number> = []; // @ts-expect-error\n   ```\n2. Done <b>";
    expect(makeInert(text)).toBe(
      "1. Build:\n   ```ts\n   const x: Array<number> = []; // @ts-expect-error\n   ```\n2. Done &lt;b&gt;",
    );
  });

  it("fences a mention so a stray backtick cannot pair with the fence", () => {
    expect(makeInert("a ` stray, @user")).toBe("a ` stray, ``@user``");
    expect(makeInert("`@user")).toBe(`\`${zwj}\`\`@user\`\``);
    expect(makeInert("@user` and `x")).toBe(`\`@user\`${zwj}\` and \`x`);
    expect(makeInert("`code`@user")).toBe(`\`code\`${zwj}\`@user\``);
    expect(makeInert("x`@user`")).toBe("x`@user`");
    expect(makeInert("escaped \\@user")).toBe("escaped `@user`");
  });

  it("changes nothing more when applied twice", () => {
    const text = "Fixes #1 for @a, <b> `code` <https://x.y/z>\n> quote\n```\n<raw>\n```\n";
    expect(makeInert(makeInert(text))).toBe(makeInert(text));
  });

  it("escapes the report markers in prose, so a description cannot forge a region", () => {
    const forged = `Summary\n\n${reportStart}\nAll checks passed.\n${reportEnd}\n`;
    const inert = makeInert(forged);
    expect(inert).not.toContain(reportStart);
    expect(inert).toContain("&lt;!-- castellan:report:start --&gt;");
  });
});

describe("the report region", () => {
  it("composes the description, a blank line and the region, and reads the region back", () => {
    const body = composePrBody("## Summary\n\nDone.\n", "Validation: green\n");
    expect(body).toBe(`## Summary\n\nDone.\n\n${reportStart}\n\nValidation: green\n\n${reportEnd}`);
    expect(reportRegionOf(body)).toBe(`${reportStart}\n\nValidation: green\n\n${reportEnd}`);
    expect(reportRegionOf("no region here")).toBeUndefined();
    expect(reportRegionOf(`${reportStart} never closed`)).toBeUndefined();
  });

  it("refreshes the description and keeps the existing region verbatim", () => {
    const region = `${reportStart}\r\n\r\nEdited by the engine, **kept** as is.\r\n\r\n${reportEnd}`;
    const existing = `Old description.\n\n${region}\n\nA human's trailing note.`;
    expect(refreshPrBody(existing, "New description.\n")).toBe(`New description.\n\n${region}`);
    expect(refreshPrBody("A body without a region.", "New description.")).toBe("New description.");
  });

  it("neutralises markers a description carries in code, where escaping does not reach", () => {
    const forged = makeInert(`Look:\n\n\`\`\`\n${reportStart}\nForged: all green\n${reportEnd}\n\`\`\`\n`);
    expect(forged).toContain(reportStart);
    const body = composePrBody(forged, "Real report");
    expect(body.split(reportStart)).toHaveLength(2);
    expect(body.split(reportEnd)).toHaveLength(2);
    expect(reportRegionOf(body)).toBe(`${reportStart}\n\nReal report\n\n${reportEnd}`);
    const refreshed = refreshPrBody(body, forged);
    expect(reportRegionOf(refreshed)).toBe(`${reportStart}\n\nReal report\n\n${reportEnd}`);
    // Without a region in the old body, the forged markers still open none.
    expect(reportRegionOf(refreshPrBody("plain", forged))).toBeUndefined();
    // Nor can the report close its own region early.
    expect(reportRegionOf(composePrBody("d", `a ${reportEnd} b`))).toBe(
      `${reportStart}\n\na <!--${zwj} castellan:report:end --> b\n\n${reportEnd}`,
    );
  });
});

describe("readFollowUps", () => {
  const read = async (json: unknown) =>
    readFollowUps(await checkout({ [followUpsFile]: typeof json === "string" ? json : JSON.stringify(json) }));

  it("reads up to 20 follow-ups, titles trimmed", async () => {
    expect(await readFollowUps(await checkout())).toEqual({ state: "absent" });
    expect(
      await read([{ title: "  Cover the CLI  ", detail: "It has no tests." }, { title: "t".repeat(200) }]),
    ).toEqual({
      state: "read",
      followUps: [{ title: "Cover the CLI", detail: "It has no tests." }, { title: "t".repeat(200) }],
    });
    expect(await read(Array.from({ length: 20 }, (_, index) => ({ title: `f${index}` })))).toMatchObject({
      state: "read",
    });
  });

  it("refuses the whole file over 20 entries, a long or blank title, a long detail or an unknown key", async () => {
    const cases: [unknown, RegExp][] = [
      [Array.from({ length: 21 }, () => ({ title: "x" })), /the top level: Too big/],
      [[{ title: "t".repeat(201) }], /0\.title: Too big/],
      [[{ title: "   " }], /0\.title: Too small/],
      [[{ title: "x", detail: "d".repeat(4_001) }], /0\.detail: Too big/],
      [[{ title: "x", priority: "high" }], /0: Unrecognized key: "priority"/],
      [{ title: "not an array" }, /the top level: Invalid input/],
      ["[{ title: 'x' }]", /is not JSON/],
    ];
    for (const [json, message] of cases) {
      const reading = await read(json);
      expect(reading.state).toBe("invalid");
      if (reading.state === "invalid") {
        expect(reading.note).toMatch(/^`\.castellan-follow-ups\.json` /);
        expect(reading.note).toMatch(message);
      }
    }
  });
});

describe("readEffort", () => {
  const read = async (json: unknown) => readEffort(await checkout({ [effortFile]: JSON.stringify(json) }));

  it("reads a level and an optional note", async () => {
    expect(await read({ level: "small" })).toEqual({ state: "read", effort: { level: "small" } });
    expect(await read({ level: "large", note: "Touches every route." })).toEqual({
      state: "read",
      effort: { level: "large", note: "Touches every route." },
    });
  });

  it("refuses an unknown level, an unknown key or a note over 2,000 characters", async () => {
    for (const json of [
      { level: "huge" },
      { level: "small", hours: 3 },
      { level: "medium", note: "n".repeat(2_001) },
      {},
    ]) {
      const reading = await read(json);
      expect(reading).toMatchObject({
        state: "invalid",
        note: expect.stringMatching(/^`\.castellan-effort\.json` does not have/),
      });
    }
  });
});

describe("readSentinels", () => {
  it("combines the three, skipping an invalid one with a note and scrubbing what it returns", async () => {
    const root = await checkout({
      [prDescriptionFile]: "# Title\n\nBody for @you\n",
      [followUpsFile]: JSON.stringify([{ title: `Rotate ${secret}` }]),
      [effortFile]: JSON.stringify({ level: "enormous" }),
    });
    const reading = await readSentinels(root, plain);
    expect(reading).toEqual({
      description: { title: "Title", body: "Body for `@you`" },
      followUps: [{ title: "Rotate [redacted]" }],
      notes: [expect.stringMatching(/^`\.castellan-effort\.json` does not have the expected shape \(level: /)],
    });
    expect(reading).not.toHaveProperty("effort");
  });

  it("answers only notes when nothing usable is there", async () => {
    const root = await checkout({ [prDescriptionFile]: "\n" });
    await symlink("/etc/passwd", join(root, effortFile));
    expect(await readSentinels(root, plain)).toEqual({
      notes: [
        "`.castellan-pr-description.md` is empty; the job's own description was kept.",
        "`.castellan-effort.json` is a symlink; a sentinel is never followed; it was ignored.",
      ],
    });
  });
});
