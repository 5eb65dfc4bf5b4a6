import { InvalidOptionsError } from "../../../kernel/errors/errors.js";

/** The bounds of the workspace tools. Each is a positive integer; a page is the JSON text a tool returns. */
export interface WorkspaceLimits {
  /** Bytes of one JSON page of `list_workspace`, `search_workspace` or `read_workspace_file`. Default 32,768; 1,024 to 1,048,576. */
  readonly maxPageBytes: number;
  /** Bytes of a search hit's line excerpt; longer lines are cut and marked `textTruncated`. Default 512; 16 to 65,536. */
  readonly maxLineBytes: number;
  /** Bytes of a file `edit_workspace_file` or `apply_workspace_patch` changes (`file_too_large` above). Default 8,388,608; at most 1 GiB. */
  readonly maxFileBytes: number;
  /** Bytes of a patch, or of `expected` plus `replacement` (`input_too_large` above). Default 1,048,576; at most 64 MiB. */
  readonly maxInputBytes: number;
  /** Files one patch may touch (`too_many_files` above), so every receipt is known to fit before any effect. Default 100; at most 10,000. */
  readonly maxPatchFiles: number;
  /** Milliseconds a search may run before it stops with `timedOut: true`. Default 30,000; at most 600,000. */
  readonly searchTimeoutMs: number;
}

/** The defaults of {@link WorkspaceLimits}. */
export const defaultWorkspaceLimits: WorkspaceLimits = Object.freeze({
  maxPageBytes: 32_768,
  maxLineBytes: 512,
  maxFileBytes: 8_388_608,
  maxInputBytes: 1_048_576,
  maxPatchFiles: 100,
  searchTimeoutMs: 30_000,
});

const bounds: { readonly [Key in keyof WorkspaceLimits]: readonly [number, number] } = {
  maxPageBytes: [1_024, 1_048_576],
  maxLineBytes: [16, 65_536],
  maxFileBytes: [1, 1_073_741_824],
  maxInputBytes: [1, 67_108_864],
  maxPatchFiles: [1, 10_000],
  searchTimeoutMs: [1, 600_000],
};

/** The limits with `given` over the defaults; throws `InvalidOptionsError` naming a bad or unknown field. */
export function resolveWorkspaceLimits(given: Partial<WorkspaceLimits> | undefined, where: string): WorkspaceLimits {
  if (given === undefined) return defaultWorkspaceLimits;
  if (given === null || typeof given !== "object") {
    throw new InvalidOptionsError(`${where}: limits must be an object.`);
  }
  const limits: Record<string, number> = { ...defaultWorkspaceLimits };
  for (const [key, value] of Object.entries(given)) {
    const range = bounds[key as keyof WorkspaceLimits];
    if (!range) throw new InvalidOptionsError(`${where}: limits.${key} is not a workspace limit.`);
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < range[0] || value > range[1]) {
      throw new InvalidOptionsError(`${where}: limits.${key} must be an integer from ${range[0]} to ${range[1]}.`);
    }
    limits[key] = value;
  }
  return Object.freeze(limits) as unknown as WorkspaceLimits;
}
