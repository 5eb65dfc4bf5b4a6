import { inspect } from "node:util";

/** Everything an error exposes (message, stack, JSON, string, causes), for asserting a secret is absent. */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof Error) parts.push(current.message, current.stack ?? "");
    parts.push(JSON.stringify(current), String(current));
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join("\n");
}

/** Asserts `secret` appears in nothing observable of `values`: JSON (errors included) or a deep inspect. */
export function assertNoSecret(secret: string, ...values: unknown[]): void {
  for (const value of values) {
    const seen = new Set<unknown>();
    const text = JSON.stringify(value, (_key, item) => {
      if (item instanceof Error) {
        if (seen.has(item)) return "[seen]";
        seen.add(item);
        return { ...item, name: item.name, message: item.message, stack: item.stack };
      }
      return item;
    });
    if (text?.includes(secret)) throw new Error("the API key leaked into JSON");
    // inspect also walks `cause` chains and non-enumerable properties.
    if (inspect(value, { depth: 12, showHidden: true }).includes(secret)) throw new Error("the API key leaked");
  }
}
