#!/usr/bin/env node
// The executor's bin: its command line is cli/executor-main.ts, which `castellan serve` runs too.
import { executorMain } from "../cli/executor-main.js";

await executorMain(process.argv.slice(2));
