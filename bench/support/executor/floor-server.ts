// The executor bench's floor: an HTTP server in a process of its own that answers every request
// with one constant job view, doing nothing else. Polled under the same load as the executor, its
// latencies are what the machine itself allows a poll while the jobs run: no server design can
// answer faster than a process that only answers. Sends its port over the IPC channel; exits
// when the channel closes.
import { createServer } from "node:http";

if (!process.send) throw new Error("The floor server runs only as a child with an IPC channel.");
const view = JSON.stringify({
  jobId: "floor",
  kind: "coder",
  state: "running",
  phase: "agent",
  pass: "initial",
  progress: { completed: 1, inProgress: 1, total: 3 },
  createdAt: new Date().toISOString(),
  spans: [],
  followUps: [],
  callMetrics: [],
  droppedSpans: 0,
});
const server = createServer((_request, response) => {
  response.writeHead(200, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(view),
  });
  response.end(view);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.send?.(typeof address === "object" && address ? address.port : 0);
});
process.on("disconnect", () => process.exit(0));
