// The executor bench's pollers, in a process of their own so their latencies are the server's
// and not this loop's: one poller per target job, each a GET /jobs/{id} every `intervalMs`
// (from the start of the previous one). A poller stops at `durationMs`, on SIGTERM, or, with
// `untilSettled`, once its job's view is terminal. Reads its settings as JSON from argv[2]; prints
// `{ latencies, errors }` as one JSON line when all have stopped.
import { Agent, request } from "node:http";

interface PollerSettings {
  readonly port: number;
  readonly token: string;
  readonly targets: readonly string[];
  readonly intervalMs: number;
  readonly durationMs: number;
  readonly untilSettled: boolean;
}

const settings = JSON.parse(process.argv[2] ?? "{}") as PollerSettings;
const agent = new Agent({ keepAlive: true, maxSockets: settings.targets.length });
const terminal = new Set(["succeeded", "failed", "cancelled", "interrupted"]);

function poll(jobId: string): Promise<{ ms: number; state: string | undefined }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: "127.0.0.1",
        port: settings.port,
        path: `/jobs/${jobId}`,
        agent,
        headers: { authorization: `Bearer ${settings.token}` },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const ms = performance.now() - started;
          if (response.statusCode !== 200)
            return reject(new Error(`GET /jobs/${jobId} answered ${response.statusCode}`));
          resolve({ ms, state: (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { state?: string }).state });
        });
        response.on("error", reject);
      },
    );
    sent.on("error", reject);
    sent.end();
  });
}

const latencies: number[] = [];
let errors = 0;
const deadline = performance.now() + settings.durationMs;
let stopped = false;
process.once("SIGTERM", () => {
  stopped = true;
});

async function poller(jobId: string, offset: number): Promise<void> {
  // Spread the first polls over one interval, as independent clients would be.
  await new Promise((resolve) => setTimeout(resolve, offset));
  while (!stopped && performance.now() < deadline) {
    const started = performance.now();
    try {
      const { ms, state } = await poll(jobId);
      latencies.push(ms);
      if (settings.untilSettled && state !== undefined && terminal.has(state)) return;
    } catch {
      errors++;
    }
    const wait = settings.intervalMs - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

await Promise.all(
  settings.targets.map((jobId, index) => poller(jobId, (index * settings.intervalMs) / settings.targets.length)),
);
agent.destroy();
process.stdout.write(`${JSON.stringify({ latencies, errors })}\n`);
