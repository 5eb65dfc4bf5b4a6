import { type EgressVerdict, probeEgress } from "../egress/egress-probe.js";
import type { ProbeRunner } from "../probes/probe-runner.js";
import { JobFailure } from "../registry/job-failure.js";
import { probeSandbox, type SandboxVerdict } from "../sandbox/sandbox-probe.js";
import {
  type DockerFinding,
  inventoryBlock,
  probeDocker,
  probeTools,
  type ToolFinding,
} from "./environment-inventory.js";
import type { ServerMeasurements } from "./measurements.js";

/** How long settled tool versions are reused. */
export const toolMemoMs = 600_000;

/** The bound of a job's live sandbox check. */
export const liveSandboxProbeMs = 10_000;

/**
 * Settled findings a server keeps across its jobs, per network policy: tool versions for 10
 * minutes; egress answers and a missing probe binary until the server stops (they cannot change
 * under it). Transient failures are never kept.
 */
export interface InventoryMemo {
  readonly tools: Map<string, ToolsEntry>;
  /**
   * Tool measurements under way, per network policy: jobs that start together wait for one
   * measurement instead of each spawning the same probes (every spawn blocks the event loop
   * for a time that grows with the process's memory). An unsettled result is not shared.
   */
  readonly measuring: Map<string, Promise<ToolsEntry>>;
  readonly egress: Map<string, EgressVerdict>;
  sandbox?: SandboxVerdict;
}

/** The tool and Docker findings of one measurement. */
export interface ToolsEntry {
  readonly at: number;
  readonly tools: ToolFinding[];
  readonly docker: DockerFinding;
  readonly settled: boolean;
}

/** An empty memo, one per server. */
export function createInventoryMemo(): InventoryMemo {
  return { tools: new Map(), measuring: new Map(), egress: new Map() };
}

/** Measures the tools and Docker under one policy, or joins a measurement under way. */
async function toolFindings(options: JobInventoryOptions, policy: string): Promise<ToolsEntry> {
  const { memo } = options;
  const known = memo.tools.get(policy);
  if (known && Date.now() - known.at < toolMemoMs) return known;
  const shared = await memo.measuring.get(policy)?.catch(() => undefined);
  if (shared?.settled) return shared;
  const measurement = Promise.all([probeTools(options.probe), probeDocker(options.probe, options.dockerHostSet)]).then(
    ([tools, docker]): ToolsEntry => {
      // A version command that exits non-zero answers the same next time; a timeout may not.
      const settled =
        tools.every((tool) => tool.state !== "undetermined" || !tool.transient) && docker !== "undetermined";
      const entry = { at: Date.now(), tools, docker, settled };
      if (settled) memo.tools.set(policy, entry);
      return entry;
    },
  );
  memo.measuring.set(policy, measurement);
  try {
    return await measurement;
  } finally {
    if (memo.measuring.get(policy) === measurement) memo.measuring.delete(policy);
  }
}

/** What a job's inventory is measured with. */
export interface JobInventoryOptions {
  /** Runs one command in the job's sandbox, under its network policy. */
  readonly probe: ProbeRunner;
  readonly network:
    | { readonly allowedDomains?: readonly string[]; readonly deniedDomains?: readonly string[] }
    | undefined;
  readonly memo: InventoryMemo;
  readonly sandboxProbeBinary: string;
  readonly egressTarget: string | undefined;
  readonly egressDnsName: string;
  /** Receives the live verdicts `/health` shows. */
  readonly measurements?: ServerMeasurements;
  /** Whether `DOCKER_HOST` is set for the job's commands: read once with the server's settings. */
  readonly dockerHostSet: boolean;
}

const settledEgress = new Set<EgressVerdict["state"]>(["reachable", "not-carried-out", "not-measured"]);

/**
 * Measures a job's environment and renders its `ENVIRONMENT INVENTORY` block. The sandbox is
 * checked live first: a decided negative throws `JobFailure` (`sandbox-unavailable`) and
 * nothing else runs; then the tools, Docker and egress, in parallel.
 */
export async function jobInventory(options: JobInventoryOptions): Promise<string> {
  const { memo } = options;
  const policy = JSON.stringify({
    allowed: [...(options.network?.allowedDomains ?? [])].sort(),
    denied: [...(options.network?.deniedDomains ?? [])].sort(),
  });
  const sandbox = memo.sandbox ?? (await probeSandbox(options.probe, options.sandboxProbeBinary, liveSandboxProbeMs));
  if (sandbox.state === "undetermined" && sandbox.settled) memo.sandbox = sandbox;
  options.measurements?.recordSandbox(sandbox);
  if (sandbox.state === "unusable") {
    throw new JobFailure("sandbox-unavailable", `The OS sandbox is unusable for this job: ${sandbox.reason}.`, {
      sandbox: { verdict: sandbox.state, reason: sandbox.reason },
    });
  }
  const [found, egress] = await Promise.all([
    toolFindings(options, policy),
    memo.egress.get(policy) ??
      probeEgress(options.probe, options.egressTarget, options.egressDnsName).then((verdict) => {
        // Only a measurement taken now is the last one `/health` shows.
        options.measurements?.recordEgress(verdict);
        if (settledEgress.has(verdict.state)) memo.egress.set(policy, verdict);
        return verdict;
      }),
  ]);
  return inventoryBlock(found.tools, found.docker, { sandbox, egress });
}
