/**
 * jest's file order, with the longest files first. jest orders files by how long they took in this
 * checkout's last run (its cache) and, without one, as in a fresh clone or CI, by file size: there the
 * two fuzz files, small files that run for one and a half to two minutes each, started among the last,
 * and the run waited for them alone at its end. The files below (each over 45 s in `npm test`,
 * docs/testing.md) start first, in this order; every other file keeps jest's order. Plain JS on
 * purpose: jest loads it without any transform.
 */
import DefaultSequencer from '@jest/test-sequencer';

const LONGEST = [
  'tests/unit/package-template.test.ts',
  'tests/integration/fuzz-property.test.ts',
  'tests/integration/fuzz.test.ts',
  'tests/integration/routes-calls.test.ts',
  'tests/e2e/third-party-contract.e2e.test.ts',
];

const rank = (path) => {
  const index = LONGEST.findIndex((name) => path.endsWith(`/${name}`));
  return index === -1 ? LONGEST.length : index;
};

export default class LongestFirst extends DefaultSequencer {
  sort(tests) {
    // Array.prototype.sort is stable: files of equal rank keep jest's order.
    return [...super.sort(tests)].sort((a, b) => rank(a.path) - rank(b.path));
  }
}
