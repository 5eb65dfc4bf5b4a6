// The granted page's native accessibility tree (Accessibility.getFullAXTree), with the
// content of same-process iframes joined in under their iframe; cross-process iframe content
// is not reachable over this session and is marked instead.
import type { PageSession } from "./operation.js";

/** One accessibility node, its role named the way ARIA names it. */
export interface AxNode {
  readonly role: string;
  readonly name: string;
  readonly value: string | undefined;
  readonly ignored: boolean;
  /** The DOM node behind it, when there is one. */
  readonly backendId: number | undefined;
  readonly properties: ReadonlyMap<string, unknown>;
  readonly children: AxNode[];
  parent: AxNode | undefined;
  /** For an iframe whose document is in another renderer process: its content is not shown. */
  crossProcess: boolean;
}

/** The tree of the page's main frame. */
export interface AxTree {
  readonly root: AxNode;
  /** Every node, in document order. */
  readonly nodes: readonly AxNode[];
  /** True when an iframe's cross-process content was left out. */
  readonly crossProcessFrames: boolean;
}

/** Chromium-internal role names and the ARIA roles they stand for. */
const roleNames: Record<string, string> = {
  RootWebArea: "document",
  WebArea: "document",
  StaticText: "text",
  image: "img",
  Iframe: "iframe",
  IframePresentational: "iframe",
};

interface RawAxNode {
  nodeId: string;
  ignored?: boolean;
  role?: { value?: unknown };
  name?: { value?: unknown };
  value?: { value?: unknown };
  backendDOMNodeId?: number;
  parentId?: string;
  childIds?: string[];
  properties?: { name: string; value?: { value?: unknown } }[];
}

function buildTree(raw: readonly RawAxNode[]): AxNode | undefined {
  const byId = new Map<string, { node: AxNode; childIds: readonly string[] }>();
  for (const entry of raw) {
    const role = String(entry.role?.value ?? "");
    const value = entry.value?.value;
    const properties = new Map<string, unknown>();
    for (const property of entry.properties ?? []) properties.set(property.name, property.value?.value);
    byId.set(entry.nodeId, {
      childIds: entry.childIds ?? [],
      node: {
        role: roleNames[role] ?? role,
        name: typeof entry.name?.value === "string" ? entry.name.value : "",
        value: value === undefined || value === null || value === "" ? undefined : String(value),
        ignored: entry.ignored === true,
        backendId: entry.backendDOMNodeId,
        properties,
        children: [],
        parent: undefined,
        crossProcess: false,
      },
    });
  }
  for (const { node, childIds } of byId.values()) {
    for (const id of childIds) {
      const child = byId.get(id);
      if (child && child.node.parent === undefined && child.node !== node) {
        child.node.parent = node;
        node.children.push(child.node);
      }
    }
  }
  const first = raw.find((entry) => entry.parentId === undefined) ?? raw[0];
  return first ? byId.get(first.nodeId)?.node : undefined;
}

function collectFrameIds(tree: any, into: Set<string>): void {
  if (!tree?.frame?.id) return;
  into.add(tree.frame.id);
  for (const child of tree.childFrames ?? []) collectFrameIds(child, into);
}

function walk(node: AxNode, visit: (node: AxNode) => void): void {
  visit(node);
  for (const child of node.children) walk(child, visit);
}

/** Bounds nested iframe reads, so a page of frames within frames cannot run the operation long. */
const maxFrames = 16;

/** Reads the page's accessibility tree, same-process iframe documents included. */
export async function readAxTree(page: PageSession): Promise<AxTree> {
  const [{ nodes }, { frameTree }] = await Promise.all([
    page.send<{ nodes: RawAxNode[] }>("Accessibility.getFullAXTree", {}),
    page.send<{ frameTree: unknown }>("Page.getFrameTree", {}),
  ]);
  const root = buildTree(nodes) ?? buildTree([{ nodeId: "root", role: { value: "RootWebArea" } }])!;
  const localFrames = new Set<string>();
  collectFrameIds(frameTree, localFrames);
  let crossProcessFrames = false;
  let frames = 0;
  const pending: AxNode[] = [];
  walk(root, (node) => {
    if (node.role === "iframe") pending.push(node);
  });
  while (pending.length > 0) {
    const frame = pending.shift()!;
    if (frame.backendId === undefined || frame.children.length > 0) continue;
    const { node } = await page
      .send<{ node: { frameId?: string } }>("DOM.describeNode", { backendNodeId: frame.backendId })
      .catch(() => ({ node: {} as { frameId?: string } }));
    if (node.frameId === undefined || !localFrames.has(node.frameId) || frames >= maxFrames) {
      frame.crossProcess = true;
      crossProcessFrames = true;
      continue;
    }
    frames++;
    const inner = await page
      .send<{ nodes: RawAxNode[] }>("Accessibility.getFullAXTree", { frameId: node.frameId })
      .catch(() => ({ nodes: [] as RawAxNode[] }));
    const document = buildTree(inner.nodes);
    if (!document) continue;
    document.parent = frame;
    frame.children.push(document);
    walk(document, (child) => {
      if (child.role === "iframe" && child !== frame) pending.push(child);
    });
  }
  const all: AxNode[] = [];
  walk(root, (node) => all.push(node));
  return { root, nodes: all, crossProcessFrames };
}

/** The focused node, innermost first; null when none (or only the document) is focused. */
export function focusedNode(tree: AxTree): AxNode | null {
  let found: AxNode | null = null;
  for (const node of tree.nodes) {
    if (!node.ignored && node.properties.get("focused") === true && node.role !== "document") found = node;
  }
  return found;
}
