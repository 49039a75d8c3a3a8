// The admission policies of the provenance guide, checked as far as they can be without a
// Kubernetes cluster: each against the published schema of its resource (the openAPIV3Schema of
// Kyverno's ClusterPolicy v1 and of policy-controller's ClusterImagePolicy v1beta1, from their
// CustomResourceDefinitions, test/fixtures/cluster-policies), with ajv, unknown fields refused as
// `kubectl apply` (strict field validation) refuses them; and what they check is where our
// provenance has it. Neither controller runs here: their CEL rules and the policies' effect on a
// pod are not checked.
import { describe, expect, test } from '@jest/globals'
import { Ajv, type ErrorObject } from 'ajv'
import addFormats from 'ajv-formats'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse } from 'yaml'
import { PREDICATE_TYPES } from '../../src/core/attestations/attach.js'
import { provenancePredicate } from '../../src/core/attestations/provenance.js'
import { frontendFacts } from '../helpers/attestations.js'
import { docBlocks } from '../helpers/markdown.js'
import { ROOT } from '../helpers/run-action.js'

const FIXTURES = join(ROOT, 'test/fixtures/cluster-policies')
/** Kubernetes' schema extensions: meaningful to the API server, annotations to ajv. */
const KUBERNETES_KEYWORDS = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-validations',
]

type Schema = Record<string, unknown>

/**
 * The schema as the API server applies it with strict field validation: an object that lists its
 * properties, and neither keeps unknown fields nor allows others, refuses a field it does not list.
 */
function strict(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strict)
  if (!node || typeof node !== 'object') return node
  const schema = Object.fromEntries(
    Object.entries(node as Schema).map(([key, value]) => [key, strict(value)]),
  )
  if (
    schema.properties &&
    schema['x-kubernetes-preserve-unknown-fields'] !== true &&
    schema.additionalProperties === undefined
  )
    schema.additionalProperties = false
  return schema
}

async function validator(file: string): Promise<(resource: unknown) => string[]> {
  const schema = JSON.parse(await readFile(join(FIXTURES, file), 'utf8')) as Schema
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false })
  ;(addFormats as unknown as (ajv: Ajv) => void)(ajv)
  for (const keyword of KUBERNETES_KEYWORDS) ajv.addKeyword(keyword)
  // The API server itself checks what every resource has, which a CRD's schema need not list.
  const properties = {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
  }
  const root = { ...schema, properties: { ...properties, ...(schema.properties as Schema) } }
  const validate = ajv.compile(strict(root) as Schema)
  return (resource) =>
    validate(resource)
      ? []
      : (validate.errors ?? []).map(
          (error: ErrorObject) =>
            `${error.instancePath || '/'} ${error.message ?? ''}${error.keyword === 'additionalProperties' ? ` '${String(error.params.additionalProperty)}'` : ''}`,
        )
}

/** The guide's policy whose first line is `apiVersion: <group>/…`, parsed. */
async function policy(group: string): Promise<{ text: string; resource: Schema }> {
  const found = (await docBlocks()).filter(
    (block) =>
      block.file === 'docs/provenance.md' && block.text.startsWith(`apiVersion: ${group}/`),
  )
  expect(found).toHaveLength(1)
  const text = found[0]?.text ?? ''
  return { text, resource: parse(text) as Schema }
}

/** The value at a dotted path (`a.b.c`) of a document. */
function at(document: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Schema)[key] : undefined),
      document,
    )
}

const predicate = provenancePredicate(frontendFacts())
const REPOSITORY = predicate.buildDefinition.externalParameters.repository

