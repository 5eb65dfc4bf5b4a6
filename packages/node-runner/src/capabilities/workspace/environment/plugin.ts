import type { NodeRunnerPlugin, SessionLookup } from "../../../kernel/runner/plugin.js";
import { resolveEnvironmentOptions, type WorkspaceEnvironmentOptions } from "./options.js";
import { appendContext, renderWorkspaceEnvironment } from "./render.js";
import { RunProbes } from "./run-probes.js";

/** The name of the plugin {@link createWorkspaceEnvironmentPlugin} returns. */
export const workspaceEnvironmentPluginName = "castellan.workspace-environment";

/**
 * A plugin that tells the model where it works: the working directory and its Git facts
 * (repository root, main or linked worktree, branch or `detached`, HEAD, dirty), as a
 * `## Environment` block appended to each request's `context` (user-side, this turn only,
 * never saved in history), after a blank line. The facts are probed once per Run, before its
 * first model request (a beforeModel hook), and the same block is sent for the rest of the
 * Run; the next Run probes again. Concurrent Sessions each probe their own. Compaction
 * requests run no beforeModel hook, so they carry no facts. The probe's git runs in the
 * Session's sandbox when its Castellan command tools are sandboxed, and on the host otherwise
 * (session-git.ts says why each is safe). Options are checked now: throws
 * `InvalidOptionsError` for a working directory that is not a `file:` URL, and the like (see
 * {@link WorkspaceEnvironmentOptions}). Closing drops what it holds and waits for probes still
 * running.
 */
export function createWorkspaceEnvironmentPlugin(options: WorkspaceEnvironmentOptions): NodeRunnerPlugin {
  const resolved = resolveEnvironmentOptions(options);
  // Every Runner this plugin value was applied to; an id open in two of them is ambiguous,
  // and the probe of an ambiguous or missing Session runs no git (session-git.ts).
  const lookups: SessionLookup[] = [];
  const find = (sessionId: string) => {
    const found = lookups.map((lookup) => lookup.get(sessionId)).filter((session) => session !== undefined);
    return found.length === 1 ? found[0] : undefined;
  };
  const probes = new RunProbes(async (sessionId) => {
    // The probe and its git runners load with the first Run's probe, not with the package.
    const [{ probeResolved }, { sessionProbeGit }] = await Promise.all([
      import("./probe.js"),
      import("./session-git.js"),
    ]);
    return await probeResolved(resolved, sessionProbeGit(find(sessionId), resolved));
  });
  const plugin: NodeRunnerPlugin = {
    name: workspaceEnvironmentPluginName,
    apply(host) {
      lookups.push(host.sessions);
      host.hooks.beforeModel(async (request, info) => {
        const environment = await probes.forRun(info.sessionId, info.runId);
        return { ...request, context: appendContext(request.context, renderWorkspaceEnvironment(environment)) };
      });
      host.hooks.sessionEnd((info) => probes.forget(info.sessionId));
    },
    close: () => probes.close(),
  };
  return Object.freeze(plugin);
}
