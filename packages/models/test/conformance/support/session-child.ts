// One process of the restart scenario: opens file-store Session "restart" on the binding of
// driver CONFORMANCE_DRIVER, runs one message and prints the answer. The scenario runs it twice,
// as two processes, against the driver's fixture server.
//
//   CONFORMANCE_DRIVER=codex FIXTURE_URL=http://127.0.0.1:<port> SESSION_DIRECTORY=<dir> \
//     CONFORMANCE_KEY=<key> node session-child.ts "message"
import { pathToFileURL } from "node:url";
import { defineAgent } from "@castellan/harness";
import { runOneTurn } from "../../support/session-child.ts";
import { bind, type DriverName } from "../bindings.ts";

const { CONFORMANCE_DRIVER, FIXTURE_URL, SESSION_DIRECTORY, CONFORMANCE_KEY } = process.env;
if (!CONFORMANCE_DRIVER || !FIXTURE_URL || !SESSION_DIRECTORY || !CONFORMANCE_KEY) {
  throw new Error("CONFORMANCE_DRIVER, FIXTURE_URL, SESSION_DIRECTORY and CONFORMANCE_KEY are required");
}
const model = bind(CONFORMANCE_DRIVER as DriverName, FIXTURE_URL, CONFORMANCE_KEY);
const agent = defineAgent("conformance.restart", { model, instructions: "Remember what matters." });
await runOneTurn(agent, "restart", pathToFileURL(`${SESSION_DIRECTORY}/`), process.argv.slice(2).join(" "));
