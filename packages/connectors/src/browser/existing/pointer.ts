// Native pointer input to the granted target: the target scrolled into view, its centre
// measured until stable, hit-tested, then Input.dispatchMouseEvent. Hover moves only; click
// presses and releases; drag presses at the source and releases at the target.
import { BrowserToolError } from "@castellan/node-runner";
import type { AxNode } from "./ax-tree.js";
import type { PageSession } from "./operation.js";

/** A point in the page's viewport, CSS pixels. */
export interface Point {
  readonly x: number;
  readonly y: number;
}

/** How long the target's centre must stay put between two reads to count as stable. */
const stableAfterMs = 40;
/** How long to wait before measuring again after a failed check. */
const retryAfterMs = 60;

const hitTest = `function (target) {
  for (let node = this; node; node = node.parentNode || node.host) if (node === target) return true;
  return false;
}`;

function centre(quads: readonly number[][]): Point | undefined {
  for (const quad of quads) {
    if (quad.length !== 8) continue;
    const xs = [quad[0]!, quad[2]!, quad[4]!, quad[6]!];
    const ys = [quad[1]!, quad[3]!, quad[5]!, quad[7]!];
    const width = Math.max(...xs) - Math.min(...xs);
    const height = Math.max(...ys) - Math.min(...ys);
    if (width < 1 || height < 1) continue;
    return { x: xs.reduce((a, b) => a + b) / 4, y: ys.reduce((a, b) => a + b) / 4 };
  }
  return undefined;
}

async function measure(page: PageSession, backendNodeId: number): Promise<Point | string> {
  await page.send("DOM.scrollIntoViewIfNeeded", { backendNodeId });
  const { quads } = await page.send<{ quads: number[][] }>("DOM.getContentQuads", { backendNodeId });
  return centre(quads) ?? "it is not visible (no box on the page)";
}

async function covers(page: PageSession, backendNodeId: number, point: Point): Promise<boolean> {
  const hit = await page.send<{ backendNodeId: number }>("DOM.getNodeForLocation", {
    x: Math.round(point.x),
    y: Math.round(point.y),
    includeUserAgentShadowDOM: true,
  });
  if (hit.backendNodeId === backendNodeId) return true;
  const [target, under] = await Promise.all([
    page.send<{ object: { objectId: string } }>("DOM.resolveNode", { backendNodeId, objectGroup: "castellan" }),
    page.send<{ object: { objectId: string } }>("DOM.resolveNode", {
      backendNodeId: hit.backendNodeId,
      objectGroup: "castellan",
    }),
  ]);
  const { result } = await page.send<{ result: { value?: unknown } }>("Runtime.callFunctionOn", {
    functionDeclaration: hitTest,
    objectId: under.object.objectId,
    arguments: [{ objectId: target.object.objectId }],
    returnByValue: true,
  });
  return result.value === true;
}

/**
 * The point to press `node` at: visible, stable over two reads and, unless `hitTested` is
 * false, not covered by another element. Retries until the operation times out; `enabled`
 * refuses a disabled control at once.
 */
export async function preparePoint(
  page: PageSession,
  node: AxNode,
  options: { readonly requireEnabled: boolean; readonly hitTested?: boolean },
): Promise<Point> {
  if (node.backendId === undefined) {
    throw new BrowserToolError("browser_action_failed", "The element has no DOM node to send input to.");
  }
  if (options.requireEnabled && node.properties.get("disabled") === true) {
    throw new BrowserToolError("browser_action_failed", `The ${node.role} ${JSON.stringify(node.name)} is disabled.`);
  }
  let reason = "it did not become visible and stable";
  for (;;) {
    try {
      const first = await measure(page, node.backendId);
      if (typeof first === "string") reason = first;
      else {
        await page.delay(stableAfterMs);
        const second = await measure(page, node.backendId);
        if (typeof second === "string") reason = second;
        else if (Math.abs(second.x - first.x) > 1 || Math.abs(second.y - first.y) > 1) reason = "it is still moving";
        else if (options.hitTested !== false && !(await covers(page, node.backendId, second))) {
          reason = "another element covers its centre";
        } else return second;
      }
      await page.delay(retryAfterMs);
    } catch (error) {
      if (page.signal.aborted && error === page.signal.reason && error instanceof BrowserToolError) {
        throw new BrowserToolError(
          "browser_timeout",
          `${error.message} The ${node.role} ${JSON.stringify(node.name)} was not ready: ${reason}.`,
        );
      }
      throw error;
    }
  }
}

/** Moves the pointer to `point` without pressing a button. */
export function moveTo(page: PageSession, point: Point, buttons = 0): Promise<unknown> {
  return page.send("Input.dispatchMouseEvent", {
    type: "mouseMoved",
    x: point.x,
    y: point.y,
    button: buttons === 0 ? "none" : "left",
    buttons,
  });
}

/** Presses (down) or releases (up) the left button at `point`. */
export function press(page: PageSession, point: Point, type: "mousePressed" | "mouseReleased"): Promise<unknown> {
  return page.send("Input.dispatchMouseEvent", {
    type,
    x: point.x,
    y: point.y,
    button: "left",
    buttons: type === "mousePressed" ? 1 : 0,
    clickCount: 1,
  });
}

/** Hover: the pointer moved over the target's centre; the control need not be enabled. */
export async function hover(page: PageSession, node: AxNode): Promise<void> {
  await moveTo(page, await preparePoint(page, node, { requireEnabled: false }));
}

/** Click: move, press and release over the target's centre. */
export async function click(page: PageSession, node: AxNode): Promise<void> {
  const point = await preparePoint(page, node, { requireEnabled: true });
  await moveTo(page, point);
  await press(page, point, "mousePressed");
  await press(page, point, "mouseReleased");
}

const dragSteps = 5;

/**
 * Drag: press at the source, move in steps to the target, release there. An HTML drag the
 * page starts is carried by Chromium's own drag events, as Playwright does on Chromium.
 */
export async function drag(page: PageSession, source: AxNode, target: AxNode): Promise<void> {
  const from = await preparePoint(page, source, { requireEnabled: true });
  await moveTo(page, from);
  await press(page, from, "mousePressed");
  let dragData: unknown;
  const stop = page.onEvent((event) => {
    if (event.method === "Input.dragIntercepted") dragData = event.params.data;
  });
  try {
    await page.send("Input.setInterceptDrags", { enabled: true });
    await moveTo(page, { x: from.x + 4, y: from.y + 4 }, 1);
    await page.delay(30);
    await page.send("Input.setInterceptDrags", { enabled: false });
  } finally {
    stop();
  }
  const to = await preparePoint(page, target, { requireEnabled: false, hitTested: false });
  if (dragData !== undefined) {
    for (const type of ["dragEnter", "dragOver", "drop"]) {
      await page.send("Input.dispatchDragEvent", { type, x: to.x, y: to.y, data: dragData, modifiers: 0 });
    }
  } else {
    for (let step = 1; step <= dragSteps; step++) {
      await moveTo(
        page,
        { x: from.x + ((to.x - from.x) * step) / dragSteps, y: from.y + ((to.y - from.y) * step) / dragSteps },
        1,
      );
    }
  }
  await press(page, to, "mouseReleased");
}
