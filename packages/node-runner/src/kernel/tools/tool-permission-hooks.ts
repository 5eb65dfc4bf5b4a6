import type { Tool } from "@castellan/harness";
import type { ToolPermissionHook } from "../permissions/types.js";

// Castellan's own capabilities cannot register Runner hooks: a capability is a plain value. A
// tool of theirs that decides some of its own calls (`command_session` on the Session's own
// handles) carries its hook here instead; the hook is asked with the Runner's, for that tool's
// calls only, and its answer merges with theirs (deny beats ask beats allow). Not exported.
const hooks = new WeakMap<Tool, ToolPermissionHook>();

/** Attaches `hook` to `tool`: it is asked, after the Runner's hooks, for each call of that tool. */
export function withToolPermissionHook<T extends Tool>(tool: T, hook: ToolPermissionHook): T {
  hooks.set(tool, hook);
  return tool;
}

/** The permission hook a tool carries, if any. */
export function toolPermissionHookOf(tool: Tool): ToolPermissionHook | undefined {
  return hooks.get(tool);
}
