import { SandboxProfileConflictError } from "./errors.js";
import type { SandboxRuntimeAdapter } from "./runtime-adapter.js";

// One sandbox profile may be active per process: the runtime's manager is global. Leases are
// counted: the first initializes, the last close resets.

interface ActiveProfile {
  readonly key: string;
  readonly adapter: SandboxRuntimeAdapter;
  leases: number;
  readonly ready: Promise<void>;
}

let active: ActiveProfile | undefined;
/** The reset of the last profile, which the next one waits for. */
let resetting: Promise<void> = Promise.resolve();

/**
 * A lease of the profile `key` on `adapter`, starting it with `start` when none is active.
 * Resolves with the lease's release (idempotent; the last one resets the adapter).
 *
 * @throws SandboxProfileConflictError (`sandbox_profile_conflict`) when another profile is active; nothing is initialized.
 */
export async function leaseProfile(
  key: string,
  adapter: SandboxRuntimeAdapter,
  start: () => Promise<void>,
): Promise<() => Promise<void>> {
  if (active !== undefined && (active.key !== key || active.adapter !== adapter)) {
    throw new SandboxProfileConflictError(
      "Another sandbox profile is active in this process; one may be active at a time. Close its Sessions first.",
    );
  }
  let profile = active;
  if (profile === undefined) {
    const previous = resetting;
    profile = { key, adapter, leases: 0, ready: previous.then(start) };
    active = profile;
  }
  const own = profile;
  own.leases++;
  try {
    await own.ready;
  } catch (error) {
    own.leases--;
    if (active === own) active = undefined;
    throw error;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    own.leases--;
    if (own.leases > 0 || active !== own) return;
    active = undefined;
    const reset = resetting.then(() => own.adapter.reset());
    resetting = reset.catch(() => undefined);
    await reset;
  };
}
