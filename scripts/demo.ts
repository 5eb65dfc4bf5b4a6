// `npm run demo`: the local coding agent on its deterministic mock model. A temporary copy of
// the sample project gets its bug fixed, tested, reviewed and reported by one process; a second
// process reopens the saved Session and answers from its history. No credentials, no network.
//
//   npm run demo                    commands run uncontained, in the temporary copy
//   npm run demo -- --sandbox os    the same flow with commands in bubblewrap
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { sandbox: { type: "string", default: "none" } } });
const sandbox = values.sandbox;
if (sandbox !== "none" && sandbox !== "os") throw new Error('--sandbox must be "none" or "os".');

const example = fileURLToPath(new URL("../examples/local-coding-agent/", import.meta.url));
const work = await realpath(await mkdtemp(join(tmpdir(), "castellan-demo-")));
const project = join(work, "sample-project");

function run(prompt: string): void {
  const args = ["run.ts", "--workspace", project, "--approve", "--sandbox", sandbox, prompt];
  process.stdout.write(
    `\n$ node examples/local-coding-agent/run.ts ${args.slice(1, -1).join(" ")} ${JSON.stringify(prompt)}\n`,
  );
  const child = spawnSync(process.execPath, args, { cwd: example, stdio: "inherit" });
  if (child.status !== 0) throw new Error(`run.ts exited with ${child.status ?? child.signal}.`);
}

try {
  await cp(join(example, "sample-project"), project, { recursive: true });
  process.stdout.write(
    sandbox === "none"
      ? "Commands run WITHOUT OS containment (--sandbox none), in a temporary copy of the sample project.\n" +
          "Run `npm run demo -- --sandbox os` to contain them in bubblewrap.\n"
      : "Commands run in bubblewrap (--sandbox os), in a temporary copy of the sample project.\n",
  );
  run("Fix the bug described in docs/ISSUE.md.");
  run("What did you change?");
  process.stdout.write(
    `\nThe second process reopened Session "local-coding-agent" from ${join(project, ".castellan-sessions")} and answered from its history.\n`,
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
