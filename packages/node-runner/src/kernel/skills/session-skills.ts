import type { Agent, Capability, DeclarationSource, JsonValue, SkillBinding, TurnContext } from "@castellan/harness";
import { assertSkillBinding, isEnabled } from "@castellan/harness";
import type { SkillResolver } from "../plugins/types.js";
import { SkillNameConflictError, SkillNotFoundError, SkillsTooManyError, SkillsUnavailableError } from "./errors.js";

/** Most skills one Program may hold. */
export const maxSkills = 100;

/** The reserved state key holding the Session's activations, in activation order. */
export const activeSkillsKey = "castellan.skills.active";

/** The internal capability's source: the skill tools and sections come from it. */
export const skillsSource: DeclarationSource = Object.freeze({ kind: "capability", name: "castellan.skills" });

/** One saved activation: what was loaded, when, and by whom. */
export interface SkillActivation {
  readonly name: string;
  readonly source: "model" | "host";
  readonly runId: string;
  readonly turn: number;
  /** SHA-256 of `text`, hex. */
  readonly sha256: string;
  /** The body as loaded; projected from the saved state, never loaded again. */
  readonly text: string;
}

/** A skill as one Session has it: its binding and the declaration it came from (which hides it). */
export interface SessionSkill {
  readonly name: string;
  readonly binding: SkillBinding;
  /** Who declared it: the agent, or the capability whose `enabled` hides it. */
  readonly owner: DeclarationSource;
  readonly capability: Capability | undefined;
}

/** The Session's skills, and which of them a turn shows. */
export class SessionSkills {
  readonly all: ReadonlyMap<string, SessionSkill>;

  constructor(skills: readonly SessionSkill[]) {
    this.all = new Map(skills.map((skill) => [skill.name, skill]));
  }

  /** The skills visible in a turn: those whose declaring capability (if any) is enabled, in declaration order. */
  visible(ctx: TurnContext): SessionSkill[] {
    return [...this.all.values()].filter((skill) => !skill.capability || isEnabled(skill.capability.enabled, ctx));
  }

  /** The visible skill named `name`, or undefined for an unknown or hidden one (the same answer, so hidden skills stay hidden). */
  visibleSkill(name: unknown, ctx: TurnContext): SessionSkill | undefined {
    if (typeof name !== "string") return undefined;
    const skill = this.all.get(name);
    if (!skill) return undefined;
    return !skill.capability || isEnabled(skill.capability.enabled, ctx) ? skill : undefined;
  }
}

/** The saved activations in committed (or batch) state. */
export function activationsIn(state: Readonly<Record<string, JsonValue>>): readonly SkillActivation[] {
  const value = state[activeSkillsKey];
  return Array.isArray(value) ? (value as unknown as readonly SkillActivation[]) : [];
}

const describeOwner = (source: DeclarationSource) =>
  source.kind === "agent" ? "the agent" : `capability "${source.name}"`;

/**
 * Gathers a Session's skills at open: direct bindings of the agent and its capabilities, the
 * skills their resources found (a `skills()` directory), then each name declared as a string
 * that none of those provides, from the host's resolver (once per name). Two different bindings
 * of one name conflict; an unresolved name is not found; names with no resolver are unavailable.
 */
export async function gatherSessionSkills(request: {
  readonly agent: Agent;
  /** Skills found by each capability's resources at acquisition, by capability name. */
  readonly leased: ReadonlyMap<string, readonly SkillBinding[]>;
  readonly resolver: SkillResolver | undefined;
  readonly sessionId: string;
  readonly signal: AbortSignal;
}): Promise<SessionSkills | undefined> {
  const { agent } = request;
  const gathered = new Map<string, SessionSkill>();
  const named: { name: string; owner: DeclarationSource; capability: Capability | undefined }[] = [];
  const add = (binding: SkillBinding, owner: DeclarationSource, capability: Capability | undefined) => {
    assertSkillBinding(binding, `A skill of ${describeOwner(owner)}`);
    const existing = gathered.get(binding.name);
    if (existing) {
      if (existing.binding !== binding)
        throw new SkillNameConflictError(binding.name, describeOwner(existing.owner), describeOwner(owner));
      return;
    }
    gathered.set(binding.name, Object.freeze({ name: binding.name, binding, owner, capability }));
  };
  const owners: [DeclarationSource, Capability | undefined, readonly (SkillBinding | string)[]][] = [
    [{ kind: "agent" }, undefined, agent.skills],
    ...agent.capabilities.map(
      (capability): [DeclarationSource, Capability | undefined, readonly (SkillBinding | string)[]] => [
        { kind: "capability", name: capability.name },
        capability,
        [...(capability.skills ?? []), ...(request.leased.get(capability.name) ?? [])],
      ],
    ),
  ];
  for (const [owner, capability, declared] of owners) {
    for (const skill of declared) {
      if (typeof skill === "string") named.push({ name: skill, owner, capability });
      else add(skill, owner, capability);
    }
  }
  const unresolved = [...new Set(named.map((entry) => entry.name).filter((name) => !gathered.has(name)))];
  if (unresolved.length > 0) {
    if (!request.resolver) throw new SkillsUnavailableError(agent.id, unresolved);
    for (const name of unresolved) {
      request.signal.throwIfAborted();
      const binding = await request.resolver.resolve({ name, sessionId: request.sessionId, signal: request.signal });
      if (!binding)
        throw new SkillNotFoundError(
          name,
          `No skill "${name}" was found: no binding, no skills() directory and not the skill resolver provide it.`,
        );
      if (binding.name !== name) {
        throw new SkillNotFoundError(name, `The skill resolver answered "${binding.name}" for "${name}".`);
      }
      const first = named.find((entry) => entry.name === name) as (typeof named)[number];
      add(binding, first.owner, first.capability);
    }
  }
  if (gathered.size > maxSkills) throw new SkillsTooManyError(gathered.size, maxSkills);
  return gathered.size === 0 ? undefined : new SessionSkills([...gathered.values()]);
}
