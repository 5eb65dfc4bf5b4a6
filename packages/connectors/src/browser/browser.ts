import { type BindingKind, type Capability, DeclarationError, defineCapability, resource } from "@castellan/harness";
import {
  type BrowserSessionFactory,
  browserSectionText,
  createBrowserSessionTools,
  createOriginAuthority,
  originOf,
} from "@castellan/node-runner";
import { createManagedBrowserFactory } from "./managed/factory.js";
import {
  type BrowserOptions,
  type ResolvedManagedOptions,
  type ResolvedSelectedOptions,
  resolveBrowserOptions,
} from "./options.js";

/** The `browser()` capability, with the host's way to end every browser it opened. */
export interface BrowserCapability extends Capability {
  readonly name: "browser";
  /**
   * Refuses later browser calls (`browser_closed`) and resolves once every Session's browser is
   * released and every operation, screenshot writes included, has settled. Idempotent.
   */
  close(): Promise<void>;
}

function selectedFactory(options: ResolvedSelectedOptions): BrowserSessionFactory {
  const origin = originOf(options.tab.url);
  if (origin === undefined) throw new DeclarationError("browser: the selected tab must show an http: or https: page.");
  return Object.freeze({
    mode: "selected" as const,
    selectedTab: Object.freeze({ tabId: options.tab.targetId, origin }),
    open: async () => options.connection.grant(options.tab, { actionTimeoutMs: options.actionTimeoutMs }),
  });
}

function authority(options: ResolvedManagedOptions | ResolvedSelectedOptions) {
  if (options.mode === "selected") {
    // A selected tab navigates only within its granted Origin; another is refused at admission.
    return createOriginAuthority({ origins: [originOf(options.tab.url) as string] });
  }
  return createOriginAuthority(options.origins === undefined ? {} : { origins: options.origins });
}

/**
 * Declares browser access: the ten Session-scoped browser tools (`browser_navigate`,
 * `browser_snapshot`, `browser_switch_tab`, `browser_click`, `browser_hover`, `browser_drag`,
 * `browser_select_option`, `browser_fill`, `browser_press_key`, `browser_capture`) and the
 * `browser` instructions section, for every Session of an agent that lists it.
 *
 * `mode: "managed"` launches a headless Chromium through playwright-core (imported at the
 * first approved navigate, never at declaration or Session open), one per Session, reused
 * across Runs and ended with the Session. `mode: "selected"` drives the one host-picked tab of
 * an `ExistingChromeConnection`, granted on its first operation. Options are checked and
 * frozen now; defaults are listed on {@link ManagedBrowserOptions}.
 *
 * @throws DeclarationError for options that are unknown, malformed or out of bounds.
 */
export function browser(options: BrowserOptions): BrowserCapability {
  const resolved = resolveBrowserOptions(options);
  const sessionFactory =
    resolved.mode === "managed" ? createManagedBrowserFactory(resolved.config) : selectedFactory(resolved);
  const owner = createBrowserSessionTools({
    origins: authority(resolved),
    sessionFactory,
    ...(resolved.maxObservationBytes === undefined ? {} : { maxObservationBytes: resolved.maxObservationBytes }),
    ...(resolved.maxImageBytes === undefined ? {} : { maxImageBytes: resolved.maxImageBytes }),
    ...(resolved.captureWorkspaceRoot === undefined ? {} : { captureWorkspaceRoot: resolved.captureWorkspaceRoot }),
  });
  // The lease ends the Session's browser when the Session's resources are released, also when
  // an open fails after acquisition and sessionEnd never runs; closeSession is idempotent.
  const lease: BindingKind<Record<string, never>, { readonly sessionId: string }> = {
    name: "browser",
    describe: () => ({ mode: resolved.mode }),
    acquire: async (_spec, { sessionId }) => ({
      value: Object.freeze({ sessionId }),
      close: () => owner.closeSession(sessionId),
    }),
  };
  const capability = defineCapability({
    name: "browser",
    tools: owner.tools,
    instructions: [{ name: "browser", text: browserSectionText }],
    resources: [resource(lease, {})],
    hooks: { sessionEnd: ({ sessionId }) => owner.closeSession(sessionId) },
    ...(resolved.enabled === undefined ? {} : { enabled: resolved.enabled }),
  });
  return Object.freeze({ ...capability, name: "browser" as const, close: () => owner.close() });
}
