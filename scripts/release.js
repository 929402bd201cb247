// Makes a release: the tarball `npm pack` builds (prepack compiles dist/) and SHA256SUMS beside it,
// in the format `sha256sum -c` reads. The version in package.json must be the newest version heading
// of CHANGELOG.md, so a release always says what it contains. See docs/releases.md.
//
//   npm run release [-- OUTPUT_FOLDER]     (default: release/)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function fail(message) {
  console.error(`signet release: ${message}`);
  process.exit(1);
}

const args = process.argv.slice(2);
if (args.length > 1 || args.some((arg) => arg.startsWith('-'))) fail('takes at most one argument, the output folder (default release/)');
const output = path.resolve(args[0] ?? path.join(root, 'release'));

const { name, version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
// `## [0.2.0] - 2027-01-15`; `## [Unreleased]` is skipped: it is what the next version will hold.
const headings = [...fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8').matchAll(/^## \[([^\]]+)\](.*)$/gm)];
const newest = headings.find(([, heading]) => heading.toLowerCase() !== 'unreleased');
if (!newest) fail('CHANGELOG.md has no version heading (## [X.Y.Z] - YYYY-MM-DD): add the one this release is');
if (newest[1] !== version) {
  fail(
    `package.json says version ${version} but the newest version in CHANGELOG.md is ${newest[1]}: ` +
      `move the Unreleased entries under "## [${version}] - ${new Date().toISOString().slice(0, 10)}", or set the version to ${newest[1]}`,
  );
}
if (!/^ - \d{4}-\d{2}-\d{2}$/.test(newest[2])) fail(`CHANGELOG.md's heading of ${version} has no date: write it as "## [${version}] - YYYY-MM-DD"`);

fs.mkdirSync(output, { recursive: true });
const tarball = `${name}-${version}.tgz`;
fs.rmSync(path.join(output, tarball), { force: true });
// npm itself runs the build (prepack) and decides the contents (package.json "files").
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
try {
  execFileSync(npm[0], [...npm.slice(1), 'pack', '--pack-destination', output], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
} catch {
  fail('npm pack failed (its error is above)');
}
if (!fs.existsSync(path.join(output, tarball))) fail(`npm pack did not write ${path.join(output, tarball)}`);

const digest = createHash('sha256').update(fs.readFileSync(path.join(output, tarball))).digest('hex');
fs.writeFileSync(path.join(output, 'SHA256SUMS'), `${digest}  ${tarball}\n`);
console.log(`${path.join(output, tarball)}\n${path.join(output, 'SHA256SUMS')}\nverify with: cd ${output} && sha256sum -c SHA256SUMS`);
