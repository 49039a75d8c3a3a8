// A `docker` wrapper put first on PATH: it appends each command line to a log, then runs the
// real docker. Tests read the log to prove what ran (no `docker build` after a failed
// pre-flight) and to scan argv, which process lists show, for secrets.
import { chmod, readFile, writeFile } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { startOwning } from './cleanup.js'
import { run } from './run-process.js'

export interface DockerSpy {
  /** PATH with the wrapper first, for the environment of the process under test. */
  path: string
  /** Each docker command line run so far, arguments joined by spaces. */
  commands(): Promise<string[]>
  /** The docker subcommands run so far: `version`, `login`, `build`… */
  subcommands(): Promise<string[]>
  /** Forgets the commands logged so far, between two runs of one suite. */
  reset(): Promise<void>
  remove(): Promise<void>
}

export async function startDockerSpy(): Promise<DockerSpy> {
  const realDocker = (await run('sh', ['-c', 'command -v docker'])).stdout.trim()
  return startOwning(async (owned) => {
    const dir = await owned.tempDir('olympe-docker-spy-')
    const log = join(dir, 'commands.log')
    await writeFile(log, '')
    const script = [
      '#!/bin/sh',
      `printf '%s\\n' "$*" >> '${log}'`,
      `exec '${realDocker}' "$@"`,
      '',
    ].join('\n')
    await writeFile(join(dir, 'docker'), script)
    await chmod(join(dir, 'docker'), 0o755)
    const commands = async (): Promise<string[]> =>
      (await readFile(log, 'utf8')).split('\n').filter((line) => line !== '')
    return {
      path: `${dir}${delimiter}${process.env.PATH ?? ''}`,
      commands,
      subcommands: async () => (await commands()).map((line) => line.split(' ')[0] ?? ''),
      reset: () => writeFile(log, ''),
      remove: () => owned.run(),
    }
  })
}
