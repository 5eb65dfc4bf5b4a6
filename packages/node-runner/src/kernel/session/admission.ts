import type {
  Agent,
  BindingHandle,
  JsonObject,
  Program,
  ResourceRequest,
  SandboxLease,
  SkillBinding,
  Tool,
} from "@castellan/harness";
import { buildProgram, CastellanError, DeclarationError, resolveResourceSpec } from "@castellan/harness";
import { delegationsOf, staticallyUnknownGrants } from "../children/child-tools.js";
import { ChildGrantUnknownError } from "../children/errors.js";
import type { HarnessContextBudget } from "../context/session-context.js";
import { resolveSessionModel, type SessionModel, selectModel } from "../context/session-model.js";
import { McpToolNameCollisionError, SessionMismatchError } from "../errors/errors.js";
import { SessionHistory } from "../history/session-history.js";
import type { Registry } from "../plugins/registry.js";
import type { ResourceOwner } from "../resources/resource-owner.js";
import { gatherSessionSkills, type SessionSkills } from "../skills/session-skills.js";
import { skillsRuntimeCapability } from "../skills/skill-tools.js";
import type { SessionRecord } from "../store/records.js";
import type { SessionLog } from "../store/types.js";
import { type BoundTool, bindTools, localToolsOf } from "../tools/bind-tools.js";
import { toolOriginOf } from "../tools/tool-origins.js";
import { prepareInputValidation } from "../tools/validate-input.js";
import { admitParams, assertDeclaredParams, assertSameParams } from "./params.js";

/** What admission found and acquired: the checked history, the Program and what it is bound to. */
export interface Admission {
  readonly history: SessionHistory;
  /** True when the log held no Session yet. */
  readonly created: boolean;
  readonly params: JsonObject;
  readonly program: Program;
  readonly tools: ReadonlyMap<string, BoundTool>;
  readonly model: SessionModel;
  readonly compactionModel: SessionModel | undefined;
  readonly sandbox: SandboxLease | undefined;
  readonly resources: ReadonlyMap<ResourceRequest<unknown, unknown>, unknown>;
  readonly capabilityResources: ReadonlyMap<string, readonly BindingHandle[]>;
  /** The Session's skills; undefined when it has none. */
  readonly skills: SessionSkills | undefined;
}

/**
 * Admits a Session from its saved log: folds the records (a record that does not fit refuses
 * the open), checks the agent and params, builds the Program, binds its tools and models, and
 * acquires its sandbox and resources in order, into `owner`. Writes nothing.
 */
