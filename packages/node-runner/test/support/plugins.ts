import type { NodeRunnerHost, NodeRunnerPlugin, SessionStore } from "../../src/index.js";

/** A plugin named `name` that runs `apply`, and `close` when one is given. */
export function plugin(
  name: string,
  apply: NodeRunnerPlugin["apply"],
  close?: () => void | Promise<void>,
): NodeRunnerPlugin {
  return close ? { name, apply, close } : { name, apply };
}

/** A plugin registering `store` as the Runner's Session store. */
export function storePlugin(store: SessionStore): NodeRunnerPlugin {
  return { name: "test.store", apply: (host) => host.registerSessionStore(store) };
}

/** A plugin counting how often it is applied and closed; `apply` runs on each application. */
export function spyPlugin(
  name: string,
  apply: NodeRunnerPlugin["apply"] = () => undefined,
): NodeRunnerPlugin & { applied: number; closed: number } {
  const spy = {
    name,
    applied: 0,
    closed: 0,
    apply(host: NodeRunnerHost) {
      spy.applied++;
      return apply(host);
    },
    close() {
      spy.closed++;
    },
  };
  return spy;
}
