import type { ModelRequest } from "@castellan/harness";
import { InvalidOptionsError } from "../../../kernel/errors/errors.js";
import type { TurnInfo } from "../../../kernel/plugins/types.js";
import type { NodeRunnerPlugin } from "../../../kernel/runner/plugin.js";
import { bindWorkspaceRootSync, type WorkspaceRoot } from "../../../platform/paths/root.js";
import type { GuidanceSource } from "./guidance-source.js";
import { renderGuidance } from "./render-guidance.js";
import { RunGuidance } from "./run-guidance.js";

/** What the host's `record` callback is told when a guidance file first enters a Run's model request. */
export interface WorkspaceInstructionsReceipt {
  readonly sessionId: string;
  readonly runId: string;
  /** Workspace path of the file, e.g. `src/AGENTS.md`. */
  readonly path: string;
  /** Size of the whole file in bytes. */
  readonly bytes: number;
  /** SHA-256 of the whole file, hex. */
  readonly sha256: string;
  /** Bytes of its text the request carries (0 when the budget left none). */
  readonly includedBytes: number;
  /** True when bytes were left out for the budget. */
  readonly truncated: boolean;
}

/** Options of {@link createWorkspaceInstructionsPlugin}. */
export interface WorkspaceInstructionsOptions {
  /** A `file:` URL of the workspace root: an existing directory, captured by its real path now. */
  readonly rootDirectory: URL | string;
  /** Bytes of guidance text one Run carries in all. Default 32,768; 0 to 16,777,216. */
  readonly maxBytes?: number;
  /**
   * Called once per source per Run, when the source first enters a model request (an
   * unreadable one is stated to the model but not recorded: it has no contents to hash). A
   * throw or rejection is reported as a `hook-failed` event; the request is still sent.
   */
  readonly record: (receipt: WorkspaceInstructionsReceipt) => void | Promise<void>;
}

/** The plugin: register it in the Runner and pass the same object to the workspace tools. */
export interface WorkspaceInstructionsPlugin extends NodeRunnerPlugin {
  readonly name: "castellan.workspace-instructions";
  /** The root's `file:` URL, as given. */
  readonly rootDirectory: URL;
}

/** What the workspace tools use of a plugin: its root, and the guidance of each Session's current Run. */
export interface GuidanceTracker {
  readonly root: WorkspaceRoot;
  /** True once a Runner applied the plugin. */
  readonly registered: boolean;
  /** The current Run's guidance for a Session, created on its first use in that Run. */
  run(sessionId: string, runId: string): RunGuidance;
}

const trackers = new WeakMap<WorkspaceInstructionsPlugin, GuidanceTracker>();

/** The tracker behind a plugin made by {@link createWorkspaceInstructionsPlugin}; undefined for anything else. */
export function guidanceTracker(plugin: unknown): GuidanceTracker | undefined {
  return typeof plugin === "object" && plugin !== null
    ? trackers.get(plugin as WorkspaceInstructionsPlugin)
    : undefined;
}

/** The default guidance budget of one Run, in bytes. */
export const defaultGuidanceMaxBytes = 32_768;
const defaultMaxBytes = defaultGuidanceMaxBytes;

/**
 * Before a model request: reads the root's guidance for the Run, records each source entering
 * a request for the first time (a failing `record` is reported, the request still goes), and
 * appends the guidance block to the request's context.
 */
export async function deliverGuidance(
  guidance: RunGuidance,
  request: ModelRequest,
  info: TurnInfo,
  maxBytes: number,
  record: ((receipt: WorkspaceInstructionsReceipt) => void | Promise<void>) | undefined,
): Promise<ModelRequest> {
  await guidance.discover([]);
  const { all, fresh } = guidance.deliver();
  if (record) {
    for (const source of fresh) await recordSource(source, info, record);
  }
  const block = renderGuidance(all, maxBytes);
  if (block === "") return request;
  return { ...request, context: request.context ? `${request.context}\n\n${block}` : block };
}

