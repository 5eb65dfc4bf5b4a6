// What the granted tab shows: URL and title from the browser's target info, the viewport
// measured in the page, focus and the outline from the native accessibility tree.
import type { BrowserObservation, BrowserTab, BrowserViewport } from "@castellan/node-runner";
import { focusedNode, readAxTree } from "./ax-tree.js";
import type { PageSession } from "./operation.js";
import { renderSnapshot } from "./snapshot.js";

/** The note an observation carries when an iframe's content lives in another process. */
export const crossProcessFrameNote =
  "browser_unsupported: the content of cross-process iframes is not shown on a selected Chrome tab (marked [content not shown]).";

/** Internal measurements only: fixed expressions, never the model's. */
const viewportExpression = "({ width: window.innerWidth, height: window.innerHeight })";
const mediaExpression =
  '({ dark: matchMedia("(prefers-color-scheme: dark)").matches, reduce: matchMedia("(prefers-reduced-motion: reduce)").matches })';

async function evaluate<T>(page: PageSession, expression: string): Promise<T | undefined> {
  const answer = await page.send<{ result: { value?: T }; exceptionDetails?: unknown }>("Runtime.evaluate", {
    expression,
    returnByValue: true,
    silent: true,
  });
  return answer.exceptionDetails === undefined ? answer.result.value : undefined;
}

/** The page's layout viewport in CSS px, or undefined when it cannot be read. */
export async function measureViewport(page: PageSession): Promise<BrowserViewport | undefined> {
  const value = await evaluate<{ width: unknown; height: unknown }>(page, viewportExpression);
  return typeof value?.width === "number" && typeof value.height === "number"
    ? { width: value.width, height: value.height }
    : undefined;
}

/** The page's current colour scheme and motion preference, as its media queries see them. */
export async function readMedia(
  page: PageSession,
): Promise<{ colorScheme: "light" | "dark"; reducedMotion: "reduce" | "no-preference" }> {
  const value = await evaluate<{ dark: boolean; reduce: boolean }>(page, mediaExpression);
  return { colorScheme: value?.dark ? "dark" : "light", reducedMotion: value?.reduce ? "reduce" : "no-preference" };
}

/** The granted tab as the only entry of a tab list. */
export function tabList(targetId: string, url: string, title: string): readonly BrowserTab[] {
  return [{ tabId: targetId, url, title, active: true }];
}

/** An observation, and the refs it assigned. */
export interface ObservationRead {
  readonly observation: BrowserObservation;
  readonly refs: Map<string, number>;
  readonly nextRef: number;
  /** The URL the accessibility tree's document reports; checked against the grant's Origin. */
  readonly documentUrl: string | undefined;
}

/** Reads the observation of the attached tab; refs are numbered from `firstRef`. */
export async function readObservation(
  page: PageSession,
  info: { readonly targetId: string; readonly url: string; readonly title: string },
  firstRef: number,
): Promise<ObservationRead> {
  const viewport = await measureViewport(page);
  const tree = await readAxTree(page);
  const focused = focusedNode(tree);
  const { text, refs, nextRef } = renderSnapshot(tree, firstRef);
  const documentUrl = tree.root.properties.get("url");
  const observation: BrowserObservation = {
    url: info.url,
    title: info.title,
    tabs: tabList(info.targetId, info.url, info.title),
    ...(viewport ? { viewport } : {}),
    focusScope: "accessibility-tree",
    focusedElement: focused
      ? { role: focused.role, name: focused.name, ...(focused.value !== undefined ? { value: focused.value } : {}) }
      : null,
    snapshot: text,
    ...(tree.crossProcessFrames ? { notes: [crossProcessFrameNote] } : {}),
  };
  return { observation, refs, nextRef, documentUrl: typeof documentUrl === "string" ? documentUrl : undefined };
}
