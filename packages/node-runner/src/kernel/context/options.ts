import { isModelRuntime } from "@castellan/harness";
import { InvalidOptionsError } from "../errors/errors.js";
import {
  defaultContextBudget,
  defaultRunLimits,
  type HarnessContextBudget,
  type RunLimits,
} from "./session-context.js";
import type { UsageBudget } from "./usage-budget.js";

// The Runner's numeric options are checked where they are given, so a typo (`threshold: 80`,
// `maxTurn: 5`) fails at once with the field and its range instead of silently changing nothing.

type Fields = Record<string, unknown>;

function fieldsOf(value: unknown, where: string): Fields | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidOptionsError(`${where} must be an object.`);
  }
  return value as Fields;
}

function rejectUnknown(fields: Fields, known: readonly string[], where: string): void {
  for (const key of Object.keys(fields)) {
    if (fields[key] !== undefined && !known.includes(key)) {
      throw new InvalidOptionsError(`${where}.${key} is not an option; the options are ${known.join(", ")}.`);
    }
  }
}

function integer(value: unknown, field: string, min: number, what: string): void {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new InvalidOptionsError(`${field} must be ${what}; got ${JSON.stringify(value)}.`);
  }
}

function fraction(value: unknown, field: string, includesOne: boolean): void {
  const range = includesOne ? "in (0, 1]" : "in (0, 1)";
  if (typeof value !== "number" || !(value > 0) || (includesOne ? value > 1 : value >= 1)) {
    throw new InvalidOptionsError(
      `${field} must be a number ${range}, a share of the budget; got ${JSON.stringify(value)}.`,
    );
  }
}

/** The Run limits with defaults applied. Throws `invalid_options` naming a field out of range. */
export function checkLimits(value: unknown, where = "limits"): RunLimits {
  const fields = fieldsOf(value, where);
  if (!fields) return defaultRunLimits;
  rejectUnknown(fields, ["maxTurns", "abortGraceMs"], where);
  const limits = { ...defaultRunLimits, ...stripUndefined(fields) } as RunLimits;
  integer(limits.maxTurns, `${where}.maxTurns`, 1, "a positive integer");
  integer(limits.abortGraceMs, `${where}.abortGraceMs`, 0, "a non-negative integer of milliseconds");
  return Object.freeze(limits);
}

/** The context budget with defaults applied. Throws `invalid_options` naming a field out of range. */
export function checkContextBudget(value: unknown, where = "contextBudget"): HarnessContextBudget {
  const fields = fieldsOf(value, where);
  if (!fields) return defaultContextBudget;
  rejectUnknown(
    fields,
    ["contextWindow", "reserveOutputTokens", "threshold", "keepRecent", "model", "instructions"],
    where,
  );
  const budget = { ...defaultContextBudget, ...stripUndefined(fields) } as HarnessContextBudget;
  if (budget.contextWindow !== undefined) {
    integer(budget.contextWindow, `${where}.contextWindow`, 1, "a positive integer of tokens");
  }
  integer(budget.reserveOutputTokens, `${where}.reserveOutputTokens`, 0, "a non-negative integer of tokens");
  fraction(budget.threshold, `${where}.threshold`, true);
  fraction(budget.keepRecent, `${where}.keepRecent`, false);
  if (budget.contextWindow !== undefined && budget.reserveOutputTokens >= budget.contextWindow) {
    throw new InvalidOptionsError(
      `${where}.reserveOutputTokens (${budget.reserveOutputTokens}) must be less than ${where}.contextWindow (${budget.contextWindow}).`,
    );
  }
  const model = budget.model;
  if (model !== undefined && !(typeof model === "string" && model.length > 0) && !isModelRuntime(model)) {
    throw new InvalidOptionsError(`${where}.model must be a registered model name or a model binding.`);
  }
  if (
    budget.instructions !== undefined &&
    (typeof budget.instructions !== "string" || budget.instructions.trim() === "")
  ) {
    throw new InvalidOptionsError(`${where}.instructions must be a non-empty string.`);
  }
  return Object.freeze(budget);
}

/** Checks a usage budget: every limit a non-negative number. Throws `invalid_options` naming the field. */
export function checkUsageBudget(value: unknown, where = "budget"): UsageBudget | undefined {
  const fields = fieldsOf(value, where);
  if (!fields) return undefined;
  const known = ["maxInputTokens", "maxOutputTokens", "maxTotalTokens", "maxCostUsd"];
  rejectUnknown(fields, known, where);
  for (const key of known) {
    const limit = fields[key];
    if (limit === undefined) continue;
    if (key === "maxCostUsd") {
      if (typeof limit !== "number" || !Number.isFinite(limit) || limit < 0) {
        throw new InvalidOptionsError(
          `${where}.maxCostUsd must be a non-negative number of US dollars; got ${JSON.stringify(limit)}.`,
        );
      }
    } else {
      integer(limit, `${where}.${key}`, 0, "a non-negative integer of tokens");
    }
  }
  return Object.freeze({ ...stripUndefined(fields) }) as UsageBudget;
}

function stripUndefined(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
