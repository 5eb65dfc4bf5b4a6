// Renders an accessibility tree as an ARIA-snapshot-like outline, marking every element a
// target can name with a `[ref=…]` of this observation.
import type { AxNode, AxTree } from "./ax-tree.js";

/** An observation's refs: ref → the DOM node behind it. Only the latest is kept. */
export type RefMap = ReadonlyMap<string, number>;

/** Roles that are structure only: their children are shown in their place. */
const transparentRoles = new Set(["none", "presentation", "generic", "MenuListPopup", "LabelText", "document"]);
/** Roles never shown. */
const hiddenRoles = new Set(["InlineTextBox", "LineBreak", "ListMarker", ""]);

/** Properties shown in brackets, as an ARIA snapshot shows them. */
function attributes(node: AxNode): string {
  const out: string[] = [];
  const level = node.properties.get("level");
  if (typeof level === "number" && (node.role === "heading" || node.role === "treeitem")) out.push(`[level=${level}]`);
  const checked = node.properties.get("checked");
  if (checked === "true" || checked === true) out.push("[checked]");
  if (checked === "mixed") out.push("[checked=mixed]");
  if (node.properties.get("disabled") === true) out.push("[disabled]");
  const expanded = node.properties.get("expanded");
  if (expanded === true) out.push("[expanded]");
  const pressed = node.properties.get("pressed");
  if (pressed === "true" || pressed === true) out.push("[pressed]");
  if (node.properties.get("selected") === true) out.push("[selected]");
  return out.length === 0 ? "" : ` ${out.join(" ")}`;
}

/** True when `node` is shown as an element line a target can name. */
export function isElement(node: AxNode): boolean {
  if (node.ignored || hiddenRoles.has(node.role) || node.role === "text" || node.role === "document") return false;
  return !(transparentRoles.has(node.role) && node.name === "");
}

/** Inline roles whose text is part of an enclosing element's name. */
const inlineRoles = new Set([
  "text",
  "emphasis",
  "strong",
  "mark",
  "code",
  "subscript",
  "superscript",
  "time",
  "deletion",
  "insertion",
  "generic",
  "none",
  "presentation",
]);

/** The text of a subtree of inline content only; undefined when it holds anything else. */
function inlineText(node: AxNode): string | undefined {
  if (node.role === "text") return node.name;
  if (!node.ignored && !inlineRoles.has(node.role) && !hiddenRoles.has(node.role)) return undefined;
  let text = "";
  for (const child of node.children) {
    const inner = inlineText(child);
    if (inner === undefined) return undefined;
    text += ` ${inner}`;
  }
  return text;
}

function normalised(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** True when `node`'s children only spell out its own name again. */
function childrenRepeatName(node: AxNode): boolean {
  if (node.name === "") return false;
  let text = "";
  for (const child of node.children) {
    const inner = inlineText(child);
    if (inner === undefined) return false;
    text += ` ${inner}`;
  }
  return normalised(text).replace(/\s/g, "") === normalised(node.name).replace(/\s/g, "");
}

function quoted(text: string): string {
  return JSON.stringify(text.replace(/\s+/g, " ").trim());
}

/** The outline of `tree`, and the refs it assigned: `e<n>`, numbered from `firstRef`. */
export function renderSnapshot(
  tree: AxTree,
  firstRef: number,
): { text: string; refs: Map<string, number>; nextRef: number } {
  const lines: string[] = [];
  const refs = new Map<string, number>();
  let next = firstRef;
  const visit = (node: AxNode, depth: number): void => {
    const indent = "  ".repeat(depth);
    if (node.ignored || node.role === "document" || (transparentRoles.has(node.role) && node.name === "")) {
      for (const child of node.children) visit(child, depth);
      return;
    }
    if (hiddenRoles.has(node.role)) return;
    if (node.role === "text") {
      const text = node.name.replace(/\s+/g, " ").trim();
      if (text !== "") lines.push(`${indent}- text: ${JSON.stringify(text).slice(1, -1)}`);
      return;
    }
    let line = `${indent}- ${node.role}${node.name === "" ? "" : ` ${quoted(node.name)}`}${attributes(node)}`;
    if (node.backendId !== undefined) {
      const ref = `e${next++}`;
      refs.set(ref, node.backendId);
      line += ` [ref=${ref}]`;
    }
    if (node.crossProcess) line += " [content not shown: another process]";
    // A control whose only text is its own name adds nothing by listing it again.
    const children = childrenRepeatName(node) ? [] : node.children.filter((child) => child.role !== "MenuListPopup");
    const popup = node.children.find((child) => child.role === "MenuListPopup");
    const shown = popup ? [...children, ...popup.children] : children;
    const editable = node.properties.get("editable") !== undefined && node.properties.get("editable") !== "";
    if (shown.length === 0 || editable) {
      // A value is shown after the colon, where the children of other elements go.
      if (node.value !== undefined) line += `: ${JSON.stringify(node.value).slice(1, -1)}`;
      lines.push(line);
      return;
    }
    lines.push(`${line}:`);
    for (const child of shown) visit(child, depth + 1);
  };
  visit(tree.root, 0);
  return { text: lines.join("\n"), refs, nextRef: next };
}
