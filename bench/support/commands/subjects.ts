// The four ways a command runs in the commands bench, each given the same command text: bare
// child_process.spawn (the baseline), the unsandboxed supervisor, the supervisor wrapped by the
// in-process sandbox runtime (what the raw sandbox plugin does), and the supervisor wrapped by a
// sandbox worker (what an OS workspace() Session does). Plus the bubblewrap floor: a bare spawn
// of the smallest bwrap sandbox around the same command.
import { spawn } from "node:child_process";
import {
  type CommandSpawnLayer,
  type CommandSupervisor,
  createCommandSupervisor,
  createSandboxRuntimeAdapter,
  type ResolvedSandboxPolicy,
  type SandboxRuntimeAdapter,
} from "@castellan/node-runner";
import {
  createSandboxWorkerRuntimeAdapter,
  type SandboxWorkerRuntimeAdapter,
} from "@castellan/node-runner/sandbox-worker";

/** One run's figures: when the first stdout byte came, and how many bytes came in all. */
export interface RunFigures {
  readonly firstByteMs: number;
  readonly totalMs: number;
  readonly bytes: number;
}

/** Runs `command` once, timing from just before spawn. */
export type Subject = (command: string) => Promise<RunFigures>;

export const subjectNames = ["bare spawn", "supervisor", "sandbox plugin", "workspace worker"] as const;
export type SubjectName = (typeof subjectNames)[number];

const shell = { executable: "/bin/sh", arguments: ["-c"] } as const;

/** The baseline: `sh -c command` through child_process.spawn, stdout counted and dropped. */
export function bareSpawn(
  argv: (command: string) => readonly string[] = (command) => ["/bin/sh", "-c", command],
): Subject {
  return (command) =>
    new Promise((resolve, reject) => {
      const [executable, ...args] = argv(command) as [string, ...string[]];
      const started = performance.now();
      let first = Number.NaN;
      let bytes = 0;
      const child = spawn(executable, args, {
        stdio: ["ignore", "pipe", "ignore"],
        env: { PATH: process.env.PATH ?? "" },
      });
      child.stdout.on("data", (chunk: Buffer) => {
        if (bytes === 0) first = performance.now() - started;
        bytes += chunk.length;
      });
      child.once("error", reject);
      child.once("close", () => resolve({ firstByteMs: first, totalMs: performance.now() - started, bytes }));
    });
}

/** The smallest bubblewrap sandbox around the command: the floor any sandboxed spawn pays. */
export function bwrapFloor(bwrap: string): Subject {
  return bareSpawn((command) => [
    bwrap,
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--unshare-pid",
    "/bin/sh",
    "-c",
    command,
  ]);
}

/** A supervisor subject: spawn, first output through onOutput, end through onTerminal. */
function supervised(supervisor: CommandSupervisor, cwd: string, layer?: CommandSpawnLayer): Subject {
  return async (command) => {
    const started = performance.now();
    let first = Number.NaN;
    let seen = false;
    let finish: (bytes: number) => void = () => {};
    const ended = new Promise<number>((resolve) => {
      finish = resolve;
    });
    const info = await supervisor.spawn({
      ownerKey: "bench",
      command,
      shell,
      cwd,
      env: { PATH: process.env.PATH ?? "" },
      onOutput: (chunk) => {
        if (!seen && chunk.stream === "stdout") {
          seen = true;
          first = performance.now() - started;
        }
      },
      onTerminal: (result) => finish(result.stdout.bytes),
      ...(layer ? { layer } : {}),
    });
    const bytes = await ended;
    const totalMs = performance.now() - started;
    supervisor.release(info.commandId);
    return { firstByteMs: first, totalMs, bytes };
  };
}

/** Everything the bench starts, and how to stop it. */
export interface Subjects {
  readonly run: Readonly<Record<SubjectName, Subject>>;
  readonly floor: Subject;
  close(): Promise<void>;
}

/** Starts the subjects, the sandboxed ones with a policy that writes only under `directory`. */
export async function startSubjects(directory: string, bwrap: string): Promise<Subjects> {
  const supervisor = createCommandSupervisor({ executionTimeoutMs: 600_000, maxLiveCommands: 4 });
  const policy: ResolvedSandboxPolicy = {
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowRead: [], allowWrite: [directory], denyWrite: [] },
  };
  const inProcess: SandboxRuntimeAdapter = createSandboxRuntimeAdapter();
  await inProcess.initialize(policy);
  let worker: SandboxWorkerRuntimeAdapter | undefined;
  try {
    worker = createSandboxWorkerRuntimeAdapter();
    await worker.initialize(policy);
  } catch (error) {
    await inProcess.reset();
    await worker?.terminate();
    throw error;
  }
  const layerOf = (adapter: SandboxRuntimeAdapter): CommandSpawnLayer => ({
    prepare: (request) => adapter.prepare(request),
    finalize: (request) => adapter.finalize(request),
  });
  const workerAdapter = worker;
  return {
    run: {
      "bare spawn": bareSpawn(),
      supervisor: supervised(supervisor, directory),
      "sandbox plugin": supervised(supervisor, directory, layerOf(inProcess)),
      "workspace worker": supervised(supervisor, directory, layerOf(workerAdapter)),
    },
    floor: bwrapFloor(bwrap),
    async close() {
      await supervisor.killOwner("bench");
      await inProcess.reset();
      await workerAdapter.reset();
      await workerAdapter.terminate();
    },
  };
}
