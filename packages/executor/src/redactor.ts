/** Replaces every credential of a job in text it is about to show, save or log. */
export interface Redactor {
  /** Adds a credential; values under 8 characters are not treated as secrets (they would match too much). */
  add(secret: string | undefined): void;
  /** The text with each known credential replaced by `[redacted]`. */
  scrub(text: string): string;
  /** A JSON value with every string scrubbed. */
  scrubJson<Value>(value: Value): Value;
}

/** A redactor that knows `secrets`. */
export function createRedactor(secrets: readonly (string | undefined)[] = []): Redactor {
  const known = new Set<string>();
  const redactor: Redactor = {
    add(secret) {
      if (typeof secret === "string" && secret.length >= 8) known.add(secret);
    },
    scrub(text) {
      let scrubbed = text;
      // Longest first, so a secret that contains another is replaced whole.
      for (const secret of [...known].sort((a, b) => b.length - a.length))
        scrubbed = scrubbed.split(secret).join("[redacted]");
      return scrubbed;
    },
    scrubJson<Value>(value: Value): Value {
      if (typeof value === "string") return redactor.scrub(value) as Value;
      if (Array.isArray(value)) return value.map((entry) => redactor.scrubJson(entry)) as Value;
      if (value !== null && typeof value === "object") {
        return Object.fromEntries(
          Object.entries(value as Record<string, unknown>).map(([key, entry]) => [key, redactor.scrubJson(entry)]),
        ) as Value;
      }
      return value;
    },
  };
  for (const secret of secrets) redactor.add(secret);
  return redactor;
}
