import type { ProgramSection, TurnContext } from "@castellan/harness";
import { InvalidOptionsError } from "../errors/errors.js";

/**
 * Replacement texts for the instruction sections Castellan's own capabilities contribute,
 * given to `createNodeRunner({ builtinPrompts })` or `openSession({ builtinPrompts })`. A
 * string replaces the section's text (inspection shows the replacement); an empty string
 * omits the section. Tool names, schemas and behaviour are unchanged. Default: none, every
 * built-in section as written.
 */
export interface BuiltinPromptOverrides {
  /** The `workspace` section of `workspace()`: how to use its file and command tools. */
  readonly workspace?: string;
  /** The `browser` section of the browser capability: how to use the ten browser tools. */
  readonly browser?: string;
}

const keys: readonly (keyof BuiltinPromptOverrides)[] = ["workspace", "browser"];

// Built-in sections are recognised by their text function, which a frozen capability keeps as
// it was given (the section objects themselves are copied when the capability is declared).
const builtin = new WeakMap<(ctx: TurnContext) => string, keyof BuiltinPromptOverrides>();

/** Marks `text` as the built-in section `key`, so a host's override replaces it. */
export function builtinSectionText(
  key: keyof BuiltinPromptOverrides,
  text: (ctx: TurnContext) => string,
): (ctx: TurnContext) => string {
  builtin.set(text, key);
  return text;
}

/**
 * Checks `builtinPrompts`: an object of known keys with string values.
 *
 * @throws InvalidOptionsError (`invalid_options`) naming the bad key.
 */
export function checkBuiltinPrompts(value: unknown, where = "builtinPrompts"): BuiltinPromptOverrides {
  if (value === undefined) return Object.freeze({});
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidOptionsError(`${where} must be an object of { ${keys.join(", ")} }.`);
  }
  const checked: Record<string, string> = {};
  for (const [key, text] of Object.entries(value)) {
    if (text === undefined) continue;
    if (!(keys as readonly string[]).includes(key)) {
      throw new InvalidOptionsError(`${where}.${key} is not a built-in section; the sections are ${keys.join(", ")}.`);
    }
    if (typeof text !== "string") throw new InvalidOptionsError(`${where}.${key} must be a string ("" omits it).`);
    checked[key] = text;
  }
  return Object.freeze(checked);
}

/** The override of a built-in section, or undefined to project it as declared. */
export function overriddenSectionText(overrides: BuiltinPromptOverrides, section: ProgramSection): string | undefined {
  if (typeof section.text !== "function") return undefined;
  const key = builtin.get(section.text);
  return key === undefined ? undefined : overrides[key];
}
