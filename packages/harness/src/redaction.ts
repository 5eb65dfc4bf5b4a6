// The one redactor of Castellan: the models' adapters, the MCP client and the executor all
// keep credentials out of what they show, save and log through it, with one rule. Secrets
// reach text that came from elsewhere (a server echoing the key it was sent, a header
// reflected in an error body), and from there errors, events, logs and saved records.

/** What stands in a text where a secret was. */
export const REDACTED = "[redacted]";

/**
 * Replaces every registered secret wherever it occurs, whatever its length. A secret of one or
 * two characters is replaced too: the text then holds many markers, which is the price of
 * never showing it. The marker's own text is never rewritten, so scrubbing twice changes
 * nothing (the letters of `[redacted]` are the one place a very short secret's characters stay).
 */
export interface Redactor {
  /** Registers a secret; `undefined` and `""` are ignored, every other string counts (no minimum length). */
  add(secret: string | undefined): void;
  /** How many distinct secrets are registered. */
  readonly size: number;
  /** The text with each secret replaced by {@link REDACTED}, longer secrets first (one pass: a marker is never re-read). */
  scrub(text: string): string;
  /**
   * A copy of a JSON-like value with every string scrubbed (arrays and objects copied by their
   * own enumerable entries); an `Error` inside is scrubbed in place ({@link Redactor.scrubError}) and kept.
   */
  scrubJson<Value>(value: Value): Value;
  /**
   * Scrubs an error in place and returns it: its message and stack, every own string field,
   * arrays and plain objects under them, its `cause` chain and an `AggregateError`'s `errors`,
   * to any depth (each object once). Instances of other classes under it (a `Headers`, a
   * `Response`) are not entered; `util.inspect` of a Castellan error reaching this one is still
   * scrubbed as text ({@link scrubInspected}).
   */
  scrubError<Thrown>(error: Thrown): Thrown;
}

/** The redactors each scrubbed error was scrubbed with, for its `util.inspect` output. */
const scrubbedWith = new WeakMap<object, Set<Redactor>>();

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A redactor that knows `secrets` (more may be added later). */
export function createRedactor(secrets: readonly (string | undefined)[] = []): Redactor {
  const known = new Set<string>();
  // Rebuilt on the next scrub after a secret is added.
  let pattern: RegExp | undefined;

  const compiled = (): RegExp | undefined => {
    if (known.size === 0) return undefined;
    if (pattern === undefined) {
      // The marker is one of the alternatives, kept as it is where it matches: a secret that is
      // a piece of it ("d", "act") never turns an earlier replacement into a longer mess.
      const alternatives = [...known, REDACTED].sort((a, b) => b.length - a.length).map(escapeRegExp);
      pattern = new RegExp(alternatives.join("|"), "g");
    }
    return pattern;
  };

  const scrub = (text: string): string => {
    const current = compiled();
    return current === undefined ? text : text.replace(current, () => REDACTED);
  };

  const scrubInPlace = (value: unknown, seen: Set<object>): void => {
    if (value === null || typeof value !== "object" || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const entry: unknown = value[index];
        if (typeof entry === "string") value[index] = scrub(entry);
        else scrubInPlace(entry, seen);
      }
      return;
    }
    const isError = value instanceof Error;
    if (!isError && !isPlainObject(value)) return;
    if (isError) remember(value, redactor);
    for (const key of Object.getOwnPropertyNames(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      // An accessor may compute its value (V8's `stack` is one on some versions): read it once, set it back scrubbed.
      const entry: unknown = descriptor && "value" in descriptor ? descriptor.value : readSafely(value, key);
      if (typeof entry === "string") {
        const clean = scrub(entry);
        if (clean !== entry) writeSafely(value, key, clean);
      } else scrubInPlace(entry, seen);
    }
  };

  const redactor: Redactor = {
    add(secret) {
      if (typeof secret !== "string" || secret.length === 0 || known.has(secret)) return;
      known.add(secret);
      pattern = undefined;
    },
    get size() {
      return known.size;
    },
    scrub,
    scrubJson<Value>(value: Value): Value {
      if (known.size === 0) return value;
      const copy = (entry: unknown): unknown => {
        if (typeof entry === "string") return scrub(entry);
        if (Array.isArray(entry)) return entry.map(copy);
        if (entry instanceof Error) return redactor.scrubError(entry);
        if (entry !== null && typeof entry === "object")
          return Object.fromEntries(Object.entries(entry).map(([key, item]) => [key, copy(item)]));
        return entry;
      };
      return copy(value) as Value;
    },
    scrubError<Thrown>(error: Thrown): Thrown {
      if (known.size > 0) scrubInPlace(error, new Set());
      return error;
    },
  };
  for (const secret of secrets) redactor.add(secret);
  return redactor;
}

function remember(error: Error, redactor: Redactor): void {
  const set = scrubbedWith.get(error) ?? new Set<Redactor>();
  set.add(redactor);
  scrubbedWith.set(error, set);
}

function readSafely(target: object, key: string): unknown {
  try {
    return (target as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function writeSafely(target: object, key: string, value: string): void {
  try {
    (target as Record<string, unknown>)[key] = value;
    if ((target as Record<string, unknown>)[key] === value) return;
  } catch {
    // A read-only field: redefined below where it can be.
  }
  try {
    Object.defineProperty(target, key, { value, writable: true, configurable: true });
  } catch {
    // Frozen: nothing can be written; util.inspect of a Castellan error around it still scrubs the text.
  }
}

/** Every redactor that scrubbed `error` or an error under it (its causes, its `errors`). */
function redactorsReaching(error: object): Set<Redactor> {
  const found = new Set<Redactor>();
  const seen = new Set<object>();
  const visit = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== "object" || seen.has(value) || depth > 64) return;
    seen.add(value);
    for (const redactor of scrubbedWith.get(value) ?? []) found.add(redactor);
    if (!(value instanceof Error)) return;
    visit(readSafely(value, "cause"), depth + 1);
    const errors = readSafely(value, "errors");
    if (Array.isArray(errors)) for (const entry of errors) visit(entry, depth + 1);
  };
  visit(error, 0);
  return found;
}

/**
 * `text` (how `error` was printed, e.g. by `util.inspect`) scrubbed with every redactor that
 * scrubbed the error or one under it; unchanged when none did. Castellan errors run their
 * inspect output through this.
 */
export function scrubInspected(error: object, text: string): string {
  let clean = text;
  for (const redactor of redactorsReaching(error)) clean = redactor.scrub(clean);
  return clean;
}

/** True when some redactor scrubbed `error` or an error under it. */
export function wasScrubbed(error: object): boolean {
  return redactorsReaching(error).size > 0;
}
