import type { BrowserFocusedElement } from "@castellan/node-runner";
import type { BrowserContext, CDPSession, Page } from "playwright-core";

interface AXValue {
  readonly value?: unknown;
}
interface AXNode {
  readonly ignored?: boolean;
  readonly role?: AXValue;
  readonly name?: AXValue;
  readonly value?: AXValue;
  readonly properties?: readonly { readonly name: string; readonly value: AXValue }[];
}

function isFocused(node: AXNode): boolean {
  return node.properties?.some((property) => property.name === "focused" && property.value.value === true) ?? false;
}

function text(value: AXValue | undefined): string | undefined {
  const raw = value?.value;
  return raw === undefined || raw === null ? undefined : String(raw);
}

/**
 * The focused element of the page's main document as Chromium's native accessibility tree has
 * it (date segments and calendar buttons included), read over a CDP session opened for this
 * read and detached after it, also on timeout and when the attach completes late. Only the
 * DOM-focused element's accessibility subtree is computed (`Accessibility.queryAXTree`), not
 * the page's whole tree: the native focus (a date segment) lies inside it, and on a page of a
 * few hundred elements the whole tree costs more than the page's snapshot. Null when no element
 * but the document itself is focused.
 */
export async function readFocusedElement(
  context: BrowserContext,
  page: Page,
  timeoutMs: number,
): Promise<BrowserFocusedElement | null> {
  const attaching = context.newCDPSession(page);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`The focus read took over ${timeoutMs} ms.`)), timeoutMs);
  });
  let session: CDPSession | undefined;
  try {
    session = await Promise.race([attaching, timeout]);
    // A fixed internal read, never model input: the element the DOM says has focus.
    const { result } = (await Promise.race([
      session.send("Runtime.evaluate", {
        expression: "document.activeElement === document.body ? null : document.activeElement",
      }),
      timeout,
    ])) as { result: { objectId?: string } };
    if (result.objectId === undefined) return null;
    const { nodes } = (await Promise.race([
      session.send("Accessibility.queryAXTree", { objectId: result.objectId }),
      timeout,
    ])) as { nodes: AXNode[] };
    let focused: AXNode | undefined;
    for (const node of nodes) {
      if (!node.ignored && isFocused(node) && text(node.role) !== "RootWebArea") focused = node;
    }
    if (focused === undefined) return null;
    const value = text(focused.value);
    return {
      role: text(focused.role) ?? "generic",
      name: text(focused.name) ?? "",
      ...(value === undefined ? {} : { value }),
    };
  } finally {
    clearTimeout(timer);
    if (session) await session.detach().catch(() => {});
    // An attach that completes after the timeout is detached as soon as it does.
    else void attaching.then((late) => late.detach()).catch(() => {});
  }
}
