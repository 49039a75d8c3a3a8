// The generated regions of a hand-written GitLab template (scripts/render/gitlab.ts): what each
// kind of region holds, and the message a maintainer gets for a region that cannot be filled.
import { describe, expect, test } from '@jest/globals'
import { renderTemplate } from '../../../../scripts/render/gitlab.js'

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
    expect(rendered).toContain('    version:\n      # BEGIN GENERATED: package.json version\n')
    expect(rendered).toContain('      default: 9.9.9\n')
  })

  test('passes each input as INPUT_<NAME>: template input, secret variable or GitLab default', () => {
    expect(rendered).toContain('    INPUT_TIMEOUT_SECONDS: $[[ inputs.timeout-seconds ]]\n')
    expect(rendered).toContain('    INPUT_WEBHOOK_TOKEN: $WEBHOOK_TOKEN\n')
    // Not an input of this template: what the image job wrote to its dotenv report.
    expect(rendered).toContain('    INPUT_FRONTEND_IMAGE: $OLYMPE_BUILD_IMAGES_FRONTEND_IMAGE\n')
    expect(rendered).toMatch(
      /^ {4}- export INPUT_\w+=\$\[\[ inputs\.[\w-]+ \]\].* INPUT_DRY_RUN=true/m,
    )
  })

  test('keeps every line outside the regions', () => {
    expect(rendered).toContain('    HAND_WRITTEN: kept\n')
    expect(rendered).toContain('    # END GENERATED\n    - run\n')
    expect(rendered).not.toContain('stale')
    expect(renderTemplate('gitlab/test.yml', rendered, '9.9.9')).toBe(rendered)
  })

  test.each([
    [
      'a BEGIN without its END',
      'job:\n  variables:\n    # BEGIN GENERATED: deploy variables\n  # END GENERATED\n',
      "gitlab/test.yml: '# BEGIN GENERATED: deploy variables' has no '# END GENERATED' at its indentation.",
    ],
    [
      'an unknown kind of region',
      region('', 'deploy settings').join('\n'),
      "gitlab/test.yml: Unknown generated region 'deploy settings': expected '<action> inputs [without <input>…]', '<action> variables|exports [with <input>=<value>…]' or 'package.json version'.",
    ],
    [
      'an unknown action',
      region('', 'deploys inputs').join('\n'),
      "gitlab/test.yml: There is no action 'deploys' in src/core/definitions.ts.",
    ],
    [
      'a boolean set in the variables',
      region('', 'deploy variables with dry-run=true').join('\n'),
      "gitlab/test.yml: Region 'deploy variables with dry-run=true': 'dry-run' is none of the deploy inputs it holds",
    ],
    [
      'an input neither declared nor given a value',
      `spec:\n  inputs: {}\n---\njob:\n  variables:\n${region('    ', 'deploy variables').join('\n')}\n`,
      "gitlab/test.yml: Region 'deploy variables' has no value for 'verify-images': declare that input in spec: inputs, or add 'verify-images=<value>' to the region.",
    ],
  ])('reports %s', (_name, source, message) => {
    expect(() => renderTemplate('gitlab/test.yml', `${source}\n`, '1.0.0')).toThrow(message)
  })
})
