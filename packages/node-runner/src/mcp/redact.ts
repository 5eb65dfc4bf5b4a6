/** Replaces every occurrence of the given secret values with `[redacted]`. */
export class Redactor {
  readonly #secrets: readonly string[];

  constructor(secrets: readonly string[]) {
    // Longest first, so a secret containing another is replaced whole.
    this.#secrets = [...new Set(secrets.filter((secret) => secret.length > 0))].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let result = text;
    for (const secret of this.#secrets) result = result.split(secret).join("[redacted]");
    return result;
  }

  /** A JSON value with every string redacted. */
  redactJson<T>(value: T): T {
    if (this.#secrets.length === 0) return value;
    if (typeof value === "string") return this.redact(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.redactJson(item)) as T;
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.redactJson(item)])) as T;
    }
    return value;
  }
}