describe("Kyverno's ClusterPolicy in the provenance guide", () => {
  test('is valid against ClusterPolicy v1 of Kyverno 1.19.0', async () => {
    const validate = await validator('kyverno-clusterpolicy-v1.schema.json')
    const { resource } = await policy('kyverno.io')
    expect(resource).toMatchObject({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy' })
    expect(validate(resource)).toEqual([])
    // The schema does refuse a field it does not know, and a value it does not allow.
    const misspelt: unknown = parse(
      JSON.stringify(resource).replace('"ignoreTlog"', '"ignoreTLog"'),
    )
    expect(validate(misspelt)).toEqual([
      "/spec/rules/0/verifyImages/0/attestations/0/attestors/0/entries/0/keys/rekor must NOT have additional properties 'ignoreTLog'",
    ])
    const unknownAction: unknown = parse(JSON.stringify(resource).replace('"Enforce"', '"Refuse"'))
    expect(validate(unknownAction)).toEqual([
      '/spec/rules/0/verifyImages/0/failureAction must be equal to one of the allowed values',
    ])
  })

  test('asks for our provenance under the key, without a transparency log, and its condition reads the repository where our provenance has it', async () => {
    const { resource } = await policy('kyverno.io')
    const verify = at(resource, 'spec.rules') as Array<{ verifyImages: Schema[] }>
    const attestation = (verify[0]?.verifyImages[0]?.attestations as Schema[])[0] as Schema
    expect(attestation.type).toBe(PREDICATE_TYPES.provenance)
    expect(at(attestation, 'attestors')).toEqual([
      {
        entries: [
          {
            keys: {
              publicKeys: expect.stringMatching(
                /^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n?$/,
              ),
              rekor: { ignoreTlog: true },
              ctlog: { ignoreSCT: true },
            },
          },
        ],
      },
    ])
    const [condition] = (attestation.conditions as Array<{ all: Schema[] }>)[0]?.all ?? []
    const path = /^\{\{ (\S+) \}\}$/.exec(String(condition?.key))?.[1] ?? ''
    expect({ path, found: at(predicate, path) }).toEqual({
      path: 'buildDefinition.externalParameters.repository',
      found: REPOSITORY,
    })
    expect(condition?.operator).toBe('Equals')
  })
})

describe("policy-controller's ClusterImagePolicy in the provenance guide", () => {
  test('is valid against ClusterImagePolicy v1beta1 of policy-controller 0.15.1', async () => {
    const validate = await validator('policy-controller-clusterimagepolicy-v1beta1.schema.json')
    const { resource } = await policy('policy.sigstore.dev')
    expect(resource).toMatchObject({
      apiVersion: 'policy.sigstore.dev/v1beta1',
      kind: 'ClusterImagePolicy',
    })
    expect(validate(resource)).toEqual([])
    const misspelt: unknown = parse(
      JSON.stringify(resource).replace('"predicateType"', '"predicate-type"'),
    )
    expect(validate(misspelt)).toEqual([
      "/spec/authorities/0/attestations/0 must NOT have additional properties 'predicate-type'",
    ])
  })

  test('asks for our provenance under the key, with no transparency log, and its CUE policy reads the repository where our statement has it', async () => {
    const { resource } = await policy('policy.sigstore.dev')
    const [authority] = at(resource, 'spec.authorities') as Schema[]
    expect(Object.keys(authority ?? {}).sort()).toEqual(['attestations', 'key', 'name'])
    expect(at(authority, 'key.data')).toMatch(
      /^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n?$/,
    )
    const [attestation] = at(authority, 'attestations') as Schema[]
    expect(attestation?.predicateType).toBe(PREDICATE_TYPES.provenance)
    const cue = String(at(attestation, 'policy.data'))
    expect(cue).toContain(`predicateType: "${PREDICATE_TYPES.provenance}"`)
    // `predicate: buildDefinition: externalParameters: repository: "…"`: the statement's path.
    const line = /^predicate: (.+): "([^"]+)"$/m.exec(cue)
    const path = `predicate.${(line?.[1] ?? '').split(': ').join('.')}`
    const statement = { predicateType: PREDICATE_TYPES.provenance, predicate }
    expect({ path, found: at(statement, path) }).toEqual({
      path: 'predicate.buildDefinition.externalParameters.repository',
      found: REPOSITORY,
    })
  })
})
