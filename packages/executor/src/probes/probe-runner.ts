// How a probe runs one command in the job's sandbox: shared by the sandbox, egress and tool
// probes and the inventory that composes them.

/** How one command ran, as the inventory needs it. */
export interface ProbeRun {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one probe command in the job's sandbox; rejects when it could not be spawned. */
export type ProbeRunner = (command: string, timeoutMs: number) => Promise<ProbeRun>;
