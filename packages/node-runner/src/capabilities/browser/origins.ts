import { DeclarationError } from "@castellan/harness";
import { BrowserToolError } from "./errors.js";

/** The longest URL a browser tool accepts. */
export const maxBrowserUrlLength = 2_048;

/** What the authority admitted: the canonical URL and its Origin. */
export interface AdmittedUrl {
  readonly url: string;
  readonly origin: string;
}

/**
 * Admits and canonicalises the URLs browser tools are given, once, at the host's trust
 * boundary; permission hooks read the admission instead of parsing the URL again.
 */
export interface OriginAuthority {
  /**
   * Admits `url`: `browser_url_refused` for anything but an `http:`/`https:` URL of at most
   * 2,048 characters without credentials (never echoed), `browser_origin_not_admitted` for an
   * Origin outside the declared list.
   */
  admit(url: string): AdmittedUrl;
  /** The declared Origins, canonical; undefined when any HTTP(S) Origin may be admitted. */
  readonly origins: readonly string[] | undefined;
}

/** Options of {@link createOriginAuthority}. */
export interface OriginAuthorityOptions {
  /** Exact Origins (`http://127.0.0.1:3000`), canonicalised at declaration. Default: any HTTP(S) Origin. */
  readonly origins?: readonly string[];
}

/** The canonical Origin of an already parsed HTTP(S) URL (WHATWG: lower case, punycode, default port dropped). */
export function canonicalOrigin(url: URL): string {
  return url.origin;
}

/** The canonical Origin of `text`, or undefined when it is not an HTTP(S) URL. */
export function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function parse(text: string): URL {
  if (typeof text !== "string" || text.length > maxBrowserUrlLength) {
    throw new BrowserToolError(
      "browser_url_refused",
      `The URL must be a string of at most ${maxBrowserUrlLength} characters.`,
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BrowserToolError("browser_url_refused", "The URL is not an absolute URL; give an http: or https: URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new BrowserToolError(
      "browser_url_refused",
      `Only http: and https: URLs are opened, not ${url.protocol} ones.`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new BrowserToolError(
      "browser_url_refused",
      "URLs with embedded credentials are refused; give the URL without a user name or password.",
    );
  }
  return url;
}

/**
 * Creates the Origin authority browser tools admit URLs with. Without `origins` any HTTP(S)
 * URL is admitted; with a list only those exact Origins. Neither form skips approval.
 *
 * @throws DeclarationError for a listed entry that is not a bare HTTP(S) Origin (a path,
 * query, fragment or credentials included).
 */
export function createOriginAuthority(options: OriginAuthorityOptions = {}): OriginAuthority {
  let origins: readonly string[] | undefined;
  if (options.origins !== undefined) {
    if (!Array.isArray(options.origins)) throw new DeclarationError("origins must be an array of Origins.");
    origins = Object.freeze([
      ...new Set(
        options.origins.map((entry, index) => {
          const where = `origins[${index}]`;
          let url: URL;
          try {
            url = parse(entry);
          } catch (error) {
            throw new DeclarationError(`${where}: ${(error as Error).message}`);
          }
          const bare = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\/?$/i.test(entry);
          if (!bare || url.search !== "" || url.hash !== "" || url.pathname !== "/") {
            throw new DeclarationError(
              `${where} must be a bare Origin such as http://127.0.0.1:3000, with no path, query or fragment.`,
            );
          }
          return url.origin;
        }),
      ),
    ]);
  }
  const allowed = origins === undefined ? undefined : new Set(origins);
  return Object.freeze({
    origins,
    admit(text: string): AdmittedUrl {
      const url = parse(text);
      if (allowed && !allowed.has(url.origin)) {
        throw new BrowserToolError(
          "browser_origin_not_admitted",
          `${url.origin} is not an Origin this agent may open; use one of ${[...allowed].join(", ")}.`,
        );
      }
      return { url: url.href, origin: url.origin };
    },
  });
}
