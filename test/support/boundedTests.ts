// node:test as the test files see it under `npm test`: scripts/bundle-tests.js resolves their
// `import … from 'node:test'` to this module, which gives every test and hook a bound of its own
// (TEST_TIMEOUT_MS, unless it names one). Node 20's --test-timeout bounds a whole file, the sum of
// its tests, which a loaded machine stretches; a bound per test catches a test that hangs and fails
// nothing that passes slowly. A file run on its own (node --import tsx --test test/x.test.ts) uses
// node:test itself, without bounds.
import * as nodeTest from 'node:test';

export { describe, mock, run, suite } from 'node:test';
export type { TestContext, SuiteContext } from 'node:test';

/** Ten minutes: no test of the suite comes near it, even on a loaded machine; one that does hangs. */
export const TEST_TIMEOUT_MS = 600_000;

type Options = { timeout?: number } & Record<string, unknown>;

/** test() and it(): (name?, options?, fn?), with the bound put in the options. */
function boundedTest<F extends (...args: any[]) => unknown>(original: F): F {
  const bounded = (...args: unknown[]) => {
    const at = args.findIndex((arg) => arg !== null && typeof arg === 'object');
    if (at >= 0) args[at] = { timeout: TEST_TIMEOUT_MS, ...(args[at] as Options) };
    else args.splice(typeof args[0] === 'string' ? 1 : 0, 0, { timeout: TEST_TIMEOUT_MS });
    return original(...args);
  };
  return Object.assign(bounded, original) as unknown as F;
}

/** before(), after(), beforeEach(), afterEach(): (fn, options?). */
function boundedHook<F extends (...args: any[]) => unknown>(original: F): F {
  return ((fn: unknown, options?: Options) => original(fn, { timeout: TEST_TIMEOUT_MS, ...options })) as unknown as F;
}

export const test = boundedTest(nodeTest.test);
export const it = boundedTest(nodeTest.it);
export const before = boundedHook(nodeTest.before);
export const after = boundedHook(nodeTest.after);
export const beforeEach = boundedHook(nodeTest.beforeEach);
export const afterEach = boundedHook(nodeTest.afterEach);
export default test;
