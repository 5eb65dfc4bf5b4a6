import type { TurnContext } from "./context.js";
import type { Enabled } from "./enabled.js";
import { CastellanError } from "./errors.js";
import type { Placement, Section } from "./instructions.js";
import { type DeclarationSource, isEnabled, type Program, type ProgramSection, type ProgramTool } from "./program.js";
import { errorMessage } from "./text.js";

/** A section as projected for one turn. */
export interface ProjectedSection {
  readonly id: string;
  readonly name: string;
  readonly source: DeclarationSource;
  readonly placement: Placement;
  readonly order: number;
  readonly text: string;
}

/** What the model is shown in one turn, before `beforeModel` hooks. */
export interface Projection {
  /** Non-empty sections of enabled owners, in declaration order. */
  readonly sections: readonly ProjectedSection[];
  /** The rendered system-placed sections. */
  readonly system: string;
  /** The rendered context-placed sections. */
  readonly context: string;
  /** The visible tools, in declaration order. */
  readonly tools: readonly ProgramTool[];
}

/** A section or `enabled` function threw while projecting a turn. */
export class ProjectionError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("projection_failed", message, options);
  }
}

/** Renders a section: the agent's own as written, a capability's under its name as a heading. */
export function renderSection(section: ProjectedSection): string {
  return section.source.kind === "agent" ? section.text : `## ${section.name}\n\n${section.text}`;
}

/** What projecting needs beyond the Program, from whoever bound its tools. */
export interface ProjectionOptions {
  /**
   * The `enabled` option of the implementation bound to a `hostTool` reference (the tool the
   * host registered), if any. The tool is visible only when the reference, the registered tool
   * and its capability all say so. Default: none.
   */
  readonly implementationEnabled?: (tool: ProgramTool) => Enabled | undefined;
  /**
   * A replacement for a section's declared text (a host's override of a built-in section),
   * or undefined to keep it. Empty text omits the section, as always. Default: none.
   */
  readonly sectionText?: (section: ProgramSection) => Section | undefined;
}

/**
 * Projects a Program for a turn: runs every section and `enabled` function once against the
 * context. Empty sections are omitted; a hidden capability hides its tools and sections.
 */
export function projectTurn(program: Program, ctx: TurnContext, options: ProjectionOptions = {}): Projection {
  const capabilityVisible = new Map<string, boolean>();
  const ownerVisible = (source: DeclarationSource, enabled: ProgramTool["capability"]): boolean => {
    if (source.kind === "agent" || !enabled) return true;
    let visible = capabilityVisible.get(source.name);
    if (visible === undefined) {
      visible = guard(`capability "${source.name}" enabled`, () => isEnabled(enabled.enabled, ctx));
      capabilityVisible.set(source.name, visible);
    }
    return visible;
  };

  const sections: ProjectedSection[] = [];
  for (const section of program.sections) {
    if (!ownerVisible(section.source, section.capability)) continue;
    const declared = options.sectionText?.(section) ?? section.text;
    const text =
      typeof declared === "string"
        ? declared
        : guard(`section "${section.id}"`, () => (declared as (c: TurnContext) => string)(ctx));
    if (typeof text !== "string") {
      throw new ProjectionError(
        `Section "${section.id}" returned ${typeof text}; a section function must return a string.`,
      );
    }
    if (text.trim().length === 0) continue;
    const { id, name, source, placement, order } = section;
    sections.push(Object.freeze({ id, name, source, placement, order, text }));
  }
  const implementationEnabled = options.implementationEnabled;
  const tools = program.tools.filter(
    (tool) =>
      ownerVisible(tool.source, tool.capability) &&
      guard(`tool "${tool.name}" enabled`, () => isEnabled(tool.declaration.enabled, ctx)) &&
      (tool.declaration.kind !== "host-tool" ||
        !implementationEnabled ||
        guard(`registered tool "${tool.name}" enabled`, () => isEnabled(implementationEnabled(tool), ctx))),
  );
  const render = (placement: Placement) =>
    sections
      .filter((section) => section.placement === placement)
      .map(renderSection)
      .join("\n\n");
  return Object.freeze({
    sections: Object.freeze(sections),
    system: render("system"),
    context: render("context"),
    tools: Object.freeze(tools),
  });
}

function guard<T>(what: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof CastellanError && error.code === "resource_pending") throw error;
    throw new ProjectionError(`Projecting ${what} failed: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}
