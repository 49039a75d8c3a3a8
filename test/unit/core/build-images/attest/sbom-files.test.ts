import { describe } from '@jest/globals'
import { sbomFileName } from '../../../../../src/core/build-images/attest/sbom-files.js'
import { eachAnswer } from '../../../../helpers/unit-tables.js'

describe('sbomFileName', () => {
  // GitLab's `artifacts:reports:cyclonedx` reads `gl-sbom-*.cdx.json`; a backend of `backends`
  // never takes a kind's name, whatever it is called.
  eachAnswer('%s: %s', sbomFileName, [
    ['frontend', 'gl-sbom-frontend.cdx.json'],
    ['backend', 'gl-sbom-backend.cdx.json'],
    ['codeasdata', 'gl-sbom-codeasdata.cdx.json'],
    ['backend:api', 'gl-sbom-backend-api.cdx.json'],
    ['backend:frontend', 'gl-sbom-backend-frontend.cdx.json'],
  ])
})