export async function admit(request: {
  readonly agent: Agent;
  readonly registry: Registry;
  readonly sessionId: string;
  readonly params: unknown;
  readonly contextBudget: HarnessContextBudget;
  readonly log: SessionLog | undefined;
  readonly owner: ResourceOwner;
  readonly signal: AbortSignal;
}): Promise<Admission> {
  const { agent, registry, sessionId, log, owner, signal } = request;
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

  let program = buildProgram(agent);
  checkChildGrants(program);
  if (program.tools.length > 0) await prepareInputValidation(localToolsOf(program, registry));
  let tools = bindTools(program, registry);
  const model = resolveSessionModel(agent, registry);
  const compactionModel =
    request.contextBudget.model === undefined
      ? undefined
      : selectModel(request.contextBudget.model, registry, "contextBudget.model names model");
  const sandbox = await acquireSandbox(program, registry, owner, { sessionId, signal, params });
  const resources = new Map<ResourceRequest<unknown, unknown>, unknown>();
  const capabilityResources = new Map<string, BindingHandle[]>();
  const leasedTools = new Map<string, Tool[]>();
  const leasedSkills = new Map<string, SkillBinding[]>();
  for (const { request: resourceRequest, source } of program.resources) {
    const label = `${resourceRequest.binding.name} resource of ${source.kind === "agent" ? "the agent" : `capability "${source.name}"`}`;
    const spec = resolveResourceSpec(resourceRequest.spec, params);
    const lease = await owner.acquire(label, () =>
      resourceRequest.binding.acquire(spec, { signal, sessionId, params }),
    );
    resources.set(resourceRequest, lease.value);
    if (source.kind === "capability") {
      if (lease.tools?.length) leasedTools.set(source.name, [...(leasedTools.get(source.name) ?? []), ...lease.tools]);
      if (lease.skills?.length)
        leasedSkills.set(source.name, [...(leasedSkills.get(source.name) ?? []), ...lease.skills]);
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
  const skills = await gatherSessionSkills({
    agent,
    leased: leasedSkills,
    resolver: registry.skillResolver,
    sessionId,
    signal,
  });
  if (leasedTools.size > 0) checkFoundToolNames(program, leasedTools);
  if (skills || leasedTools.size > 0) {
    // What the Session found joins its declaration: checked and bound like declared tools.
    program = buildProgram(agent, {
      contributedTools: leasedTools,
      ...(skills ? { internalCapabilities: [skillsRuntimeCapability(skills)] } : {}),
    });
    await prepareInputValidation(localToolsOf(program, registry));
    tools = bindTools(program, registry);
  }
  return {
    history,
    created: !opening,
    params,
    program,
    tools,
    model,
    compactionModel,
    sandbox,
    resources,
    capabilityResources: new Map([...capabilityResources].map(([name, handles]) => [name, Object.freeze(handles)])),
    skills,
  };
}

async function acquireSandbox(
  program: Program,
  registry: Registry,
  owner: ResourceOwner,
  session: { readonly sessionId: string; readonly signal: AbortSignal; readonly params: JsonObject },
): Promise<SandboxLease | undefined> {
  if (!program.sandbox) return undefined;
  const { sessionId, signal, params } = session;
  const declaration = program.sandbox.declaration;
  if (typeof declaration !== "string") {
    return await owner.acquire(`sandbox "${declaration.specifier}"`, () =>
      declaration.open({ signal, sessionId, params }),
    );
  }
  const resolver = registry.sandboxResolver;
  if (!resolver) {
    throw new CastellanError(
      "sandbox_not_found",
      `Agent "${program.agent.id}" declares sandbox "${declaration}", but no plugin registers a sandbox resolver.`,
    );
  }
  return await owner.acquire(`sandbox "${declaration}"`, () =>
    resolver.open({ specifier: declaration, sessionId, signal }),
  );
}

/** Refuses a found tool whose name another tool of the Program has, naming both originals. */
function checkFoundToolNames(program: Program, found: ReadonlyMap<string, readonly Tool[]>): void {
  const seen = new Map<string, string>();
  for (const tool of program.tools) {
    seen.set(
      tool.name,
      toolOriginOf(tool.declaration) ??
        `tool "${tool.name}" of ${tool.source.kind === "agent" ? "the agent" : `capability "${tool.source.name}"`}`,
    );
  }
  for (const [capability, tools] of found) {
    for (const tool of tools) {
      const origin = toolOriginOf(tool) ?? `tool "${tool.name}" of capability "${capability}"`;
      const other = seen.get(tool.name);
      if (other !== undefined) {
        if (toolOriginOf(tool) !== undefined || other.startsWith("server "))
          throw new McpToolNameCollisionError(tool.name, other, origin);
        throw new DeclarationError(
          `Tool "${tool.name}" is found by capability "${capability}" but ${other} has the name.`,
        );
      }
      seen.set(tool.name, origin);
    }
  }
}

/**
 * Fails the open with `child_grant_unknown` for a grant of a tool's `delegates` that no tool of
 * its child can answer, before any resource is acquired; grants a child might find when it
 * opens are checked again then.
 */
function checkChildGrants(program: Program): void {
  for (const entry of program.tools) {
    for (const delegation of delegationsOf(entry.declaration)) {
      const declared = buildProgram(delegation.agent).tools.map((tool) => tool.name);
      const unknown = staticallyUnknownGrants(delegation, declared);
      if (unknown.length > 0) throw new ChildGrantUnknownError(delegation.agent.id, unknown, declared);
    }
  }
}
