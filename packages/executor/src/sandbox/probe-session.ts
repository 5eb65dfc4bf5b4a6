import { pathToFileURL } from "node:url";
import { defineAgent } from "@castellan/harness";
import {
  createMemorySessionStore,
  createNodeRunner,
  type EnvironmentPolicy,
  type SandboxFilesystemPolicy,
  workspace,
} from "@castellan/node-runner";
import type { ProbeRunner } from "../inventory/environment-inventory.js";
import { sessionProbe } from "../inventory/session-probe.js";

/** Where a probe Session is rooted and what it may reach. */
export interface ProbeSessionOptions {
  /** The directory the workspace is rooted at (an empty private one). */
  readonly root: string;
  readonly environment: EnvironmentPolicy;
  readonly filesystem?: SandboxFilesystemPolicy;
  readonly signal: AbortSignal;
}

const probeModel = "executor/probe";

/**
 * Opens a Session whose only capability is a workspace with commands in the OS sandbox and no
 * network, hands `use` a runner of probe commands in it, and closes everything after. It has a
 * model that refuses every call: nothing here asks one. Errors opening the sandbox reject.
 */
export async function withProbeSession<Result>(
  options: ProbeSessionOptions,
  use: (probe: ProbeRunner) => Promise<Result>,
): Promise<Result> {
  const agent = defineAgent("executor.probe", {
    model: probeModel,
    instructions: "Sandbox probe.",
    capabilities: [
      workspace({
        root: pathToFileURL(`${options.root}/`),
        sandbox: "os",
        network: { allowedDomains: [], allowRequests: false },
        commands: { environment: options.environment },
        ...(options.filesystem ? { filesystem: options.filesystem } : {}),
      }),
    ],
  });
  const runner = await createNodeRunner({
    agent,
    permissions: "full-access",
    plugins: [
      {
        name: "executor.probe",
        apply: (host) => {
          host.registerModel(probeModel, {
            // biome-ignore lint/correctness/useYield: a probe Session never calls its model.
            async *stream() {
              throw new Error("A probe Session has no model.");
            },
          });
          host.registerSessionStore(createMemorySessionStore());
        },
      },
    ],
  });
  try {
    const session = await runner.createSession({ id: "probe", signal: options.signal });
    try {
      return await use(sessionProbe(session, options.signal));
    } finally {
      await session.close();
    }
  } finally {
    await runner.close();
  }
}
