import type {
  DeclarationSource,
  JsonValue,
  Placement,
  Program,
  ProjectedSection,
  Projection,
} from "@castellan/harness";
import { deepFreeze } from "@castellan/harness";
import type { StateWrite } from "../history/state-fold.js";

/** A section as inspection shows it: as it was projected. */
export type InspectedSection = ProjectedSection;

/** A visible tool as inspection shows it. */
export interface InspectedTool {
  readonly name: string;
  readonly source: DeclarationSource;
  readonly kind: "local" | "hosted";
  readonly readOnly: boolean;
}

/** A skill visible in a projection: its declaring source and whether it is active (its saved text projected). */
export interface InspectedSkill {
  readonly name: string;
  readonly source: DeclarationSource;
  readonly active: boolean;
}

/** One projection: what the model was shown before `beforeModel` hooks. */
export interface InspectedProjection {
  readonly tools: readonly InspectedTool[];
  readonly sections: readonly InspectedSection[];
  /** The visible skills; empty for a Session without skills. An inactive skill's body never appears. */
  readonly skills: readonly InspectedSkill[];
}

/** What changed from the projection before. */
export interface ProjectionChanges {
  readonly toolsShown: readonly string[];
  readonly toolsHidden: readonly string[];
  readonly sectionsAdded: readonly string[];
  readonly sectionsRemoved: readonly string[];
  readonly sectionsChanged: readonly string[];
  /** Skills visible now that were not. */
  readonly skillsShown: readonly string[];
  /** Skills that were visible and are not now. */
  readonly skillsHidden: readonly string[];
  /** Skills active now that were not. */
  readonly skillsActivated: readonly string[];
}

/** A projection observed for a turn. Entries are observations: a resumed Run can observe a turn again. */
export interface InspectedTurn extends InspectedProjection {
  readonly runId: string;
  readonly turn: number;
  readonly changes: ProjectionChanges;
}

/** One row of the placement table: where each declared section goes. */
export interface SectionPlacement {
  readonly id: string;
  readonly name: string;
  readonly source: DeclarationSource;
  readonly placement: Placement;
  /** `session` for fixed text, `turn` for a function projected before every turn. */
  readonly lifetime: "session" | "turn";
  readonly order: number;
}

/** The accepted declaration, as inspection shows it. */
export interface InspectedDeclaration {
  readonly agentId: string;
  /** Capability names in declaration order. */
  readonly capabilities: readonly string[];
  readonly placements: readonly SectionPlacement[];
}

/**
 * Whether requests are compacted automatically before they pass the context budget, for the
 * model used last (or, before any Run, the Session's model where it is known without a request).
 * The Runner never guesses a window: without one, nothing is compacted automatically.
 */
export interface InspectedCompaction {
  readonly automatic: boolean;
  /** The window the budget is taken from, in tokens, when there is one. */
  readonly contextWindow?: number;
  /** `context-budget` when `contextBudget.contextWindow` sets the window, `model` when the binding reports it. */
  readonly source?: "context-budget" | "model";
  /** The specifier of the model this describes; absent while a resolver has not resolved one. */
  readonly model?: string;
  /** Why automatic compaction is off. */
  readonly reason?: string;
}

/** Describes automatic compaction for a configured window and a model (undefined: not known yet). */
export function compactionStatus(
  configuredWindow: number | undefined,
  model: { readonly specifier: string; readonly contextWindow: number | undefined } | undefined,
): InspectedCompaction {
  const named = model ? { model: model.specifier } : {};
  if (configuredWindow !== undefined) {
    return { automatic: true, contextWindow: configuredWindow, source: "context-budget", ...named };
  }
  if (!model) {
    return {
      automatic: false,
      reason:
        "The model is resolved per request and none has been resolved yet; set contextBudget.contextWindow to compact automatically.",
    };
  }
  if (model.contextWindow !== undefined) {
    return { automatic: true, contextWindow: model.contextWindow, source: "model", ...named };
  }
  return {
    automatic: false,
    ...named,
    reason: `Model "${model.specifier}" reports no context window and contextBudget.contextWindow is not set.`,
  };
}

/** The frozen view `session.inspect()` returns. */
export interface SessionInspection {
  readonly sessionId: string;
  /** Projections are kept for the current open only; reopening starts a new projection history. */
  readonly projectionScope: "current-open";
  /** The projection made after resources were acquired. */
  readonly initial: InspectedProjection;
  /** Successful projections, oldest first (at most the last `maxInspectedTurns`). */
  readonly turns: readonly InspectedTurn[];
  /** How many older turn entries were dropped to stay within the bound. */
  readonly droppedTurns: number;
  readonly current: InspectedProjection & { readonly declaration: InspectedDeclaration | null };
  /** Committed state. */
  readonly state: Readonly<Record<string, JsonValue>>;
  /** Committed writes, saved by the store, with their source, Run and turn. */
  readonly stateWrites: readonly StateWrite[];
  /** Host writes queued for the next turn (saved, not yet applied). */
  readonly pendingState: readonly Readonly<Record<string, JsonValue>>[];
  /** Whether automatic compaction is on, and the window it budgets against. */
  readonly compaction: InspectedCompaction;
}

/** Keeps the projections of the current open for `session.inspect()`. */
export class InspectionRecorder {
  private initial: InspectedProjection | undefined;
  private readonly turns: InspectedTurn[] = [];
  private dropped = 0;
  private latest: InspectedProjection | undefined;
  readonly declaration: InspectedDeclaration;

