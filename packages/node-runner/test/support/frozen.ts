/** Whether `value` and everything reachable from it is frozen (primitives count as frozen). */
export function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

/** Whether `action` throws a TypeError, as changing a frozen value does in strict mode. */
export function throwsTypeError(action: () => unknown): boolean {
  try {
    action();
  } catch (error) {
    return error instanceof TypeError;
  }
  return false;
}
