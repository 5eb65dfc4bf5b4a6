import type { Tool } from "@castellan/harness";
import type { OriginAuthority } from "./origins.js";
import type { BrowserSessionFactory } from "./types.js";

/** The ten browser tools, in the order they are registered and declared. */
export const browserToolNames = [
  "browser_navigate",
  "browser_snapshot",
  "browser_switch_tab",
  "browser_click",
  "browser_hover",
  "browser_drag",
  "browser_select_option",
  "browser_fill",
  "browser_press_key",
  "browser_capture",
] as const;

/** One of the ten browser tools' names. */
export type BrowserToolName = (typeof browserToolNames)[number];

/** Options of `createBrowserSessionTools` and `createBrowserSessionPlugin`. */
export interface BrowserSessionToolsOptions {
  /** Admits and canonicalises every URL; bounds the Origins a Session may admit. */
  readonly origins: OriginAuthority;
  /** Opens a Session's browser on its first approved navigate (or first operation, when selected). */
  readonly sessionFactory: BrowserSessionFactory;
  /** The whole observation's bytes before it is cut. Default 16,384; 1,024-1,048,576. */
  readonly maxObservationBytes?: number;
  /** The largest PNG a capture returns. Default 2,097,152; 1,024-16,777,216. */
  readonly maxImageBytes?: number;
  /** A `file:` URL: `browser_capture` `savePath` values are relative to it and must stay inside. Default: none (saving refused). */
  readonly captureWorkspaceRoot?: URL | string;
}

/** The owner of the browser tools: one browser per Session, opened lazily. */
export interface BrowserSessionTools {
  /** The ten tools, in {@link browserToolNames} order. */
  readonly tools: readonly Tool[];
  /** Ends the Session's browser and forgets its tabs, refs and continuation; idempotent. */
  closeSession(sessionId: string): Promise<void>;
  /**
   * Refuses every later call (`browser_closed`); resolves when every browser is released and
   * every admitted operation, screenshot writes included, has settled. Idempotent.
   */
  close(): Promise<void>;
}
