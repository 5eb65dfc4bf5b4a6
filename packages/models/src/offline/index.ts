export { type OfflineModelOptions, offline } from "./offline-model.js";
