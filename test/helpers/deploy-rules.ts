// The platform's side of a payload's deploy rules, for tests that check what each backend gets.

export interface DeployRule {
  source: string
  target: string
}

/**
 * Which backends of `names` get which of `images`, as the platform applies the rules: a rule
 * gives the backends whose name matches its `target` the images whose reference matches its
 * `source` (the specification's deploy rules 1-4; both are JavaScript regular expressions).
 * `names` may hold names the project does not have, which should get nothing.
 */
export function deployedTo(
  rules: readonly DeployRule[],
  images: readonly string[],
  names: readonly string[],
): Record<string, string[]> {
  return Object.fromEntries(
    names.map((name) => [
      name,
      images.filter((image) =>
        rules.some(
          (rule) => new RegExp(rule.target).test(name) && new RegExp(rule.source).test(image),
        ),
      ),
    ]),
  )
}
