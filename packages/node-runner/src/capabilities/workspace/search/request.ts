import { errorMessage, ToolInputError } from "@castellan/harness";
import { checkWorkspacePath } from "../../../kernel/workspace-path/check-path.js";
import { lazyModule } from "../../../platform/modules/lazy-module.js";
import { defaultMaxRulesFileBytes } from "../ignore/read-rules-file.js";
import { maxQueryBytes, type SearchEngine, type SearchWorkspaceInput, type SearchWorkspaceOptions } from "./types.js";

const picomatch = lazyModule<typeof import("picomatch")>("picomatch");

/** A search's input, checked: what the engines work from. */
export interface SearchRequest {
  readonly query: string;
  /** The workspace path as given (`.` by default) and its segments. */
  readonly path: string;
  readonly segments: readonly string[];
  readonly glob: string | undefined;
  /** Tests a root-relative file path against `glob`; undefined when there is none. */
  readonly matchesGlob: ((path: string) => boolean) | undefined;
  readonly regex: boolean;
  readonly ignoreCase: boolean;
  readonly offset: string | undefined;
}

/** {@link SearchWorkspaceOptions} with every default filled in. */
export interface SearchSettings {
  readonly maxPageBytes: number;
  readonly maxLineBytes: number;
  readonly searchTimeoutMs: number;
  readonly maxRulesFileBytes: number;
  readonly signal: AbortSignal | undefined;
  readonly engine: SearchEngine;
  readonly ripgrepPath: string | undefined;
}

const encoder = new TextEncoder();
const loneSurrogate = /\p{Cs}/u;

/**
 * Checks the model's input, before any I/O: `query_invalid` (empty, too long, a lone
 * surrogate, a literal with a line feed, a pattern that does not compile), `path_invalid`,
 * `glob_invalid`, `offset_invalid` (not a string; its content is checked against the walk).
 */
export function checkRequest(input: SearchWorkspaceInput): SearchRequest {
  if (input === null || typeof input !== "object") throw new TypeError("search input must be an object.");
  const regex = flag(input.regex, "regex");
  const ignoreCase = flag(input.ignoreCase, "ignoreCase");
  const query = checkQuery(input.query, regex, ignoreCase);
  const path = input.path ?? ".";
  const segments = checkWorkspacePath(path);
  const glob = input.glob;
  const matchesGlob = glob === undefined ? undefined : globMatcher(glob);
  const offset = input.offset;
  if (offset !== undefined && typeof offset !== "string") {
    throw new ToolInputError("offset_invalid", "offset must be a page's nextOffset string, or omitted to start.");
  }
  return { query, path, segments, glob, matchesGlob, regex, ignoreCase, offset };
}

/** The RegExp a search matches lines with, or undefined for a case-sensitive literal (matched as bytes). */
export function lineExpression(request: Pick<SearchRequest, "query" | "regex" | "ignoreCase">): RegExp | undefined {
  if (request.regex) return new RegExp(request.query, request.ignoreCase ? "iu" : "u");
  if (request.ignoreCase) return new RegExp(escapeRegExp(request.query), "iu");
  return undefined;
}

/** Fills in and bounds-checks the host's options; a `RangeError` names a bad one. */
export function resolveSettings(options: SearchWorkspaceOptions = {}): SearchSettings {
  const engine = options.engine ?? "builtin";
  if (!["auto", "builtin", "ripgrep"].includes(engine)) {
    throw new RangeError(`engine must be "auto", "builtin" or "ripgrep", not ${String(engine)}.`);
  }
  return {
    maxPageBytes: bounded(options.maxPageBytes, "maxPageBytes", 32_768, 1_024, 1_048_576),
    maxLineBytes: bounded(options.maxLineBytes, "maxLineBytes", 512, 16, 65_536),
    searchTimeoutMs: bounded(options.searchTimeoutMs, "searchTimeoutMs", 30_000, 1, 600_000),
    maxRulesFileBytes: bounded(options.maxRulesFileBytes, "maxRulesFileBytes", defaultMaxRulesFileBytes, 0, 67_108_864),
    signal: options.signal,
    engine,
    ripgrepPath: options.ripgrepPath,
  };
}

function checkQuery(query: unknown, regex: boolean, ignoreCase: boolean): string {
  if (typeof query !== "string" || query === "") {
    throw invalidQuery("The query is empty; give the text (or, with regex, the pattern) to find.");
  }
  if (loneSurrogate.test(query)) throw invalidQuery("The query is not valid Unicode (it has a lone surrogate).");
  const bytes = encoder.encode(query).length;
  if (bytes > maxQueryBytes) {
    throw invalidQuery(
      `The query is ${bytes} bytes; the limit is ${maxQueryBytes}. Search for a shorter, distinctive part.`,
    );
  }
  if (!regex && query.includes("\n")) {
    throw invalidQuery("The query has a line break, but a match is found within one line. Search for one line of it.");
  }
  if (regex) {
    try {
      lineExpression({ query, regex, ignoreCase });
    } catch (error) {
      const reason = errorMessage(error);
      throw invalidQuery(
        `The pattern does not compile as a JavaScript RegExp with the u flag: ${reason}. Fix it, or search for the text literally with regex: false.`,
      );
    }
  }
  return query;
}

function globMatcher(glob: unknown): (path: string) => boolean {
  const usage = "Use `*` and `?` within a name, `**` across directories and `[...]` for a class, like `src/**/*.ts`.";
  if (typeof glob !== "string" || glob === "") throw new ToolInputError("glob_invalid", `The glob is empty. ${usage}`);
  try {
    // Options chosen so a glob means what it says: no {a,b} or @(...) syntax, no leading-!
    // negation, dotfiles included, an unclosed [ an error rather than a literal.
    return picomatch()(glob, {
      dot: true,
      nobrace: true,
      noextglob: true,
      nonegate: true,
      strictBrackets: true,
      posix: true,
    });
  } catch (error) {
    const reason = errorMessage(error);
    throw new ToolInputError("glob_invalid", `The glob ${JSON.stringify(glob)} is not valid: ${reason}. ${usage}`);
  }
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw new TypeError(`${name} must be a boolean.`);
  return value;
}

function invalidQuery(message: string): ToolInputError {
  return new ToolInputError("query_invalid", message);
}

// Only the syntax characters: under the u flag escaping anything else (`\-`) is an error.
function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

function bounded(value: number | undefined, name: string, fallback: number, low: number, high: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < low || value > high) {
    throw new RangeError(`${name} must be an integer from ${low} to ${high}, not ${value}.`);
  }
  return value;
}
