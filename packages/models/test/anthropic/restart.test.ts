// A thinking conversation continued across a process restart: one process saves the Session
// with the file store, another reopens it, and the second process's request carries the
// thinking block with its signature exactly as Anthropic sent it.
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runNode } from "../support/child-process.ts";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { readFiles, removeDir, tempDir } from "../support/temp-dir.ts";
import { answer, FAKE_KEY, messageBodies, sendAnswer } from "./support/wire.ts";

const script = fileURLToPath(new URL("./support/thinking-session.ts", import.meta.url));
// Characters a careless round trip would change: JSON escapes, a line separator, non-ASCII.
const SIGNATURE = 'EqQBCkYIBRgCIkB/+sig==\u2028"quoted"\\slash\u00e9\u{1F512}end';
const REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT==";

let fixture: HttpFixture;
let directory: string;
beforeEach(async () => {
  directory = await tempDir("castellan-anthropic-restart-");
  let call = 0;
  fixture = await startHttpFixture((_request, response) => {
    call++;
    return sendAnswer(
      response,
      call === 1
        ? answer([
            { thinking: ["The user's project ", "is Cedar."], signature: SIGNATURE },
            { redacted: REDACTED },
            { text: ["Noted: Cedar."] },
          ])
        : answer([{ thinking: ["Recall."], signature: "sig2" }, { text: ["Your project is Cedar."] }]),
    );
  });
});
afterEach(async () => {
  await fixture.close();
  await removeDir(directory);
});

function runProcess(message: string) {
  // No real Anthropic settings from outside reach the child; the binding reads none anyway.
  return runNode(
    script,
    [message],
    { FIXTURE_URL: fixture.url, SESSION_DIRECTORY: directory, FAKE_ANTHROPIC_KEY: FAKE_KEY },
    "ANTHROPIC_",
  );
}

describe("a thinking conversation across a process restart", () => {
  it("sends the saved thinking blocks back unchanged from the second process", async () => {
    const first = await runProcess("Remember our project is Cedar.");
    expect(first.stdout).toBe("Noted: Cedar.\n");
    const second = await runProcess("What is our project?");
    expect(second.stdout).toBe("Your project is Cedar.\n");

    const bodies = messageBodies(fixture.requests);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Remember our project is Cedar." }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "The user's project is Cedar.", signature: SIGNATURE },
          { type: "redacted_thinking", data: REDACTED },
          { type: "text", text: "Noted: Cedar." },
        ],
      },
      { role: "user", content: [{ type: "text", text: "What is our project?" }] },
    ]);
    // Byte for byte on the wire, as the first process received it.
    const raw = fixture.requests.filter((request) => request.path === "/v1/messages")[1]?.body ?? "";
    expect(raw).toContain(JSON.stringify(SIGNATURE));

    const saved = await readFiles(directory);
    expect(saved.join("")).not.toContain(FAKE_KEY);
    expect(first.stdout + first.stderr + second.stdout + second.stderr).not.toContain(FAKE_KEY);
  });
});
