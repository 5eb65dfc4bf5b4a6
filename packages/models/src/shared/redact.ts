// Keeps credentials out of text that came from elsewhere: a server may echo the key it was
// sent in an error message, and that message ends up in errors, events and session logs.

/** Removes the credentials a redactor was made for from a text. */
export type Redact = (text: string) => string;

/** What stands in a text where a credential was. */
export const REDACTED = "[redacted]";

/**
 * Credentials shorter than this are replaced only where they stand as a whole token: a local
 * server's key such as "x" or "local" would otherwise garble every word that contains it.
 */
export const WHOLE_TOKEN_BELOW = 8;

/** The characters that continue a token: a short credential next to one of them is part of a longer word. */
const TOKEN_CHAR = "[A-Za-z0-9_-]";

/**
 * A redactor for the given credentials (undefined and empty ones are skipped). A credential of
 * WHOLE_TOKEN_BELOW (8) or more characters is replaced by REDACTED wherever it occurs; a shorter
 * one only where it is bounded on both sides by the text's start or end or a character outside
 * `[A-Za-z0-9_-]`. Longer credentials are replaced first, so one containing another is not
 * left half-redacted.
 */
export function redactor(...credentials: readonly (string | undefined)[]): Redact {
  const secrets = [...new Set(credentials.filter((secret): secret is string => typeof secret === "string"))]
    .filter((secret) => secret.length > 0)
    .sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return (text) => text;
  const replacers = secrets.map(replacer);
  return (text) => replacers.reduce((clean, replace) => replace(clean), text);
}

/** `redactor(credential)(text)`, for a single use. */
export function redact(text: string, credential: string | undefined): string {
  return redactor(credential)(text);
}

function replacer(secret: string): Redact {
  if (secret.length >= WHOLE_TOKEN_BELOW) return (text) => text.split(secret).join(REDACTED);
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`(?<!${TOKEN_CHAR})${escaped}(?!${TOKEN_CHAR})`, "g");
  // A function, so `$` sequences in REDACTED could never be read as replacement patterns.
  return (text) => text.replace(pattern, () => REDACTED);
}
