// build-images' inputs as a unit test gives them: by name, as the runner hands them over, parsed
// with the definition's defaults, as the check phase parses them.
import { withDefaults } from '../../src/core/definition.js'
import {
  buildImagesDefinition,
  type BuildImagesInputName,
} from '../../src/core/build-images/definition.js'
import { parseBuildImagesInputs, type InputFacts } from '../../src/core/build-images/inputs.js'

/** The inputs a test sets, by name; the others take their defaults. */
export type BuildImagesGiven = Partial<Record<BuildImagesInputName, string>>

/** A GitHub run of Acme/Shop in /ws. */
export const GITHUB_FACTS: InputFacts = {
  platform: 'github',
  repository: 'Acme/Shop',
  workspace: '/ws',
}

/** `given`, with the definition's defaults, parsed as the check phase parses them. */
export function parseGiven(
  given: BuildImagesGiven,
  facts: InputFacts = GITHUB_FACTS,
): ReturnType<typeof parseBuildImagesInputs> {
  return parseBuildImagesInputs(withDefaults(buildImagesDefinition, given), facts)
}
