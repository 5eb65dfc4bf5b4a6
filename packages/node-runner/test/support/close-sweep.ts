// Closing Sessions while a sandboxed command starts (issue 26, item 7): each trial opens a
// Session of an OS workspace(), starts a command that forks a daemon and sleeps, closes the
// Session a given number of milliseconds later, and afterwards /proc is read for anything of
// the run that is left: a process whose command line carries the sweep's marker (bubblewrap's
// own carries the command text), a bubblewrap or socat that is new and now nobody's child
// (parent 1), and every descendant of those. Two paths start the command: the host's
// runSessionCommand, and the model's exec_command in a Run of a scripted model (closed as a
// host does with a Run under way: the Run aborted, then the Session closed).
import { mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { createNodeRunner, type NodeRunner, runSessionCommand, workspace } from "../../src/index.js";
import { collect } from "./events.ts";

/** How a trial's command is started. */
export type SweepPath = "runSessionCommand" | "exec_command";

/** What a sweep runs: each delay `rounds` times, `concurrency` trials at a time. */
export interface SweepPlan {
  readonly path: SweepPath;
  /** Milliseconds from the start of the command to the Session's close. */
  readonly delaysMs: readonly number[];
  readonly rounds: number;
  /** Trials in flight at once (each has its own Session and sandbox worker). */
  readonly concurrency: number;
  /**
   * Appended to the command after its marker; default a daemon in a session of its own and a
   * sleep, so the sandbox holds a process that left the command's group.
   */
  readonly command?: string;
  /**
   * Reads /proc after every trial and stops at the first one that left something: for the
   * deliberately unsafe configuration, where a leftover is expected. Default false.
   */
  readonly stopAtFirstLeft?: boolean;
}

/** One process found left after a sweep. */
export interface LeftProcess {
  readonly pid: number;
  readonly parent: number;
  readonly name: string;
  readonly commandLine: string;
}

/** What a sweep found. */
export interface SweepOutcome {
  /** The trials run (fewer than planned when `stopAtFirstLeft` stopped early). */
  readonly trials: number;
  /** Everything of the run still there after the last close (and a short settle): empty when the closes were clean. */
  readonly left: readonly LeftProcess[];
  readonly durationMs: number;
}

interface ProcessRow extends LeftProcess {
  readonly state: string;
}

/** Every process `/proc` lists, with its parent, name, state and command line. */
async function processTable(): Promise<ProcessRow[]> {
  const rows = await Promise.all(
    (await readdir("/proc"))
      .filter((name) => /^\d+$/.test(name))
      .map(async (name): Promise<ProcessRow | undefined> => {
        const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => undefined);
        if (stat === undefined) return undefined;
        const commandLine = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return {
          pid: Number(name),
          parent: Number(fields[1]),
          state: fields[0] ?? "",
          name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
          commandLine: commandLine.replaceAll("\0", " ").trim(),
        };
      }),
  );
  return rows.filter((row): row is ProcessRow => row !== undefined);
}

/** The pids of the bubblewrap and socat processes running now: what a later scan does not count as new. */
export async function sandboxProcessesNow(): Promise<ReadonlySet<number>> {
  return new Set((await processTable()).filter((row) => isSandboxProgram(row.name)).map((row) => row.pid));
}

const isSandboxProgram = (name: string) => name === "bwrap" || name === "socat";

/**
 * The live processes that carry `marker` in their command line, the bubblewrap and socat
 * processes not in `before` whose parent is 1, and all their descendants; never this process.
 */
export async function processesLeft(marker: string, before: ReadonlySet<number>): Promise<LeftProcess[]> {
  const table = (await processTable()).filter((row) => row.state !== "Z" && row.state !== "X");
  const children = new Map<number, ProcessRow[]>();
  for (const row of table) children.set(row.parent, [...(children.get(row.parent) ?? []), row]);
  const found = new Map<number, ProcessRow>();
  const queue = table.filter(
    (row) =>
      row.pid !== process.pid &&
      (row.commandLine.includes(marker) || (isSandboxProgram(row.name) && !before.has(row.pid) && row.parent === 1)),
  );
  while (queue.length > 0) {
    const row = queue.shift() as ProcessRow;
    if (found.has(row.pid)) continue;
    found.set(row.pid, row);
    queue.push(...(children.get(row.pid) ?? []));
  }
  return [...found.values()].map(({ pid, parent, name, commandLine }) => ({ pid, parent, name, commandLine }));
}

