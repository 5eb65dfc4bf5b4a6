// One memory measurement of the deep read, in a process of its own so nothing else the bench
// did is in its peak: argv is the directory, the file's workspace path and the start line. It
// imports the tool and binds it, records `maxRSS` (kilobytes), does the one read, records
// `maxRSS` again, checks the page, and writes `{ beforeKilobytes, afterKilobytes }` as JSON.
import { deepLine } from "./deep-file.ts";
import { bindReadTool } from "./read-tool.ts";

const [directory, path, line] = process.argv.slice(2);
const startLine = Number(line);
const read = bindReadTool(directory as string);
const beforeKilobytes = process.resourceUsage().maxRSS;
const page = await read(path as string, startLine);
const afterKilobytes = process.resourceUsage().maxRSS;
if (page.startLine !== startLine || !page.text.startsWith(`${deepLine(startLine)}\n`)) {
  throw new Error(`The page does not start at line ${startLine}: ${JSON.stringify(page.text.slice(0, 80))}.`);
}
process.stdout.write(`${JSON.stringify({ beforeKilobytes, afterKilobytes })}\n`);
