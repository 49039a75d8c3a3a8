// fast-check arbitraries for the property tests that take image references.
import fc from 'fast-check'

const component = fc.stringMatching(/^[a-z0-9]{1,8}([._-][a-z0-9]{1,8})?$/)

/**
 * `[registry/]path:tag`, as the image inputs take them: a registry of `registries` or none, one to
 * three path components, a tag.
 */
export function imageReference(
  registries: readonly string[] = ['reg.example.com', '127.0.0.1:5000', 'localhost'],
): fc.Arbitrary<string> {
  return fc
    .record({
      registry: fc.option(fc.constantFrom(...registries), { nil: undefined }),
      path: fc.array(component, { minLength: 1, maxLength: 3 }),
      tag: fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}$/),
    })
    .map(({ registry, path, tag }) => `${registry ? `${registry}/` : ''}${path.join('/')}:${tag}`)
}
