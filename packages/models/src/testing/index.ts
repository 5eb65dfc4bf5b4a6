export {
  ScriptExhaustedError,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedStep,
  type ScriptedStepSource,
  scriptedModel,
} from "./scripted-model.js";
