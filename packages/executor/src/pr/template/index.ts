export { templateInstructions } from "./instructions.js";
export { type TemplateLocation, templateLocations } from "./locations.js";
export { maxTemplateBytes, type PrTemplate } from "./read-template.js";
export { type PrTemplateResolution, resolvePrTemplate } from "./resolve-template.js";
