// Writes the text derived from the declarations into the files that show it: the policy module's
// kind table, the parameter types clients submit with (src/activities/activityParameters.ts) and the tables of docs/ (api.md, policies.md, authorization.md, admin-api.md). Run it after changing a
// handler's or an admin route's declaration: `npm run -s generate`. test/declarations.test.ts fails
// while a file differs from what this would write.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { activityTable, kindTable, policyKindTableSource, resourceActivityTable } from '../src/activities/declarations.ts';
import { parameterTypesSource } from '../src/activities/parameterTypes.ts';
import { activityDeclarations } from '../src/activities/registry.ts';
import { adminRouteTable } from '../src/http/adminRouteTable.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Generated {
  /** The file, from the repository's root. */
  file: string;
  /** How the block's first line starts: the block runs from that line to the next blank line. Without it, the whole file. */
  anchor?: string;
  text: string;
}

export const GENERATED: readonly Generated[] = [
  { file: 'src/policy/activityResources.ts', anchor: 'export const ACTIVITY_RESOURCES', text: policyKindTableSource(activityDeclarations) },
  { file: 'docs/api.md', anchor: '| Endpoint | Activity type |', text: activityTable(activityDeclarations) },
  { file: 'docs/policies.md', anchor: '| Activity | Type | Parameters | Result |', text: resourceActivityTable(activityDeclarations, 'POLICY') },
  { file: 'docs/authorization.md', anchor: '| Activities (kind) |', text: kindTable(activityDeclarations) },
  { file: 'docs/admin-api.md', anchor: '| Method and path |', text: adminRouteTable() },
  { file: 'src/activities/activityParameters.ts', text: parameterTypesSource(activityDeclarations) },
];

/** The file's text with its block replaced by `text`; throws when no line starts with the anchor. */
export function withBlock(content: string, { file, anchor, text }: Generated): string {
  if (anchor === undefined) return text;
  const lines = content.split('\n');
  const start = lines.findIndex((line) => line.startsWith(anchor));
  if (start < 0) throw new Error(`${file}: no line starts with ${anchor}`);
  const end = lines.findIndex((line, i) => i > start && line.trim() === '');
  return [...lines.slice(0, start), text, ...lines.slice(end < 0 ? lines.length : end)].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const block of GENERATED) {
    const file = path.join(ROOT, block.file);
    const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const after = withBlock(before, block);
    if (after !== before) fs.writeFileSync(file, after);
    console.log(`${block.file}: ${after === before ? 'unchanged' : 'written'}`);
  }
}
