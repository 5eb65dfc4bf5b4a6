import { access, constants } from "node:fs/promises";
import { errorMessage } from "@castellan/harness";
import { BrowserToolError, isBrowserToolError } from "@castellan/node-runner";
import type { Browser, BrowserContext, BrowserContextOptions, LaunchOptions } from "playwright-core";
import { firstLine } from "./errors.js";
import { browserLabel, chromiumArgs, type ManagedBrowserConfig, pinnedPlaywrightVersion } from "./launch-options.js";
import { claimProfile } from "./profiles.js";

type PlaywrightModule = typeof import("playwright-core");

/** A launched browser's one context, and how to end it. */
export interface LaunchedBrowser {
  readonly context: BrowserContext;
  /** True for a persistent profile: its context comes with a first page. */
  readonly persistent: boolean;
  /** Closes the context and the browser process; idempotent. */
  close(): Promise<void>;
}

/** Imports playwright-core at the first navigate, so hosts without it can still import the connector. */
async function loadPlaywright(): Promise<PlaywrightModule> {
  try {
    return await import("playwright-core");
  } catch (error) {
    throw new BrowserToolError(
      "browser_unavailable",
      `playwright-core is not installed, so no browser can start; the host must install it: npm install playwright-core@${pinnedPlaywrightVersion}.`,
      { cause: error },
    );
  }
}

function profileLockError(error: unknown): boolean {
  const message = errorMessage(error);
  return /SingletonLock|ProcessSingleton|profile appears to be in use/i.test(message);
}

/**
 * Launches Chromium for one Session: a temporary profile, or the Session's persistent one under
 * `profilesDirectory`. Downloads are refused and service workers blocked.
 *
 * @throws BrowserToolError `browser_unavailable` (playwright-core missing, or the browser did not
 * start: the message names it and the cause), `browser_profile_in_use`.
 */
export async function launchBrowser(
  config: ManagedBrowserConfig,
  sessionId: string,
  signal: AbortSignal,
): Promise<LaunchedBrowser> {
  const playwright = await loadPlaywright();
  signal.throwIfAborted();
  if (config.executablePath !== undefined) {
    // Checked first: playwright-core leaves its temporary directories behind when the spawn fails.
    await access(config.executablePath, constants.X_OK).catch((error: unknown) => {
      throw new BrowserToolError(
        "browser_unavailable",
        `${browserLabel(config)} could not start: it is not an executable file (${(error as NodeJS.ErrnoException).code ?? "unknown error"}). Install Chromium (apt-get install -y chromium) or fix executablePath.`,
        { cause: error },
      );
    });
  }
  const launchOptions: LaunchOptions = {
    headless: config.headless,
    args: chromiumArgs(config),
    chromiumSandbox: process.getuid?.() !== 0,
    timeout: config.navigationTimeoutMs,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    ...(config.executablePath === undefined ? {} : { executablePath: config.executablePath }),
    ...(config.channel === undefined ? {} : { channel: config.channel }),
  };
  const contextOptions: BrowserContextOptions = {
    viewport: { width: config.viewport.width, height: config.viewport.height },
    acceptDownloads: false,
    serviceWorkers: "block",
  };
  const unavailable = (error: unknown) =>
    isBrowserToolError(error)
      ? error
      : new BrowserToolError(
          "browser_unavailable",
          `${browserLabel(config)} could not start: ${firstLine(error)}. Install Chromium (apt-get install -y chromium) or fix executablePath / channel.`,
          { cause: error },
        );

  if (config.profilesDirectory !== undefined) {
    const profile = await claimProfile(config.profilesDirectory, sessionId);
    let context: BrowserContext;
    try {
      context = await playwright.chromium.launchPersistentContext(profile.directory, {
        ...launchOptions,
        ...contextOptions,
      });
    } catch (error) {
      profile.release();
      if (profileLockError(error)) {
        throw new BrowserToolError(
          "browser_profile_in_use",
          `This Session's browser profile (${profile.directory}) is in use by another browser; close that Session first.`,
          { cause: error },
        );
      }
      throw unavailable(error);
    }
    let closing: Promise<void> | undefined;
    return {
      context,
      persistent: true,
      close: () => {
        closing ??= context
          .close()
          .catch(() => {})
          .finally(() => profile.release());
        return closing;
      },
    };
  }

  let browser: Browser;
  try {
    browser = await playwright.chromium.launch(launchOptions);
  } catch (error) {
    throw unavailable(error);
  }
  let context: BrowserContext;
  try {
    context = await browser.newContext(contextOptions);
  } catch (error) {
    await browser.close().catch(() => {});
    throw unavailable(error);
  }
  let closing: Promise<void> | undefined;
  return {
    context,
    persistent: false,
    close: () => {
      closing ??= context
        .close()
        .catch(() => {})
        .then(() => browser.close())
        .catch(() => {});
      return closing;
    },
  };
}
