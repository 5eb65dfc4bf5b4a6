// Builders for the text of an apply_workspace_patch input, for tests that need patches of a
// known shape without spelling out every marker line. Each section builder gives one file's
// section; `patchText` wraps sections in the Begin/End markers. None of them checks its input,
// so a test can build a malformed patch on purpose (an empty path, a repeated file).

/** A whole patch: `*** Begin Patch`, each section in order, then `*** End Patch`, joined by newlines. */
export function patchText(...sections: string[]): string {
  return ["*** Begin Patch", ...sections, "*** End Patch"].join("\n");
}

/** An `*** Add File:` section creating `path` with these lines (each written as a `+` line). */
export function addFile(path: string, ...lines: string[]): string {
  return [`*** Add File: ${path}`, ...lines.map((line) => `+${line}`)].join("\n");
}

/** A `*** Delete File:` section removing `path`. */
export function deleteFileSection(path: string): string {
  return `*** Delete File: ${path}`;
}

/**
 * An `*** Update File:` section with one `@@` chunk replacing the line `from` by `to`, and with
 * `*** Move to: moveTo` when `moveTo` is given.
 */
export function updateFile(path: string, from: string, to: string, moveTo?: string): string {
  return [
    `*** Update File: ${path}`,
    ...(moveTo === undefined ? [] : [`*** Move to: ${moveTo}`]),
    "@@",
    `-${from}`,
    `+${to}`,
  ].join("\n");
}