  constructor(
    program: Program,
    private readonly toolKind: (name: string) => { kind: "local" | "hosted"; readOnly: boolean },
    private readonly maxTurns = 500,
  ) {
    this.declaration = deepFreeze({
      agentId: program.agent.id,
      capabilities: program.agent.capabilities.map((capability) => capability.name),
      placements: program.sections.map(({ id, name, source, placement, order, text }) => ({
        id,
        name,
        source,
        placement,
        lifetime: typeof text === "string" ? ("session" as const) : ("turn" as const),
        order,
      })),
    });
  }

  observe(projection: Projection, at: { readonly runId?: string; readonly turn: number }): void {
    const view = this.view(projection);
    if (at.runId === undefined) {
      this.initial ??= view;
    } else {
      // Most turns project what the turn before did (the same frozen view): nothing changed.
      const changes = view === this.latest ? noChanges : diff(this.latest ?? view, view);
      // The view and the changes are deeply frozen already; the entry itself is all that is new.
      this.turns.push(Object.freeze({ runId: at.runId, turn: at.turn, ...view, changes }));
      if (this.turns.length > this.maxTurns) {
        this.turns.shift();
        this.dropped++;
      }
    }
    this.latest = view;
  }

  inspect(
    sessionId: string,
    state: {
      readonly state: Readonly<Record<string, JsonValue>>;
      readonly writes: readonly StateWrite[];
      readonly pending: readonly Readonly<Record<string, JsonValue>>[];
    },
    compaction: InspectedCompaction,
  ): SessionInspection {
    const empty: InspectedProjection = { tools: [], sections: [], skills: [] };
    const current = this.latest ?? empty;
    return deepFreeze({
      sessionId,
      projectionScope: "current-open" as const,
      initial: this.initial ?? empty,
      turns: [...this.turns],
      droppedTurns: this.dropped,
      current: { ...current, declaration: this.declaration },
      state: state.state,
      stateWrites: [...state.writes],
      pendingState: [...state.pending],
      compaction,
    });
  }

  private view(projection: Projection): InspectedProjection {
    // Most turns project what the turn before did: keep that frozen view instead of a copy.
    const latest = this.latest;
    if (latest && sameProjection(latest, projection)) return latest;
    return deepFreeze({
      tools: projection.tools.map((tool) => ({ name: tool.name, source: tool.source, ...this.toolKind(tool.name) })),
      sections: projection.sections.map(({ id, name, source, placement, order, text }) => ({
        id,
        name,
        source,
        placement,
        order,
        text,
      })),
      skills: skillsOf(projection).map(({ name, source, active }) => ({ name, source, active })),
    });
  }
}

function skillsOf(projection: Projection): readonly InspectedSkill[] {
  return (projection as { readonly skills?: readonly InspectedSkill[] }).skills ?? [];
}

function sameProjection(view: InspectedProjection, projection: Projection): boolean {
  if (view.tools.length !== projection.tools.length || view.sections.length !== projection.sections.length) {
    return false;
  }
  const skills = skillsOf(projection);
  if (
    view.skills.length !== skills.length ||
    !skills.every(
      (skill, index) => view.skills[index]?.name === skill.name && view.skills[index]?.active === skill.active,
    )
  ) {
    return false;
  }
  return (
    projection.tools.every((tool, index) => view.tools[index]?.name === tool.name) &&
    projection.sections.every((section, index) => {
      const seen = view.sections[index];
      return seen?.id === section.id && seen.text === section.text && seen.placement === section.placement;
    })
  );
}

const noChanges: ProjectionChanges = deepFreeze({
  toolsShown: [],
  toolsHidden: [],
  sectionsAdded: [],
  sectionsRemoved: [],
  sectionsChanged: [],
  skillsShown: [],
  skillsHidden: [],
  skillsActivated: [],
});

function diff(before: InspectedProjection, after: InspectedProjection): ProjectionChanges {
  const beforeTools = new Set(before.tools.map((tool) => tool.name));
  const afterTools = new Set(after.tools.map((tool) => tool.name));
  const beforeSections = new Map(before.sections.map((section) => [section.id, section.text]));
  const afterSections = new Map(after.sections.map((section) => [section.id, section.text]));
  const beforeSkills = new Map(before.skills.map((skill) => [skill.name, skill.active]));
  return deepFreeze({
    toolsShown: [...afterTools].filter((name) => !beforeTools.has(name)),
    toolsHidden: [...beforeTools].filter((name) => !afterTools.has(name)),
    sectionsAdded: [...afterSections.keys()].filter((id) => !beforeSections.has(id)),
    sectionsRemoved: [...beforeSections.keys()].filter((id) => !afterSections.has(id)),
    sectionsChanged: [...afterSections]
      .filter(([id, text]) => beforeSections.has(id) && beforeSections.get(id) !== text)
      .map(([id]) => id),
    skillsShown: after.skills.filter((skill) => !beforeSkills.has(skill.name)).map((skill) => skill.name),
    skillsHidden: [...beforeSkills.keys()].filter((name) => !after.skills.some((skill) => skill.name === name)),
    skillsActivated: after.skills
      .filter((skill) => skill.active && beforeSkills.get(skill.name) !== true)
      .map((skill) => skill.name),
  });
}