/** SIGKILLs what a sweep left (bubblewrap first: a namespace's init takes its namespace with it). */
export function killLeft(left: readonly LeftProcess[]): void {
  for (const row of [...left].sort((a, b) => Number(b.name === "bwrap") - Number(a.name === "bwrap"))) {
    try {
      process.kill(row.pid, "SIGKILL");
    } catch {}
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The default command: a daemon that leaves the command's group, then a long sleep. */
const defaultCommand = "(setsid sleep 3000 >/dev/null 2>&1 &); sleep 3000";

/**
 * Runs `plan` in a Runner of its own over a fresh workspace root (removed after), and returns
 * what is left once every Session is closed. It kills what it finds before returning, so a
 * failing sweep leaves nothing behind either.
 */
export async function closeSweep(plan: SweepPlan): Promise<SweepOutcome> {
  const started = performance.now();
  const root = await realpath(await mkdtemp(join(tmpdir(), "castellan-close-sweep-")));
  const marker = `${root}/marker`;
  const before = await sandboxProcessesNow();
  const trials = plan.delaysMs.flatMap((delayMs) => Array.from({ length: plan.rounds }, () => delayMs));
  const command = `${plan.command ?? defaultCommand} # ${marker}`;
  const model = scriptedModel(trials.map(() => ({ toolCalls: [{ name: "exec_command", input: { command } }] })));
  const agent = defineAgent("test.close-sweep", {
    model,
    capabilities: [
      workspace({
        root: pathToFileURL(`${root}/`),
        sandbox: "os",
        commands: { killGraceMs: 200, initialYieldMs: 10_000, executionTimeoutMs: 60_000 },
      }),
    ],
  });
  const runner = await createNodeRunner({ agent, permissions: "full-access" });
  let left: LeftProcess[] = [];
  let ran = 0;
  try {
    const queue = [...trials];
    const worker = async () => {
      for (let delayMs = queue.shift(); delayMs !== undefined; delayMs = queue.shift()) {
        await trial(runner, plan.path, command, delayMs);
        ran++;
        if (plan.stopAtFirstLeft && (await processesLeft(marker, before)).length > 0) queue.length = 0;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, plan.concurrency) }, worker));
    // Whatever is still dying gets a moment; what is there after it is left.
    left = await processesLeft(marker, before);
    for (let waited = 0; left.length > 0 && waited < 2_000; waited += 100) {
      await sleep(100);
      left = await processesLeft(marker, before);
    }
  } finally {
    await runner.close().catch(() => undefined);
    killLeft(await processesLeft(marker, before).catch(() => left));
    await rm(root, { recursive: true, force: true });
  }
  return { trials: ran, left, durationMs: Math.round(performance.now() - started) };
}

/** One Session: the command starts, and `delayMs` after its start the Session closes. */
async function trial(runner: NodeRunner, path: SweepPath, command: string, delayMs: number): Promise<void> {
  const session = await runner.createSession();
  if (path === "runSessionCommand") {
    const ran = runSessionCommand(session, { command, timeoutMs: 60_000 }).catch(() => undefined);
    await sleep(delayMs);
    await session.close();
    await ran;
    return;
  }
  let toolStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    toolStarted = resolve;
  });
  // A host closing a Session with a Run under way aborts the Run first: close waits for it.
  const abort = new AbortController();
  const run = session.run("go", { signal: abort.signal });
  const events = collect(run, (event: RunEvent) => {
    if (event.kind === "tool-start") toolStarted();
  }).catch(() => []);
  // A Run that ends without starting its tool (it should not) still lets the trial end.
  await Promise.race([started, events]);
  await sleep(delayMs);
  abort.abort();
  await session.close();
  await events;
  await run.result.catch(() => undefined);
}
