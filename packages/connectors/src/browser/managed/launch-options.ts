/** What the managed adapter is configured with: `browser()`'s managed options, checked and frozen. */
export interface ManagedBrowserConfig {
  /** The Chromium executable; exclusive with `channel`. Default: playwright-core's own lookup. */
  readonly executablePath?: string;
  /** An installed browser channel such as `chrome`; exclusive with `executablePath`. */
  readonly channel?: string;
  /** Default true. */
  readonly headless: boolean;
  /** Added after the fixed flags. Default `[]`. */
  readonly args: readonly string[];
  /** Default 10,000 ms. */
  readonly actionTimeoutMs: number;
  /** Default 30,000 ms. */
  readonly navigationTimeoutMs: number;
  /** Default 1280×720. */
  readonly viewport: { readonly width: number; readonly height: number };
  /** Default `same-origin`. */
  readonly resourceAccess: "same-origin" | "http";
  /** An absolute directory path; each Session's profile is a subdirectory. Default: a temporary profile. */
  readonly profilesDirectory?: string;
}

/** The pinned playwright-core release the adapter is written and tested against. */
export const pinnedPlaywrightVersion = "1.64.1";

/** The flags every launch adds, so the browser itself connects nowhere and asks nothing. */
export const fixedChromiumArgs: readonly string[] = Object.freeze([
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
]);

/**
 * The features playwright-core 1.64.1 disables, which a second `--disable-features` would
 * otherwise replace (Chromium keeps the last), and `LocalNetworkAccessChecks`: the routing
 * fulfils top-level documents itself, which Chromium then counts as public, so without it a
 * loopback page could not load another loopback Origin's resources. A test compares this list
 * with the installed release's.
 */
export const disabledChromiumFeatures: readonly string[] = Object.freeze([
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "DialMediaRouteProvider",
  "GlobalMediaControls",
  "HttpsUpgrades",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "BlockOriginHeaderModificationOnRedirect",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "Translate",
  "AutoDeElevate",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
  "LocalNetworkAccessChecks",
]);

/**
 * The launch arguments: the fixed flags, the disabled features, `--no-sandbox` when running as
 * root (Chromium refuses to start otherwise), then the host's `args`.
 */
export function chromiumArgs(config: ManagedBrowserConfig): string[] {
  const root = process.getuid?.() === 0;
  return [
    ...fixedChromiumArgs,
    `--disable-features=${disabledChromiumFeatures.join(",")}`,
    ...(root ? ["--no-sandbox"] : []),
    ...config.args,
  ];
}

/** How the launched browser is named in errors. */
export function browserLabel(config: ManagedBrowserConfig): string {
  if (config.executablePath !== undefined) return `the browser at ${config.executablePath}`;
  if (config.channel !== undefined) return `the "${config.channel}" channel`;
  return "playwright-core's own Chromium lookup";
}
