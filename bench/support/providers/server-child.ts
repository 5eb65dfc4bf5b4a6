// The fixture server in a process of its own, so its CPU time is not charged to the loop being
// timed. argv[2] is the wire format. It sends `{ url }` once listening, answers "stats" and
// "reset" messages, and closes when its parent disconnects.
import type { WireFormat } from "./answers.ts";
import { startFixtureServer } from "./fixture-server.ts";

const server = await startFixtureServer(process.argv[2] as WireFormat);
const send = (message: unknown) => process.send?.(message);
process.on("message", (message) => {
  if (message === "stats") send({ stats: server.stats() });
  else if (message === "reset") {
    server.reset();
    send({ reset: true });
  }
});
process.on("disconnect", () => {
  void server.close().then(() => process.exit(0));
});
send({ url: server.url });
