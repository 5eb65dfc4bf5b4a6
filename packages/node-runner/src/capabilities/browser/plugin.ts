import type { NodeRunnerPlugin } from "../../kernel/runner/plugin.js";
import { createBrowserSessionTools } from "./browser-session-tools.js";
import type { BrowserSessionToolsOptions } from "./options.js";

/** The name of the plugin {@link createBrowserSessionPlugin} returns. */
export const browserSessionPluginName = "castellan.browser";

/**
 * Registers the ten browser tools of one {@link createBrowserSessionTools} owner with
 * `registerTool` (an Agent declares each it uses with `hostTool(name)`), ends a Session's
 * browser from `sessionEnd`, and closes the owner when the Runner closes. Same options and
 * defaults as {@link createBrowserSessionTools}.
 *
 * @throws InvalidOptionsError (`invalid_options`) for an option out of bounds or of the wrong kind.
 */
export function createBrowserSessionPlugin(options: BrowserSessionToolsOptions): NodeRunnerPlugin {
  const owner = createBrowserSessionTools(options);
  return Object.freeze({
    name: browserSessionPluginName,
    apply(host) {
      for (const tool of owner.tools) host.registerTool(tool);
      host.hooks.sessionEnd((info) => owner.closeSession(info.sessionId));
    },
    close: () => owner.close(),
  } satisfies NodeRunnerPlugin);
}
