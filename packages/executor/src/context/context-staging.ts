import { contextDirectory } from "../git/checkout.js";

/** The two kinds of context images, each with a directory of its own under `.castellan-context/`. */
export type ContextImageKind = "reference-screenshots" | "design-renders";

/** An image on disk after staging. */
export interface StagedContextImage {
  readonly view: string;
  readonly fileName: string;
  /** Where it is, relative to the checkout (`.castellan-context/<kind>/<fileName>`). */
  readonly path: string;
  /** False when a non-empty file was already there (an earlier staging's), so nothing was fetched. */
  readonly fetched: boolean;
}

/** An image that did not land, and why in a few words (a status code, a bound; never a credential). */
export interface FailedContextImage {
  readonly view: string;
  readonly fileName: string;
  readonly reason: string;
}

/** What one staging of a manifest left in the checkout. */
export interface ContextStaging {
  readonly kind: ContextImageKind;
  /** The images on disk, in the manifest's order. */
  readonly staged: readonly StagedContextImage[];
  /** Views with no file: the manifest's own `omitted`, then the entries past the staging bound. */
  readonly omitted: readonly string[];
  /** The images that did not land, in the manifest's order. */
  readonly failed: readonly FailedContextImage[];
}

/** The directory of a kind's images, relative to the checkout, without a trailing slash. */
export function contextImagesDirectory(kind: ContextImageKind): string {
  return `${contextDirectory}${kind}`;
}
