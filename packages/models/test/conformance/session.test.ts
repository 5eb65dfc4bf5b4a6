// Conformance, Sessions: a conversation continued across a process restart with the adapter's
// provider blocks sent back byte for byte, and the key kept out of every event, error and saved
// record of a file-store Session. Every adapter (drivers/index.ts) runs both.
import { fileURLToPath, pathToFileURL } from "node:url";
import { defineAgent, type RunEvent } from "@castellan/harness";
import { createFileSessionStore, openSession } from "@castellan/node-runner";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { runNode } from "../support/child-process.ts";
import { errorText } from "../support/secrets.ts";
import { readFiles, removeDir, tempDir } from "../support/temp-dir.ts";
import type { ConformanceDriver } from "./driver.ts";
import { drivers } from "./drivers/index.ts";
import { expectation } from "./exceptions.ts";
import { fail, type ScenarioFixture, serve, stream } from "./support/fixture.ts";
import { KEY } from "./support/key.ts";
import { assertNoKey } from "./support/no-key.ts";
import { scenario } from "./support/scenario.ts";

const child = fileURLToPath(new URL("./support/session-child.ts", import.meta.url));
// Characters a careless round trip would change: JSON escapes, a line separator, non-ASCII.
const MARKER = 'EqQBCkYIBRgCIkB/+sig==\u2028"quoted"\\slash\u00e9\u{1F512}end';

let fixture: ScenarioFixture | undefined;
let directory: string;
beforeEach(async () => {
  directory = await tempDir("castellan-conformance-");
});
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await removeDir(directory);
});

/** One process of the restart scenario; no provider settings from outside reach it. */
function runProcess(driver: ConformanceDriver, url: string, message: string) {
  const env = { CONFORMANCE_DRIVER: driver.name, FIXTURE_URL: url, SESSION_DIRECTORY: directory, CONFORMANCE_KEY: KEY };
  return runNode(child, [message], env, ["ANTHROPIC_", "OPENAI", "OPENROUTER"]);
}

describe.each(drivers.map((driver) => [driver.name, driver] as const))("%s", (_name, driver) => {
  scenario(
    "continuation across a restart",
    async () => {
      fixture = await serve(
        driver,
        stream(driver, driver.withProviderBlock(MARKER, "Noted: Cedar.")),
        stream(driver, driver.text(["Your project is Cedar."])),
      );
      const first = await runProcess(driver, fixture.url, "Remember our project is Cedar.");
      expect(first.stdout).toBe("Noted: Cedar.\n");
      const second = await runProcess(driver, fixture.url, "What is our project?");
      expect(second.stdout).toBe("Your project is Cedar.\n");

      const [, continued] = fixture.inference();
      const body = continued?.body ?? "";
      // The first process's turn, and its provider block as the first process received it.
      expect(body).toContain("Remember our project is Cedar.");
      expect(body).toContain("Noted: Cedar.");
      const { providerBlockSentBack } = expectation(driver.name, "continuation across a restart", {
        providerBlockSentBack: true,
      });
      if (providerBlockSentBack) expect(body).toContain(JSON.stringify(MARKER));
      else expect(body).not.toContain("EqQBCkYIBRgCIkB");
      expect(body.indexOf("Remember our project is Cedar.")).toBeLessThan(body.indexOf("What is our project?"));

      const saved = (await readFiles(directory)).join("");
      expect(saved).toContain("Noted: Cedar.");
      expect(saved).not.toContain(KEY);
      expect(first.stdout + first.stderr + second.stdout + second.stderr).not.toContain(KEY);
    },
    30_000,
  );

  scenario("credential", async () => {
    fixture = await serve(
      driver,
      // A misbehaving server echoes the key it was sent.
      fail(driver, "auth", `Incorrect API key provided: ${KEY}.`),
      stream(driver, driver.text(["Hello."])),
    );
    const model = driver.bind(fixture.url);
    const store = createFileSessionStore({ directory: pathToFileURL(`${directory}/`) });
    const session = await openSession({ agent: defineAgent("conformance.credential", { model }), id: "key", store });
    const events: RunEvent[] = [];
    let failure: unknown;
    try {
      const refused = session.run("Hi");
      for await (const event of refused) events.push(event);
      failure = await refused.result.then(
        () => undefined,
        (error: unknown) => error,
      );
      const answered = session.run("Hi again");
      for await (const event of answered) events.push(event);
      expect((await answered.result).text).toBe("Hello.");
    } finally {
      await session.close();
    }
    expect(failure).toMatchObject({ code: "model_failed", cause: { code: "model_auth" } });
    expect(events.some((event) => event.kind === "run-end" && event.status === "failed")).toBe(true);
    assertNoKey(events, failure);
    expect(errorText(failure)).not.toContain(KEY);
    const saved = (await readFiles(directory)).join("");
    expect(saved).toContain("Hello.");
    expect(saved).not.toContain(KEY);
    // The key went where it belongs, and only there.
    for (const request of fixture.inference()) {
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.body).not.toContain(KEY);
    }
  });
});
