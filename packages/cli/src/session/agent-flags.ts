import type { PermissionPreset } from "@castellan/node-runner";
import type { SandboxMode } from "../agent/cli-params.js";

/** The flags shared by `castellan [prompt]` and `castellan -p`. */
export interface AgentFlags {
  /** Open the most recently updated Session of the current directory. */
  readonly continue: boolean;
  /** Open this saved Session. */
  readonly resume: string | undefined;
  /** Default `ask-on-write`. */
  readonly permissions: PermissionPreset;
  /** Default `os`; undefined when not given, so a resumed Session keeps its own. */
  readonly sandbox: SandboxMode | undefined;
  /** `--model <provider>/<id>` or `--model <id>`. */
  readonly model: string | undefined;
  /** Default off; undefined when not given. */
  readonly browser: boolean | undefined;
}
