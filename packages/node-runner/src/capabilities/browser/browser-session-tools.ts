import type { Tool } from "@castellan/harness";
import { actionTools } from "./action-tools.js";
import { BrowserOwner } from "./browser-owner.js";
import { type CaptureFiles, nodeCaptureFiles } from "./capture-file.js";
import { captureTool } from "./capture-tool.js";
import { navigateTool, switchTabTool } from "./navigation-tools.js";
import { type BrowserSessionTools, type BrowserSessionToolsOptions, browserToolNames } from "./options.js";
import { resolveBrowserOptions } from "./resolve-options.js";
import { snapshotTool } from "./snapshot-tool.js";

/**
 * Creates the owner of the ten Session-scoped browser tools (all `readOnly: false`, so they
 * run one at a time in call order and every preset but `full-access` asks or denies). Nothing
 * opens here or when a Session opens: the first approved `browser_navigate` opens one
 * BrowserSession per Session through `sessionFactory` (in `selected` mode, the first approved
 * call), reused across Runs until `closeSession`. Tabs, refs and continuations live in memory
 * only; a reopened Session starts with none.
 *
 * Defaults: `maxObservationBytes` 16,384 (1,024-1,048,576), `maxImageBytes` 2,097,152
 * (1,024-16,777,216), no `captureWorkspaceRoot` (saving refused). Each text block is at most
 * min(`maxObservationBytes`, 8,192) bytes.
 *
 * @throws InvalidOptionsError (`invalid_options`) for an option out of bounds or of the wrong kind.
 */
export function createBrowserSessionTools(options: BrowserSessionToolsOptions): BrowserSessionTools {
  return createBrowserSessionToolsWith(options, nodeCaptureFiles);
}

/** {@link createBrowserSessionTools} writing capture files through `files` (a test seam). */
export function createBrowserSessionToolsWith(
  options: BrowserSessionToolsOptions,
  files: CaptureFiles,
): BrowserSessionTools {
  const owner = new BrowserOwner(resolveBrowserOptions(options), files);
  const byName = new Map<string, Tool>(
    [navigateTool(owner), snapshotTool(owner), switchTabTool(owner), ...actionTools(owner), captureTool(owner)].map(
      (tool) => [tool.name, tool as Tool],
    ),
  );
  const tools = Object.freeze(browserToolNames.map((name) => byName.get(name) as Tool));
  return Object.freeze({
    tools,
    closeSession: (sessionId: string) => owner.closeSession(sessionId),
    close: () => owner.close(),
  });
}
