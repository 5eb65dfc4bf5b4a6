import type { EgressVerdict } from "../egress/egress-probe.js";
import type { ProbeRun, ProbeRunner } from "../probes/probe-runner.js";
import type { SandboxVerdict } from "../sandbox/sandbox-probe.js";

/** The tools the inventory asks about, each by its version command. */
export const probedTools: readonly { readonly name: string; readonly command: string }[] = Object.freeze([
  { name: "git", command: "git --version" },
  { name: "node", command: "node --version" },
  { name: "npm", command: "npm --version" },
  { name: "pnpm", command: "pnpm --version" },
  { name: "yarn", command: "yarn --version" },
  { name: "python3", command: "python3 --version" },
  { name: "pip3", command: "pip3 --version" },
  { name: "go", command: "go version" },
  { name: "cargo", command: "cargo --version" },
  { name: "rustc", command: "rustc --version" },
  { name: "java", command: "java -version" },
  { name: "mvn", command: "mvn --version" },
  { name: "gradle", command: "gradle --version" },
  { name: "make", command: "make --version" },
  { name: "gcc", command: "gcc --version" },
  { name: "rg", command: "rg --version" },
  { name: "jq", command: "jq --version" },
  { name: "curl", command: "curl --version" },
]);

/**
 * What the inventory found of one tool: only exit 127 is an absence; a timeout or a refusal is
 * unknown. `transient` marks an unknown that may change on the next try (a timeout, a spawn
 * refused, the budget spent); a version command that exits non-zero says the same each time.
 */
export type ToolFinding =
  | { readonly name: string; readonly state: "installed"; readonly version: string }
  | { readonly name: string; readonly state: "absent" }
  | { readonly name: string; readonly state: "undetermined"; readonly reason: string; readonly transient?: true };

/** What the inventory found of Docker. */
export type DockerFinding = "answered" | "not-installed" | "no-daemon" | "undetermined";

/** How the probes are bounded. */
export interface ProbeBounds {
  readonly concurrency: number;
  readonly perToolMs: number;
  readonly totalMs: number;
  readonly dockerMs: number;
}

/** The bounds of the tool probes: 4 at once, 5 s each, 20 s in all; `docker info` 10 s. */
export const probeBounds: ProbeBounds = Object.freeze({
  concurrency: 4,
  perToolMs: 5_000,
  totalMs: 20_000,
  dockerMs: 10_000,
});

