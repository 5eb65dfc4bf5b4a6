import type { Agent, BindingHandle, JsonObject, ResourceRequest, SandboxLease } from "@castellan/harness";
import { buildProgram, CastellanError, resolveResourceSpec } from "@castellan/harness";
import { AbortedError, SessionMismatchError } from "../errors.js";
import { SessionHistory } from "../history/session-history.js";
import { resolveSessionModel, selectModel } from "../models/session-model.js";
import type { PermissionPreset } from "../permissions/types.js";
import type { Registry } from "../plugins/registry.js";
import { ResourceOwner } from "../resources/resource-owner.js";
import { type SessionOpenRecord, type SessionRecord, sessionLogFormatVersion } from "../store/records.js";
import type { SessionLog } from "../store/types.js";
import { bindTools } from "../tools/bind-tools.js";
import { InspectionRecorder } from "./inspection.js";
import { admitParams, assertDeclaredParams, assertSameParams } from "./params.js";
import { type HarnessContextBudget, projectSession, type RunLimits, type SessionCore } from "./session-core.js";

/** What opening a Session needs. */
export interface AdmissionRequest {
  readonly agent: Agent;
  readonly registry: Registry;
  readonly sessionId: string;
  /** Omitted: a new Session has none, a saved one restores its own. */
  readonly params: unknown;
  /** Undefined: no preset; calls every hook leaves open are asked about. */
  readonly preset: PermissionPreset | undefined;
  readonly limits: RunLimits;
  readonly contextBudget: HarnessContextBudget;
  readonly signal: AbortSignal | undefined;
}

/** An admitted Session: its core, and what closing it must release. */
export interface AdmittedSession {
  readonly core: SessionCore;
  readonly owner: ResourceOwner;
  readonly log: SessionLog | undefined;
  /** Whether this open created the Session (no saved history). */
  readonly created: boolean;
  /** The sandbox lease, where the agent declares one. */
  readonly sandbox: SandboxLease | undefined;
  readonly inspection: InspectionRecorder;
}

/** The agent declares skills, which need the skills capability this Runner does not have yet. */
export class SkillsUnavailableError extends CastellanError {
  constructor(agentId: string) {
    super("skills_unavailable", `Agent "${agentId}" declares skills, but this Runner has no skill support configured.`);
  }
}

/**
 * Opens a Session: takes the store's writer lock, loads and checks the saved history and
 * params, builds the Program, binds tools and the model, acquires the sandbox and resources
 * in order, and projects once. Any failure releases what was acquired, in reverse, and leaves
 * the saved files as they were.
 */
