import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import {
  CREDENTIAL_INPUTS,
  type RegistryCredentials,
  type RegistryLogin,
} from '../../../../src/core/registry/credentials.js'
import {
  chooseLogins,
  credentialSource,
  inputsLogin,
  loginForImages,
  readDockerLogins,
  type LoginPorts,
} from '../../../../src/core/registry/logins.js'
import { registryImage, type RegistryImage } from '../../../../src/core/registry/reference.js'
import { InputError } from '../../../../src/core/shared/errors.js'
import type { Files } from '../../../../src/core/shared/ports.js'
import { isProblem } from '../../../../src/core/shared/problem.js'
import { memoryFiles } from '../../../helpers/memory-files.js'
import { recordingLogger } from '../../../helpers/recording.js'

const CONFIG = '/home/runner/.docker/config.json'
const DOCKER = `the Docker config ${CONFIG}`
const auth = (user: string, password: string): string =>
  Buffer.from(`${user}:${password}`).toString('base64')
const fromInputs = (username: string, password: string): RegistryCredentials => ({
  username,
  password,
  source: CREDENTIAL_INPUTS,
})
const fromDocker = (username: string, password: string): RegistryCredentials => ({
  username,
  password,
  source: DOCKER,
})

function image(reference: string): RegistryImage {
  const found = registryImage(reference)
  if (isProblem(found)) throw new Error(found.problem)
  return found
}

interface Seen {
  infos: string[]
  secrets: string[]
  reads: string[]
}

function ports(files: Files = memoryFiles({})): LoginPorts & Seen {
  const { logger, infos } = recordingLogger()
  const seen: Seen = { infos, secrets: [], reads: [] }
  return {
    ...seen,
    logger,
    registerSecret: (value) => seen.secrets.push(value),
    dockerConfigPath: CONFIG,
    files: {
      ...files,
      readText: (path) => {
        seen.reads.push(path)
        return files.readText(path)
      },
    },
  }
}

describe('chooseLogins: which login each registry is asked with', () => {
  const docker = new Map([
    ['a.example', fromDocker('docker-a', 'da')],
    ['b.example', fromDocker('docker-b', 'db')],
  ])

  test("the inputs' for their registry, the Docker config's for the others, else anonymous", () => {
    const chosen = chooseLogins(
      ['a.example', 'b.example', 'c.example'],
      { registry: 'a.example', credentials: fromInputs('ci', 'pw') },
      docker,
    )
    expect(Object.fromEntries(chosen)).toEqual({
      'a.example': fromInputs('ci', 'pw'),
      'b.example': fromDocker('docker-b', 'db'),
      'c.example': undefined,
    })
  })

  test('without inputs, only the Docker config; a login for no image registry is not chosen', () => {
    const chosen = chooseLogins(['b.example'], undefined, docker)
    expect(Object.fromEntries(chosen)).toEqual({ 'b.example': fromDocker('docker-b', 'db') })
  })

  test('property: a login is chosen only for the registry it was given for', () => {
    const host = fc.constantFrom('a.example', 'b.example', 'c.example', 'docker.io', 'ghcr.io')
    fc.assert(
      fc.property(
        fc.uniqueArray(host),
        fc.option(host, { nil: undefined }),
        fc.uniqueArray(host),
        (registries, inputsRegistry, dockerRegistries) => {
          const inputs =
            inputsRegistry === undefined
              ? undefined
              : { registry: inputsRegistry, credentials: fromInputs('ci', 'pw') }
          const logins = new Map(dockerRegistries.map((r) => [r, fromDocker(`u-${r}`, `p-${r}`)]))
          const chosen = chooseLogins(registries, inputs, logins)
          expect([...chosen.keys()]).toEqual(registries)
          for (const [registry, credentials] of chosen) {
            if (credentials === undefined) continue
            if (credentials.source === CREDENTIAL_INPUTS) expect(registry).toBe(inputsRegistry)
            else expect(credentials.username).toBe(`u-${registry}`)
          }
        },
      ),
    )
  })
})

describe("inputsLogin: the registry the inputs' login is for", () => {
  const login: RegistryLogin = { username: 'ci', password: 'pw' }

  test.each([
    ["'registry' when given", { ...login, registry: 'ghcr.io' }, ['r.example'], 'ghcr.io'],
    ["the images' one registry", login, ['r.example'], 'r.example'],
    ['none when no image can be asked', login, [], undefined],
  ])('%s', (_name, given, registries, expected) => {
    expect(inputsLogin(given, registries)?.registry).toBe(expected)
  })

  test('images in several registries and no `registry`: an InputError that says how to fix it', () => {
    let error: unknown
    try {
      inputsLogin(login, ['a.example', 'b.example'])
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).input).toBe('registry')
    expect((error as InputError).message).toBe(
      "Invalid input 'registry' '': it is empty, but 'registry-username' and 'registry-password' are given and the images are in 2 registries ('a.example', 'b.example'); set 'registry' to the one these credentials are for (such as 'a.example'), so that they are never sent to another.",
    )
    expect((error as InputError).message).not.toContain('pw')
  })
})