async function recordSource(
  source: GuidanceSource,
  info: TurnInfo,
  record: (receipt: WorkspaceInstructionsReceipt) => void | Promise<void>,
): Promise<void> {
  if (source.status !== "read") return;
  const { path, bytes, sha256, includedBytes, truncated } = source;
  try {
    await record({ sessionId: info.sessionId, runId: info.runId, path, bytes, sha256, includedBytes, truncated });
  } catch (error) {
    info.reportHookFailure("castellan.workspace-instructions.record", error);
  }
}

/** One Session's guidance: the current Run's only (what `workspace()` keeps per Session). */
export class SessionGuidance implements GuidanceTracker {
  readonly registered = true;
  readonly root: WorkspaceRoot;
  readonly #maxBytes: number;
  #current: { readonly runId: string; readonly guidance: RunGuidance } | undefined;

  constructor(root: WorkspaceRoot, maxBytes: number) {
    this.root = root;
    this.#maxBytes = maxBytes;
  }

  run(_sessionId: string, runId: string): RunGuidance {
    if (this.#current?.runId !== runId) this.#current = { runId, guidance: new RunGuidance(this.root, this.#maxBytes) };
    return this.#current.guidance;
  }
}

/**
 * Brings a repository's `AGENTS.md` guidance to the model. The root's file is in each Run's
 * first request; a workspace tool's call on a path whose directories hold a guidance file not
 * read yet this Run reads it, and every later request of the Run carries it, as user-side
 * context (never saved in history, never sent to compaction), root first, then in the order
 * found. Each file is read once per Run and frozen for it; the next Run reads again. An edit
 * or patch governed by guidance no request has carried yet is refused (`guidance_pending`)
 * until one has. Commands' paths are not inspected, and the model's compliance is not
 * promised.
 *
 * @throws WorkspaceRootError when `rootDirectory` is not a `file:` URL of an existing directory.
 * @throws InvalidOptionsError for a bad `maxBytes` or a missing `record`.
 */
export function createWorkspaceInstructionsPlugin(options: WorkspaceInstructionsOptions): WorkspaceInstructionsPlugin {
  const where = "createWorkspaceInstructionsPlugin";
  if (options === null || typeof options !== "object") throw new InvalidOptionsError(`${where}: options are required.`);
  const maxBytes = options.maxBytes ?? defaultMaxBytes;
  if (!Number.isInteger(maxBytes) || maxBytes < 0 || maxBytes > 16_777_216) {
    throw new InvalidOptionsError(`${where}: maxBytes must be an integer from 0 to 16,777,216.`);
  }
  if (typeof options.record !== "function") {
    throw new InvalidOptionsError(`${where}: record must be a function that keeps the guidance receipts.`);
  }
  const root = bindWorkspaceRootSync(options.rootDirectory);
  const record = options.record;
  // Only each Session's current Run is kept: a new Run of the Session replaces its guidance.
  const runs = new Map<string, { readonly runId: string; readonly guidance: RunGuidance }>();
  let registered = false;
  const tracker: GuidanceTracker = {
    root,
    get registered() {
      return registered;
    },
    run(sessionId, runId) {
      const current = runs.get(sessionId);
      if (current?.runId === runId) return current.guidance;
      const guidance = new RunGuidance(root, maxBytes);
      runs.set(sessionId, { runId, guidance });
      return guidance;
    },
  };

  const beforeModel = (request: ModelRequest, info: TurnInfo): Promise<ModelRequest> =>
    deliverGuidance(tracker.run(info.sessionId, info.runId), request, info, maxBytes, record);

  const plugin: WorkspaceInstructionsPlugin = Object.freeze({
    name: "castellan.workspace-instructions" as const,
    rootDirectory: new URL(root.url.href),
    apply(host: Parameters<NodeRunnerPlugin["apply"]>[0]) {
      registered = true;
      host.hooks.beforeModel(beforeModel);
      // A closed Session's guidance is dropped; a reopened one reads again on its next Run.
      host.hooks.sessionEnd((info) => void runs.delete(info.sessionId));
    },
    close() {
      runs.clear();
    },
  });
  trackers.set(plugin, tracker);
  return plugin;
}
