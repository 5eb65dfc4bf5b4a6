import { defineTool, type JsonObject, type Tool, type ToolContext } from "@castellan/harness";
import type { BrowserOwner } from "./browser-owner.js";
import { adapterTarget, type CurrentRefs } from "./refs.js";
import { browserToolSchemas } from "./schemas.js";
import type { SessionBrowser } from "./session-browser.js";
import { admitted, browserFor, observe, pageAdmission, perform } from "./tool-support.js";
import type { BrowserAction, BrowserTarget } from "./types.js";

/** The input of `browser_click` and `browser_hover`: a target. */
export type BrowserTargetInput = BrowserTarget;
/** The input of `browser_fill`: a target and the value (at most 10,000 characters) that replaces the control's. */
export type BrowserFillInput = BrowserTarget & { readonly value: string };
/** The input of `browser_select_option`: a native select and its option's visible label (at most 4,096 characters). */
export type BrowserSelectOptionInput = BrowserTarget & { readonly label: string };
/** The input of `browser_press_key`. */
export interface BrowserPressKeyInput {
  /** One Playwright key expression, 1-32 characters: `Enter`, `Shift+Tab`, `ArrowRight`. */
  readonly key: string;
}
/** The input of `browser_drag`. */
export interface BrowserDragInput {
  /** The element dragged; it must match exactly one element. */
  readonly source: BrowserTarget;
  /** The element it is dropped on; it must match exactly one element. */
  readonly target: BrowserTarget;
}

function targetOf(input: BrowserTarget): BrowserTarget {
  const { role, name, exact, ref, within } = input;
  return {
    role,
    name,
    ...(exact === undefined ? {} : { exact }),
    ...(ref === undefined ? {} : { ref }),
    ...(within === undefined ? {} : { within }),
  };
}

function currentRefs(state: SessionBrowser): CurrentRefs | undefined {
  return state.latest ? { observationId: state.latest.observationId, refs: state.latest.refs } : undefined;
}

interface ActionTool<Input> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  /** The action for the adapter, refs checked against `refs` and stripped to the adapter's. */
  action(input: Input, refs: CurrentRefs | undefined): BrowserAction;
}

function actionTool<Input>(owner: BrowserOwner, spec: ActionTool<Input>): Tool<Input> {
  return defineTool<Input>({
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    admit(input, ctx) {
      const admission = pageAdmission(owner, ctx);
      // A stale ref is refused before anyone is asked; execute checks again.
      spec.action(input, currentRefs(owner.session(ctx.sessionId)));
      return admitted(admission);
    },
    execute: (input, ctx: ToolContext) =>
      perform(owner, ctx, async (state) => {
        const browser = await browserFor(owner, state, ctx.signal);
        const action = spec.action(input, currentRefs(state));
        return await observe(owner, state, () => browser.act(action, { signal: ctx.signal }));
      }),
  });
}

const targetHelp =
  "Name the element by its role and accessible name exactly as the latest observation shows them; add its ref for repeated controls and within for an ancestor.";

/** The six page-action tools: click, hover, drag, select_option, fill, press_key. */
export function actionTools(owner: BrowserOwner): Tool[] {
  return [
    actionTool<BrowserTargetInput>(owner, {
      name: "browser_click",
      description: `Click one element. ${targetHelp} Returns the updated observation.`,
      inputSchema: browserToolSchemas.browser_click,
      action: (input, refs) => ({ kind: "click", target: adapterTarget(targetOf(input), refs) }),
    }),
    actionTool<BrowserTargetInput>(owner, {
      name: "browser_hover",
      description: `Move the pointer over one visible element without clicking, e.g. to reveal a row's hover-only controls. ${targetHelp} Returns the updated observation.`,
      inputSchema: browserToolSchemas.browser_hover,
      action: (input, refs) => ({ kind: "hover", target: adapterTarget(targetOf(input), refs) }),
    }),
    actionTool<BrowserDragInput>(owner, {
      name: "browser_drag",
      description: `Drag one element onto another with real pointer input. source and target each name an element: ${targetHelp} Returns the updated observation.`,
      inputSchema: browserToolSchemas.browser_drag,
      action: (input, refs) => ({
        kind: "drag",
        source: adapterTarget(targetOf(input.source), refs),
        target: adapterTarget(targetOf(input.target), refs),
      }),
    }),
    actionTool<BrowserSelectOptionInput>(owner, {
      name: "browser_select_option",
      description: `Choose the option with this visible label in a native <select> (fires input and change); for custom menus use browser_click. ${targetHelp} Returns the updated observation.`,
      inputSchema: browserToolSchemas.browser_select_option,
      action: (input, refs) => ({ kind: "select", target: adapterTarget(targetOf(input), refs), label: input.label }),
    }),
    actionTool<BrowserFillInput>(owner, {
      name: "browser_fill",
      description: `Replace the value of one text control (at most 10,000 characters). ${targetHelp} Returns the updated observation.`,
      inputSchema: browserToolSchemas.browser_fill,
      action: (input, refs) => ({ kind: "fill", target: adapterTarget(targetOf(input), refs), value: input.value }),
    }),
    actionTool<BrowserPressKeyInput>(owner, {
      name: "browser_press_key",
      description:
        "Press one key expression on the focused element, e.g. Enter, Shift+Tab, ArrowRight (at most 32 characters). Returns the updated observation with the focused element.",
      inputSchema: browserToolSchemas.browser_press_key,
      action: (input) => ({ kind: "key", key: input.key }),
    }),
  ];
}
