// `npm run demo:session`: two separate processes hold one conversation on the offline model; the
// second continues the Session the first saved.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const example = fileURLToPath(new URL("../examples/session/chat.ts", import.meta.url));
const directory = mkdtempSync(join(tmpdir(), "castellan-demo-"));
const say = (message: string) => {
  process.stdout.write(`\n$ node examples/session/chat.ts ${JSON.stringify(message)}\n`);
  const child = spawnSync(process.execPath, [example, message], {
    stdio: "inherit",
    env: { ...process.env, SESSION_DIRECTORY: directory, SESSION_ID: "demo" },
  });
  if (child.status !== 0) throw new Error(`The example exited with ${child.status ?? child.signal}.`);
};
try {
  say("Remember our project is Cedar.");
  say("What is our project called?");
  process.stdout.write(`\nThe second process reopened Session "demo" from ${directory} and continued it.\n`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