function firstLine(run: ProbeRun): string {
  const text = `${run.stdout}\n${run.stderr}`.split("\n").find((line) => line.trim() !== "") ?? "";
  const line = text.trim();
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

/** Probes every tool, four at once, each within 5 s and all within 20 s. */
export async function probeTools(run: ProbeRunner, bounds: ProbeBounds = probeBounds): Promise<ToolFinding[]> {
  const deadline = Date.now() + bounds.totalMs;
  const findings: ToolFinding[] = new Array(probedTools.length);
  let next = 0;
  const worker = async () => {
    while (next < probedTools.length) {
      const index = next++;
      const tool = probedTools[index] as (typeof probedTools)[number];
      const left = deadline - Date.now();
      if (left <= 0) {
        findings[index] = {
          name: tool.name,
          state: "undetermined",
          reason: "the inventory ran out of time",
          transient: true,
        };
        continue;
      }
      try {
        const result = await run(tool.command, Math.min(bounds.perToolMs, left));
        if (result.timedOut)
          findings[index] = {
            name: tool.name,
            state: "undetermined",
            reason: "its version command timed out",
            transient: true,
          };
        else if (result.exitCode === 127) findings[index] = { name: tool.name, state: "absent" };
        else if (result.exitCode === 0)
          findings[index] = { name: tool.name, state: "installed", version: firstLine(result) };
        else
          findings[index] = {
            name: tool.name,
            state: "undetermined",
            reason: `its version command exited ${result.exitCode ?? "by a signal"}`,
          };
      } catch {
        findings[index] = {
          name: tool.name,
          state: "undetermined",
          reason: "its version command could not be started",
          transient: true,
        };
      }
    }
  };
  await Promise.all(Array.from({ length: bounds.concurrency }, worker));
  return findings;
}

/**
 * Asks Docker by `docker info` in the sandbox, never by finding the CLI. An answer says only
 * that a daemon answered; a refusal with `DOCKER_HOST` unset means no daemon is reachable from
 * the sandbox; with it set, one retry after 2 s, then unknown.
 */
export async function probeDocker(
  run: ProbeRunner,
  dockerHostSet: boolean,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<DockerFinding> {
  for (let attempt = 0; attempt < (dockerHostSet ? 2 : 1); attempt++) {
    if (attempt > 0) await wait(2_000);
    let result: ProbeRun;
    try {
      result = await run("docker info", probeBounds.dockerMs);
    } catch {
      return "undetermined";
    }
    if (result.exitCode === 0) return "answered";
    if (result.exitCode === 127) return "not-installed";
    if (result.timedOut) return "undetermined";
  }
  return dockerHostSet ? "undetermined" : "no-daemon";
}

/** The heading of the block appended to a job's instructions. */
export const inventoryHeading = "ENVIRONMENT INVENTORY";

/** The live checks a job's block reports besides the tools: its sandbox and its egress. */
export interface InventoryChecks {
  readonly sandbox?: SandboxVerdict;
  readonly egress?: EgressVerdict;
}

function sandboxLine(verdict: SandboxVerdict): string {
  if (verdict.state === "usable")
    return "Sandbox: your commands run in the OS sandbox; it was checked live for this job.";
  if (verdict.state === "unusable") return `Sandbox: unusable (${verdict.reason}).`;
  return `Sandbox: whether it works could not be determined (${verdict.reason}); nothing runs outside it either way.`;
}

function egressLine(verdict: EgressVerdict): string {
  switch (verdict.state) {
    case "not-measured":
      return "Network egress: not measured (the server has no egress target configured).";
    case "not-carried-out":
      return `Network egress: the check was not carried out: ${verdict.reason}.`;
    case "reachable":
      return "Network egress: reachable from the sandbox under this job's network policy, by address and by name.";
    case "blocked":
      return verdict.half === "dns"
        ? `Network egress: blocked for fetching by name: ${verdict.reason}. Installs that fetch packages will fail.`
        : `Network egress: blocked: ${verdict.reason}. Commands that fetch anything from the network will fail.`;
    case "undetermined":
      return `Network egress: could not be determined (${verdict.reason}).`;
  }
}

/** The inventory as the agent reads it, appended once onto the job's instructions. */
export function inventoryBlock(
  tools: readonly ToolFinding[],
  docker: DockerFinding,
  checks: InventoryChecks = {},
): string {
  const installed = tools.filter((tool) => tool.state === "installed");
  const absent = tools.filter((tool) => tool.state === "absent");
  const unknown = tools.filter((tool) => tool.state === "undetermined");
  const lines = [
    inventoryHeading,
    "The server probed this machine before your first turn; do not probe it again.",
    `Installed: ${installed.map((tool) => (tool.state === "installed" ? `${tool.name} (${tool.version})` : "")).join("; ") || "none of the probed tools"}.`,
    `Not installed: ${absent.map((tool) => tool.name).join(", ") || "none of the probed tools"}.`,
    ...unknown.map(
      (tool) => `Could not be determined: ${tool.name} (${tool.state === "undetermined" ? tool.reason : ""}).`,
    ),
    {
      answered: "Docker: a daemon answered `docker info` from the sandbox (no container was tried).",
      "not-installed": "Docker: not installed.",
      "no-daemon":
        "Docker: no daemon is reachable from the sandbox; `docker compose up` will fail here whatever the CLI reports.",
      undetermined: "Docker: whether a daemon is reachable could not be determined.",
    }[docker],
    ...(checks.sandbox ? [sandboxLine(checks.sandbox)] : []),
    ...(checks.egress ? [egressLine(checks.egress)] : []),
    "Nothing installs system-wide here (system paths are read-only), but the project's own package manager may be fetched for this project.",
    "Tools not listed here are unknown, not absent.",
  ];
  return lines.join("\n");
}
