import { DeclarationError } from "./errors.js";
import { findNonJson, type JsonValue } from "./json.js";

/** State keys starting with this are Castellan's own (e.g. `castellan.skills.active`). */
export const reservedStatePrefix = "castellan.";

/**
 * Where Castellan's built-in capability factories (skills, goals) put their reserved state keys
 * on a capability definition: the one symbol, imported by every package that sets or reads it.
 * Not for applications: their keys may not start with {@link reservedStatePrefix}, and a key set
 * here must (`defineCapability` refuses anything else).
 */
export const reservedStateField: unique symbol = Symbol.for("castellan.reserved-state") as never;

/** True for a key in the reserved `castellan.` space. */
export function isReservedStateKey(key: string): boolean {
  return key.startsWith(reservedStatePrefix);
}

/** Refuses an application's declaration of a reserved key. */
export function assertNoReservedKeys(state: Readonly<Record<string, JsonValue>>, where: string): void {
  for (const key of Object.keys(state)) {
    if (isReservedStateKey(key)) {
      throw new DeclarationError(
        `${where}: state key "${key}" is in the reserved "${reservedStatePrefix}" space, kept for Castellan's own capabilities; choose another name.`,
      );
    }
  }
}

/** Checks a built-in factory's reserved keys: each in the reserved space, each value JSON. */
export function checkReservedState(value: unknown, where: string): Readonly<Record<string, JsonValue>> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new DeclarationError(`${where}: reserved state must be an object.`);
  }
  for (const key of Object.keys(value)) {
    if (!isReservedStateKey(key))
      throw new DeclarationError(`${where}: reserved state key "${key}" must start with "${reservedStatePrefix}".`);
  }
  const nonJson = findNonJson(value);
  if (nonJson) throw new DeclarationError(`${where}: reserved state is not JSON at ${nonJson}.`);
  return value as Readonly<Record<string, JsonValue>>;
}
