// A stub BrowserSession and factory for node-runner's browser contract tests (no real browser),
// and a Runner whose Agent declares the ten browser tools.
import { textOf as blocksText, defineAgent, hostTool, type JsonValue, type ModelRequest } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import {
  type BrowserAction,
  type BrowserCapture,
  type BrowserCaptureRequest,
  type BrowserNavigation,
  type BrowserObservation,
  type BrowserSession,
  type BrowserSessionFactory,
  type BrowserSessionOpenRequest,
  type BrowserSessionToolsOptions,
  BrowserToolError,
  browserToolNames,
  createBrowserSessionPlugin,
  createNodeRunner,
  createOriginAuthority,
  type NodeRunner,
  type NodeRunnerPlugin,
  type PermissionPreset,
  type ToolApprovalRequest,
} from "../src/index.js";
import { approvalPlugin, toolMessages } from "./support/index.ts";

/** A minimal PNG: signature and IHDR of `width`×`height`, padded to `bytes` bytes. */
export function fakePng(width: number, height: number, bytes = 64): Uint8Array {
  const png = new Uint8Array(Math.max(bytes, 33));
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 0);
  png.set(Buffer.from("IHDR", "latin1"), 12);
  const view = new DataView(png.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  return png;
}

interface StubTab {
  id: string;
  url: string;
  title: string | null;
}

/** How a stub browser answers; every field may be changed while a test runs. */
export interface StubBehaviour {
  /** The ARIA snapshot of the active page. Default: a heading and two "Delete" buttons with refs e1, e2. */
  snapshot: (url: string) => string;
  viewport: { width: number; height: number } | undefined;
  focusScope: "accessibility-tree" | "dom-element";
  focusedElement: BrowserObservation["focusedElement"];
  /** Thrown by the next `act` (then cleared). */
  actError: Error | undefined;
  /** Awaited at the start of every operation, with its name and signal. Default: none. */
  hold: ((operation: string, signal: AbortSignal) => Promise<void>) | undefined;
  png: Uint8Array;
}

/** What one stub browser was asked, in order. */
export interface StubBrowser extends BrowserSession {
  readonly sessionId: string;
  readonly calls: string[];
  readonly actions: BrowserAction[];
  readonly captures: BrowserCaptureRequest[];
  readonly signals: AbortSignal[];
  closed: number;
}

/** A factory of stub browsers, with everything it opened. */
export interface StubFactory extends BrowserSessionFactory {
  readonly opened: StubBrowser[];
  readonly requests: BrowserSessionOpenRequest[];
  readonly behaviour: StubBehaviour;
}

const defaultSnapshot = (url: string) =>
  `- heading "Page ${url}" [level=1]\n- button "Delete" [ref=e1]\n- button "Delete" [ref=e2]\n- textbox "Email" [ref=e3]`;

/** A stub factory; `mode` and `selectedTab` as given. */
export function stubFactory(
  overrides: Partial<StubBehaviour> = {},
  selection: Pick<BrowserSessionFactory, "mode" | "selectedTab"> = {},
): StubFactory {
  const behaviour: StubBehaviour = {
    snapshot: defaultSnapshot,
    viewport: { width: 1280, height: 720 },
    focusScope: "accessibility-tree",
    focusedElement: null,
    actError: undefined,
    hold: undefined,
    png: fakePng(800, 600),
    ...overrides,
  };
  const opened: StubBrowser[] = [];
  const requests: BrowserSessionOpenRequest[] = [];
  return {
    ...selection,
    opened,
    requests,
    behaviour,
    async open(request) {
      requests.push(request);
      const browser = stubBrowser(request.sessionId, behaviour, selection.selectedTab);
      opened.push(browser);
      return browser;
    },
  };
}

function stubBrowser(
  sessionId: string,
  behaviour: StubBehaviour,
  selected: BrowserSessionFactory["selectedTab"],
): StubBrowser {
  const tabs: StubTab[] = selected ? [{ id: selected.tabId, url: `${selected.origin}/`, title: "Granted" }] : [];
  let active = selected ? selected.tabId : "";
  let next = 1;
  const current = () => tabs.find((tab) => tab.id === active) as StubTab;
  const observation = (): BrowserObservation => {
    const tab = current();
    tab.title = `Title of ${tab.url}`;
    return {
      url: tab.url,
      title: tab.title,
      tabs: tabs.map((entry) => ({ tabId: entry.id, url: entry.url, title: entry.title, active: entry.id === active })),
      ...(behaviour.viewport ? { viewport: behaviour.viewport } : {}),
      focusScope: behaviour.focusScope,
      focusedElement: behaviour.focusedElement,
      snapshot: behaviour.snapshot(tab.url),
    };
  };
  const browser: StubBrowser = {
    sessionId,
    calls: [],
    actions: [],
    captures: [],
    signals: [],
    closed: 0,
    async navigate(navigation: BrowserNavigation, { signal }) {
      browser.calls.push(`navigate ${navigation.url}${navigation.newTab ? " newTab" : ""}`);
      browser.signals.push(signal);
      await behaviour.hold?.("navigate", signal);
      if (navigation.newTab || tabs.length === 0) {
        const id = `tab-${next++}`;
        tabs.push({ id, url: navigation.url, title: null });
        active = id;
      } else {
        current().url = navigation.url;
      }
      return observation();
    },
    async observe({ signal }) {
      browser.calls.push("observe");
      browser.signals.push(signal);
      await behaviour.hold?.("observe", signal);
      return observation();
    },
    async switchTab(tabId, { signal }) {
      browser.calls.push(`switchTab ${tabId}`);
      browser.signals.push(signal);
      await behaviour.hold?.("switchTab", signal);
      if (!tabs.some((tab) => tab.id === tabId)) throw new BrowserToolError("browser_tab_unknown", "no such tab");
      active = tabId;
      return observation();
    },
    async act(action, { signal }) {
      browser.calls.push(`act ${action.kind}`);
      browser.actions.push(action);
      browser.signals.push(signal);
      await behaviour.hold?.("act", signal);
      const error = behaviour.actError;
      behaviour.actError = undefined;
      if (error) throw error;
      return observation();
    },
    async capture(request, { signal }): Promise<BrowserCapture> {
      browser.calls.push("capture");
      browser.captures.push(request);
      browser.signals.push(signal);
      await behaviour.hold?.("capture", signal);
      const page = observation();
      return {
        url: page.url,
        title: page.title,
        tabs: page.tabs,
        ...(page.viewport ? { viewport: page.viewport } : {}),
        colorScheme: request.colorScheme ?? "light",
        reducedMotion: request.reducedMotion ?? "no-preference",
        png: behaviour.png,
      };
    },
    async close() {
      browser.closed++;
    },
  };
  return browser;
}

