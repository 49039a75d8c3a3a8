// The generated regions of a hand-written GitLab template (scripts/render/gitlab.ts): what each
// kind of region holds, and the message a maintainer gets for a region that cannot be filled.
import { describe, expect, test } from '@jest/globals'
import { jobVariables, renderTemplate } from '../../../../scripts/render/gitlab.js'
import { expectToSay } from '../../../helpers/assertions.js'

const region = (indent: string, key: string, ...lines: string[]): string[] => [
  `${indent}# BEGIN GENERATED: ${key}`,
  ...lines,
  `${indent}# END GENERATED`,
]

const template = [
  'spec:',
  '  inputs:',
  ...region('    ', 'deploy inputs without frontend-image dry-run', '    stale: {}'),
  '    version:',
  ...region('      ', 'package.json version'),
  '---',
  'job:',
  '  variables:',
  '    HAND_WRITTEN: kept',
  ...region('    ', 'deploy variables'),
  '  script:',
  ...region('    ', 'deploy exports with dry-run=true', '    - stale'),
  '    - run',
  '',
].join('\n')

describe('renderTemplate', () => {
  const rendered = renderTemplate('gitlab/test.yml', template, '9.9.9')

  test('writes the inputs a region names, not those it leaves out', () => {
    expect(rendered).toContain('    timeout-seconds:\n')
    expect(rendered).not.toMatch(/^ {4}(frontend-image|dry-run|webhook-token|stale):/m)
    expectToSay(
      rendered,
      '    version:\n      # BEGIN GENERATED: package.json version\n',
      '      default: 9.9.9\n',
    )
  })

  test('passes each input as INPUT_<NAME>: template input, secret variable or GitLab default', () => {
    expectToSay(
      rendered,
      '    INPUT_TIMEOUT_SECONDS: $[[ inputs.timeout-seconds ]]\n',
      '    INPUT_WEBHOOK_TOKEN: $WEBHOOK_TOKEN\n',
    )
    // Not an input of this template: what the image job wrote to its dotenv report.
    expect(rendered).toContain('    INPUT_FRONTEND_IMAGE: $OLYMPE_BUILD_IMAGES_FRONTEND_IMAGE\n')
    expect(rendered).toMatch(
      /^ {4}- export INPUT_\w+=\$\[\[ inputs\.[\w-]+ \]\].* INPUT_DRY_RUN=true/m,
    )
  })

  test('keeps every line outside the regions', () => {
    expectToSay(rendered, '    HAND_WRITTEN: kept\n', '    # END GENERATED\n    - run\n')
    expect(rendered).not.toContain('stale')
    expect(renderTemplate('gitlab/test.yml', rendered, '9.9.9')).toBe(rendered)
  })

  test.each<[string, { region: string } | { source: string }, string]>([
    [
      'a BEGIN without its END',
      {
        source: 'job:\n  variables:\n    # BEGIN GENERATED: deploy variables\n  # END GENERATED\n',
      },
      "gitlab/test.yml: '# BEGIN GENERATED: deploy variables' has no '# END GENERATED' at its indentation.",
    ],
    [
      'an unknown kind of region',
      { region: 'deploy settings' },
      "gitlab/test.yml: Unknown generated region 'deploy settings': expected '<action> inputs [without <input>…]', '<action>[+<action>…] variables|exports [with <input>=<value>…]', 'package.json version', 'olympe-deploy command' or 'not-live exit code'.",
    ],
    [
      'an unknown action',
      { region: 'deploys inputs' },
      "gitlab/test.yml: There is no action 'deploys' in src/core/action-list.ts.",
    ],
    [
      'a boolean set in the variables',
      { region: 'deploy variables with dry-run=true' },
      "gitlab/test.yml: Region 'deploy variables with dry-run=true': 'dry-run' is none of the deploy inputs it holds",
    ],
    [
      'the spec inputs of two actions',
      { region: 'build-images+deploy inputs' },
      "gitlab/test.yml: Region 'build-images+deploy inputs': the spec inputs of one action only.",
    ],
    [
      'a value for an input neither action has',
      { region: 'build-images+deploy variables with toolkit-command=x' },
      "gitlab/test.yml: Region 'build-images+deploy variables with toolkit-command=x': 'toolkit-command' is none of the build-images or deploy inputs it holds",
    ],
    [
      'an input neither declared nor given a value',
      {
        source: `spec:\n  inputs: {}\n---\njob:\n  variables:\n${region('    ', 'deploy variables').join('\n')}\n`,
      },
      "gitlab/test.yml: Region 'deploy variables' has no value for 'verify-images': declare that input in spec: inputs, or add 'verify-images=<value>' to the region.",
    ],
  ])('reports %s', (_name, given, message) => {
    // A region alone, or a whole template.
    const source = 'region' in given ? region('', given.region).join('\n') : given.source
    expect(() => renderTemplate('gitlab/test.yml', `${source}\n`, '1.0.0')).toThrow(message)
  })
})

