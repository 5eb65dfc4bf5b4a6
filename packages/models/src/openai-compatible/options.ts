// Checks of the factories' options, shared by both adapters: wrong options fail when the
// binding is created, not at the first request.
import { DeclarationError } from "@castellan/harness";

export function requireText(value: unknown, where: string, name: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new DeclarationError(`${where}: ${name} must be a non-empty string.`);
  }
  return value;
}

export function requireHttpUrl(value: unknown, where: string, name: string): string {
  const text = requireText(value, where, name);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DeclarationError(`${where}: ${name} must be an absolute http(s) URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new DeclarationError(`${where}: ${name} must be an absolute http(s) URL.`);
  }
  return text.replace(/\/+$/, "");
}

export function optionalInteger(
  value: unknown,
  where: string,
  name: string,
  bounds: { readonly min: number; readonly max: number },
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw new DeclarationError(`${where}: ${name} must be an integer from ${bounds.min} to ${bounds.max}.`);
  }
  return value;
}

/** Header names and values as fetch accepts them (visible ASCII), so a bad one fails here. */
export function checkHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  where: string,
): Readonly<Record<string, string>> | undefined {
  if (headers === undefined) return undefined;
  if (headers === null || typeof headers !== "object")
    throw new DeclarationError(`${where}: headers must be an object.`);
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new DeclarationError(`${where}: header name "${name}" is not a valid HTTP header name.`);
    }
    if (typeof value !== "string" || !/^[\x20-\x7e]*$/.test(value)) {
      throw new DeclarationError(`${where}: header "${name}" must be a string of printable ASCII characters.`);
    }
  }
  return headers;
}
