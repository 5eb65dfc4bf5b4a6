import { CastellanError, errorMessage } from "@castellan/harness";
import { ResourceError } from "../errors/errors.js";

/**
 * Owns what a Session acquired (sandbox, capability resources) and releases it in reverse
 * order of acquisition. Every release is attempted even when an earlier one fails.
 */
export class ResourceOwner {
  private readonly releases: { readonly label: string; readonly close: () => Promise<void> | void }[] = [];
  private released = false;

  /**
   * Acquires one resource and takes ownership of its release. A failure is a ResourceError
   * naming the resource, except a Castellan error, which is thrown as it is.
   */
  async acquire<Lease extends { close(): Promise<void> | void }>(
    label: string,
    open: () => Promise<Lease>,
  ): Promise<Lease> {
    if (this.released) throw new ResourceError(`Cannot acquire ${label}: the Session's resources were released.`);
    let lease: Lease;
    try {
      lease = await open();
    } catch (error) {
      // A typed error already names what failed and carries its own code: callers branch on it.
      if (error instanceof CastellanError) throw error;
      throw new ResourceError(`Acquiring ${label} failed: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    if (lease === null || typeof lease !== "object" || typeof lease.close !== "function") {
      throw new ResourceError(`Acquiring ${label} returned no lease with a close() function.`);
    }
    this.releases.push({ label, close: () => lease.close() });
    return lease;
  }

  /** Releases everything in reverse order; throws one ResourceError listing the failures. */
  async releaseAll(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const failures: { label: string; error: unknown }[] = [];
    for (const { label, close } of this.releases.reverse()) {
      try {
        await close();
      } catch (error) {
        failures.push({ label, error });
      }
    }
    this.releases.length = 0;
    if (failures.length > 0) {
      throw new ResourceError(`Releasing failed for ${failures.map((failure) => failure.label).join(", ")}.`, {
        cause: new AggregateError(failures.map((failure) => failure.error)),
      });
    }
  }
}