export async function admitSession(request: AdmissionRequest): Promise<AdmittedSession> {
  const { agent, registry, sessionId, signal } = request;
  if (signal?.aborted) throw new AbortedError("Opening the Session was aborted.", { cause: signal.reason });
  let log: SessionLog | undefined;
  try {
    log = registry.store ? await registry.store.open(sessionId, signal ? { signal } : {}) : undefined;
  } catch (error) {
    throw abortedOr(error, signal);
  }
  const owner = new ResourceOwner();
  try {
    const history = new SessionHistory();
    const saved = log?.records ?? [];
    for (let index = 0; index < saved.length; index++) history.apply(saved[index] as SessionRecord, index + 1);
    const opening = history.opening;
    let params: JsonObject;
    if (opening) {
      if (opening.agentId !== agent.id) {
        throw new SessionMismatchError(
          "session_agent_mismatch",
          `Session "${sessionId}" holds the history of agent "${opening.agentId}", not "${agent.id}"; it was left unchanged.`,
        );
      }
      params = opening.params;
      if (request.params !== undefined) assertSameParams(params, admitParams(request.params, agent), sessionId);
    } else {
      params = admitParams(request.params === undefined ? {} : request.params, agent);
    }
    assertDeclaredParams(params, agent);

    const program = buildProgram(agent);
    const tools = bindTools(program, registry);
    const model = resolveSessionModel(agent, registry);
    const compactionModel =
      request.contextBudget.model === undefined
        ? undefined
        : selectModel(request.contextBudget.model, registry, "contextBudget.model names model");
    if (agent.skills.length > 0) throw new SkillsUnavailableError(agent.id);

    const acquireSignal = signal ?? new AbortController().signal;
    let sandbox: SandboxLease | undefined;
    if (program.sandbox) {
      const declaration = program.sandbox.declaration;
      if (typeof declaration === "string") {
        const resolver = registry.sandboxResolver;
        if (!resolver) {
          throw new CastellanError(
            "sandbox_not_found",
            `Agent "${agent.id}" declares sandbox "${declaration}", but no plugin registers a sandbox resolver.`,
          );
        }
        sandbox = await owner.acquire(`sandbox "${declaration}"`, () =>
          resolver.open({ specifier: declaration, sessionId, signal: acquireSignal }),
        );
      } else {
        sandbox = await owner.acquire(`sandbox "${declaration.specifier}"`, () =>
          declaration.open({ signal: acquireSignal }),
        );
      }
    }
    const resources = new Map<ResourceRequest<unknown, unknown>, unknown>();
    const capabilityResources = new Map<string, BindingHandle[]>();
    for (const { request: resourceRequest, source } of program.resources) {
      const label = `${resourceRequest.binding.name} resource of ${source.kind === "agent" ? "the agent" : `capability "${source.name}"`}`;
      const spec = resolveResourceSpec(resourceRequest.spec, params);
      const lease = await owner.acquire(label, () =>
        resourceRequest.binding.acquire(spec, { signal: acquireSignal, sessionId, params }),
      );
      resources.set(resourceRequest, lease.value);
      if (source.kind === "capability") {
        const handle: BindingHandle = Object.freeze({
          kind: resourceRequest.binding.name,
          request: resourceRequest,
          spec,
          value: lease.value,
        });
        const handles = capabilityResources.get(source.name) ?? [];
        handles.push(handle);
        capabilityResources.set(source.name, handles);
      }
    }

    const openingRecord: SessionOpenRecord = {
      kind: "session-open",
      formatVersion: sessionLogFormatVersion,
      sessionId,
      agentId: agent.id,
      params,
    };
    // A new Session is saved now when it has params, otherwise with its first write.
    let pendingOpening: SessionOpenRecord | undefined = opening ? undefined : openingRecord;
    const inspection = new InspectionRecorder(program, (name) => {
      const bound = tools.get(name);
      return bound?.kind === "local"
        ? { kind: "local", readOnly: bound.tool.readOnly }
        : { kind: "hosted", readOnly: false };
    });
    // Appends are serialized: a host write and a Run's records never interleave mid-append.
    let queue: Promise<void> = Promise.resolve();
    /** The failure of an append started ahead: the history holds its records, so nothing may follow them. */
    let broken: unknown;
    const withOpening = (records: readonly SessionRecord[]) => {
      const batch = pendingOpening ? [pendingOpening, ...records] : records;
      pendingOpening = undefined;
      return batch;
    };
    /** When the latest append started ahead is durable (never rejects; its failure is `broken`). */
    let ahead: Promise<void> = Promise.resolve();
    const write = async (records: readonly SessionRecord[]) => {
      if (broken !== undefined) throw broken;
      const opening = pendingOpening;
      const batch = withOpening(records);
      try {
        // Stores keep appends in order: once this one is durable, records saved ahead are too
        // (or failed, failing this one), and this append shares their sync.
        if (log) await log.append(batch);
        await ahead;
      } catch (error) {
        pendingOpening = opening;
        throw error;
      }
      if (broken !== undefined) throw broken;
      for (const record of batch) history.apply(record);
    };
    const writeAhead = (records: readonly SessionRecord[]) => {
      if (broken !== undefined) throw broken;
      const batch = withOpening(records);
      // Nothing waits on these records: they may wait briefly to share the next append's sync.
      const durable = log ? log.append(batch, { shareSync: true }) : Promise.resolve();
      ahead = durable.catch((error: unknown) => {
        broken ??= error;
      });
      for (const record of batch) history.apply(record);
      return { durable };
    };
    const core: SessionCore = {
      agent,
      program,
      sessionId,
      params,
      history,
      tools,
      model,
      compactionModel,
      lastModel: undefined,
      registry,
      policy: { hooks: registry.hooks.toolPermission, preset: request.preset, approval: registry.approval },
      resources,
      capabilityResources: new Map([...capabilityResources].map(([name, handles]) => [name, Object.freeze(handles)])),
      sandbox: sandbox?.sandbox,
      limits: request.limits,
      contextBudget: request.contextBudget,
      observeProjection: (projection, at) => inspection.observe(projection, at),
      persist(records: readonly SessionRecord[]) {
        const next = queue.then(() => write(records));
        queue = next.catch(() => undefined);
        return next;
      },
      persistAhead(records: readonly SessionRecord[]) {
        const next = queue.then(() => writeAhead(records));
        queue = next.then(
          () => undefined,
          () => undefined,
        );
        return next;
      },
    };
    // The initial projection proves every section and `enabled` function runs on the acquired resources.
    inspection.observe(projectSession(core, 0), { turn: 0 });
    if (pendingOpening && Object.keys(params).length > 0) await core.persist([]);
    if (signal?.aborted) throw new AbortedError("Opening the Session was aborted.", { cause: signal.reason });
    return { core, owner, log, created: !opening, sandbox, inspection };
  } catch (error) {
    await owner.releaseAll().catch(() => undefined);
    await log?.close().catch(() => undefined);
    throw abortedOr(error, signal);
  }
}

/** An abort gives one error however late it came: whatever failed because of it is its cause. */
function abortedOr(error: unknown, signal: AbortSignal | undefined): unknown {
  if (!signal?.aborted || (error instanceof CastellanError && error.code === "aborted")) return error;
  return new AbortedError("Opening the Session was aborted.", { cause: error });
}
