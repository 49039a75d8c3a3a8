import type { ParseTools } from '../core/definition.js'

/**
 * The parser of an input that may be written in JSON or YAML (deploy's `deploy-rules`,
 * build-images' `backends`). js-yaml (45 KB minified, a third of the `yaml` package the tests and
 * scripts use) reads YAML with its safe default schema: no tag can run code. It is loaded only for
 * a text that is not plain JSON.
 */
export async function yamlParserFor(text: string): Promise<ParseTools['parseYaml']> {
  try {
    if (text !== '') JSON.parse(text)
    return JSON.parse
  } catch {
    const { load } = await import('js-yaml')
    return (yaml: string) => load(yaml)
  }
}
