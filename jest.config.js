import { createDefaultEsmPreset } from 'ts-jest'

/** @type {import('jest').Config} */
export default {
  ...createDefaultEsmPreset({ tsconfig: 'tsconfig.json' }),
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  clearMocks: true,
  testTimeout: 60_000,
  // Integration and e2e suites start daemons and servers; two cores do not like more.
  maxWorkers: 2,
}
