import { builtinSectionText } from "../../kernel/prompts/builtin-prompts.js";

/** The name (and `builtinPrompts` key) of the browser instruction section. */
export const browserSectionName = "browser";

const text = `Browser tools drive a real page: every call is one approved action, and each action returns a fresh observation (URL, title, tabs, viewport, focus, then the ARIA snapshot with refs).
- Name elements by the role and accessible name the latest observation shows, exactly as shown; never invent a label, a CSS selector or a position.
- When several controls share a role and name, pass the ref the latest observation gives that one (and within for its ancestor). A ref from an earlier observation is stale: call browser_snapshot with no arguments and use the new ref.
- Controls that appear only on hover (row actions): browser_hover the row or its title first, then act on what the returned observation shows.
- A long observation ends with continuation arguments: pass observationId and offset unchanged to browser_snapshot to read on. To find something, pass query alone instead of paging through everything.
- If a link or redirect is blocked because its Origin is not admitted, do what the refusal says: where it offers browser_navigate with newTab: true (that asks for approval), do that, then browser_switch_tab back to the first tab and repeat the step; where it says no browser tool can open that Origin, do not try, and go on without it or ask the user.
- browser_select_option is only for native <select> controls; open custom menus with browser_click.
- After browser_capture the latest observation is capture metadata, not page text: call browser_snapshot before searching the page with query.`;

/** The `browser` section's text, recognised by `builtinPrompts.browser` ("" omits it, a string replaces it). */
export const browserSectionText = builtinSectionText("browser", () => text);
