/** A JSON value: what params, state, tool inputs and opaque continuations are made of. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;

/** A JSON object with string keys. */
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/**
 * Returns the path of the first value that is not JSON (undefined, a function, a class
 * instance, a non-finite number, a cycle), or undefined when the whole value is JSON.
 */
export function findNonJson(value: unknown, path = "$", seen = new Set<object>()): string | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : path;
  if (typeof value !== "object") return path;
  if (seen.has(value)) return path;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const found = findNonJson(value[index], `${path}[${index}]`, seen);
        if (found) return found;
      }
      return undefined;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return path;
    for (const [key, item] of Object.entries(value)) {
      const found = findNonJson(item, `${path}.${key}`, seen);
      if (found) return found;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}

/** True when the value is made only of JSON values. */
export function isJsonValue(value: unknown): value is JsonValue {
  return findNonJson(value) === undefined;
}

/** Nesting beyond this is not walked or copied plainly: it may be a cycle. */
const maxPlainDepth = 64;
/** Objects a plain walk visits before it starts over with a record of what it saw (shared or cyclic parts). */
const maxPlainVisits = 10_000;

/** Signals that a plain walk or copy met what it does not handle. */
const notPlain = Symbol("not plain");

function freezeWalk(value: unknown, depth: number, visits: { count: number }): void {
  if (value === null || typeof value !== "object") return;
  if (depth > maxPlainDepth || ++visits.count > maxPlainVisits) throw notPlain;
  if (!Object.isFrozen(value)) Object.freeze(value);
  for (const key of Object.keys(value)) freezeWalk((value as Record<string, unknown>)[key], depth + 1, visits);
}

function freezeWalkSeen(value: unknown, seen: Set<object>): void {
  if (value === null || typeof value !== "object" || seen.has(value)) return;
  seen.add(value);
  if (!Object.isFrozen(value)) Object.freeze(value);
  for (const key of Object.keys(value)) freezeWalkSeen((value as Record<string, unknown>)[key], seen);
}

/**
 * Freezes a value and everything reachable from it; returns the same value. Everything is
 * walked every time, also what is frozen already (a shallow freeze leaves what is inside
 * writable): remembering what was frozen costs more than walking the small values it is given.
 */
export function deepFreeze<T>(value: T): T {
  try {
    freezeWalk(value, 0, { count: 0 });
  } catch (error) {
    if (error !== notPlain) throw error;
    freezeWalkSeen(value, new Set());
  }
  return value;
}

function copyFrozen(value: unknown, depth: number, visits: { count: number }): unknown {
  if (value === null) return value;
  const type = typeof value;
  if (type === "function" || type === "symbol" || type === "bigint") throw notPlain;
  if (type !== "object") return value;
  // Deep nesting may be a cycle, many visits shared parts: structuredClone copies both once.
  if (depth > maxPlainDepth || ++visits.count > maxPlainVisits) throw notPlain;
  let copy: unknown[] | Record<string, unknown>;
  if (Array.isArray(value)) {
    copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = copyFrozen(value[index], depth + 1, visits);
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) throw notPlain;
    copy = {};
    for (const key of Object.keys(value as object)) {
      copy[key] = copyFrozen((value as Record<string, unknown>)[key], depth + 1, visits);
    }
  }
  return Object.freeze(copy);
}

/**
 * A deeply frozen copy of a JSON value, made in one pass. A value that is not plain JSON (a
 * class instance, nesting deeper than 64 levels, a cycle, more than 10,000 objects) is copied
 * by structuredClone instead.
 */
export function frozenJsonCopy<T extends JsonValue>(value: T): T {
  try {
    return copyFrozen(value, 0, { count: 0 }) as T;
  } catch (error) {
    if (error !== notPlain) throw error;
    return deepFreeze(structuredClone(value) as T);
  }
}

/** Structural equality of two JSON values (object key order does not matter). */
export function jsonEqual(left: JsonValue, right: JsonValue): boolean {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => jsonEqual(item, right[index] as JsonValue));
  }
  const leftObject = left as JsonObject;
  const rightObject = right as JsonObject;
  const leftKeys = Object.keys(leftObject);
  if (leftKeys.length !== Object.keys(rightObject).length) return false;
  return leftKeys.every(
    (key) => Object.hasOwn(rightObject, key) && jsonEqual(leftObject[key] as JsonValue, rightObject[key] as JsonValue),
  );
}
