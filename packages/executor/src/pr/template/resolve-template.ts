import { realpath } from "node:fs/promises";
import { type ContainedWalk, entryNames, type FoundEntry, findPath, follow, rootEntry } from "./contained-walk.js";
import { type TemplateLocation, templateLocations } from "./locations.js";
import { type PrTemplate, readTemplate } from "./read-template.js";

/** The repository's PR template, if it has one the server can use, and notes on what was passed over. */
export interface PrTemplateResolution {
  readonly template?: PrTemplate;
  /** Why a template that is there was not used (each said once); empty when nothing was passed over. */
  readonly notes: readonly string[];
}

/**
 * The PR template of the repository checked out at `checkout`: the first usable one of
 * `templateLocations`, names matched ignoring case. A location with nothing usable (nothing
 * there, a symlink out of the checkout, a file over 64 KiB or not UTF-8, a directory of several
 * templates and no default) is passed over, with a note unless nothing was there at all, and
 * the next is tried. Rejects only when `checkout` itself cannot be resolved.
 */
export async function resolvePrTemplate(checkout: string): Promise<PrTemplateResolution> {
  const walk: ContainedWalk = { root: await realpath(checkout), notes: [] };
  for (const location of templateLocations) {
    const found =
      location.kind === "file"
        ? await findPath(walk, rootEntry(walk), location.segments, "file")
        : await pickFromDirectory(walk, location);
    const template = found === undefined ? undefined : await readTemplate(walk, found);
    if (template !== undefined) return { template, notes: [...new Set(walk.notes)] };
  }
  return { notes: [...new Set(walk.notes)] };
}

/**
 * The template a directory of templates gives: its default (ignoring case) when the location
 * names one, else its only `.md` file. With several and no default it gives none: such a
 * directory is there so a human picks one per pull request, and picking for them would be a
 * guess.
 */
async function pickFromDirectory(
  walk: ContainedWalk,
  location: Extract<TemplateLocation, { readonly kind: "directory" }>,
): Promise<FoundEntry | undefined> {
  const directory = await findPath(walk, rootEntry(walk), location.segments, "directory");
  if (directory === undefined) return undefined;
  const templates: FoundEntry[] = [];
  for (const name of await entryNames(walk, directory)) {
    if (!name.toLowerCase().endsWith(".md")) continue;
    const found = await follow(walk, directory, name, "file");
    if (found !== undefined) templates.push(found);
  }
  const defaultName = location.defaultName?.toLowerCase();
  const chosen = templates.find((entry) => entry.path.split("/").at(-1)?.toLowerCase() === defaultName);
  if (chosen !== undefined) return chosen;
  if (templates.length === 1) return templates[0];
  if (templates.length > 1) {
    walk.notes.push(
      `\`${directory.path}/\` holds ${templates.length} templates and no default; none was used, since a human picks one per pull request.`,
    );
  }
  return undefined;
}
