// Loaded (node --import) into each process of `npm run test:unit`: there, starting a child process or
// listening on a socket throws, so a test that scripts/unit-tests.js counts as a unit test by mistake
// fails and says why. The test runner's own process, which starts one process per test file, is left
// as it is: only a test file's process has NODE_TEST_CONTEXT set.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const refuse = (what) =>
    function refused() {
      throw new Error(
        `a unit test ${what}, which only the whole suite (npm test) may: add the module that did it to STARTS in scripts/unit-tests.js`,
      );
    };
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    childProcess[name] = refuse(`started a child process (child_process.${name})`);
  }
  net.Server.prototype.listen = refuse('listened on a socket (a server)');
  net.Socket.prototype.connect = refuse('connected to a socket (a server)');
  syncBuiltinESMExports();
}
