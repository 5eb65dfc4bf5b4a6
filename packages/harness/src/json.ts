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

const deeplyFrozen = new WeakSet<object>();

/**
 * Freezes a value and everything reachable from it; returns the same value. An object that
 * is frozen but not by this function (a shallow freeze) is still walked.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || deeplyFrozen.has(value)) return value;
  Object.freeze(value);
  deeplyFrozen.add(value);
  for (const item of Object.values(value)) deepFreeze(item);
  return value;
}

/** A deeply frozen copy of a JSON value. */
export function frozenJsonCopy<T extends JsonValue>(value: T): T {
  return deepFreeze(structuredClone(value) as T);
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
