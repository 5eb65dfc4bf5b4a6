// Runs dependency-cruiser over the packages' shipped sources with the rules in
// .dependency-cruiser.cjs (the layer map), and compares what it finds with the recorded known
// violations: a violation not recorded is new, a recorded one not found anymore is stale.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

/** The repository root. */
export const repositoryRoot = fileURLToPath(new URL("../", import.meta.url));

/** The recorded violations still to fix, written by `npm run layers:baseline`. */
export const knownViolationsFile = join(repositoryRoot, ".dependency-cruiser-known-violations.json");

/** One violation as compared: its rule and its two ends (modules, or folders for a folder rule). */
export interface LayerViolation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

/** A stable text of a violation, for comparing and for messages. */
export function describeViolation(violation: LayerViolation): string {
  return `${violation.rule}: ${violation.from} → ${violation.to}`;
}

/**
 * Cruises `sources` (globs or folders relative to `baseDir`, default the repository root's
 * `packages/*\/src`) with the repository's rules and answers every violation found.
 */
export async function findLayerViolations(options?: {
  readonly baseDir?: string;
  readonly sources?: readonly string[];
}): Promise<LayerViolation[]> {
  const baseDir = options?.baseDir ?? repositoryRoot;
  const cruiseOptions = await extractDepcruiseOptions(join(repositoryRoot, ".dependency-cruiser.cjs"));
  const tsConfig = extractTSConfig(join(repositoryRoot, "tsconfig.base.json"));
  const reported = await cruise(
    [...(options?.sources ?? ["packages/*/src"])],
    {
      ...cruiseOptions,
      baseDir,
      tsConfig: { fileName: join(repositoryRoot, "tsconfig.base.json") },
      outputType: "json",
    },
    undefined,
    { tsConfig },
  );
  const result = (typeof reported.output === "string" ? JSON.parse(reported.output) : reported.output) as ICruiseResult;
  return result.summary.violations.map((violation: IViolation) => ({
    rule: violation.rule.name,
    from: violation.from,
    to: violation.to,
  }));
}

/** The recorded known violations (dependency-cruiser's baseline format). */
export async function readKnownViolations(): Promise<LayerViolation[]> {
  const recorded = JSON.parse(await readFile(knownViolationsFile, "utf8")) as IViolation[];
  return recorded.map((violation) => ({ rule: violation.rule.name, from: violation.from, to: violation.to }));
}
