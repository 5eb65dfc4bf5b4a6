// `npm run bench:startup [-- rounds]`: what importing @castellan/node-runner with one adapter
// and opening a memory Session adds to a process's start, beside `node -e 0`, measured side by
// side (the order rotating each round). Target: at most 60 ms over Node's own start. Each
// provider SDK is loaded only by the subpath that needs it, so the offline probe loads none.
import { fileURLToPath } from "node:url";
import { formatStartup, measureStartup } from "./support/startup/measure.ts";

const rounds = process.argv[2] === undefined ? 15 : Number(process.argv[2]);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new RangeError(`rounds must be a positive integer, not ${process.argv[2]}.`);
const root = fileURLToPath(new URL("../", import.meta.url));
process.stdout.write(formatStartup(await measureStartup(root, rounds)));
