import { CastellanError } from "@castellan/harness";

/** An environment policy cannot be used: a bad field, or a `set` of a name that is never passed. */
export class EnvironmentPolicyError extends CastellanError {
  constructor(message: string) {
    super("environment_invalid", message);
  }
}
