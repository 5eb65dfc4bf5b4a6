// The worker a regex search matches lines in, so a pattern that backtracks for ever blocks
// only this thread, which the search terminates at its deadline. Self-contained (node:
// built-ins only): it runs from the built .js file, or from this .ts file under Node's type
// stripping in tests.
import { parentPort, workerData } from "node:worker_threads";

const { source, flags } = workerData as { source: string; flags: string };
const expression = new RegExp(source, flags);

// Each message is a batch of lines; the answer is the indexes of those that match, in order.
parentPort?.on("message", (lines: string[]) => {
  const matches: number[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (expression.test(lines[index] as string)) matches.push(index);
  }
  parentPort?.postMessage(matches);
});
