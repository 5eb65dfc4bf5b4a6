import type { DeclarationSource, ProjectedSection, Projection, TurnContext } from "@castellan/harness";
import { renderSection } from "@castellan/harness";
import { activationsIn, type SessionSkills, skillsSource } from "./session-skills.js";

/** A visible skill as a projection shows it. */
export interface ProjectedSkill {
  readonly name: string;
  /** Who declared it: the agent, or its capability. */
  readonly source: DeclarationSource;
  readonly active: boolean;
}

/** A turn's projection with the Session's skills: the visible ones, and the active ones' saved text as sections. */
export interface SkillProjection extends Projection {
  readonly skills: readonly ProjectedSkill[];
}

/**
 * Adds the skills to a turn's projection: each active, visible skill's saved text as the system
 * section `skill:<name>`, after every other section, in activation order; a hidden skill's
 * saved activation is left out of this turn (state and history untouched).
 */
export function projectSkills(projection: Projection, skills: SessionSkills, ctx: TurnContext): SkillProjection {
  const visible = skills.visible(ctx);
  const visibleNames = new Set(visible.map((skill) => skill.name));
  const activations = activationsIn(ctx.state).filter((activation) => visibleNames.has(activation.name));
  const active = new Set(activations.map((activation) => activation.name));
  const start = projection.sections.reduce((last, section) => Math.max(last, section.order), -1) + 1;
  const bodies: ProjectedSection[] = activations.map((activation, index) =>
    Object.freeze({
      id: `skill:${activation.name}`,
      name: `skill:${activation.name}`,
      source: skillsSource,
      placement: "system" as const,
      order: start + index,
      text: activation.text,
    }),
  );
  const projected = visible.map((skill) =>
    Object.freeze({ name: skill.name, source: skill.owner, active: active.has(skill.name) }),
  );
  if (bodies.length === 0) return Object.freeze({ ...projection, skills: Object.freeze(projected) });
  const rendered = bodies.map(renderSection).join("\n\n");
  return Object.freeze({
    ...projection,
    sections: Object.freeze([...projection.sections, ...bodies]),
    system: projection.system === "" ? rendered : `${projection.system}\n\n${rendered}`,
    skills: Object.freeze(projected),
  });
}
