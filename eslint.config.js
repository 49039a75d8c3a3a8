import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import tseslint from 'typescript-eslint'

/**
 * What src/core may import: no I/O, nothing platform-specific, nothing outside src/core; and,
 * for a folder with a boundary of its own, the pattern it adds (a later block's options replace
 * an earlier one's, so each block restates the whole rule).
 */
function coreImports(boundary) {
  const io = 'src/core does no I/O: take a port (Files, Exec, HttpClient…) instead.'
  return {
    paths: ['fs', 'fs/promises', 'child_process', 'http', 'https', 'net', 'tls'].map((name) => ({
      name,
      message: io,
    })),
    patterns: [
      { group: ['@actions/*'], message: 'src/core is platform-neutral: use the injected ports.' },
      {
        group: [
          'node:fs',
          'node:fs/*',
          'node:child_process',
          'node:http',
          'node:https',
          'node:net',
          'node:tls',
        ],
        message: io,
      },
      {
        group: ['**/platform/*', '**/tools/*', '**/actions/*'],
        message: 'src/core depends on nothing outside it: the platform injects ports.',
      },
      ...(boundary ? [boundary] : []),
    ],
  }
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test/fixtures/**/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            '*.js',
            'bin/*.js',
            'scripts/*.js',
            'test/fixtures/*/*.js',
            'bench/baselines/*.mjs',
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/explicit-function-return-type': [
        'error',
        { allowExpressions: true, allowTypedFunctionExpressions: true },
      ],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', coreImports()],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'src/core never reads the environment: take it from the CI context or inputs.',
        },
      ],
    },
  },
  {
    // A port of BuildKit's reading, which the fingerprint, the builders, the mirrors and the
    // checks all use: it depends on nothing but core/shared.
    files: ['src/core/dockerfile/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        coreImports({
          regex: String.raw`^\.\./(?!shared/)|^\.\./\.\./`,
          message: 'src/core/dockerfile imports only src/core/shared: it serves the others.',
        }),
      ],
    },
  },
  {
    // A library that build-images and deploy both use: it knows neither.
    files: ['src/core/signing/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        coreImports({
          regex: String.raw`^\.\./(build-images|deploy)/`,
          message:
            'src/core/signing is a library: it imports nothing from build-images or deploy, which use it (give it a neutral type).',
        }),
      ],
    },
  },
  {
    // Each action's room knows no other's: what two of them share lives in src/core/shared (the
    // images of a project, their labels) or in a library (signing, registry, attestations).
    files: [
      'src/core/build-images/**/*.ts',
      'src/core/deploy/**/*.ts',
      'src/core/snapshot/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        coreImports({
          regex: String.raw`^(\.\./)+(build-images|deploy|snapshot)/`,
          message:
            "An action's room imports nothing from another's: move what both use to src/core/shared or a library.",
        }),
      ],
    },
  },
  {
    files: ['scripts/**/*.ts', 'scripts/**/*.js'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/platform/*', '**/src/platform/**'],
              message:
                'The generator describes actions from their definitions (src/core); it never runs them.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    rules: { '@typescript-eslint/explicit-function-return-type': 'off' },
  },
  {
    // CommonJS, as the official template's own files are (its package.json has no "type").
    files: ['test/fixtures/olympe-project-template/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
)
