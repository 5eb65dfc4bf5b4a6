import { type BrowserScope, type BrowserTarget, BrowserToolError } from "@castellan/node-runner";
import type { Locator, Page } from "playwright-core";
import { refLocator } from "./ai-snapshot.js";

type Role = Parameters<Page["getByRole"]>[0];

function describe(part: { role: string; name?: string; exact?: boolean }): string {
  if (part.name === undefined) return part.role;
  return `${part.role} ${part.exact ? "named exactly" : "named"} ${JSON.stringify(part.name)}`;
}

function byRole(root: Page | Locator, part: BrowserScope | BrowserTarget): Locator {
  // Default: a case-insensitive substring of the accessible name, as Playwright's getByRole has it.
  return root.getByRole(part.role as Role, {
    ...(part.name === undefined ? {} : { name: part.name }),
    exact: part.exact ?? false,
  });
}

async function count(locator: Locator, what: string): Promise<number> {
  try {
    return await locator.count();
  } catch (error) {
    // An unknown role is a selector Playwright refuses: nothing on the page matches it.
    throw new BrowserToolError(
      "browser_target_not_found",
      `No ${what} can be found: ${error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error)}. Use a role and name from the latest observation.`,
      { cause: error },
    );
  }
}

/**
 * The one element `target` names on the page: role and accessible name (`getByRole`), inside
 * exactly one `within` ancestor (never widened to the page), intersected with the latest
 * observation's `ref` when given (the ref never overrides role, name or scope).
 *
 * @throws BrowserToolError `browser_scope_not_found`, `browser_scope_ambiguous`,
 * `browser_target_not_found`, `browser_target_ambiguous` (with the count), `browser_ref_mismatch`,
 * `browser_ref_stale`.
 */
export async function resolveTarget(page: Page, target: BrowserTarget): Promise<Locator> {
  let root: Page | Locator = page;
  let where = "";
  if (target.within !== undefined) {
    const scope = byRole(page, target.within);
    const scopes = await count(scope, describe(target.within));
    if (scopes === 0) {
      throw new BrowserToolError(
        "browser_scope_not_found",
        `No ${describe(target.within)} is on the page to look within; use a within from the latest observation.`,
      );
    }
    if (scopes > 1) {
      throw new BrowserToolError(
        "browser_scope_ambiguous",
        `${scopes} elements match the within ${describe(target.within)}; give it a name (exact: true) that only one has.`,
      );
    }
    root = scope;
    where = ` within the ${describe(target.within)}`;
  }
  const semantic = byRole(root, target);
  const what = `${describe({ ...target, name: target.name })}${where}`;
  if (target.ref !== undefined) {
    const referenced = refLocator(page, target.ref);
    const both = semantic.and(referenced);
    const matches = await count(both, what);
    if (matches === 1) return both;
    if ((await count(referenced, `ref ${target.ref}`)) === 0) {
      throw new BrowserToolError(
        "browser_ref_stale",
        `ref ${target.ref} is no longer on the page; take a browser_snapshot and use its refs.`,
      );
    }
    throw new BrowserToolError(
      "browser_ref_mismatch",
      `ref ${target.ref} is not the ${what}; pass the role and name the latest observation shows for that ref.`,
    );
  }
  const matches = await count(semantic, what);
  if (matches === 0) {
    throw new BrowserToolError(
      "browser_target_not_found",
      `No ${what} is shown; take a browser_snapshot and use a role and name it shows (hidden controls may need a browser_hover first).`,
    );
  }
  if (matches > 1) {
    throw new BrowserToolError(
      "browser_target_ambiguous",
      `${matches} elements match the ${what}; pass the latest ref of the one you mean, or a within that contains only it.`,
    );
  }
  return semantic;
}