describe('a region for a job that runs several actions', () => {
  // As gitlab/pipeline.yml declares them: the registry inputs once, for both actions.
  const rendered = renderTemplate(
    'gitlab/test.yml',
    [
      'spec:',
      '  inputs:',
      ...region('    ', 'build-images inputs without images'),
      ...region(
        '    ',
        'deploy inputs without frontend-image backend-images codeasdata-image registry registry-username registry-mirrors check-only',
      ),
      '---',
      'job:',
      '  variables:',
      ...region(
        '    ',
        'build-images+deploy variables with images=frontend frontend-image= backend-images= codeasdata-image=',
      ),
      '  script:',
      ...region('    ', 'build-images+deploy exports with check-only=true'),
      '',
    ].join('\n'),
    '1.0.0',
  )
  const lines = rendered.split('\n')

  test('passes each variable once, with the value both actions need', () => {
    for (const [variable, value] of [
      ['INPUT_REGISTRY', '$[[ inputs.registry ]]'],
      ['INPUT_REGISTRY_USERNAME', '$[[ inputs.registry-username ]]'],
      ['INPUT_REGISTRY_PASSWORD', '$CI_REGISTRY_PASSWORD'],
    ])
      expect(lines.filter((line) => line.startsWith(`    ${variable}:`))).toEqual([
        `    ${variable}: ${value}`,
      ])
    const exported = lines.find((line) => line.startsWith('    - export ')) ?? ''
    const assignments = exported.split(/ (?=INPUT_)/)
    expect(assignments.filter((each) => each.startsWith('INPUT_CHECK_ONLY='))).toEqual([
      'INPUT_CHECK_ONLY=true',
    ])
    expectToSay(assignments, 'INPUT_PUSH=$[[ inputs.push ]]', 'INPUT_DRY_RUN=$[[ inputs.dry-run ]]')
  })

  test("gives each `with` item to the action that has the input, and each action's own the rest", () => {
    for (const variable of [
      'INPUT_IMAGES: frontend',
      // Empty, as a YAML string (Prettier later writes its quotes as '').
      'INPUT_FRONTEND_IMAGE: ""',
      'INPUT_BACKEND_IMAGES: ""',
      'INPUT_WEBHOOK_TOKEN: $WEBHOOK_TOKEN',
      'INPUT_TAG_TEMPLATE: $[[ inputs.tag-template ]]',
      'INPUT_TIMEOUT_SECONDS: $[[ inputs.timeout-seconds ]]',
    ])
      expect(rendered).toContain(`    ${variable}\n`)
  })

  test('refuses two actions that need different values for one variable', () => {
    expect(() =>
      jobVariables('build-images+deploy variables', [
        { id: 'build-images', pairs: [['INPUT_REGISTRY', '$[[ inputs.registry ]]']] },
        {
          id: 'deploy',
          pairs: [
            ['INPUT_REGISTRY', '$CI_REGISTRY'],
            ['INPUT_WEBHOOK_TOKEN', '$WEBHOOK_TOKEN'],
          ],
        },
      ]),
    ).toThrow(
      "Region 'build-images+deploy variables': build-images needs INPUT_REGISTRY=$[[ inputs.registry ]] and deploy needs INPUT_REGISTRY=$CI_REGISTRY, in one job: give both actions the same value, or run them in jobs of their own.",
    )
  })

  test('keeps one variable that both actions give the same value', () => {
    expect(
      jobVariables('k', [
        {
          id: 'build-images',
          pairs: [
            ['INPUT_REGISTRY', 'r'],
            ['INPUT_PUSH', 'true'],
          ],
        },
        {
          id: 'deploy',
          pairs: [
            ['INPUT_REGISTRY', 'r'],
            ['INPUT_DRY_RUN', 'false'],
          ],
        },
      ]),
    ).toEqual([
      ['INPUT_REGISTRY', 'r'],
      ['INPUT_PUSH', 'true'],
      ['INPUT_DRY_RUN', 'false'],
    ])
  })
})

describe('the olympe-deploy command region', () => {
  test("sets $OLYMPE_DEPLOY: the image's own olympe-deploy at the version asked, else npx", () => {
    const source = [
      'job:',
      '  script:',
      ...region('    ', 'olympe-deploy command', '    - stale'),
      '    - $OLYMPE_DEPLOY deploy',
      '',
    ].join('\n')
    expect(renderTemplate('gitlab/test.yml', source, '9.9.9')).toBe(
      [
        'job:',
        '  script:',
        '    # BEGIN GENERATED: olympe-deploy command',
        "    # This release's olympe-deploy: the image's own when it holds it (the job image), else npx fetches it.",
        `    - 'OLYMPE_DEPLOY="npx --yes olympe-deploy-actions@$[[ inputs.version ]]"; [ "$(olympe-deploy --version 2>/dev/null)" != $[[ inputs.version ]] ] || OLYMPE_DEPLOY=olympe-deploy; echo "olympe-deploy $[[ inputs.version ]] runs as: $OLYMPE_DEPLOY"'`,
        '    # END GENERATED',
        '    - $OLYMPE_DEPLOY deploy',
        '',
      ].join('\n'),
    )
  })
})
