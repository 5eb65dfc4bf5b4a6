import { InvalidOptionsError } from "../../kernel/errors/errors.js";
import { captureRootPath } from "./capture-path.js";
import type { BrowserSessionToolsOptions } from "./options.js";
import type { OriginAuthority } from "./origins.js";
import type { BrowserSessionFactory } from "./types.js";

/** Default of `maxObservationBytes`. */
export const defaultMaxObservationBytes = 16_384;
/** Default of `maxImageBytes`. */
export const defaultMaxImageBytes = 2_097_152;

/** Bounds of `maxObservationBytes`, a node-runner trust-boundary limit. */
export const observationBytesBounds = { min: 1_024, max: 1_048_576 } as const;
/** Bounds of `maxImageBytes`, a node-runner trust-boundary limit. */
export const imageBytesBounds = { min: 1_024, max: 16_777_216 } as const;

/** Checked options, with defaults applied. */
export interface ResolvedBrowserOptions {
  readonly origins: OriginAuthority;
  readonly sessionFactory: BrowserSessionFactory;
  readonly maxObservationBytes: number;
  readonly maxImageBytes: number;
  /** The capture root's directory path; undefined when saving is refused. */
  readonly captureRoot: string | undefined;
}

function bounded(name: string, value: unknown, fallback: number, bounds: { min: number; max: number }): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw new InvalidOptionsError(
      `${name} must be an integer from ${bounds.min.toLocaleString("en")} to ${bounds.max.toLocaleString("en")}, not ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function rootOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value instanceof URL ? value.href : String(value));
  } catch {
    throw new InvalidOptionsError("captureWorkspaceRoot must be a file: URL of a directory.");
  }
  if (url.protocol !== "file:")
    throw new InvalidOptionsError("captureWorkspaceRoot must be a file: URL of a directory.");
  return captureRootPath(url);
}

/**
 * Checks {@link BrowserSessionToolsOptions} and applies the defaults.
 *
 * @throws InvalidOptionsError (`invalid_options`) naming the bad option.
 */
export function resolveBrowserOptions(options: BrowserSessionToolsOptions): ResolvedBrowserOptions {
  if (options === null || typeof options !== "object") {
    throw new InvalidOptionsError("createBrowserSessionTools needs { origins, sessionFactory }.");
  }
  if (typeof options.origins?.admit !== "function") {
    throw new InvalidOptionsError("origins must be an OriginAuthority (createOriginAuthority()).");
  }
  if (typeof options.sessionFactory?.open !== "function") {
    throw new InvalidOptionsError("sessionFactory must be a BrowserSessionFactory with open().");
  }
  const mode = options.sessionFactory.mode ?? "managed";
  if (mode !== "managed" && mode !== "selected") {
    throw new InvalidOptionsError('sessionFactory.mode must be "managed" or "selected".');
  }
  const selected = options.sessionFactory.selectedTab;
  if (mode === "selected" && (typeof selected?.tabId !== "string" || typeof selected.origin !== "string")) {
    throw new InvalidOptionsError('A "selected" sessionFactory needs selectedTab { tabId, origin }.');
  }
  return Object.freeze({
    origins: options.origins,
    sessionFactory: options.sessionFactory,
    maxObservationBytes: bounded(
      "maxObservationBytes",
      options.maxObservationBytes,
      defaultMaxObservationBytes,
      observationBytesBounds,
    ),
    maxImageBytes: bounded("maxImageBytes", options.maxImageBytes, defaultMaxImageBytes, imageBytesBounds),
    captureRoot: rootOf(options.captureWorkspaceRoot),
  });
}