/** The text of the latest tool result `request` carries. */
export function lastToolText(request: ModelRequest): string {
  const results = toolMessages(request.messages);
  const last = results[results.length - 1];
  return last ? blocksText(last.content) : "";
}

/** The tool results of `request` (the whole conversation so far), by tool call id. */
export function toolResults(request: ModelRequest | undefined) {
  return toolMessages(request?.messages ?? []);
}

/** The first tabId the observation text lists, and the ref of its `n`th `[ref=…]` marker (from 1). */
export function tabIdIn(text: string, index = 0): string {
  const ids = [...text.matchAll(/"tabId":"([^"]+)"/g)].map((match) => match[1] as string);
  const id = ids[index];
  if (id === undefined) throw new Error(`No tab ${index} in:\n${text}`);
  return id;
}

/** The `n`th exposed ref (from 1) of an observation text. */
export function refIn(text: string, n = 1): string {
  const refs = [...text.matchAll(/\[ref=([^\]]+)\]/g)].map((match) => match[1] as string);
  const ref = refs[n - 1];
  if (ref === undefined) throw new Error(`No ref ${n} in:\n${text}`);
  return ref;
}

/** A tool call step. */
export function call(name: string, input: JsonValue, id?: string): ScriptedStepSource {
  return { toolCalls: [{ name, input, ...(id ? { id } : {}) }] };
}

/** A Runner whose Agent declares the ten browser tools through the plugin, with what it records. */
export interface BrowserRunner {
  readonly runner: NodeRunner;
  readonly model: ReturnType<typeof scriptedModel>;
  readonly asked: ToolApprovalRequest[];
}

/** Options of {@link browserRunner}. */
export interface BrowserRunnerOptions {
  readonly steps: readonly ScriptedStepSource[];
  readonly factory: BrowserSessionFactory;
  readonly permissions?: PermissionPreset;
  readonly tools?: Partial<BrowserSessionToolsOptions>;
  readonly plugins?: readonly NodeRunnerPlugin[];
}

/** Creates the Runner: the browser plugin over `factory` (any Origin unless `tools.origins`), a recording approval that allows. */
export async function browserRunner(options: BrowserRunnerOptions): Promise<BrowserRunner> {
  const model = scriptedModel(options.steps);
  const asked: ToolApprovalRequest[] = [];
  const runner = await createNodeRunner({
    agent: defineAgent("test.browser", { model, tools: browserToolNames.map((name) => hostTool(name)) }),
    permissions: options.permissions ?? "full-access",
    plugins: [
      createBrowserSessionPlugin({
        origins: createOriginAuthority(),
        sessionFactory: options.factory,
        ...options.tools,
      }),
      approvalPlugin(async (request) => {
        asked.push(request);
        return { decision: "allow" };
      }),
      ...(options.plugins ?? []),
    ],
  });
  return { runner, model, asked };
}

/** The continuation arguments a page ends with; undefined when it has none. */
export function continuationIn(text: string): { observationId: string; offset: number } | undefined {
  const match = text.match(/browser_snapshot with (\{[^\n]*\})\]\n$/);
  return match ? JSON.parse(match[1] as string) : undefined;
}

/** A step continuing from the latest result's continuation. */
export function continueStep(): ScriptedStepSource {
  return (request) => {
    const args = continuationIn(lastToolText(request));
    if (!args) throw new Error(`No continuation in:\n${lastToolText(request)}`);
    return { toolCalls: [{ name: "browser_snapshot", input: args }] };
  };
}

/** Runs `steps` (then a final text) in one Run of a fresh Session; returns every tool result and the factory. */
export async function runSteps(
  steps: readonly ScriptedStepSource[],
  options: Omit<BrowserRunnerOptions, "steps"> & { readonly cleanup: (close: () => Promise<void>) => void },
) {
  const setup = await browserRunner({ ...options, steps: [...steps, { text: "done" }] });
  options.cleanup(() => setup.runner.close());
  const session = await setup.runner.createSession();
  const run = session.run("go");
  for await (const _ of run) {
    // drained
  }
  await run.result;
  const results = toolResults(setup.model.requests.at(-1));
  return { ...setup, results, texts: results.map((result) => blocksText(result.content)) };
}
