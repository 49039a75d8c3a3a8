import { describe, expect, test } from '@jest/globals'
import { readFileSync } from 'node:fs'
import {
  appendedManifest,
  blobOf,
  dockerReference,
  readPayload,
  signatureLayer,
  signatureTag,
  simpleSigningPayload,
} from '../../../../src/core/signing/cosign-layout.js'
import { fixture } from '../../../helpers/run-action.js'

// Made by cosign 2.5.0 (see test/fixtures/cosign/README.md): what ours must equal byte for byte.
const COSIGN = {
  withAnnotation: readFileSync(fixture('cosign', 'payload-with-annotation.txt'), 'utf8'),
  plain: readFileSync(fixture('cosign', 'payload-plain.txt'), 'utf8'),
  twoKeys: readFileSync(fixture('cosign', 'two-keys.sig.txt'), 'utf8'),
}
const DIGEST = 'sha256:a5f96ef556e2f23265478af27e507d6dfda21eecb946744cae666b87ee72a75a'
const REPOSITORY = '127.0.0.1:15123/i23-sign/app'
const FIRST_SIGNATURE =
  'MEUCIEaIZSgBONuFfz2HJ8f0sBpvmMOkiMLoVx2qHyVNTqxNAiEA1w84HLY6LomY3x7IHR3dgKkvgho2MA/WlLWhMk9xlsI='
const SIGNATURE = 'dev.cosignproject.cosign/signature'

describe('the payload cosign signs', () => {
  test('with an annotation: byte for byte what cosign sign -a writes', () => {
    expect(
      simpleSigningPayload(REPOSITORY, DIGEST, {
        'io.olympe.deploy-actions.fingerprint': 'sha256:abc',
      }),
    ).toBe(COSIGN.withAnnotation)
  })

  test('without: optional is null, as Go writes an empty map of that struct', () => {
    expect(simpleSigningPayload(REPOSITORY, DIGEST)).toBe(COSIGN.plain)
  })

  test('annotations sorted by key, and the characters Go escapes escaped', () => {
    expect(simpleSigningPayload('r/a', DIGEST, { z: '1', a: '<&>' })).toBe(
      `{"critical":{"identity":{"docker-reference":"r/a"},"image":{"docker-manifest-digest":"${DIGEST}"},"type":"cosign container image signature"},"optional":{"a":"\\u003c\\u0026\\u003e","z":"1"}}`,
    )
  })

  test('the repository as go-containerregistry names it: Docker Hub as index.docker.io', () => {
    expect(dockerReference('docker.io', 'library/nginx')).toBe('index.docker.io/library/nginx')
    expect(dockerReference('ghcr.io', 'acme/shop/frontend')).toBe('ghcr.io/acme/shop/frontend')
  })

  test('read back: the digest claimed and the annotations', () => {
    expect(readPayload(COSIGN.withAnnotation)).toEqual({
      digest: DIGEST,
      optional: { 'io.olympe.deploy-actions.fingerprint': 'sha256:abc' },
    })
    expect(readPayload(COSIGN.plain)).toEqual({ digest: DIGEST, optional: {} })
    expect(readPayload('not json')).toEqual({ problem: 'its payload is not JSON' })
    expect(readPayload('{"critical":{}}')).toEqual({
      problem: 'its payload names no image digest',
    })
  })
})

describe('the .sig manifest', () => {
  test('its tag: the digest with a dash, then .sig', () => {
    expect(signatureTag(DIGEST)).toBe(
      'sha256-a5f96ef556e2f23265478af27e507d6dfda21eecb946744cae666b87ee72a75a.sig',
    )
  })

  test("one signature: cosign's manifest and configuration, byte for byte", () => {
    const payload = blobOf(COSIGN.withAnnotation)
    const built = appendedManifest(
      undefined,
      signatureLayer(payload, { [SIGNATURE]: FIRST_SIGNATURE }),
    )
    const cosignManifest = JSON.parse(COSIGN.twoKeys) as {
      config: { digest: string }
      layers: unknown[]
    }
    expect(payload).toEqual({
      digest: 'sha256:77027aaae9f91356903f6000fd36306ac4e05a744dedc3b414ecaae75f89e458',
      size: 293,
      text: COSIGN.withAnnotation,
    })
    // The manifest cosign wrote for its first signature, before the second was appended.
    expect(built.text).toBe(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: {
          mediaType: 'application/vnd.oci.image.config.v1+json',
          size: 233,
          digest: 'sha256:a2a1606096143f612763f0f3cc0fab0b4b5c37d10d1c6956c45c5f68ed1be815',
        },
        layers: [cosignManifest.layers[0]],
      }),
    )
    expect(built.config.text).toBe(
      `{"architecture":"","created":"0001-01-01T00:00:00Z","history":[{"created":"0001-01-01T00:00:00Z"}],"os":"","rootfs":{"type":"layers","diff_ids":["${payload.digest}"]},"config":{}}`,
    )
    expect(built.mediaType).toBe('application/vnd.oci.image.manifest.v1+json')
  })

  test("a second signature appended as cosign appends it: the first kept, cosign's manifest byte for byte", () => {
    const cosignManifest = JSON.parse(COSIGN.twoKeys) as {
      layers: Array<{ annotations: Record<string, string> }>
    }
    const first = appendedManifest(
      undefined,
      signatureLayer(blobOf(COSIGN.withAnnotation), { [SIGNATURE]: FIRST_SIGNATURE }),
    )
    const second = appendedManifest(
      JSON.parse(first.text) as Record<string, unknown>,
      signatureLayer(blobOf(COSIGN.plain), cosignManifest.layers[1]?.annotations ?? {}),
    )
    expect(second.text).toBe(COSIGN.twoKeys)
    expect(second.config.digest).toBe(
      'sha256:9b8a9a23b407818240b50075bbb8df4abaa10ac8b24e5c921c1d0163ff085a60',
    )
  })

  test('a Docker-typed manifest (COSIGN_DOCKER_MEDIA_TYPES) keeps its media types', () => {
    const docker = {
      schemaVersion: 2,
      mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
      config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: 1, digest: 'x' },
      layers: [],
    }
    const built = appendedManifest(
      docker,
      signatureLayer(blobOf(COSIGN.plain), { [SIGNATURE]: 'c2ln' }),
    )
    const parsed = JSON.parse(built.text) as { mediaType: string; config: { mediaType: string } }
    expect(parsed.mediaType).toBe('application/vnd.docker.distribution.manifest.v2+json')
    expect(parsed.config.mediaType).toBe('application/vnd.docker.container.image.v1+json')
    expect(built.mediaType).toBe('application/vnd.docker.distribution.manifest.v2+json')
  })
})
