import type { JsonValue } from "@castellan/harness";
import { committedState, type SessionContext, turnContext } from "../context/session-context.js";
import type { RunJournal } from "../journal/run-journal.js";
import { SkillLoadError, SkillNotAvailableError } from "../skills/errors.js";
import { activationsIn, activeSkillsKey, type SkillActivation } from "../skills/session-skills.js";
import { loadActivation } from "../skills/skill-tools.js";
import { notifyStateChanged } from "./state-notify.js";

/**
 * `run(input, { activateSkills })`: before the Run's first projection, loads each named skill
 * not active yet and saves the activations as one host state write (saved, replayed, shown in
 * `stateWrites`). A name that is unknown or hidden this turn, or a failing load, ends the Run
 * before the model is asked.
 *
 * @throws SkillNotAvailableError (`skill_not_available`), SkillLoadError (`skill_load_failed`).
 */
export async function activateHostSkills(
  context: SessionContext,
  journal: RunJournal,
  run: { readonly runId: string; readonly signal: AbortSignal },
  turn: number,
  names: readonly string[],
): Promise<void> {
  const ctx = turnContext(context, turn);
  const saved = activationsIn(committedState(context));
  const added: SkillActivation[] = [];
  for (const name of names) {
    const skill = context.skills?.visibleSkill(name, ctx);
    if (!skill) throw new SkillNotAvailableError(name);
    if (saved.some((entry) => entry.name === name) || added.some((entry) => entry.name === name)) continue;
    try {
      added.push(await loadActivation(skill, { source: "host", runId: run.runId, turn, signal: run.signal }));
    } catch (error) {
      if (run.signal.aborted) throw error;
      throw new SkillLoadError(name, { cause: error });
    }
  }
  if (added.length === 0) return;
  const changes = { [activeSkillsKey]: [...saved, ...added] as unknown as JsonValue };
  await journal.commit([{ kind: "state-committed", source: "host", runId: run.runId, turn, changes }]);
  await notifyStateChanged(context, journal, { runId: run.runId, turn, source: "host", changes });
}
