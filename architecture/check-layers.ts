// Runs dependency-cruiser over the packages' shipped sources with the rules in
// .dependency-cruiser.cjs (the layer map) and answers the violations it finds.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

/** The repository root. */
export const repositoryRoot = fileURLToPath(new URL("../", import.meta.url));

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
