import { z } from "zod";

/**
 * The most file entries a body's manifest may list (and the most `omitted` views). Far above
 * any real set: entries past the staging bound (64) are not refused but reported as omitted, so
 * a long list is never silently shortened; this is only the backstop against an absurd body.
 */
export const maxContextImageEntries = 1_000;

/**
 * An artifact id: 1-256 characters of one URL path segment, letters, digits, '.', '_' and '-',
 * never `.` or `..` (a URL parser would resolve those, encoded or not, to another path).
 */
export const artifactIdPattern = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,256}$/;

/**
 * A staged file's name: 1-128 characters of letters, digits, '.', '_' and '-', starting with a
 * letter or digit, so it is one plain name that cannot leave its directory or hide in it.
 */
export const contextFileNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** One image of a manifest: the backend's artifact, the name it is staged under, and its view. */
export interface ContextImageFile {
  /** The artifact fetched from `<url>/<artifactId>`; see {@link artifactIdPattern}. */
  readonly artifactId: string;
  /** The backend's name for the file (never derived here); see {@link contextFileNamePattern}. */
  readonly fileName: string;
  /** The view the image shows, as the agent is told it (1-256 characters). */
  readonly view: string;
}

/** A manifest of context images as a job body carries it (`referenceScreenshots` or `designImages`). */
export interface ContextImagesSpec {
  /** The artifact endpoint; each file is `GET <url>/<artifactId>`, with or without a trailing slash. */
  readonly url: string;
  /** The bearer token of that endpoint (the run's own session token). */
  readonly token: string;
  /** The images to stage, at most {@link maxContextImageEntries}. */
  readonly files: readonly ContextImageFile[];
  /** Views the backend's own cap left out; stated to the agent beside the failed transfers. */
  readonly omitted?: readonly string[] | undefined;
}

const view = z.string().min(1).max(256);

/**
 * The schema of one context-image manifest, strict at every level: `url` by the caller's URL
 * rule, `token` by the caller's credential schema (default 1-16,384 characters), `files` at most 1,000 entries (more than the 64 staged are
 * accepted and reported as omitted at staging, not refused), file names unique ignoring case
 * (the issue's path points at the later duplicate), `omitted` at most 1,000 views. Messages name
 * rules, never a submitted value.
 */
export function contextImagesSchema(url: z.ZodType<string>, token: z.ZodType<string> = z.string().min(1).max(16_384)) {
  return z
    .strictObject({
      url,
      token,
      files: z
        .array(
          z.strictObject({
            artifactId: z.string().regex(artifactIdPattern, {
              message: "must be 1-256 characters of letters, digits, '.', '_' and '-', and not '.' or '..'.",
            }),
            fileName: z.string().regex(contextFileNamePattern, {
              message:
                "must be 1-128 characters of letters, digits, '.', '_' and '-', starting with a letter or digit.",
            }),
            view,
          }),
        )
        .max(maxContextImageEntries),
      omitted: z.array(view).max(maxContextImageEntries).optional(),
    })
    .superRefine((manifest, context) => {
      // Unique ignoring case: on a case-insensitive file system two such names are one file.
      const seen = new Set<string>();
      manifest.files.forEach((file, index) => {
        const key = file.fileName.toLowerCase();
        if (seen.has(key)) {
          context.addIssue({
            code: "custom",
            message: "must be unique ignoring case; an earlier file has the same name.",
            path: ["files", index, "fileName"],
          });
        }
        seen.add(key);
      });
    });
}
