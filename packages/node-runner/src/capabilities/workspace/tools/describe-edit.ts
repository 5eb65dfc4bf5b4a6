import { lazyModule } from "../../../platform/modules/lazy-module.js";

const diff = lazyModule<typeof import("diff")>("diff");

/**
 * The unified diff of replacing `expected` with `replacement` in `path` (jsdiff), for an
 * approval request: the lines taken out and put in, with their context in the replaced text.
 */
export function editDiff(path: string, expected: string, replacement: string): string {
  const patch = diff().createTwoFilesPatch(`a/${path}`, `b/${path}`, expected, replacement, "", "", { context: 3 });
  // The first line is jsdiff's `===` rule; the rest is a unified diff as git shows it.
  return patch.split("\n").slice(1).join("\n").trimEnd();
}
