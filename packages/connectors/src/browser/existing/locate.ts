// Resolves a target the way the tools name it: accessible role and name, within exactly one
// ancestor when `within` is given (never widened to the page), intersected with the latest
// observation's ref (never overridden by it), to exactly one element.
import { type BrowserScope, type BrowserTarget, BrowserToolError } from "@castellan/node-runner";
import type { AxNode, AxTree } from "./ax-tree.js";
import type { RefMap } from "./snapshot.js";
import { isElement } from "./snapshot.js";

function nameMatches(actual: string, wanted: string | undefined, exact: boolean | undefined): boolean {
  if (wanted === undefined) return true;
  if (exact === true) return actual === wanted;
  return actual.toLowerCase().includes(wanted.toLowerCase());
}

function matches(node: AxNode, wanted: BrowserScope): boolean {
  return (
    isElement(node) &&
    node.backendId !== undefined &&
    node.role.toLowerCase() === wanted.role.toLowerCase() &&
    nameMatches(node.name, wanted.name, wanted.exact)
  );
}

function describe(wanted: BrowserScope): string {
  return wanted.name === undefined ? wanted.role : `${wanted.role} ${JSON.stringify(wanted.name)}`;
}

function descendants(node: AxNode): AxNode[] {
  const out: AxNode[] = [];
  const visit = (current: AxNode) => {
    for (const child of current.children) {
      out.push(child);
      visit(child);
    }
  };
  visit(node);
  return out;
}

/** The one element `target` names in `tree`, or the `BrowserToolError` saying why there is none. */
export function locate(tree: AxTree, target: BrowserTarget, refs: RefMap): AxNode {
  let pool: readonly AxNode[] = tree.nodes;
  if (target.within !== undefined) {
    const scopes = tree.nodes.filter((node) => matches(node, target.within!));
    if (scopes.length === 0) {
      throw new BrowserToolError(
        "browser_scope_not_found",
        `No ${describe(target.within)} is on the page to look within; observe the page and name an ancestor it shows.`,
      );
    }
    if (scopes.length > 1) {
      throw new BrowserToolError(
        "browser_scope_ambiguous",
        `${scopes.length} elements match ${describe(target.within)}; name the ancestor exactly (exact: true) or choose another one.`,
      );
    }
    pool = descendants(scopes[0]!);
  }
  const candidates = pool.filter((node) => matches(node, target));
  if (target.ref !== undefined) {
    const backendId = refs.get(target.ref);
    if (backendId === undefined) {
      throw new BrowserToolError(
        "browser_ref_stale",
        `The ref ${JSON.stringify(target.ref)} is not from the latest observation; observe the page again and use its refs.`,
      );
    }
    const found = candidates.find((node) => node.backendId === backendId);
    if (found) return found;
    if (!tree.nodes.some((node) => node.backendId === backendId)) {
      throw new BrowserToolError(
        "browser_ref_stale",
        `The element of ref ${JSON.stringify(target.ref)} is gone from the page; observe the page again.`,
      );
    }
    throw new BrowserToolError(
      "browser_ref_mismatch",
      `The ref ${JSON.stringify(target.ref)} is not a ${describe(target)}${target.within ? ` within ${describe(target.within)}` : ""}; pass the role and name the latest observation shows for it.`,
    );
  }
  if (candidates.length === 0) {
    throw new BrowserToolError(
      "browser_target_not_found",
      `No ${describe(target)} is on the page${target.within ? ` within ${describe(target.within)}` : ""}; observe the page and use a role and name it shows (a hidden control may need a hover first).`,
    );
  }
  if (candidates.length > 1) {
    throw new BrowserToolError(
      "browser_target_ambiguous",
      `${candidates.length} elements match ${describe(target)}; pass the latest observation's ref for the one you mean, or a within ancestor.`,
    );
  }
  return candidates[0]!;
}