describe("readDockerLogins: the job's Docker config", () => {
  const unused = ': its logins are not used, and the registries are asked without them.'

  test('none there: no login and nothing to say', async () => {
    expect(await readDockerLogins(ports())).toEqual({ logins: new Map(), notes: [] })
  })

  test('the logins `docker login` wrote', async () => {
    const config = JSON.stringify({ auths: { 'r.example': { auth: auth('ci', 'pw') } } })
    const { logins, notes } = await readDockerLogins(ports(memoryFiles({ [CONFIG]: config })))
    expect(Object.fromEntries(logins)).toEqual({ 'r.example': fromDocker('ci', 'pw') })
    expect(notes).toEqual([])
  })

  test('a folder where the file should be', async () => {
    const files = memoryFiles({ [`${CONFIG}/x`]: '' })
    expect(await readDockerLogins(ports(files))).toEqual({
      logins: new Map(),
      notes: [`The Docker config ${CONFIG} is not a file${unused}`],
    })
  })

  test('a file that cannot be read: the reason', async () => {
    const files: Files = {
      ...memoryFiles({}),
      stat: () => Promise.resolve({ kind: 'file', size: 10 }),
      readText: () => Promise.reject(new Error(`EACCES: permission denied, open '${CONFIG}'`)),
    }
    expect(await readDockerLogins(ports(files))).toEqual({
      logins: new Map(),
      notes: [
        `The Docker config ${CONFIG} could not be read (EACCES: permission denied, open '${CONFIG}')${unused}`,
      ],
    })
  })
})

describe('credentialSource: the choice made, logged and masked', () => {
  const config = JSON.stringify({
    auths: {
      'b.example': { auth: auth('docker-b', 'db-secret') },
      'unused.example': { auth: auth('x', 'unused-secret') },
    },
  })

  test('each registry is said, and only the chosen passwords are registered as secrets', async () => {
    const seen = ports(memoryFiles({ [CONFIG]: config }))
    const images = ['a.example/app/web:1', 'b.example/app/api:1', 'c.example/app/cad:1'].map(image)
    const credentialsFor = await credentialSource(
      images,
      inputsLogin({ registry: 'a.example', username: 'ci', password: 'pw-secret' }, []),
      seen,
    )
    expect(images.map((target) => credentialsFor(target)?.username)).toEqual([
      'ci',
      'docker-b',
      undefined,
    ])
    expect(seen.infos).toEqual([
      `Registry 'a.example': asked with the login from ${CREDENTIAL_INPUTS}.`,
      `Registry 'b.example': asked with the login from ${DOCKER}.`,
      "Registry 'c.example': asked anonymously.",
    ])
    expect(seen.secrets).toEqual([
      'pw-secret',
      auth('ci', 'pw-secret'),
      'db-secret',
      auth('docker-b', 'db-secret'),
    ])
  })

  test("Docker Hub's aliases are one registry: a login for index.docker.io serves nginx", async () => {
    const hub = JSON.stringify({
      auths: { 'https://index.docker.io/v1/': { auth: auth('u', 'p') } },
    })
    const seen = ports(memoryFiles({ [CONFIG]: hub }))
    const credentialsFor = await credentialSource([image('nginx:1.27')], undefined, seen)
    expect(credentialsFor(image('docker.io/library/nginx:1.27'))?.username).toBe('u')
  })

  test('a login for a registry that holds none of the images is said to be unused', async () => {
    const seen = ports()
    await credentialSource(
      [image('r.example/app/web:1')],
      inputsLogin({ registry: 'ghcr.io', username: 'ci', password: 'pw' }, []),
      seen,
    )
    expect(seen.infos).toEqual([
      "Registry 'r.example': asked anonymously.",
      `No image is in 'ghcr.io', the registry ${CREDENTIAL_INPUTS} are for: they are not used.`,
    ])
    expect(seen.secrets).toEqual([])
  })
})

describe("loginForImages: the login's registry, decided in the check phase", () => {
  const login = { username: 'ci', password: 'pw' }

  test('an ambiguous login is refused: nothing to read or send decides it', () => {
    expect(() =>
      loginForImages(login, ['a.example', 'b.example'], ['a.example', 'b.example']),
    ).toThrow(InputError)
  })

  test('the image inputs name one registry: the login is for it', () => {
    expect(loginForImages(login, ['a.example', 'b.example'], ['a.example'])).toEqual({
      login: { registry: 'a.example', credentials: { ...login, source: CREDENTIAL_INPUTS } },
    })
  })

  test('no image input names a registry: not used, and a warning says to set registry', () => {
    const decided = loginForImages(login, ['from-file.example'], [])
    expect(decided.login).toBeUndefined()
    expect(decided.warning).toContain("Set 'registry' to the registry these credentials are for.")
  })

  test('no login: nothing to decide', () => {
    expect(loginForImages(undefined, ['a.example', 'b.example'], [])).toEqual({})
  })
})
