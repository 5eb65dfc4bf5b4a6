// The packed tarball, installed where playwright-core cannot be found, still imports
// @castellan/connectors/browser; a navigate fails browser_unavailable with the install hint.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../", import.meta.url));
const node = join(root, "node_modules/.bin/node");
let temp: string | undefined;

afterAll(async () => {
  if (temp) await rm(temp, { recursive: true, force: true });
});

const script = `
import { defineAgent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { createNodeRunner } from "@castellan/node-runner";
import { browser } from "@castellan/connectors/browser";
const model = scriptedModel([{ toolCalls: [{ name: "browser_navigate", input: { url: "http://127.0.0.1:9/" } }] }, { text: "done" }]);
const capability = browser({ mode: "managed", executablePath: "/usr/bin/chromium" });
const runner = await createNodeRunner({ agent: defineAgent("test.packed", { model, capabilities: [capability] }), permissions: "full-access" });
const session = await runner.createSession();
const handle = session.run("go");
for await (const _ of handle) {}
await handle.result;
const results = model.requests.at(-1).messages.filter((message) => message.role === "tool");
const last = results.at(-1).content.map((block) => block.text ?? "").join("");
await session.close();
await runner.close();
await capability.close();
process.stdout.write(JSON.stringify(last));
`;

describe("the packed tarball without playwright-core", () => {
  it("imports the browser entry and fails the first navigate with the install hint", async () => {
    temp = await mkdtemp(join(tmpdir(), "castellan-connectors-packed-"));
    const env = { ...process.env, npm_config_cache: "/tmp/npm-cache-castellan" };
    const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", temp], {
      cwd: join(root, "packages/connectors"),
      env,
    });
    const tarball = join(temp, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
    const installed = join(temp, "app/node_modules/@castellan");
    await mkdir(join(installed, "connectors"), { recursive: true });
    await run("tar", ["-xzf", tarball, "-C", join(installed, "connectors"), "--strip-components=1"]);
    // The other packages resolve their own dependencies from the workspace; the connector's
    // copy finds nothing above the temporary app, so playwright-core is absent for it.
    for (const name of ["harness", "node-runner", "models"]) {
      await symlink(join(root, "packages", name), join(installed, name), "dir");
    }
    await writeFile(join(temp, "app/package.json"), JSON.stringify({ type: "module", private: true }));
    await writeFile(join(temp, "app/main.js"), script);
    const result = await run(node, ["main.js"], { cwd: join(temp, "app"), env });
    const text = JSON.parse(result.stdout) as string;
    expect(text).toMatch(/^browser_unavailable/);
    expect(text).toContain("npm install playwright-core@1.64.1");
  });
});
