import type { StateShape, StateView, TurnContext } from "./context.js";
import { DeclarationError } from "./errors.js";
import type { ResourceRequest } from "./resource.js";

/** A section's text: fixed, or a function of the turn context run before each turn. Empty text omits the section. */
export type Section<State extends StateShape = StateView> =
  | string
  | { bivariant(ctx: TurnContext<State>): string }["bivariant"];

/** Where a section goes: the system prompt, or current user-side context sent each turn. */
export type Placement = "system" | "context";

/** An agent's instructions: one string, or named sections in order. */
export type Instructions<State extends StateShape = StateView> = string | Readonly<Record<string, Section<State>>>;

/** A capability's instruction section. */
export interface CapabilitySection {
  readonly name: string;
  readonly text: Section;
  /** Default `system`. */
  readonly placement?: Placement;
  /**
   * The resource the text is read from, one of the capability's own `resources`. Where it is
   * not acquired (in `projectAgent`), a system-placed section shows as pending on it and a
   * context-placed one is left out; in a Session it changes nothing. Default: none.
   */
  readonly resource?: ResourceRequest<any, any>;
}

export const sectionName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Validates an agent's `instructions` option and returns its sections in order. */
export function agentSections(instructions: Instructions | undefined, where: string): [string, Section][] {
  if (instructions === undefined) return [];
  if (typeof instructions === "string") return [["instructions", instructions]];
  if (instructions === null || typeof instructions !== "object" || Array.isArray(instructions)) {
    throw new DeclarationError(`${where}: instructions must be a string or a record of named sections.`);
  }
  return Object.entries(instructions).map(([name, section]) => {
    assertSection(name, section, where);
    return [name, section];
  });
}

export function assertSection(name: unknown, section: unknown, where: string): void {
  if (typeof name !== "string" || !sectionName.test(name)) {
    throw new DeclarationError(
      `${where}: section name ${JSON.stringify(name)} must be 1-64 letters, digits, ".", "_" or "-".`,
    );
  }
  if (typeof section !== "string" && typeof section !== "function") {
    throw new DeclarationError(`${where}: section "${name}" must be a string or a function of the turn context.`);
  }
}
