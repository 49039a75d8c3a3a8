#!/usr/bin/env node
// The command line runs the very bundle the GitHub action runs: `olympe-deploy <action> --flags`.
import { readFileSync } from 'node:fs'

const COMMANDS = ['deploy', 'build-images', 'snapshot']
const [command, ...rest] = process.argv.slice(2)
if (command === '--version') {
  // The version of the package this file was installed from, as `npx <package>@<version>` asked.
  const manifest = new URL('../package.json', import.meta.url)
  process.stdout.write(`${JSON.parse(readFileSync(manifest, 'utf8')).version}\n`)
  process.exit(0)
}
if (!COMMANDS.includes(command ?? '')) {
  const asked = command === undefined || command === '--help' || command === '-h'
  const stream = asked ? process.stdout : process.stderr
  // Not echoed: a mistyped `olympe-deploy $TOKEN` would print the token, and GitLab has no
  // run-time masking. The commands are few enough to spot the slip in the usage below.
  if (!asked) {
    stream.write(
      `Error: unknown command (not shown: it may be a secret). The first argument must be one of: ${COMMANDS.join(', ')}.\n`,
    )
  }
  stream.write(`Usage: olympe-deploy <${COMMANDS.join('|')}> [--<input> <value>]... [--help]\n`)
  stream.write('       olympe-deploy --version\n')
  process.exit(asked ? 0 : 1)
}
process.env.OLYMPE_DEPLOY_CLI = '1'
process.argv = [process.argv[0], process.argv[1], ...rest]
await import(new URL(`../dist/${command}/index.js`, import.meta.url).href)
