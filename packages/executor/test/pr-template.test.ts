// The PR template resolver on real checkouts: each of the five places, names matched ignoring
// case, the first place winning, symlinks followed only while they stay inside the checkout, a
// directory of several templates left to a human, the 64 KiB bound, and the prompt section.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { maxTemplateBytes, resolvePrTemplate, templateInstructions } from "../src/pr/template/index.js";
import { tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-pr-template-");

/** A checkout (and an `outside` directory beside it) holding `files`. */
async function checkout(files: Record<string, string | Buffer> = {}): Promise<string> {
  const root = join(temp.path, "checkout");
  await mkdir(root);
  await mkdir(join(temp.path, "outside"));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

describe("resolvePrTemplate", () => {
  it.each([
    [".github/pull_request_template.md"],
    ["pull_request_template.md"],
    ["docs/pull_request_template.md"],
    [".github/PULL_REQUEST_TEMPLATE/feature.md"],
    [".gitlab/merge_request_templates/Only.md"],
  ])("finds a template at %s", async (path) => {
    const root = await checkout({ [path]: `## Summary\n\n(from ${path})\n`, "README.md": "# app\n" });
    expect(await resolvePrTemplate(root)).toEqual({
      template: { path, content: `## Summary\n\n(from ${path})\n` },
      notes: [],
    });
  });

  it("matches every segment ignoring case and reports the name as spelt on disk", async () => {
    const root = await checkout({ ".GitHub/PULL_REQUEST_TEMPLATE.md": "upper\n" });
    expect(await resolvePrTemplate(root)).toEqual({
      template: { path: ".GitHub/PULL_REQUEST_TEMPLATE.md", content: "upper\n" },
      notes: [],
    });
    const gitlab = join(temp.path, "gitlab");
    await mkdir(join(gitlab, ".GitLab", "Merge_Request_Templates"), { recursive: true });
    await writeFile(join(gitlab, ".GitLab", "Merge_Request_Templates", "a.md"), "a\n");
    await writeFile(join(gitlab, ".GitLab", "Merge_Request_Templates", "DEFAULT.MD"), "default\n");
    expect((await resolvePrTemplate(gitlab)).template).toEqual({
      path: ".GitLab/Merge_Request_Templates/DEFAULT.MD",
      content: "default\n",
    });
  });

  it("takes the first place that has one", async () => {
    const root = await checkout({
      ".github/pull_request_template.md": "github\n",
      "pull_request_template.md": "root\n",
      "docs/pull_request_template.md": "docs\n",
      ".github/PULL_REQUEST_TEMPLATE/one.md": "directory\n",
      ".gitlab/merge_request_templates/Default.md": "gitlab\n",
    });
    expect((await resolvePrTemplate(root)).template?.content).toBe("github\n");
    const later = join(temp.path, "later");
    await mkdir(join(later, "docs"), { recursive: true });
    await writeFile(join(later, "docs", "pull_request_template.md"), "docs\n");
    await writeFile(join(later, "pull_request_template.md"), "root\n");
    expect((await resolvePrTemplate(later)).template?.path).toBe("pull_request_template.md");
  });

  it("follows a symlinked template or directory that stays inside the checkout", async () => {
    const root = await checkout({ "templates/pr.md": "linked\n", "config/github/pull_request_template.md": "dir\n" });
    await mkdir(join(root, "docs"));
    await symlink("../templates/pr.md", join(root, "docs", "pull_request_template.md"));
    expect(await resolvePrTemplate(root)).toEqual({
      template: { path: "docs/pull_request_template.md", content: "linked\n" },
      notes: [],
    });
    await symlink("config/github", join(root, ".github"));
    expect(await resolvePrTemplate(root)).toEqual({
      template: { path: ".github/pull_request_template.md", content: "dir\n" },
      notes: [],
    });
  });

  it("skips a symlink leading out of the checkout with a note, and goes on to the next place", async () => {
    const root = await checkout({ "docs/pull_request_template.md": "docs\n" });
    await writeFile(join(temp.path, "outside", "secret.md"), "not the repository's\n");
    await symlink(join(temp.path, "outside", "secret.md"), join(root, "pull_request_template.md"));
    expect(await resolvePrTemplate(root)).toEqual({
      template: { path: "docs/pull_request_template.md", content: "docs\n" },
      notes: ["`pull_request_template.md` is a symlink leading outside the checkout; it was not followed."],
    });
  });

  it("does not walk through a symlinked directory that leads out of the checkout", async () => {
    const root = await checkout();
    await writeFile(join(temp.path, "outside", "pull_request_template.md"), "outside\n");
    await symlink("../outside", join(root, ".github"));
    expect(await resolvePrTemplate(root)).toEqual({
      notes: ["`.github` is a symlink leading outside the checkout; it was not followed."],
    });
  });

  it("leaves a directory of several templates with no default to a human, and goes on", async () => {
    const root = await checkout({
      ".github/PULL_REQUEST_TEMPLATE/bug.md": "bug\n",
      ".github/PULL_REQUEST_TEMPLATE/feature.md": "feature\n",
      ".github/PULL_REQUEST_TEMPLATE/notes.txt": "not a template\n",
    });
    const note =
      "`.github/PULL_REQUEST_TEMPLATE/` holds 2 templates and no default; none was used, since a human picks one per pull request.";
    expect(await resolvePrTemplate(root)).toEqual({ notes: [note] });
    await mkdir(join(root, ".gitlab", "merge_request_templates"), { recursive: true });
    await writeFile(join(root, ".gitlab", "merge_request_templates", "Only.md"), "gitlab\n");
    expect(await resolvePrTemplate(root)).toEqual({
      template: { path: ".gitlab/merge_request_templates/Only.md", content: "gitlab\n" },
      notes: [note],
    });
  });

  it("takes GitLab's Default.md among several", async () => {
    const root = await checkout({
      ".gitlab/merge_request_templates/Bug.md": "bug\n",
      ".gitlab/merge_request_templates/Default.md": "default\n",
      ".gitlab/merge_request_templates/Feature.md": "feature\n",
    });
    expect(await resolvePrTemplate(root)).toEqual({
      template: { path: ".gitlab/merge_request_templates/Default.md", content: "default\n" },
      notes: [],
    });
  });

  it("ignores a template over 64 KiB with a note, and uses one of exactly 64 KiB", async () => {
    const root = await checkout({
      ".github/pull_request_template.md": "x".repeat(maxTemplateBytes + 1),
      "pull_request_template.md": "y".repeat(maxTemplateBytes),
    });
    const resolution = await resolvePrTemplate(root);
    expect(resolution.template?.path).toBe("pull_request_template.md");
    expect(resolution.template?.content).toHaveLength(65_536);
    expect(resolution.notes).toEqual([
      "`.github/pull_request_template.md` is 65537 bytes, over the bound of 65536 for a template; it was ignored.",
    ]);
  });

  it("ignores a template that is not UTF-8, or blank, with a note", async () => {
    const root = await checkout({
      ".github/pull_request_template.md": Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]),
      "pull_request_template.md": " \n\n",
    });
    expect(await resolvePrTemplate(root)).toEqual({
      notes: [
        "`.github/pull_request_template.md` is not valid UTF-8; it was ignored.",
        "`pull_request_template.md` is empty; it was ignored.",
      ],
    });
  });

  it("answers no template and no notes for a checkout without one", async () => {
    const root = await checkout({
      "README.md": "# app\n",
      "docs/guide.md": "guide\n",
      ".github/CODEOWNERS": "* @me\n",
    });
    expect(await resolvePrTemplate(root)).toEqual({ notes: [] });
  });
});

describe("templateInstructions", () => {
  it("asks for the briefing in the sentinel as the template filled in, quoting it whole", () => {
    const content = "## Summary\n\n```sh\nnpm test\n```\n\n- [ ] Tests added\n";
    const text = templateInstructions({ path: ".github/pull_request_template.md", content });
    expect(text).toContain("`.github/pull_request_template.md`");
    expect(text).toContain("`.castellan-pr-description.md`");
    expect(text).toContain("filled in");
    // Fenced with more backticks than the template holds in a row, so it cannot end early.
    expect(text).toContain(`\`\`\`\`markdown\n${content.trimEnd()}\n\`\`\`\``);
  });
});
