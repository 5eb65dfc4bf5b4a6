// The host's connection to a Chrome it already runs with remote debugging on: discovery
// only (Target.setDiscoverTargets, Target.getTargets) until a picked tab is granted.
import { originOf } from "@castellan/node-runner";
import { CdpTransport } from "./cdp-transport.js";
import { type ExistingChromeTarget, resolveEndpoint } from "./endpoint.js";
import { ExistingChromeError } from "./errors.js";
import { defaultActionTimeoutMs, ExistingChromeGrant, type ExistingChromeGrantOptions } from "./grant.js";

/** A page target of the connected Chrome: picker data for the host's user, never model context. */
export interface ExistingChromeTab {
  /** The DevTools target id. */
  readonly targetId: string;
  readonly url: string;
  readonly title: string;
}

/** Options of {@link ExistingChromeConnection.connect}. */
export interface ExistingChromeConnectOptions {
  /** Aborts connecting. Default: none. */
  readonly signal?: AbortSignal;
}

/** The largest `actionTimeoutMs` a grant takes. */
const maxActionTimeoutMs = 600_000;

/**
 * A connection to the browser-level DevTools WebSocket of a Chrome the host runs, over
 * Node's global `WebSocket`. Connecting and listing tabs send only target discovery;
 * {@link ExistingChromeConnection.grant} hands one picked tab to a Session as a
 * `BrowserSession`. Closing closes the transport, never the browser or its tabs.
 */
export class ExistingChromeConnection {
  readonly #transport: CdpTransport;

  private constructor(transport: CdpTransport) {
    this.#transport = transport;
  }

  /**
   * Connects to `target`: a loopback `ws://` browser-level endpoint, or a `file:` profile
   * directory whose `DevToolsActivePort` names one (remote debugging must already be on;
   * nothing enables it or looks for profiles). Sends `Target.setDiscoverTargets` only.
   *
   * @throws ExistingChromeError `existing_chrome_endpoint_refused`, `existing_chrome_debugging_off`
   * or `existing_chrome_unreachable`; the signal's reason when it aborts.
   */
  static async connect(
    target: ExistingChromeTarget,
    options: ExistingChromeConnectOptions = {},
  ): Promise<ExistingChromeConnection> {
    options.signal?.throwIfAborted();
    const endpoint = await resolveEndpoint(target);
    options.signal?.throwIfAborted();
    let transport: CdpTransport;
    try {
      transport = await CdpTransport.open(endpoint, options.signal);
    } catch (error) {
      if (options.signal?.aborted && error === options.signal.reason) throw error;
      throw new ExistingChromeError(
        "existing_chrome_unreachable",
        `Chrome's DevTools endpoint did not accept the connection; check that Chrome is running with remote debugging on.`,
        { cause: error },
      );
    }
    try {
      // Discovery reports every tab URL change, which is how a grant sees its tab leave its Origin.
      await transport.send("Target.setDiscoverTargets", { discover: true });
    } catch (error) {
      await transport.close();
      throw new ExistingChromeError("existing_chrome_unreachable", "Chrome refused target discovery.", {
        cause: error,
      });
    }
    return new ExistingChromeConnection(transport);
  }

  /** True once closed (by {@link close} or by Chrome). */
  get closed(): boolean {
    return this.#transport.closed;
  }

  /**
   * The browser's page targets, for the host's picker (`Target.getTargets` only).
   *
   * @throws ExistingChromeError `existing_chrome_closed` or `existing_chrome_unreachable`.
   */
  async listTabs(): Promise<readonly ExistingChromeTab[]> {
    if (this.#transport.closed) throw closed();
    let infos: { targetId: string; type: string; url: string; title: string }[];
    try {
      ({ targetInfos: infos } = await this.#transport.send("Target.getTargets", {}));
    } catch (error) {
      if (this.#transport.closed) throw closed();
      throw new ExistingChromeError("existing_chrome_unreachable", "Chrome did not list its targets.", {
        cause: error,
      });
    }
    return Object.freeze(
      infos
        .filter((info) => info.type === "page")
        .map((info) => Object.freeze({ targetId: info.targetId, url: info.url, title: info.title })),
    );
  }

  /**
   * Grants the picked `tab` to one Session: a `BrowserSession` acquired on its first operation
   * (the tab must still be at the picked HTTP(S) Origin, else `browser_grant_revoked`). Sends
   * nothing now.
   *
   * @param options.actionTimeoutMs Per operation, attach to detach. Default 10,000; 1-600,000.
   * @throws ExistingChromeError `existing_chrome_tab_refused` for a tab that is not an HTTP(S) page,
   * `existing_chrome_closed` after close; RangeError for an `actionTimeoutMs` out of bounds.
   */
  grant(tab: ExistingChromeTab, options: ExistingChromeGrantOptions = {}): ExistingChromeGrant {
    if (this.#transport.closed) throw closed();
    const timeout = options.actionTimeoutMs ?? defaultActionTimeoutMs;
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > maxActionTimeoutMs) {
      throw new RangeError(`actionTimeoutMs must be an integer from 1 to ${maxActionTimeoutMs}.`);
    }
    const origin = typeof tab?.url === "string" ? originOf(tab.url) : undefined;
    if (origin === undefined || typeof tab.targetId !== "string" || tab.targetId === "") {
      throw new ExistingChromeError(
        "existing_chrome_tab_refused",
        "Only a tab showing an http: or https: page can be granted; pick one from listTabs().",
      );
    }
    return new ExistingChromeGrant(this.#transport, tab.targetId, origin, timeout);
  }

  /** Closes the transport; Chrome and its tabs stay open, and every grant is revoked. Idempotent. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}

function closed(): ExistingChromeError {
  return new ExistingChromeError("existing_chrome_closed", "The connection to Chrome is closed; connect again.");
}
