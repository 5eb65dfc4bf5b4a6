import type {
  BrowserCapture,
  BrowserFocusedElement,
  BrowserObservation,
  BrowserTab,
  BrowserViewport,
} from "./types.js";

// The model-visible text of an observation, in the spec's order: URL, title, tabs, viewport,
// focus, then the ARIA snapshot and notes. Strings from the page are JSON-quoted so a title or
// URL can never add a line of its own.

function tabLines(tabs: readonly BrowserTab[]): string[] {
  if (tabs.length === 0) return ["tabs: none reported"];
  return [
    "tabs:",
    ...tabs.map(
      (tab) =>
        `- ${JSON.stringify({ tabId: tab.tabId, url: tab.url, title: tab.title ?? null, active: tab.active === true })}`,
    ),
  ];
}

function viewportLine(viewport: BrowserViewport | undefined): string {
  if (viewport === undefined || !Number.isFinite(viewport.width) || !Number.isFinite(viewport.height)) {
    return "viewport: viewport not reported";
  }
  return `viewport: ${viewport.width}×${viewport.height} CSS px`;
}

function focusedLine(element: BrowserFocusedElement | null | undefined): string {
  if (element === null || element === undefined) return "focusedElement: null (none observed)";
  const shown: Record<string, string> = { role: String(element.role), name: String(element.name) };
  if (element.value !== undefined) shown.value = String(element.value);
  return `focusedElement: ${JSON.stringify(shown)}`;
}

function pageLines(page: { readonly url: string; readonly title: string; readonly tabs: readonly BrowserTab[] }) {
  return [
    `url: ${JSON.stringify(String(page.url))}`,
    `title: ${JSON.stringify(String(page.title))}`,
    ...tabLines(page.tabs),
  ];
}

/** The whole text of an observation whose refs and tab ids are already the model's. */
export function observationText(observation: BrowserObservation): string {
  const lines = [
    ...pageLines(observation),
    viewportLine(observation.viewport),
    `focusScope: ${observation.focusScope === "accessibility-tree" ? "accessibility-tree" : "dom-element"}`,
    focusedLine(observation.focusedElement),
    "snapshot:",
    String(observation.snapshot ?? ""),
  ];
  const notes = observation.notes ?? [];
  if (notes.length > 0) lines.push("notes:", ...notes.map((note) => `- ${String(note)}`));
  return `${lines.join("\n")}\n`;
}

/** What a capture's text block says besides the image; `saved` is the workspace path written, if any. */
export interface CaptureSummary {
  readonly capture: BrowserCapture;
  readonly width: number;
  readonly height: number;
  readonly saved: string | undefined;
}

/** The capture's metadata text: it becomes the latest observation (no ARIA tree, no refs). */
export function captureText({ capture, width, height, saved }: CaptureSummary): string {
  const lines = [
    ...pageLines(capture),
    viewportLine(capture.viewport),
    `colorScheme: ${capture.colorScheme}`,
    `reducedMotion: ${capture.reducedMotion}`,
    `png: ${width}×${height} px, ${capture.png.byteLength} bytes`,
    `saved: ${saved === undefined ? "not saved" : JSON.stringify(saved)}`,
    "This observation is capture metadata, not page text: call browser_snapshot with no arguments before searching the page.",
  ];
  return `${lines.join("\n")}\n`;
}
