import { type BrowserAction, BrowserToolError } from "@castellan/node-runner";
import type { Page } from "playwright-core";
import { pageFailure } from "./errors.js";
import { resolveTarget } from "./targets.js";

interface ActOptions {
  readonly timeout: number;
  readonly signal: AbortSignal;
}

async function selectByLabel(page: Page, action: Extract<BrowserAction, { kind: "select" }>, options: ActOptions) {
  const control = await resolveTarget(page, action.target);
  const facts = await control.evaluate(
    (element, label) =>
      element instanceof HTMLSelectElement
        ? { native: true, found: Array.from(element.options).some((option) => option.label === label) }
        : { native: false, found: false },
    action.label,
  );
  if (!facts.native) {
    throw new BrowserToolError(
      "browser_not_native_select",
      "That control is not a native <select>; open a custom menu with browser_click and click its option.",
    );
  }
  if (!facts.found) {
    throw new BrowserToolError(
      "browser_option_not_found",
      `The select has no option labelled ${JSON.stringify(action.label)}; use a label the observation shows.`,
    );
  }
  await control.selectOption({ label: action.label }, options);
}

/**
 * Performs one action on the active page with real input: click, hover (visible, stable and
 * hit-testable, enabled or not), fill (replacing the value), a native select by label, one key
 * expression to the focused element, or a drag by `Locator.dragTo`.
 *
 * @throws BrowserToolError for a target that does not resolve to one element, or a failed or
 * timed-out action.
 */
export async function performAction(page: Page, action: BrowserAction, options: ActOptions): Promise<void> {
  try {
    switch (action.kind) {
      case "click":
        await (await resolveTarget(page, action.target)).click(options);
        return;
      case "hover":
        // Playwright's hover checks visibility, stability and hit testing, not enabledness.
        await (await resolveTarget(page, action.target)).hover(options);
        return;
      case "fill":
        await (await resolveTarget(page, action.target)).fill(action.value, options);
        return;
      case "select":
        await selectByLabel(page, action, options);
        return;
      case "key":
        await page.keyboard.press(action.key);
        return;
      case "drag": {
        const source = await resolveTarget(page, action.source);
        const target = await resolveTarget(page, action.target);
        await source.dragTo(target, options);
        return;
      }
      default:
        throw new BrowserToolError(
          "browser_unsupported",
          `The action ${JSON.stringify((action as { kind?: unknown }).kind)} is not supported.`,
        );
    }
  } catch (error) {
    throw pageFailure(error, `browser ${action.kind}`, options.signal);
  }
}
