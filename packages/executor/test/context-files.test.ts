// Staging context images into a real checkout from a loopback artifact server: each file by
// its bearer token into .castellan-context/<kind>/, bounded per image (by the declared length
// and by the stream, leaving no partial file), per staging (64 files, the rest omitted) and in
// time; idempotent across passes; never over a tracked file or through a symlink. Then the
// prompt text naming what landed and what did not, and the body schema's refusals.
import { lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { contextImagesSchema, maxContextImageEntries } from "../src/context/context-images-schema.js";
import type { ContextStaging } from "../src/context/context-staging.js";
import { designImagesCorrection } from "../src/context/design-images-correction.js";
import { artifactUrl, describeBytes } from "../src/context/fetch-context-image.js";
import { screenshotsBlock } from "../src/context/screenshots-block.js";
import { type StageContextImagesOptions, stageContextImages } from "../src/context/stage-context-images.js";
import { type ArtifactFixture, type ArtifactRoute, startArtifactFixture } from "./artifact-fixture.ts";
import { git, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-context-");
const token = "artifact-token-0123456789abcdef";
const png = (label: string) => Buffer.from(`\x89PNG ${label}`);

let fixture: ArtifactFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function serve(routes: Record<string, ArtifactRoute>): Promise<ArtifactFixture> {
  fixture = await startArtifactFixture(token, (id) => routes[id]);
  return fixture;
}

async function checkout(): Promise<string> {
  const directory = join(temp.path, "checkout");
  await mkdir(directory);
  return directory;
}

function files(...names: string[]) {
  return names.map((name) => ({ artifactId: `art-${name}`, fileName: `${name}.png`, view: `View ${name}` }));
}

function stage(
  directory: string,
  spec: StageContextImagesOptions["spec"],
  options: Partial<StageContextImagesOptions> = {},
): Promise<ContextStaging> {
  return stageContextImages({
    checkout: directory,
    kind: "reference-screenshots",
    spec,
    signal: new AbortController().signal,
    isTracked: async () => false,
    ...options,
  });
}

const referenceDirectory = ".castellan-context/reference-screenshots";

describe("stageContextImages", () => {
  it("stages every file by its bearer token under its own name, and the block names each by view and path", async () => {
    const server = await serve({
      "art-home": { kind: "file", body: png("home") },
      "art-cart": { kind: "file", body: png("cart") },
    });
    const directory = await checkout();
    const outcome = await stage(directory, { url: `${server.url}/`, token, files: files("home", "cart") });
    expect(outcome).toEqual({
      kind: "reference-screenshots",
      staged: [
        { view: "View home", fileName: "home.png", path: `${referenceDirectory}/home.png`, fetched: true },
        { view: "View cart", fileName: "cart.png", path: `${referenceDirectory}/cart.png`, fetched: true },
      ],
      omitted: [],
      failed: [],
    });
    expect(server.requests.map((request) => [request.path, request.authorized])).toEqual([
      ["/artifacts/art-home", true],
      ["/artifacts/art-cart", true],
    ]);
    expect(await readFile(join(directory, referenceDirectory, "home.png"))).toEqual(png("home"));
    expect((await stat(join(directory, referenceDirectory))).mode & 0o777).toBe(0o700);
    expect((await stat(join(directory, ".castellan-context"))).mode & 0o777).toBe(0o700);
    const block = screenshotsBlock(outcome);
    expect(block).toContain(`- "View home": ${referenceDirectory}/home.png`);
    expect(block).toContain(`- "View cart": ${referenceDirectory}/cart.png`);
    expect(block).not.toContain("nothing to compare");
    expect(designImagesCorrection({ ...outcome, kind: "design-renders" })).toBeUndefined();
  });

  it("joins the id to a url with or without a trailing slash, keeping its query", () => {
    expect(artifactUrl("https://backend.example/a/b", "x.png")).toBe("https://backend.example/a/b/x.png");
    expect(artifactUrl("https://backend.example/a/b/", "x.png")).toBe("https://backend.example/a/b/x.png");
    expect(artifactUrl("https://backend.example/a?run=1", "x_1-2")).toBe("https://backend.example/a/x_1-2?run=1");
    expect(describeBytes(10 * 1024 * 1024)).toBe("10 MiB");
    expect(describeBytes(1000)).toBe("1000 bytes");
  });

  it("refuses a body past the bound as it streams, though its length header says less", async () => {
    // gzip: the header declares the 40-odd compressed bytes, the stream decodes to 4 KiB.
    const server = await serve({ "art-big": { kind: "gzip", body: Buffer.alloc(4096, 1) } });
    const directory = await checkout();
    const outcome = await stage(directory, { url: server.url, token, files: files("big") }, { maxBytesPerImage: 1024 });
    expect(outcome.failed).toEqual([{ view: "View big", fileName: "big.png", reason: "over 1 KiB" }]);
    expect(outcome.staged).toEqual([]);
    expect(await readdir(join(directory, referenceDirectory))).toEqual([]);
  });

  it("refuses a declared length over the bound before reading the body", async () => {
    const server = await serve({ "art-big": { kind: "declared", length: 2048 } });
    const directory = await checkout();
    const outcome = await stage(directory, { url: server.url, token, files: files("big") }, { maxBytesPerImage: 1024 });
    expect(outcome.failed).toEqual([{ view: "View big", fileName: "big.png", reason: "over 1 KiB" }]);
    expect(await server.requests[0]!.done).toBe(false);
    expect(server.requests[0]!.bodyBytes).toBe(0);
  });

  it("refuses a declared length over the default 10 MiB without the body being sent", async () => {
    const server = await serve({ "art-big": { kind: "declared", length: 10 * 1024 * 1024 + 1 } });
    const directory = await checkout();
    const outcome = await stage(directory, { url: server.url, token, files: files("big") });
    expect(outcome.failed).toEqual([{ view: "View big", fileName: "big.png", reason: "over 10 MiB" }]);
    expect(await server.requests[0]!.done).toBe(false);
    expect(server.requests[0]!.bodyBytes).toBe(0);
    expect(await readdir(join(directory, referenceDirectory))).toEqual([]);
  });

  it("aborts a stream past the bound, leaves no partial file, and stages the rest", async () => {
    const server = await serve({
      "art-endless": { kind: "endless", chunkBytes: 512 },
      "art-home": { kind: "file", body: png("home") },
    });
    const directory = await checkout();
    const outcome = await stage(
      directory,
      { url: server.url, token, files: files("endless", "home") },
      { maxBytesPerImage: 64 * 1024 },
    );
    expect(outcome.failed).toEqual([{ view: "View endless", fileName: "endless.png", reason: "over 64 KiB" }]);
    expect(outcome.staged.map((image) => image.fileName)).toEqual(["home.png"]);
    expect(await server.requests[0]!.done).toBe(false);
    expect(await readdir(join(directory, referenceDirectory))).toEqual(["home.png"]);
  });

  it("stages at most 64 files and names the 65th view as omitted, after the manifest's own", async () => {
    const names = Array.from({ length: 65 }, (_, index) => `f${index}`);
    const routes = Object.fromEntries(names.map((name) => [`art-${name}`, { kind: "file", body: png(name) } as const]));
    const server = await serve(routes);
    const directory = await checkout();
    const outcome = await stage(directory, { url: server.url, token, files: files(...names), omitted: ["Settings"] });
    expect(outcome.staged).toHaveLength(64);
    expect(outcome.omitted).toEqual(["Settings", "View f64"]);
    expect(outcome.failed).toEqual([]);
    expect(server.requests).toHaveLength(64);
    expect(server.requests.some((request) => request.path === "/artifacts/art-f64")).toBe(false);
    const block = screenshotsBlock(outcome);
    expect(block).toContain(`- "View f64": not sent with this job`);
    expect(block).toContain(`- "Settings": not sent with this job`);
  });

  it("fetches nothing on a second staging when every file landed, and only the misses after a failure", async () => {
    const routes: Record<string, ArtifactRoute> = {
      "art-home": { kind: "file", body: png("home") },
      "art-cart": { kind: "status", status: 503 },
    };
    const server = await serve(routes);
    const directory = await checkout();
    const spec = { url: server.url, token, files: files("home", "cart") };
    const first = await stage(directory, spec);
    expect(first.failed).toEqual([{ view: "View cart", fileName: "cart.png", reason: "HTTP 503" }]);
    expect(server.requests).toHaveLength(2);
    routes["art-cart"] = { kind: "file", body: png("cart") };
    const repair = await stage(directory, spec);
    expect(repair.staged.map((image) => [image.fileName, image.fetched])).toEqual([
      ["home.png", false],
      ["cart.png", true],
    ]);
    expect(server.requests.map((request) => request.path)).toEqual([
      "/artifacts/art-home",
      "/artifacts/art-cart",
      "/artifacts/art-cart",
    ]);
    const again = await stage(directory, spec);
    expect(again.staged.every((image) => !image.fetched)).toBe(true);
    expect(again.failed).toEqual([]);
    expect(server.requests).toHaveLength(3);
  });

  it("re-fetches an empty file and refuses an empty response", async () => {
    const server = await serve({
      "art-home": { kind: "file", body: png("home") },
      "art-none": { kind: "file", body: Buffer.alloc(0) },
    });
    const directory = await checkout();
    await mkdir(join(directory, referenceDirectory), { recursive: true });
    await writeFile(join(directory, referenceDirectory, "home.png"), "");
    const outcome = await stage(directory, { url: server.url, token, files: files("home", "none") });
    expect(outcome.staged).toEqual([expect.objectContaining({ fileName: "home.png", fetched: true })]);
    expect(outcome.failed).toEqual([{ view: "View none", fileName: "none.png", reason: "empty response" }]);
    expect(await readFile(join(directory, referenceDirectory, "home.png"))).toEqual(png("home"));
  });

  it("names a 404, a refused token and a timeout in the block and in the correction, never the token", async () => {
    const server = await serve({ "art-home": { kind: "file", body: png("home") }, "art-slow": { kind: "hang" } });
    const directory = await checkout();
    const outcome = await stage(
      directory,
      { url: server.url, token, files: files("home", "gone", "slow") },
      { timeoutMs: 500, kind: "design-renders" },
    );
    expect(outcome.staged.map((image) => image.path)).toEqual([".castellan-context/design-renders/home.png"]);
    expect(outcome.failed).toEqual([
      { view: "View gone", fileName: "gone.png", reason: "HTTP 404" },
      { view: "View slow", fileName: "slow.png", reason: "timed out" },
    ]);
    const correction = designImagesCorrection(outcome);
    expect(correction).toContain(`- "View gone": "gone.png" did not arrive (HTTP 404)`);
    expect(correction).toContain(`- "View slow": "slow.png" did not arrive (timed out)`);
    expect(correction).not.toContain("View home");
    const block = screenshotsBlock(outcome);
    expect(block).toContain(`- "View gone": "gone.png" did not arrive (HTTP 404)`);
    expect(block).toContain(`- "View slow": "slow.png" did not arrive (timed out)`);

    const refused = await stage(directory, { url: server.url, token: "not-the-token-at-all", files: files("other") });
    expect(refused.failed).toEqual([{ view: "View other", fileName: "other.png", reason: "HTTP 401" }]);
    expect(JSON.stringify([outcome, refused, correction, block])).not.toContain(token);
  });

  it("names a cancelled staging and a connection that failed", async () => {
    const directory = await checkout();
    // A port that was just free: nothing listens there, so the connection is refused.
    const closed = await startArtifactFixture(token, () => undefined);
    await closed.close();
    const controller = new AbortController();
    controller.abort();
    const cancelled = await stage(
      directory,
      { url: closed.url, token, files: files("home") },
      { signal: controller.signal },
    );
    expect(cancelled.failed).toEqual([{ view: "View home", fileName: "home.png", reason: "cancelled" }]);
    const refused = await stage(directory, { url: closed.url, token, files: files("home") });
    expect(refused.failed).toEqual([
      { view: "View home", fileName: "home.png", reason: "transfer failed (ECONNREFUSED)" },
    ]);
  });

  it("leaves a tracked file in the way alone and names it as not landed", async () => {
    const server = await serve({
      "art-home": { kind: "file", body: png("home") },
      "art-cart": { kind: "file", body: png("cart") },
    });
    const directory = await checkout();
    await git(["init", "-q"], directory);
    await mkdir(join(directory, referenceDirectory), { recursive: true });
    await writeFile(join(directory, referenceDirectory, "home.png"), "the repository's own file\n");
    await git(["add", "-f", "."], directory);
    await git(["commit", "-q", "-m", "first"], directory);
    const isTracked = async (path: string) => (await git(["ls-files", "--", path], directory)).trim() !== "";
    const outcome = await stage(directory, { url: server.url, token, files: files("home", "cart") }, { isTracked });
    expect(outcome.failed).toEqual([{ view: "View home", fileName: "home.png", reason: "tracked file in the way" }]);
    expect(outcome.staged.map((image) => image.fileName)).toEqual(["cart.png"]);
    expect(server.requests.map((request) => request.path)).toEqual(["/artifacts/art-cart"]);
    expect(await readFile(join(directory, referenceDirectory, "home.png"), "utf8")).toBe("the repository's own file\n");
    expect(screenshotsBlock(outcome)).toContain(`- "View home": "home.png" did not arrive (tracked file in the way)`);
  });

  it("never follows a symlink at the destination or in place of the directory", async () => {
    const server = await serve({
      "art-home": { kind: "file", body: png("home") },
      "art-cart": { kind: "file", body: png("cart") },
    });
    const directory = await checkout();
    const outside = join(temp.path, "outside");
    await mkdir(outside);
    await mkdir(join(directory, referenceDirectory), { recursive: true });
    await symlink(join(outside, "home.png"), join(directory, referenceDirectory, "home.png"));
    await mkdir(join(directory, referenceDirectory, "cart.png"));
    const outcome = await stage(directory, { url: server.url, token, files: files("home", "cart") });
    expect(outcome.failed).toEqual([
      { view: "View home", fileName: "home.png", reason: "symlink in the way" },
      { view: "View cart", fileName: "cart.png", reason: "non-regular file in the way" },
    ]);
    expect(await readdir(outside)).toEqual([]);
    expect(server.requests).toEqual([]);

    const other = join(temp.path, "other");
    await mkdir(other);
    await symlink(outside, join(other, ".castellan-context"));
    const linked = await stage(other, { url: server.url, token, files: files("home") });
    expect(linked.failed).toEqual([
      { view: "View home", fileName: "home.png", reason: "context directory is not a plain directory" },
    ]);
    expect(await readdir(outside)).toEqual([]);
    expect((await lstat(join(other, ".castellan-context"))).isSymbolicLink()).toBe(true);
  });

  it("refuses a file name that would leave or hide in the directory even without the schema", async () => {
    const server = await serve({});
    const directory = await checkout();
    const outcome = await stage(directory, {
      url: server.url,
      token,
      files: [
        { artifactId: "a", fileName: "../x.png", view: "Up" },
        { artifactId: "..", fileName: "y.png", view: "Dots" },
      ],
    });
    expect(outcome.failed.map((image) => image.reason)).toEqual(["invalid file name", "invalid artifact id"]);
    expect(server.requests).toEqual([]);
    expect(await readdir(directory)).toEqual([".castellan-context"]);
  });
});

describe("context image text", () => {
  it("says every view is missing when nothing landed, and the correction names omitted views", () => {
    const outcome: ContextStaging = {
      kind: "design-renders",
      staged: [],
      omitted: ["Line\nbreak"],
      failed: [],
    };
    expect(screenshotsBlock({ ...outcome, kind: "reference-screenshots" })).toContain(
      "No reference design image is in the checkout",
    );
    const correction = designImagesCorrection(outcome);
    expect(correction).toContain(`- "Line\\nbreak": not sent with this job`);
    expect(correction?.split("\n")).toHaveLength(4);
  });
});

describe("contextImagesSchema", () => {
  const schema = contextImagesSchema(z.url());
  const valid = { url: "https://backend.example/artifacts", token: "t", files: files("home"), omitted: ["Settings"] };

  function paths(body: unknown): string[] {
    const result = schema.safeParse(body);
    return result.success ? [] : result.error.issues.map((issue) => issue.path.join("."));
  }

  it("accepts a manifest, with or without omitted, and up to 1,000 files", () => {
    expect(schema.parse(valid)).toEqual(valid);
    expect(schema.safeParse({ ...valid, omitted: undefined }).success).toBe(true);
    const many = Array.from({ length: maxContextImageEntries }, (_, index) => `f${index}`);
    expect(schema.safeParse({ ...valid, files: files(...many) }).success).toBe(true);
    expect(paths({ ...valid, files: files(...many, "one-more") })).toEqual(["files"]);
  });

  it("refuses a file name that leaves or hides in the directory, and duplicates ignoring case", () => {
    const named = (...fileNames: string[]) => ({
      ...valid,
      files: fileNames.map((fileName, index) => ({ artifactId: `a${index}`, fileName, view: `v${index}` })),
    });
    expect(paths(named("../x.png"))).toEqual(["files.0.fileName"]);
    expect(paths(named(".hidden"))).toEqual(["files.0.fileName"]);
    expect(paths(named("a/b.png"))).toEqual(["files.0.fileName"]);
    expect(paths(named(`${"a".repeat(129)}`))).toEqual(["files.0.fileName"]);
    expect(paths(named("home.png", "cart.png", "Home.PNG"))).toEqual(["files.2.fileName"]);
    const duplicate = schema.safeParse(named("home.png", "HOME.png"));
    expect(duplicate.success ? "" : duplicate.error.issues[0]!.message).not.toContain("HOME");
  });

  it("refuses a bad artifact id, token, view, url and unknown fields", () => {
    const file = files("home")[0]!;
    expect(paths({ ...valid, files: [{ ...file, artifactId: ".." }] })).toEqual(["files.0.artifactId"]);
    expect(paths({ ...valid, files: [{ ...file, artifactId: "a/b" }] })).toEqual(["files.0.artifactId"]);
    expect(paths({ ...valid, files: [{ ...file, view: "" }] })).toEqual(["files.0.view"]);
    expect(paths({ ...valid, files: [{ ...file, extra: 1 }] })).toEqual(["files.0"]);
    expect(paths({ ...valid, token: "" })).toEqual(["token"]);
    expect(paths({ ...valid, token: "x".repeat(16_385) })).toEqual(["token"]);
    expect(paths({ ...valid, url: "not a url" })).toEqual(["url"]);
    expect(paths({ ...valid, omitted: [""] })).toEqual(["omitted.0"]);
    expect(paths({ ...valid, more: true })).toEqual([""]);
  });
});
