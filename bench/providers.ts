// `npm run bench:providers`: is a whole Castellan agent loop (runner + provider adapter) close
// to the least any loop must do with the same provider? For each adapter, one Run of N turns
// (N = 50 and 400: N-1 `tick` tool calls, then a text answer) against a loopback server that
// speaks the provider's wire format, beside a bare loop: plain fetch, a hand-built body, a
// minimal streaming SSE reader. Fairness:
// - Every loop sends byte-identical request bodies (checked on every Run) over the same global
//   fetch (undici, keep-alive); only the SDKs' own headers differ.
// - The server runs in a child process for every loop alike: it JSON-parses each request (up
//   to ~80 KB at N=400) to find the turn, and in this process that CPU would be timed as the
//   client's. Its answer is one fixed SSE body per turn, written at once.
// - Only the Run is timed (Castellan: session.run to run-end; the runner and Session are made
//   before), after a warm-up round, with the loop order rotating each round and a GC before
//   each loop. The "adapter" loop (the adapter alone, hand-driven) splits the extra time.
// The targets are informational; the script exits 0 unless something crashes.
import { fullGc } from "./support/gc.ts";
import { defaultProviderOptions, runProviderBench } from "./support/providers/bench.ts";
import { formatProviderReport } from "./support/providers/report.ts";

const report = await runProviderBench({
  ...defaultProviderOptions(),
  gc: fullGc(),
  progress: (message) => process.stderr.write(`... ${message}\n`),
});
process.stdout.write(formatProviderReport(report));
